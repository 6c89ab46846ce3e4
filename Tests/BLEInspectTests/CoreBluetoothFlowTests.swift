import BLEInspectTestSupport
import Foundation
import Testing

/// The CoreBluetooth app flows recorded with Bumble (scripts/record_corebluetooth.py), read as
/// users read them, against what the recording script re-derived from the bytes on its own
/// (`captures/cb-*.expected.json`).
@Suite("CoreBluetooth flows")
struct CoreBluetoothFlowTests {
    static func oracle(_ name: String) throws -> [String: Any] {
        let url = URL(fileURLWithPath: TestPaths.projectCapture(name + ".expected.json"))
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    static func int(_ v: Any?) -> Int? { (v as? NSNumber)?.intValue }

    static func run(_ arguments: [String]) throws -> String {
        let result = try Run.bleinspect(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result.stdoutText
    }

    /// `conns --json`'s whole document.
    static func conns(_ capture: String) throws -> [String: Any] {
        let result = try Run.bleinspect(["conns", "--json", TestPaths.projectCapture(capture + ".btsnoop")])
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }

    /// The encodings as the recording script names them, and as `gatt.l2cap_psm.encoding`.
    static let encodings = [
        "uint16 little-endian": 1, "uint16 big-endian": 2, "ASCII decimal": 3, "JSON": 5,
    ]

    @Test(
        "every published PSM is decoded in its encoding, with no malformed frame",
        arguments: ["cb-chat", "cb-dual-role", "cb-dual-role-shared"]
    )
    func psmEncodings(_ capture: String) throws {
        let oracle = try Self.oracle(capture)
        let single = oracle["psm_read"] as? [String: Any]
        let reads = (oracle["psm_reads"] as? [[String: Any]]) ?? [single].compactMap { $0 }
        let path = TestPaths.projectCapture(capture + ".btsnoop")
        let fields = try Self.run([
            "read", "-T", "fields", "-e", "frame.number", "-e", "gatt.l2cap_psm", "-e", "gatt.l2cap_psm.encoding",
            "-Y", "gatt.l2cap_psm", path,
        ])
        let rows = fields.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        #expect(rows.count == reads.count)
        for read in reads {
            let frame = try #require(Self.int(read["response_frame"]))
            let row = try #require(rows.first { $0.first.map(String.init) == "\(frame)" }, "frame \(frame)")
            let psm = try #require(Self.int(read["psm"]))
            #expect(row[1] == "0x" + String(format: "%04x", psm))
            let encoding = try #require(read["encoding"] as? String)
            #expect(row[2] == "\(try #require(Self.encodings[encoding]))")
        }
        #expect(try Self.run(["read", "--count", "-Y", "_ws.malformed", path]) == "0\n")
    }

    @Test("the JSON PSM read names its encoding and links to its channel both ways, in text and JSON")
    func chatReadAndChannel() throws {
        let oracle = try Self.oracle("cb-chat")
        let read = try #require(oracle["psm_read"] as? [String: Any])
        let channel = try #require(oracle["channel"] as? [String: Any])
        let readFrame = try #require(Self.int(read["response_frame"]))
        let requestFrame = try #require(Self.int(channel["request_frame"]))
        let openFrame = try #require(Self.int(channel["response_frame"]))
        let path = TestPaths.projectCapture("cb-chat.btsnoop")

        let lines = try Self.run(["read", path]).split(separator: "\n")
        let readLine = try #require(lines.first { $0.hasPrefix(String(format: "%7d ", readFrame)) })
        #expect(readLine.contains("L2CAP PSM: 0x0081 (JSON \"psm\")"))
        #expect(!readLine.contains("Malformed"))
        let requestLine = try #require(lines.first { $0.hasPrefix(String(format: "%7d ", requestFrame)) })
        #expect(requestLine.contains("PSM read in #\(readFrame)"))
        // One pass cannot know the channel yet; -2 (two passes) names it on the read.
        #expect(!readLine.contains("channel requested"))
        let twoPass = try Self.run(["read", "-2", "-Y", "frame.number == \(readFrame)", path])
        #expect(twoPass.contains("L2CAP PSM: 0x0081 (JSON \"psm\"), channel requested in #\(requestFrame)"))
        let field = try Self.run([
            "read", "-2", "-T", "fields", "-e", "gatt.l2cap_psm.channel_in", "-Y", "gatt.l2cap_psm", path,
        ])
        #expect(field == "\(requestFrame)\n")

        let text = try Self.run(["conns", path])
        #expect(
            text.contains(
                "0x0081 (JSON), read from the peer in frame \(readFrame) → channel 1 on connection 1 (frame \(openFrame))"
            )
        )
        #expect(text.contains("opened by the local host"))
        #expect(text.contains("(frame \(openFrame)), PSM read in frame \(readFrame)"))

        let connection = try #require((try Self.conns("cb-chat")["connections"] as? [[String: Any]])?.first)
        let publication = try #require((connection["psm_publications"] as? [[String: Any]])?.first)
        #expect(Self.int(publication["frame"]) == readFrame)
        #expect(Self.int(publication["psm"]) == 0x81)
        #expect(publication["encoding"] as? String == "JSON")
        #expect(publication["published_by"] as? String == "peer")
        let linked = try #require((publication["channels"] as? [[String: Any]])?.first)
        #expect(Self.int(linked["opened_frame"]) == openFrame)
        let opened = try #require((connection["channels"] as? [[String: Any]])?.first)
        #expect(Self.int(opened["psm_published_in_frame"]) == readFrame)
        #expect(opened["psm_published_via"] as? String == "read")
    }

    @Test("the dual-role pattern on two links: both channels, who sends where, the credits that stopped")
    func dualRoleTwoLinks() throws {
        let oracle = try Self.oracle("cb-dual-role")
        let channels = try #require(oracle["channels"] as? [[String: Any]])
        let zero = try #require(oracle["b_credits_zero_on_link1"] as? [String: Any])
        let document = try Self.conns("cb-dual-role")
        let findings = try #require(document["findings"] as? [[String: Any]])
        #expect(findings.count == 1)
        let finding = try #require(findings.first)
        #expect(finding["kind"] as? String == "dual_role_channels")
        #expect(finding["one_way_each"] as? Bool == true)
        let ours = try #require(finding["channels"] as? [[String: Any]])
        #expect(ours.count == 2)
        for (expected, found) in zip(channels, ours) {
            #expect(Self.int(found["handle"]) == Self.int(expected["link"]))
            #expect(Self.int(found["psm"]) == Self.int(expected["psm"]))
            #expect(found["opened_by"] as? String == (expected["opened_by"] as? String == "A" ? "local" : "peer"))
            #expect(Self.int(found["opened_frame"]) == Self.int(expected["response_frame"]))
            // Each side sends only on the channel the other opened.
            #expect(found["sender"] as? String == (expected["opened_by"] as? String == "A" ? "peer" : "local"))
        }
        let starved = try #require(ours.first?["credits_stopped"] as? [String: Any])
        #expect(starved["starved"] as? String == "peer")
        #expect(Self.int(starved["since_frame"]) == Self.int(zero["frame"]))
        #expect(ours.last?["credits_stopped"] is NSNull)

        let text = try Self.run(["conns", TestPaths.projectCapture("cb-dual-role.btsnoop")])
        #expect(
            text.contains("Findings:\n  dual-role channels: channel 1 on connection 1 and channel 2 on connection 2")
        )
        #expect(
            text.contains(
                "the local host stopped returning credits: the peer has been at 0 credits since frame \(Self.int(zero["frame"]) ?? 0)"
            )
        )
        #expect(text.contains("each side sends only on the channel the other opened"))

