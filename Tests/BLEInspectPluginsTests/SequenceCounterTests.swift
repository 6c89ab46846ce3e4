import BLEInspectCore
import BLEInspectSession
import BLEInspectTestSupport
import Foundation
import Testing

@testable import BLEInspectPlugins

/// Sequence counters (`sequence:` on a plugin's integer field): the check on its own, on built
/// frames (notifications, writes, adverts), and on the recordings.
@Suite struct SequenceCounterTests {
    // MARK: The check

    @Test func nextValueWrapAndIssues() {
        func check(_ v: UInt64, _ p: UInt64, wrap: UInt64 = 256) -> SequenceCheck? {
            SequenceCheck.check(v, after: p, wrap: wrap)
        }
        #expect(check(6, 5) == nil)
        #expect(check(0, 255) == nil, "a wrap from the largest value to 0")
        #expect(check(7, 5) == SequenceCheck(issue: .gap, expected: 6, missing: 1))
        #expect(check(2, 254) == SequenceCheck(issue: .gap, expected: 255, missing: 3), "a gap across the wrap")
        #expect(check(5, 5) == SequenceCheck(issue: .repeated, expected: 6, missing: 0))
        #expect(check(3, 5) == SequenceCheck(issue: .stepBack, expected: 6, missing: 0))
        #expect(check(250, 3) == SequenceCheck(issue: .stepBack, expected: 4, missing: 0), "back across the wrap")
        #expect(check(0, 9, wrap: 10) == nil)
        #expect(check(1, 9, wrap: 10) == SequenceCheck(issue: .gap, expected: 0, missing: 1))
        #expect(check(0, UInt64.max, wrap: 0) == nil, "uint64 wraps at 2^64")
        #expect(check(10, 2, wrap: 0) == SequenceCheck(issue: .gap, expected: 3, missing: 7))
        #expect(check(1, 2, wrap: 0) == SequenceCheck(issue: .stepBack, expected: 3, missing: 0))
        #expect(
            SequenceCheck(issue: .gap, expected: 5, missing: 1).message(got: 6)
                == "Sequence gap: expected 5, got 6 (1 missing)"
        )
    }

    @Test func streamsFirstValueAndCap() {
        let streams = SequenceStreams()
        func key(_ n: UInt16) -> SequenceStreams.Key {
            SequenceStreams.Key(
                counter: FieldID(1),
                connection: .init(controller: 0, handle: n),
                advertiser: nil,
                target: .psm(0x81),
                cid: 0x40,
                direction: 1
            )
        }
        #expect(streams.observe(200, key: key(1), wrap: 256) == .fine, "the first value is never an issue")
        #expect(streams.observe(3, key: key(2), wrap: 256) == .fine, "another stream starts afresh")
        #expect(streams.observe(300, key: key(1), wrap: 256) == .outOfRange)
        #expect(streams.observe(202, key: key(1), wrap: 256) == .issue(.init(issue: .gap, expected: 201, missing: 1)))
        streams.connectionClosed(.init(controller: 0, handle: 1))
        #expect(streams.observe(7, key: key(1), wrap: 256) == .fine, "forgotten when the connection closed")
        for n in 3..<UInt16(PluginLimits.maximumSequenceStreams + 1) { _ = streams.observe(0, key: key(n), wrap: 256) }
        #expect(streams.observe(0, key: key(0xF000), wrap: 256) == .full)
    }

    // MARK: Compiling

    @Test func spellingsAndErrors() throws {
        func compile(_ field: String) -> Result<CompiledPlugin, PluginRejection> {
            PluginCompiler.compile(
                """
                plugin: counted
                characteristics:
                  - uuid: 0xFFF1
                    fields: [\(field)]
                """,
                file: "counted.yaml"
            )
        }
        let plain = try compile("{name: seq, type: uint16, sequence: true}").get()
        #expect(plain.counters.map(\.wrap) == [65536])
        let wrapped = try compile("{name: seq, type: uint8, sequence: {wrap: 100}}").get()
        #expect(wrapped.counters.map(\.wrap) == [100])
        #expect(try compile("{name: seq, type: uint64, sequence: true}").get().counters.map(\.wrap) == [0])
        #expect(try compile("{name: seq, type: uint8, sequence: false}").get().counters.isEmpty)
        for (bad, reason) in [
            ("{name: seq, type: int8, sequence: true}", "unsigned"),
            ("{name: seq, type: uint8, sequence: {wrap: 257}}", "out of range"),
            ("{name: seq, type: uint8, sequence: yes}", "true, false or {wrap: N}"),
            ("{name: seq, type: utf8, sequence: true}", "does not apply"),
            ("{name: seq, type: uint8, scale: 2, sequence: true}", "scaled"),
            ("{name: j, type: json, members: [{name: s, type: string, sequence: true}]}", "type: integer"),
        ] {
            guard case .failure(let rejection) = compile(bad) else {
                Issue.record("accepted: \(bad)")
                continue
            }
            #expect(rejection.diagnostics.contains { $0.message.contains(reason) }, "\(bad): \(rejection.diagnostics)")
        }
        // The counters' fields are `sequence.*` for every plugin: no plugin may take the name.
        let taken = PluginCompiler.compile(
            "plugin: sequence\ncharacteristics: [{uuid: 0xFFF1, name: X}]",
            file: "sequence.yaml",
            reservedNamespaces: Toolkit().reservedNamespaces
        )
        guard case .failure = taken else {
            Issue.record("a plugin took the namespace 'sequence'")
            return
        }
    }

    // MARK: Built frames

    static let profile = """
        plugin: counted
        characteristics:
          - uuid: 0xFFF1
            name: Counted
            fields:
              - {name: seq, type: uint8, sequence: true}
              - {name: rest, type: bytes}
        advertising:
          - manufacturer: 0xFFFF
            prefix: AC 02
            fields:
              - {name: adv_seq, type: uint16, sequence: {wrap: 1000}}
        """

    static func registry() throws -> DissectorRegistry {
        let plugin = try PluginCompiler.compile(profile, file: "counted.yaml").get()
        return try Toolkit().registry(plugins: PluginCatalog(plugins: [plugin]))
    }

    /// Frames are made with `DissectorStack.hci`; the registry is `registry()`'s.
    enum Frames: DissectorStack {
        static var modules: [any DissectorModule.Type] { [] }

        static func make(_ kind: FrameKind, _ bytes: [UInt8], sent: Bool, number: Int) -> CapturedFrame {
            let hex = bytes.map { String(format: "%02X", $0) }.joined(separator: " ")
            return hci(kind, hex, direction: sent ? .hostToController : .controllerToHost, number: number)
        }
    }

    /// An ATT PDU on connection 0x0040.
    static func acl(_ att: [UInt8], sent: Bool, number: Int) -> CapturedFrame {
        let l2cap = [UInt8(att.count), 0, 0x04, 0x00] + att
        return Frames.make(.aclData, [0x40, 0x20, UInt8(l2cap.count), 0] + l2cap, sent: sent, number: number)
    }

    static func dissect(_ frames: [CapturedFrame], _ registry: DissectorRegistry) -> [FrameSnapshot] {
        var engine = DissectionEngine(registry: registry)
        return frames.map { frame in
            engine.dissect(frame, wantsInfo: true) { FrameSnapshot(frame: frame, tree: $0, registry: registry) }
        }
    }

    static func experts(_ s: FrameSnapshot) -> [String] {
        s.values("_ws.expert").compactMap { if case .expert(_, let r) = $0 { s.text(r) } else { nil } }
    }

    /// Discovery names handle 0x0011 as characteristic 0xFFF1; then notifications, a read and
    /// writes carry the counter.
    @Test func notificationsReadsAndWrites() throws {
        let registry = try Self.registry()
        var frames = [
            Self.acl([0x08, 0x01, 0x00, 0xFF, 0xFF, 0x03, 0x28], sent: true, number: 1),
            Self.acl([0x09, 0x07, 0x10, 0x00, 0x10, 0x11, 0x00, 0xF1, 0xFF], sent: false, number: 2),
        ]
        // Notifications (received): 5 first, 6, 8 (gap), 8 (repeat), 3 (step back), 4, 255, 0.
        for (i, v) in [5, 6, 8, 8, 3, 4, 255, 0].enumerated() {
            frames.append(Self.acl([0x1B, 0x11, 0x00, UInt8(v), 0xAA], sent: false, number: 3 + i))
        }
        // A read of the same value continues the received stream: 2 after 0 is a gap.
        frames.append(Self.acl([0x0A, 0x11, 0x00], sent: true, number: 11))
        frames.append(Self.acl([0x0B, 2], sent: false, number: 12))
        // Writes (sent) are a stream of their own: 40 first, then 41, then 41 again.
        for (i, v) in [40, 41, 41].enumerated() {
            frames.append(Self.acl([0x52, 0x11, 0x00, UInt8(v)], sent: true, number: 13 + i))
        }
        let s = Self.dissect(frames, registry)
        #expect(s[2].uints("counted.seq") == [5], "the counter is decoded")
        let issues = s.map { $0.uints("sequence.issue") }
        let expected = s.map { $0.uints("sequence.expected") }
        let missing = s.map { $0.uints("sequence.missing") }
        // 4 → 255 is a step back; 255 → 0 a wrap.
        #expect(issues == [[], [], [], [], [1], [2], [3], [], [3], [], [], [1], [], [], [2]])
        #expect(expected == [[], [], [], [], [7], [9], [9], [], [5], [], [], [1], [], [], [42]])
        #expect(missing == [[], [], [], [], [1], [], [], [], [], [], [], [1], [], [], []])
        #expect(Self.experts(s[4]) == ["Sequence gap: expected 7, got 8 (1 missing)"])
        #expect(Self.experts(s[5]) == ["Sequence repeat: 8 again (expected 9)"])
        #expect(Self.experts(s[6]) == ["Sequence step back: expected 9, got 3"])
        // The fields sit under the counter's node, over its byte.
        let seq = try #require(registry.field(named: "counted.seq"))
        let issue = try #require(registry.field(named: "sequence.issue"))
        let nodes = s[4].nodes
        let at = try #require(nodes.firstIndex { $0.field == issue })
        #expect(nodes[at - 1].field == seq && nodes[at].depth == nodes[at - 1].depth + 1)
        #expect(nodes[at].range == nodes[at - 1].range)
        #expect(registry.descriptor(issue).valueNames?.lookup(3) == "Step back")
    }

    static func advert(_ address: UInt8, _ data: [UInt8], number: Int) -> CapturedFrame {
        let ad = [UInt8(data.count + 1), 0xFF] + data
        let report: [UInt8] =
            [0x02, 0x01, 0x00, 0x00, address, 0x22, 0x33, 0x44, 0x55, 0x66, UInt8(ad.count)] + ad + [0xC0]
        return Frames.make(.hciEvent, [0x3E, UInt8(report.count)] + report, sent: false, number: number)
    }

    /// Per advertiser; the same value again is not flagged (adverts repeat); wrap 1000.
    @Test func advertisers() throws {
        let registry = try Self.registry()
        let values: [(UInt8, UInt16)] = [(1, 998), (1, 998), (2, 5), (1, 999), (1, 0), (2, 9), (1, 1), (1, 0)]
        let frames = values.enumerated().map { i, v in
            Self.advert(v.0, [0xFF, 0xFF, 0xAC, 0x02, UInt8(v.1 & 0xFF), UInt8(v.1 >> 8)], number: i + 1)
        }
        let s = Self.dissect(frames, registry)
        #expect(s.map { $0.uints("counted.adv_seq") } == values.map { [UInt64($0.1)] })
        #expect(s.map { $0.uints("sequence.issue") } == [[], [], [], [], [], [1], [], [3]])
        #expect(Self.experts(s[5]) == ["Sequence gap: expected 6, got 9 (3 missing)"])
    }

    // MARK: Recordings

    /// Runs `body` with a temporary plugin file holding `text`.
    static func withVariant<T>(_ text: String, _ name: String, _ body: (String) throws -> T) throws -> T {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid()).yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        return try body(file.path)
    }

    /// chat.yaml's `seq` counts per sender, and each sender has a direction: no issue.
    @Test func chatIsGapFree() throws {
        let rows = try PluginPaths.fields(
            PluginPaths.profile("chat.yaml"),
            "chat-coc.btsnoop",
            filter: "chat.body.seq",
            ["chat.body.from", "chat.body.seq", "sequence.issue"]
        )
        #expect(rows.map { $0[0] } == ["alice", "bob", "alice", "alice", "bob"])
        #expect(rows.allSatisfy { $0[2].isEmpty }, "\(rows)")
    }

    /// A variant that knows only the delimiter (the padding then starts each next message, as
    /// JSON whitespace) and drops messages over 1000 bytes loses alice's second one: her stream
    /// goes 1, 3, a gap where her third message arrives.
    @Test func chatVariantWithALostMessage() throws {
        let text = try String(contentsOfFile: PluginPaths.profile("chat.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "      chunk: 1024\n      padding: \" \"\n", with: "      max_message: 1000\n")
        #expect(text.contains("max_message: 1000"))
        let rows = try Self.withVariant(text, "chat-lossy") { file in
            try PluginPaths.fields(
                file,
                "chat-coc.btsnoop",
                filter: "sequence.issue",
                [
                    "chat.body.from", "chat.body.seq", "sequence.issue", "sequence.expected", "sequence.missing",
                    "_ws.expert.message",
                ]
            )
        }
        #expect(rows.count == 1, "\(rows)")
        #expect(rows.first.map { Array($0[0..<5]) } == ["alice", "3", "1", "2", "1"])
        #expect(rows.first?[5].contains("Sequence gap: expected 2, got 3 (1 missing)") == true)
    }

    /// An unframed channel (le-coc, PSM 0x0085): each SDU's text starts "C>P SDU 1 len 200 |";
    /// the hundreds digit of the length, read as a counter, runs 2, 3, 5 one way (a gap) and
    /// 2, 4, 4 the other (a gap, then a repeat), as the sidecar's SDUs say.
    @Test func unframedChannelPerDirection() throws {
        let profile = """
            plugin: lecoc
            l2cap:
              - psm: 0x0085
                fields:
                  - {name: head, type: bytes, length: 14}
                  - {name: hundreds, type: uint8, sequence: true}
                  - {name: rest, type: bytes}
            """
        let rows = try Self.withVariant(profile, "lecoc") { file in
            try PluginPaths.fields(
                file,
                "le-coc.btsnoop",
                filter: "lecoc",
                ["frame.direction", "lecoc.hundreds", "sequence.issue", "sequence.expected", "sequence.missing"]
            )
        }
        let sdus = try #require(try PluginPaths.json("le-coc.sdus.json") as? [[String: Any]])
        // The sidecar lists one direction's SDUs, then the other's; the capture interleaves them.
        for sentByCentral in [true, false] {
            let digits = sdus.filter { ($0["direction"] as? String == "central->peripheral") == sentByCentral }
                .map { Array(($0["hex"] as? String ?? "").utf8)[28...29] }
                .map { UInt8(String(decoding: $0, as: UTF8.self), radix: 16) ?? 0 }
            let side = rows.filter { ($0[0] == "1") == sentByCentral }
            #expect(side.map { $0[1] } == digits.map { "\($0)" })
        }
        #expect(
            rows.map { Array($0[1...]) } == [
                ["50", "", "", ""], ["51", "", "", ""], ["53", "1", "52", "1"],
                ["50", "", "", ""], ["52", "1", "51", "1"], ["52", "2", "53", ""],
            ]
        )
    }

    /// sensor.yaml's measurement flags read as a counter (which they are not): the read and the
    /// notifications are one stream, each value checked against the sidecar's.
    @Test func sensorVariantFlagsAsCounter() throws {
        let text = try String(contentsOfFile: PluginPaths.profile("sensor.yaml"), encoding: .utf8)
            .replacingOccurrences(
                of: "  measurement:\n    - name: flags\n      type: uint8\n      bits:",
                with: "  measurement:\n    - name: flags\n      type: uint8\n      sequence: true\n      xbits:"
            )
        let cut = text.replacingOccurrences(
            of: #"(?s)      xbits:.*?(\n    - \{name: temperature)"#,
            with: "$1",
            options: .regularExpression
        ).replacingOccurrences(of: ", if: flags.battery_present", with: "")
        let rows = try Self.withVariant(cut, "sensor-counted") { file in
            try PluginPaths.fields(
                file,
                "sensor-gatt.btsnoop",
                filter: "envsense.flags",
                ["frame.number", "envsense.flags", "sequence.issue", "sequence.expected"]
            )
        }
        // The sidecar's measurements (read and notifications of handle 16), in order.
        let expected = try #require(try PluginPaths.json("sensor-gatt.expected.json") as? [[String: Any]])
        let measured = expected.filter { $0["handle"] as? Int == 16 }
        #expect(rows.map { $0[0] } == measured.map { "\($0["frame"] as? Int ?? -1)" })
        var previous: Int? = nil
        for (row, m) in zip(rows, measured) {
            let flags = m["flags"] as? Int ?? -1
            #expect(row[1] == "\(flags)")
            // What the sidecar's values say, worked out by hand: the next value, the same
            // again, further on (within half the range) or back.
            let want: String
            if let p = previous {
                let forward = (flags - p + 256) % 256
                want = forward == 1 ? "" : forward == 0 ? "2" : forward <= 128 ? "1" : "3"
                #expect(row[3] == (want.isEmpty ? "" : "\((p + 1) % 256)"), "frame \(row[0])")
            } else {
                want = ""
            }
            #expect(row[2] == want, "frame \(row[0])")
            previous = flags
        }
        #expect(rows.contains { !$0[2].isEmpty }, "the variant finds issues")
    }
}
