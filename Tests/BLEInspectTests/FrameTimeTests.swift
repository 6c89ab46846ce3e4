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

/// The frame time fields, as tshark 4.0 fills them.
private let timeFields = [
    "frame.time", "frame.time_relative", "frame.time_delta", "frame.time_delta_displayed", "frame.time_epoch",
]

/// One run to compare: a capture, tshark's options for it, and a display filter (or none) that
/// selects the same frames in bleinspect and in tshark.
struct TimeRun: CustomTestStringConvertible, Sendable {
    let path: String
    let tsharkOptions: [String]
    let filter: String?

    var testDescription: String {
        URL(fileURLWithPath: path).lastPathComponent + (filter.map { " -Y \($0)" } ?? "")
    }

    /// Every HCI and sniffer capture (the project's and the shared ones), each without a filter and
    /// with one: HCI events, or advertising PDUs, whose selection the agreement tests establish.
    static func all() -> [TimeRun] {
        let hci = hciCaptures().flatMap { path in
            [
                TimeRun(path: path, tsharkOptions: [], filter: nil),
                TimeRun(path: path, tsharkOptions: [], filter: "bthci_evt"),
            ]
        }
        let sniffer = SnifferCaptures.allPaths().flatMap { path in
            [nil, "btle.advertising_header"].map {
                TimeRun(path: path, tsharkOptions: SnifferCaptures.tsharkOptions, filter: $0)
            }
        }
        return hci + sniffer
    }

    /// The rows of `-T fields` output.
    static func rows(_ text: String) -> [[String]] {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }

    /// bleinspect's and tshark's `-T fields` rows of `fields` (tshark with `-E occurrence=a`),
    /// both run through `prefix` (`env TZ=…`, say) when given.
    func outputs(_ fields: [String], prefix: [String] = []) throws -> (ours: [[String]], theirs: [[String]]) {
        let filterArgs = filter.map { ["-Y", $0] } ?? []
        let fieldArgs = fields.flatMap { ["-e", $0] }
        let env = URL(fileURLWithPath: "/usr/bin/env")
        let tshark = try #require(Run.tshark)
        let ours = try Run.program(
            env,
            prefix + [TestPaths.bleinspectBinary.path, "read", "-T", "fields"] + fieldArgs + filterArgs + [path]
        )
        #expect(ours.status == 0, "\(ours.stderr)")
        let theirs = try Run.program(
            env,
            prefix + [tshark.path] + tsharkOptions + ["-r", path, "-T", "fields", "-E", "occurrence=a"] + fieldArgs
                + filterArgs
        )
        return (Self.rows(ours.stdoutText), Self.rows(theirs.stdoutText))
    }
}

@Suite("frame time fields agree with tshark", .enabled(if: Run.tshark != nil))
struct FrameTimeTsharkTests {
    /// Frame by frame, field by field: no difference is allowed. (Times tshark's readers cannot
    /// represent, before 1970 or past 2262, are not in any capture compared here; docs/DISSECTORS.md
    /// says what bleinspect shows for them.)
    @Test("frame.time, time_relative, time_delta, time_delta_displayed and time_epoch", arguments: TimeRun.all())
    func agree(run: TimeRun) throws {
        let fields = ["frame.number"] + timeFields
        let (ours, theirs) = try run.outputs(fields)
        try #require(ours.count == theirs.count, "frames shown: bleinspect \(ours.count), tshark \(theirs.count)")
        var differences: [String] = []
        for (mine, their) in zip(ours, theirs) where mine != their {
            for (i, field) in fields.enumerated() where mine[safe: i] != their[safe: i] {
                differences.append(
                    "frame \(their.first ?? "?") \(field): \(mine[safe: i] ?? "") vs \(their[safe: i] ?? "")"
                )
            }
        }
        #expect(differences.isEmpty, "\(differences.count) differences: \(differences.prefix(10))")
    }

