import BLEInspectCore
import BLEInspectTestSupport
import Foundation
import Testing

/// `follow` on a channel a plugin frames: the messages, checked against what the recording
/// script sent (captures/chat-coc.messages.json); `--text` trimming padding; sequence counters'
/// issues on items.
@Suite struct FollowMessageTests {
    static let capture = TestPaths.projectCapture("chat-coc.btsnoop")
    static let chat = TestPaths.repositoryRoot.appendingPathComponent("profiles/chat.yaml").path

    struct Sent {
        let json: String
        let fromCentral: Bool
        let chunks: Int
    }

    static func sent() throws -> [Sent] {
        let url = TestPaths.projectCaptures.appendingPathComponent("chat-coc.messages.json")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
        return try list.map {
            Sent(
                json: try #require($0["json"] as? String),
                fromCentral: try #require($0["direction"] as? String) == "central->peripheral",
                chunks: try #require($0["chunks"] as? Int)
            )
        }
    }

    static func follow(_ arguments: [String]) throws -> ProcessResult {
        let result = try Run.bleinspect(["follow", "--no-default-plugins"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return result
    }

    static func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex, let j = hex.index(i, offsetBy: 2, limitedBy: hex.endIndex) {
            out.append(UInt8(hex[i..<j], radix: 16) ?? 0)
            i = j
        }
        return out
    }

    @Test("--json with the chat profile: each message once, as the script sent it, with its span")
    func jsonMessagesMatchTheScript() throws {
        let sent = try Self.sent()
        let items = try Self.objects(
            try Self.follow(["--psm", "0x0081", "--plugin", Self.chat, "--json", Self.capture]).stdoutText
        )
        #expect(items.count == sent.count)
        for (item, s) in zip(items, sent) {
            #expect(item["kind"] as? String == "message")
            #expect(item["plugin"] as? String == "chat" && item["binding"] as? String == "Chat")
            #expect(String(decoding: Self.bytes(item["hex"] as? String ?? ""), as: UTF8.self) == s.json)
            #expect(item["length"] as? Int == s.json.utf8.count)
            #expect(item["from"] as? String == (s.fromCentral ? "central" : "peripheral"))
            let sdus = item["sdus"] as? [Int] ?? []
            #expect(sdus.count == 2 && sdus[1] - sdus[0] + 1 == s.chunks, "\(sdus) for \(s.chunks) chunks")
            #expect(item["sdu"] as? Int == sdus.last)
            #expect(item["sequence"] == nil, "chat.yaml's counters have no issue")
        }
    }

    @Test("--text with the chat profile: the message text, no EOF, no padding; without it, the SDU trimmed")
    func textMessagesAndTrimmedSDUs() throws {
        let sent = try Self.sent()
        let framed = try Self.follow(["--psm", "0x0081", "--plugin", Self.chat, "--text", Self.capture]).stdoutText
        let lines = framed.split(separator: "\n").map(String.init)
        let headings = lines.filter { $0.hasPrefix("#") }
        let bodies = lines.filter { $0.hasPrefix("    ") }.map { String($0.dropFirst(4)) }
        #expect(bodies == sent.map { TerminalSafeText.escape($0.json) })
        // Messages are numbered in their channel and direction.
        var counts: [Bool: Int] = [:]
        for (heading, s) in zip(headings, sent) {
            counts[s.fromCentral, default: 0] += 1
            #expect(heading.contains("Chat message \(counts[s.fromCentral] ?? 0) (plugin chat)"), "\(heading)")
        }
        #expect(headings[2].contains("SDUs 2–3, frames #"), "\(headings[2])")
        #expect(!framed.contains("trimmed"))

        // Without the profile, every SDU (a chunk) ends in "EOF" and spaces to 1024 bytes; a
        // message of two chunks is two SDUs, the first not padded.
        let raw = try Self.follow(["--psm", "0x0081", "--text", Self.capture]).stdoutText
        let sdus = raw.split(separator: "\n").filter { $0.hasPrefix("    ") }.map { String($0.dropFirst(4)) }
        #expect(sdus.count == sent.reduce(0) { $0 + $1.chunks })
        var k = 0
        for s in sent {
            k += s.chunks - 1
            guard k < sdus.count else { break }
            let padding = 1024 * s.chunks - s.json.utf8.count - 3
            let tail = s.chunks == 1 ? TerminalSafeText.escape(s.json) : ""
            #expect(sdus[k].hasPrefix(tail) && sdus[k].hasSuffix("EOF … (+\(padding) bytes of padding trimmed)"))
            k += 1
        }
    }

    @Test("--raw keeps the SDUs' bytes with the profile; the hex dump shows the messages")
    func rawKeepsSDUs() throws {
        let dir = FileManager.default.temporaryDirectory
        let plain = dir.appendingPathComponent("follow-plain-\(getpid()).bin")
        let framed = dir.appendingPathComponent("follow-framed-\(getpid()).bin")
        defer {
            try? FileManager.default.removeItem(at: plain)
            try? FileManager.default.removeItem(at: framed)
        }
        _ = try Self.follow(["--psm", "0x0081", "--raw", plain.path, Self.capture])
        _ = try Self.follow(["--psm", "0x0081", "--plugin", Self.chat, "--raw", framed.path, Self.capture])
        let a = try Data(contentsOf: plain)
        let b = try Data(contentsOf: framed)
        #expect(a.count == 1024 * 6 && a == b)
        let dump = try Self.follow(["--psm", "0x0081", "--plugin", Self.chat, Self.capture]).stdoutText
        let sizes = dump.split(separator: "\n").filter { $0.hasPrefix("#") }.map {
            $0.split(separator: " ").suffix(2).first
        }
        #expect(sizes.map { $0.map(String.init) } == (try Self.sent()).map { "\($0.json.utf8.count)" })
    }

    @Test("a sequence gap shows on the followed message, in the heading and in JSON")
    func sequenceGapOnAMessage() throws {
        // The chat profile knowing only the delimiter and messages up to 1000 bytes: alice's
        // long second message is dropped, so her third shows a gap.
        let text = try String(contentsOfFile: Self.chat, encoding: .utf8)
            .replacingOccurrences(of: "      chunk: 1024\n      padding: \" \"\n", with: "      max_message: 1000\n")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("chat-lossy-follow-\(getpid()).yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let headings = try Self.follow(["--psm", "0x0081", "--plugin", file.path, "--text", Self.capture]).stdoutText
            .split(separator: "\n").filter { $0.hasPrefix("#") }
        let flagged = headings.filter { $0.contains("sequence") }
        #expect(flagged.count == 1)
        #expect(flagged.first?.hasPrefix("#342 ") == true)
        #expect(flagged.first?.contains("sequence gap: expected 2, got 3 (1 missing)") == true)
        let items = try Self.objects(
            try Self.follow(["--psm", "0x0081", "--plugin", file.path, "--json", Self.capture]).stdoutText
        )
        let withSequence = items.filter { $0["sequence"] != nil }
        #expect(withSequence.map { $0["frame"] as? Int } == [342])
        let q = withSequence.first?["sequence"] as? [String: Any]
        #expect(q?["issue"] as? String == "gap" && q?["expected"] as? Int == 2)
        #expect(q?["got"] as? Int == 3 && q?["missing"] as? Int == 1)
    }

    @Test("a sequence issue shows on a followed attribute value: sensor.yaml with its battery as a counter")
    func sequenceOnValues() throws {
        let sensor = TestPaths.repositoryRoot.appendingPathComponent("profiles/sensor.yaml").path
        let text = try String(contentsOfFile: sensor, encoding: .utf8).replacingOccurrences(
            of: "if: flags.battery_present}",
            with: "if: flags.battery_present, sequence: true}"
        )
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sensor-battery-\(getpid()).yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let capture = TestPaths.projectCapture("sensor-gatt.btsnoop")
        let items = try Self.objects(
            try Self.follow(["--att", "0x0010", "--plugin", file.path, "--json", capture]).stdoutText
        )
        // The sidecar's battery levels, in order (null where the flags say there is none): each
        // after the first is compared with the one before it.
        let url = TestPaths.projectCaptures.appendingPathComponent("sensor-gatt.expected.json")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
        let measured = list.filter { $0["handle"] as? Int == 16 }
        #expect(items.map { $0["frame"] as? Int } == measured.map { $0["frame"] as? Int })
        var previous: Int? = nil
        var flagged = 0
        for (item, m) in zip(items, measured) {
            let q = item["sequence"] as? [String: Any]
            guard let battery = m["battery"] as? Int else {
                #expect(q == nil)
                continue
            }
            if let p = previous, battery != p + 1 {
                let issue = battery == p ? "repeat" : battery > p ? "gap" : "step back"
                #expect(q?["issue"] as? String == issue, "frame \(m["frame"] ?? "")")
                #expect(q?["expected"] as? Int == p + 1 && q?["got"] as? Int == battery)
                flagged += 1
            } else {
                #expect(q == nil)
            }
            previous = battery
        }
        #expect(flagged > 0)
    }
}