        let second = try #require(Self.int(channels.last?["response_frame"]))
        let line = try Self.run([
            "read", "-Y", "frame.number == \(second)", TestPaths.projectCapture("cb-dual-role.btsnoop"),
        ])
        #expect(
            line.contains(
                "dual-role channels: this and channel 1 (#\(Self.int(channels.first?["request_frame"]) ?? 0))"
            )
        )
    }

    @Test("the dual-role pattern on one shared link, with one channel idle")
    func dualRoleSharedLink() throws {
        let oracle = try Self.oracle("cb-dual-role-shared")
        let idle = try #require(oracle["idle_channel"] as? [String: Any])
        let finding = try #require((try Self.conns("cb-dual-role-shared")["findings"] as? [[String: Any]])?.first)
        #expect(finding["only_one_used"] as? Bool == true)
        #expect(finding["one_way_each"] as? Bool == false)
        let ours = try #require(finding["channels"] as? [[String: Any]])
        #expect(Set(ours.compactMap { Self.int($0["connection"]) }) == [1])
        let unused = try #require(ours.first { $0["sender"] is NSNull })
        #expect(Self.int(unused["psm"]) == Self.int(idle["psm"]))
        #expect(unused["opened_by"] as? String == "peer")
        let text = try Self.run(["conns", TestPaths.projectCapture("cb-dual-role-shared.btsnoop")])
        #expect(text.contains("both channels are open, but only one is used"))
    }

    @Test("captures without the pattern have no finding", arguments: ["le-coc", "cb-chat", "le-coc-stall"])
    func noFalseFinding(_ capture: String) throws {
        #expect((try Self.conns(capture)["findings"] as? [Any])?.isEmpty == true)
    }

    @Test("the text-chat profile gives each message's text, in the frame where it completes")
    func chatProfile() throws {
        let messages = try #require(try Self.oracle("cb-chat")["messages"] as? [[String: Any]])
        let output = try Self.run([
            "read", "--plugin",
            TestPaths.repositoryRoot.appendingPathComponent("profiles/corebluetooth/chat.yaml").path,
            "-T", "json", "-Y", "textchat.text", TestPaths.projectCapture("cb-chat.btsnoop"),
        ])
        var found: [(Int, String)] = []
        for line in output.split(separator: "\n") {
            let frame = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let number = try #require(Self.int((frame["frame"] as? [String: Any])?["frame.number"]))
            let layer = try #require((frame["layers"] as? [String: Any])?["textchat"])
            let text = try #require(Self.strings(layer, key: "textchat.text").first)
            found.append((number, text))
        }
        #expect(found.map(\.0) == messages.compactMap { Self.int($0["frame"]) })
        #expect(found.map(\.1) == messages.compactMap { $0["text"] as? String })
    }

    @Test("the dropped notification is flagged once, at the frame where the count jumps, in read, conns and follow")
    func droppedNotification() throws {
        let gap = try #require(try Self.oracle("cb-sequence")["gap"] as? [String: Any])
        let frame = try #require(Self.int(gap["at_frame"]))
        let expected = try #require(Self.int(gap["expected"]))
        let got = try #require(Self.int(gap["got"]))
        let profile = TestPaths.repositoryRoot.appendingPathComponent("profiles/corebluetooth/sequence.yaml").path
        let path = TestPaths.projectCapture("cb-sequence.btsnoop")
        let flagged = try Self.run([
            "read", "--plugin", profile, "-T", "fields", "-e", "frame.number", "-e", "sequence.expected", "-e",
            "sequence.missing", "-e", "_ws.expert.message", "-Y", "sequence.issue", path,
        ])
        #expect(
            flagged
                == "\(frame)\t\(expected)\t\(got - expected)\tSequence gap: expected \(expected), got \(got) (1 missing)\n"
        )

        let conns = try Run.bleinspect(["conns", "--json", "--plugin", profile, path])
        let top = try #require(try JSONSerialization.jsonObject(with: conns.stdout) as? [String: Any])
        let connection = try #require((top["connections"] as? [[String: Any]])?.first)
        let issues = try #require(connection["sequence_issues"] as? [String: Any])
        #expect(Self.int(issues["gaps"]) == 1)
        #expect(Self.int(issues["repeats"]) == 0)
        #expect(Self.int(issues["steps_back"]) == 0)
        #expect(((issues["issues"] as? [[String: Any]])?.compactMap { Self.int($0["frame"]) }) == [frame])

        let follow = try Self.run([
            "follow", "--att", "uuid:5E900001-6C1A-4B2D-9E3F-8A7B6C5D4E3F", "--json", "--plugin", profile, path,
        ])
        let items = try follow.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let notifications = try #require(try Self.oracle("cb-sequence")["notifications"] as? [[String: Any]])
        #expect(items.compactMap { Self.int($0["frame"]) } == notifications.compactMap { Self.int($0["frame"]) })
        #expect(items.filter { $0["sequence"] != nil }.compactMap { Self.int($0["frame"]) } == [frame])
    }

    /// Every string under `key` anywhere in a JSON value.
    static func strings(_ value: Any, key: String) -> [String] {
        if let d = value as? [String: Any] {
            return d.flatMap { k, v in k == key ? [v as? String].compactMap { $0 } : strings(v, key: key) }
        }
        if let a = value as? [Any] { return a.flatMap { strings($0, key: key) } }
        return []
    }
}