    /// tshark shows `frame.time` in the local time zone: so does bleinspect, from `TZ` as tshark
    /// reads it. Zones east and west of UTC, with daylight saving time and half hours.
    @Test("frame.time follows TZ as tshark's does", arguments: ["EST5EDT,M3.2.0,M11.1.0", "IST-5:30", "UTC0"])
    func timeZone(tz: String) throws {
        let runs = TimeRun.all().filter { $0.filter == nil }.prefix(4)
        try #require(!runs.isEmpty)
        for run in runs {
            let (ours, theirs) = try run.outputs(["frame.time"], prefix: ["TZ=\(tz)"])
            #expect(ours == theirs, "\(run.testDescription) TZ=\(tz)")
            #expect(!ours.isEmpty)
        }
    }
}

extension Array where Element == String {
    fileprivate subscript(safe i: Int) -> String? { i < count ? self[i] : nil }
}

/// Timestamps that go backwards, in a capture made here: relative times are against the first
/// frame, deltas against the previous frame read, displayed deltas against the previous frame
/// that passed the filter; all may be negative.
@Suite("frame times out of order")
struct OutOfOrderTimeTests {
    /// Microseconds since the epoch of each frame: later, earlier, earlier still, a jump ahead,
    /// back again, the same instant twice.
    static let times: [Int64] = [
        1_700_000_000_500_000, 1_700_000_000_200_000, 1_699_999_999_900_000, 1_700_000_001_000_000,
        1_700_000_000_000_000, 1_700_000_000_000_000,
    ]

    /// Commands and events, alternating, so that `-Y bthci_cmd` shows every other frame.
    static func capture(in dir: TemporaryDirectory) -> String {
        let command: [UInt8] = [0x01, 0x03, 0x0C, 0x00]
        let event: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
        var bytes = CaptureBytes.btsnoopHeader(datalink: 1002)
        for (i, t) in times.enumerated() {
            bytes += CaptureBytes.btsnoopRecord(i % 2 == 0 ? command : event, flags: i % 2 == 0 ? 2 : 3, unixMicros: t)
        }
        return dir.write(bytes, to: "out-of-order.btsnoop")
    }

    /// Seconds with nine decimals, from microseconds: `-0.300000000`.
    static func seconds(micros: Int64) -> String {
        let sign = micros < 0 ? "-" : ""
        let m = micros.magnitude
        let fraction = String(m % 1_000_000)
        return "\(sign)\(m / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction + "000"
    }

    /// The values the rules give, worked out here from `times`, for the frames `shown`.
    static func expected(shown: [Int]) -> [[String]] {
        var previousShown: Int? = nil
        return shown.map { i in
            let t = times[i]
            let displayed = previousShown.map { t - times[$0] } ?? 0
            previousShown = i
            return [
                String(i + 1), seconds(micros: t - times[0]), seconds(micros: i == 0 ? 0 : t - times[i - 1]),
                seconds(micros: displayed), seconds(micros: t),
            ]
        }
    }

    static let fields = ["frame.number", "frame.time_relative", "frame.time_delta", "frame.time_delta_displayed"]

    @Test("negative deltas; displayed deltas skip the frames the filter rejects", arguments: [nil, "bthci_cmd"])
    func outOfOrder(filter: String?) throws {
        let dir = TemporaryDirectory()
        let path = Self.capture(in: dir)
        let fields = Self.fields + ["frame.time_epoch"]
        var args = ["read", "-T", "fields"] + fields.flatMap { ["-e", $0] }
        if let filter { args += ["-Y", filter] }
        let ours = try Run.bleinspect(args + [path])
        #expect(ours.status == 0, "\(ours.stderr)")
        let shown = Array(Self.times.indices).filter { filter == nil || $0 % 2 == 0 }
        #expect(TimeRun.rows(ours.stdoutText) == Self.expected(shown: shown))
        // tshark, where installed, reads the same capture the same way.
        if Run.tshark != nil {
            let run = TimeRun(path: path, tsharkOptions: [], filter: filter)
            let (mine, theirs) = try run.outputs(fields)
            #expect(mine == theirs)
        }
    }

