import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import BLEInspectViews
import Foundation
import Testing

/// The shared SweynTooth captures (none when the shared captures are absent).
private let sweynToothCaptures = ManifestEntry.all().filter { $0.name.hasPrefix("sweyntooth_") }

/// The SweynTooth attack captures (nRF Sniffer, link type 272): link-layer PDUs built to crash
/// controllers, with bad lengths, truncated L2CAP, invalid fragments and invalid control PDUs.
/// bleinspect must read them without crashing or hanging, and mark malformed at least the frames
/// tshark marks malformed.
@Suite("SweynTooth captures", .enabled(if: !sweynToothCaptures.isEmpty))
struct SweynToothTests {
    /// How long one `bleinspect read` of one of these captures (at most 121 KB) may take, debug build.
    static let timeLimit: TimeInterval = 30

    /// tshark's Error severity in `-T fields` output.
    static let tsharkError = "8388608"
    /// bleinspect's Error severity (`_ws.expert.severity`).
    static let ourError = "3"

    @Test("read as text and as JSON exits cleanly, in time", arguments: sweynToothCaptures)
    func survives(entry: ManifestEntry) throws {
        for format in [["-T", "text"], ["-T", "json"]] {
            let run = try BoundedRun.bleinspect(["read"] + format + [entry.url.path], seconds: Self.timeLimit)
            let what = "\(entry.name) \(format.joined(separator: " "))"
            try #require(!run.timedOut, "\(what): still running after \(Int(Self.timeLimit)) s")
            try #require(!run.signalled, "\(what): killed by signal \(run.status): \(run.stderr)")
            let allowed = [ExitStatus.success.rawValue, ExitStatus.damagedInput.rawValue]
            #expect(allowed.contains(run.status), "\(what): exit status \(run.status): \(run.stderr)")
            if run.status == ExitStatus.damagedInput.rawValue {
                #expect(!run.stderr.isEmpty, "\(what): damaged input reported without a message")
                continue
            }
            let lines = run.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.count == entry.packetCount, "\(what): \(lines.count) lines for \(entry.packetCount) frames")
            if format.last == "json" {
                let bad = lines.enumerated().first { _, line in
                    ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]) == nil
                }
                #expect(bad == nil, "\(what): line \((bad?.offset ?? 0) + 1) is not a JSON object")
            }
        }
    }

    /// Why tshark flags a frame: malformed in a layer, or an Error-severity expert note.
    enum Verdict: Hashable, CustomStringConvertible {
        case malformed(layer: String)
        case error(message: String)

        var description: String {
            switch self {
            case .malformed(let layer): "malformed \(layer)"
            case .error(let message): "error \"\(message)\""
            }
        }
    }

    /// A tshark verdict that bleinspect need not share, with the reason.
    struct Exception: Sendable {
        let reason: String
        let applies: @Sendable (Verdict) -> Bool
    }

    static let exceptions: [Exception] = [
        Exception(
            reason: """
                tshark tracks LL control procedures across frames and flags a control PDU that arrives out of \
                sequence or in the wrong direction (SweynTooth sends them on purpose). The PDU's bytes decode \
                fine: it is an analysis verdict, not damage, and bleinspect's malformed marker is for damage.
                """,
            applies: { $0 == .error(message: "Incorrect control procedure packet sequencing or direction") }
        ),
        Exception(
            reason: """
                tshark decodes the value of characteristic 0x2A22 (Boot Keyboard Input Report) as a USB HID boot \
                report and throws on a value shorter than one (telink_zero_ltk_installation 365, a 4-byte Read \
                Response). bleinspect has no HID report decoder: the value is bytes, not malformed.
                """,
            applies: {
                if case .malformed(let layer) = $0 { return layer.contains("USBHID") }
                return false
            }
        ),
    ]

    @Test(
        "frames tshark marks malformed or in error are marked by bleinspect",
        .enabled(if: Run.tshark != nil),
        arguments: sweynToothCaptures
    )
    func malformedSubset(entry: ManifestEntry) throws {
        let path = entry.url.path
        // tshark: "|" between occurrences, as messages contain commas.
        let theirRows = try SnifferCaptures.tsharkFields(
            path,
            ["frame.number", "_ws.malformed", "_ws.expert.severity", "_ws.expert.message"],
            aggregator: "|"
        )
        var verdicts: [Int: Set<Verdict>] = [:]
        for row in theirRows where row.count >= 4 {
            guard let number = Int(row[0]) else { continue }
            var set: Set<Verdict> = []
            if !row[1].isEmpty {
                // "[Malformed Packet: BT LE LL]|_ws.malformed": the first occurrence names the layer.
                set.insert(.malformed(layer: String(row[1].split(separator: "|").first ?? "")))
            }
            let severities = row[2].split(separator: "|", omittingEmptySubsequences: false)
            let messages = row[3].split(separator: "|", omittingEmptySubsequences: false)
            for (severity, message) in zip(severities, messages)
            where severity == Self.tsharkError && !message.hasPrefix("Malformed Packet") {
                set.insert(.error(message: String(message)))
            }
            if !set.isEmpty { verdicts[number] = set }
        }

        let ours = try Run.bleinspect([
            "read", "-T", "fields", "-e", "frame.number", "-e", "_ws.malformed", "-e", "_ws.expert.severity", path,
        ])
        try #require(ours.status == 0, "\(entry.name): bleinspect exited with \(ours.status): \(ours.stderr)")
        var ourMalformed: Set<Int> = []
        var ourErrors: Set<Int> = []
        for row in SnifferCaptures.rows(ours.stdoutText) where row.count >= 3 {
            guard let number = Int(row[0]) else { continue }
            if !row[1].isEmpty { ourMalformed.insert(number) }
            if row[2].split(separator: ",").contains(Substring(Self.ourError)) { ourErrors.insert(number) }
        }

        var problems: [String] = []
        for (number, set) in verdicts.sorted(by: { $0.key < $1.key }) {
            for verdict in set.sorted(by: { $0.description < $1.description }) {
                // tshark's malformed needs our malformed marker; its other errors, our marker or an error.
                let marked: Bool
                switch verdict {
                case .malformed: marked = ourMalformed.contains(number)
                case .error: marked = ourMalformed.contains(number) || ourErrors.contains(number)
                }
                if marked { continue }
                if !Self.exceptions.contains(where: { $0.applies(verdict) }) {
                    problems.append("  frame \(number): tshark \(verdict); bleinspect does not mark it")
                }
            }
        }
        let shown = problems.prefix(25).joined(separator: "\n")
        let more = problems.count > 25 ? "\n  … \(problems.count - 25) more" : ""
        let unmarked = problems.count
        #expect(unmarked == 0, "\(entry.name): frames tshark flags that bleinspect does not mark:\n\(shown)\(more)")
    }
}

