import BLECaptureIO
import BLEInspectCore
import BLEInspectFuzz
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import BLEInspectViews
import Foundation
import Testing

/// The inputs checked in under Tests/Fixtures/fuzz/TARGET/: every crash or hang the fuzzers
/// found (docs/ROBUSTNESS.md), run again through the same target. A trap would end the test
/// process, so getting past `run` is the assertion; each also has its own expectation below.
private func regressionInputs() -> [String] {
    let root = TestPaths.repositoryRoot.appendingPathComponent("Tests/Fixtures/fuzz").path
    var out: [String] = []
    for target in FuzzTarget.allCases {
        let folder = root + "/" + target.rawValue
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        out += names.sorted().filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.map { folder + "/" + $0 }
    }
    return out
}

/// Serialized: the targets reuse one scratch file and one set of renderers, as libFuzzer runs
/// them, one input at a time.
@Suite("fuzz targets", .serialized)
struct FuzzTargetTests {
    @Test("every checked-in fuzz input runs through its target without a crash", arguments: regressionInputs())
    func regression(path: String) throws {
        let target = try #require(
            FuzzTarget(rawValue: URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent)
        )
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let started = Date()
        target.run(bytes)
        // A hang found by the fuzzer (its -timeout is 10 s under AddressSanitizer) must now be quick.
        #expect(Date().timeIntervalSince(started) < 10, "\(path) took too long")
    }

    @Test("the pipeline target's filters all compile, and its built frames decode without a malformed mark")
    func pipelineIsWhole() throws {
        #expect(PipelineTarget.shared.compiledFilters == PipelineTarget.filterTexts.count)
        let frames = BuiltFrames.frames
        let trees = Dissect.frames(frames)
        #expect(trees.count == frames.count)
        for (i, tree) in trees.enumerated() {
            if case .linkLayer = frames[i].kind { continue }
            #expect(!tree.has("_ws.malformed"), "built frame \(i + 1) is malformed: \(tree.info)")
        }
        // The LE credit-based channel the built frames open carries the SDU that follows.
        #expect(trees.contains { $0.uints("btl2cap.le_sdu_length") == [4] })
        #expect(trees.contains { $0.uints("btatt.opcode") == [0x11] })
        #expect(trees.contains { $0.uints("btsmp.opcode") == [0x01] })
    }

    @Test("pipeline inputs encode and decode frames unchanged")
    func pipelineCodec() {
        let frames = BuiltFrames.frames
        let encoded = PipelineInput.encode(frames)
        let decoded = encoded.withUnsafeBytes { PipelineInput.frames($0) }
        #expect(decoded.map(\.kind) == frames.map(\.kind))
        #expect(decoded.map(\.bytes) == frames.map(\.bytes))
        #expect(decoded.map(\.direction) == frames.map(\.direction))
        #expect(decoded.map(\.timestamp) == frames.map(\.timestamp))
    }

    @Test("sweep variants are deterministic, cut and changed")
    func sweepVariants() {
        let original = [UInt8](repeating: 0x41, count: 4096)
        let sweep = Sweep()
        let a = sweep.variant(of: original, name: "x.btsnoop", number: 7)
        #expect(a == sweep.variant(of: original, name: "x.btsnoop", number: 7))
        #expect(a != sweep.variant(of: original, name: "y.btsnoop", number: 7))
        let variants = (0..<200).map { sweep.variant(of: original, name: "x.btsnoop", number: $0) }
        #expect(variants.allSatisfy { !$0.isEmpty && $0.count <= original.count })
        #expect(variants.filter { $0.count < original.count }.count > 150)
        #expect(variants.filter { $0 != Array(original.prefix($0.count)) }.count > 150)
    }

    /// The full sweep (1,000 variants of every shared capture) runs in CI through the fuzz build
    /// (`.ci/run`); this runs a few variants of each in the test build.
    @Test(
        "a few cut and corrupted variants of every capture decode without a crash",
        .enabled(if: TestPaths.sharedCapturesAvailable)
    )
    func sweepSample() throws {
        var sweep = Sweep()
        sweep.variants = 3
        let paths =
            ManifestEntry.all().map(\.url.path)
            + TestPaths.projectCaptureFiles(extensions: ["btsnoop", "pklg", "pcap", "pcapng"]).map(\.path)
        let totals = try #require(sweep.run(paths) { _ in })
        #expect(totals.variants == 3 * paths.count)
        #expect(totals.frames > 0)
    }
}