    @Test("the engine's timeline: first, previous, previous displayed")
    func timeline() {
        var timeline = FrameTimeline()
        var shownBefore: Int64? = nil
        for (i, micros) in Self.times.enumerated() {
            let t = Timestamp(unixMicroseconds: micros)
            let times = timeline.next(t)
            #expect(times.relative == (micros - Self.times[0]) * 1000)
            #expect(times.delta == (i == 0 ? 0 : (micros - Self.times[i - 1]) * 1000))
            #expect(times.deltaDisplayed == (shownBefore.map { micros - $0 } ?? 0) * 1000)
            // Every third frame is not displayed.
            if i % 3 == 1 { timeline.lastNotDisplayed() } else { shownBefore = micros }
        }
    }
}

/// The same values in JSON (against tshark's `-T json`) and in the tree (`-V`), on a capture of
/// each format.
@Suite("frame time fields in JSON and the tree", .enabled(if: Run.tshark != nil && TestPaths.sharedCapturesAvailable))
struct FrameTimeOutputTests {
    /// One capture of each format and kind: btsnoop (µs), PacketLogger, pcapng (HCI), pcap and
    /// pcapng sniffer captures.
    static let captures = [
        "revcar_btsnoop_hci.log", "isap_hci_dump.pklg", "airbily_bluethoot_logs.pcapng",
        "sweyntooth_capture_stmicroelectronics_sequential_att_deadlock.pcap", "mhaberler_ble.pcapng",
    ]

    static func path(_ name: String) -> String { TestPaths.sharedCaptures.appendingPathComponent(name).path }

    @Test("JSON values are tshark's -T json values", arguments: captures)
    func json(name: String) throws {
        let tshark = try #require(Run.tshark)
        let theirs = try Run.program(
            tshark,
            SnifferCaptures.tsharkOptions + ["-r", Self.path(name), "-T", "json", "-j", "frame"]
        )
        let packets = try #require(try JSONSerialization.jsonObject(with: theirs.stdout) as? [[String: Any]])
        let ours = try Run.bleinspect(["read", "-T", "json", Self.path(name)])
        let lines = ours.stdoutText.split(separator: "\n")
        try #require(lines.count == packets.count)
        for (line, packet) in zip(lines, packets) {
            let mine = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let ourFrame = try #require(mine["frame"] as? [String: Any])
            let source = try #require(packet["_source"] as? [String: Any])
            let theirFrame = try #require((source["layers"] as? [String: Any])?["frame"] as? [String: Any])
            for field in timeFields {
                let a = ourFrame[field] as? String
                #expect(a != nil && a == theirFrame[field] as? String, "\(name) \(field)")
            }
        }
    }

    @Test("-V shows tshark's values, relative times with their unit", arguments: captures)
    func tree(name: String) throws {
        // In the tree's order, which is tshark's.
        let labels = [
            "Arrival Time: ", "Epoch Time: ", "Time delta from previous captured frame: ",
            "Time delta from previous displayed frame: ", "Time since reference or first frame: ",
        ]
        let units = ["", "", " seconds", " seconds", " seconds"]
        let fields = ["frame.time", "frame.time_epoch", "frame.time_delta", "frame.time_delta_displayed"]
        let run = TimeRun(path: Self.path(name), tsharkOptions: SnifferCaptures.tsharkOptions, filter: nil)
        let (_, theirs) = try run.outputs(fields + ["frame.time_relative"])
        let ours = try Run.bleinspect(["read", "-V", Self.path(name)])
        let shown = ours.stdoutText.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        var expected: [String] = []
        for row in theirs { for (i, label) in labels.enumerated() { expected.append(label + row[i] + units[i]) } }
        let found = shown.filter { line in labels.contains { line.hasPrefix($0) } }
        #expect(found == expected, "\(name)")
    }
}
