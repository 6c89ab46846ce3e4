import BLECapture
import BLECaptureIO
@_spi(Feeding) import BLEInspectCore
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import BLEInspectViews
import Foundation
import Testing

/// Every capture there is: the project's own and, when present, every shared one.
private func allCaptures() -> [String] {
    var paths = TestPaths.projectCaptureFiles(extensions: ["btsnoop", "pklg", "pcap", "pcapng"]).map(\.path)
    if TestPaths.sharedCapturesAvailable { paths += ManifestEntry.all().map(\.url.path) }
    return paths
}

@Suite("no crashes")
struct RobustnessTests {
    @Test("every frame of every capture renders as a tree, a hex dump and JSON", arguments: allCaptures())
    func renderEverything(path: String) throws {
        for mode in [["-V", "-x"], ["-T", "json"]] {
            let result = try Run.bleinspect(["read"] + mode + [path])
            #expect(result.status == 0, "\(mode) \(path): exit \(result.status) \(result.stderr.prefix(300))")
        }
    }

    /// Random bytes through every binding of every table, with each kind of frame around them.
    /// A trap would end the test process, so this passing means none of them traps.
    @Test("random bytes into every dissector binding never trap; errors become malformed notes")
    func randomBytesIntoEveryBinding() {
        let registry = Dissect.registry()
        var rng = SplitMix64(seed: 0x5EED)
        var malformed = 0
        var runs = 0
        for (table, info) in registry.tables.sorted(by: { $0.key.name < $1.key.name }) {
            for key in info.bindings.keys.sorted(by: { ($0.high, $0.low) < ($1.high, $1.low) }) {
                for length in [0, 1, 2, 3, 4, 5, 7, 8, 16, 23, 31, 64, 255] {
                    let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
                    let frame = Dissect.hci(.aclData, "", direction: .controllerToHost)
                    var ctx = DissectionContext(
                        registry: registry,
                        state: CaptureState(),
                        tree: ProtocolTree(),
                        frame: frame,
                        wantsInfo: true
                    )
                    ctx.packet.connection = ConnectionKey(controller: 0, handle: 0x40)
                    ctx.packet.cid = 0x0040
                    var reader = ByteReader(bytes)
                    ctx.feed(table, key, &reader)
                    runs += 1
                    if ctx.tree.nodes.contains(where: { $0.field == registry.core[.malformed] }) { malformed += 1 }
                    #expect(ctx.tree.depth == 0, "\(table) \(key): tree depth left at \(ctx.tree.depth)")
                }
            }
        }
        #expect(runs > 1000)
        #expect(malformed > 0)
    }
}