/// Runs the built bleinspect with a time limit, telling a crash (a signal) from an exit status.
enum BoundedRun {
    struct Outcome {
        /// The exit status, or the signal's number when `signalled`.
        var status: Int32
        var stdout: Data
        var stderr: String
        var timedOut: Bool
        /// Ended by a signal (a crash, or the time limit's SIGTERM).
        var signalled: Bool
        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    static func bleinspect(_ arguments: [String], seconds: TimeInterval) throws -> Outcome {
        let scratch = TemporaryDirectory()
        let outPath = scratch.write([], to: "stdout")
        let errPath = scratch.write([], to: "stderr")
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        defer {
            try? out.close()
            try? err.close()
        }
        let process = Process()
        process.executableURL = TestPaths.bleinspectBinary
        process.arguments = arguments
        // Files, not pipes: nothing has to be drained while waiting for the time limit.
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        var timedOut = false
        if done.wait(timeout: .now() + seconds) == .timedOut {
            timedOut = true
            process.terminate()
            done.wait()
        }
        // Through `scratch`, which so lives (and keeps its files) until they are read.
        let stdout = (try? Data(contentsOf: URL(fileURLWithPath: scratch.path("stdout")))) ?? Data()
        let stderr = (try? String(contentsOfFile: scratch.path("stderr"), encoding: .utf8)) ?? ""
        return Outcome(
            status: process.terminationStatus,
            stdout: stdout,
            stderr: stderr,
            timedOut: timedOut,
            signalled: process.terminationReason == .uncaughtSignal
        )
    }
}
