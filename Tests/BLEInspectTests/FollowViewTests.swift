import BLECaptureIO
import BLEInspectCore
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import BLEInspectViews
import Foundation
import Testing

/// `bleinspect follow`, run as users run it, against what scripts/record_captures.py sent.
@Suite("follow view")
struct FollowViewTests {
    /// One SDU or value as the recording script sent it.
    struct Sent: Equatable, CustomStringConvertible {
        var direction: String  // "sent" or "received", as seen by the capturing host
        var hex: String
        var description: String { "\(direction) \(hex.prefix(24))… (\(hex.count / 2) bytes)" }
    }

    /// The SDUs the script sent over the channel, in send order. The captures are the central's
    /// host: central->peripheral is "sent".
    static func oracle(_ name: String, key: String?) throws -> [Sent] {
        let data = try Data(contentsOf: URL(fileURLWithPath: TestPaths.projectCapture(name)))
        let top = try JSONSerialization.jsonObject(with: data)
        let value: Any? = if let key { (top as? [String: Any])?[key] } else { top }
        let list = try #require(value as? [[String: Any]])
        return try list.map { entry in
            let direction = try #require(entry["direction"] as? String)
            #expect(direction == "central->peripheral" || direction == "peripheral->central")
            return Sent(
                direction: direction == "central->peripheral" ? "sent" : "received",
                hex: try #require(entry["hex"] as? String)
            )
        }
    }

    static let sduOracles: [(capture: String, oracle: String, key: String?)] = [
        ("le-coc.btsnoop", "le-coc.sdus.json", nil),
        ("le-coc-stall.btsnoop", "le-coc-stall.stalls.json", "sdus"),
    ]

    /// The items `follow --json` prints for `arguments`, one object a line.
    static func items(_ arguments: [String]) throws -> (items: [[String: Any]], status: Int32, stderr: String) {
        let result = try Run.bleinspect(["follow", "--json"] + arguments)
        let lines = result.stdoutText.split(separator: "\n")
        let items = try lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        return (items, result.status, result.stderr)
    }

    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = hex.startIndex
        while let j = hex.index(i, offsetBy: 2, limitedBy: hex.endIndex), i < hex.endIndex {
            out.append(UInt8(hex[i..<j], radix: 16) ?? 0)
            i = j
        }
        return out
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("--raw, one direction at a time: the SDUs the script sent, byte for byte", arguments: sduOracles)
    func rawMatchesTheScript(_ capture: String, _ oracleName: String, _ key: String?) throws {
        let expected = try Self.oracle(oracleName, key: key)
        let dir = TemporaryDirectory()
        for direction in ["sent", "received"] {
            let out = dir.path("\(direction).bin")
            let result = try Run.bleinspect([
                "follow", "--psm", "0x0085", "--direction", direction, "--raw", out,
                TestPaths.projectCapture(capture),
            ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
            let wanted = expected.filter { $0.direction == direction }.flatMap { Self.bytes($0.hex) }
            #expect(written == wanted, "\(capture) \(direction): \(written.count) bytes, wanted \(wanted.count)")
        }
        // Both directions: the SDUs concatenated in capture order.
        let both = dir.path("both.bin")
        let result = try Run.bleinspect(["follow", "--psm", "133", "--raw", both, TestPaths.projectCapture(capture)])
        #expect(result.status == 0)
        let inOrder = try Self.items(["--psm", "133", TestPaths.projectCapture(capture)]).items
        let concatenated = inOrder.flatMap { Self.bytes($0["hex"] as? String ?? "") }
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: both))) == concatenated)
    }

    @Test("--json: each SDU in order, with its direction, roles, channel, frame and time", arguments: sduOracles)
    func jsonItemsMatchOneByOne(_ capture: String, _ oracleName: String, _ key: String?) throws {
        let expected = try Self.oracle(oracleName, key: key)
        let (items, status, stderr) = try Self.items(["--psm", "0x0085", TestPaths.projectCapture(capture)])
        #expect(status == 0, "\(stderr)")
        let got = items.map { Sent(direction: $0["direction"] as? String ?? "?", hex: $0["hex"] as? String ?? "") }
        // In each direction, the SDUs come in the order they were sent.
        for direction in ["sent", "received"] {
            #expect(got.filter { $0.direction == direction } == expected.filter { $0.direction == direction })
        }
        #expect(got.count == expected.count)
        var previousFrame = 0
        for item in items {
            #expect(item["_schema"] as? String == "bleinspect.follow/1")
            #expect(item["kind"] as? String == "sdu")
            #expect(item["channel"] as? Int == 1)
            #expect(item["psm"] as? Int == 0x85)
            #expect(item["connection"] as? Int == 1)
            #expect(item["length"] as? Int == (item["hex"] as? String ?? "").count / 2)
            let sent = item["direction"] as? String == "sent"
            #expect(item["sender"] as? String == (sent ? "local" : "peer"))
            #expect(item["from"] as? String == (sent ? "central" : "peripheral"))
            #expect(item["to"] as? String == (sent ? "peripheral" : "central"))
            let frame = item["frame"] as? Int ?? 0
            #expect(frame > previousFrame)
            previousFrame = frame
            #expect((item["time_epoch"] as? String)?.hasPrefix("17356896") == true)
        }
        // SDUs are numbered per direction from 1.
        #expect(items.filter { $0["direction"] as? String == "sent" }.map { $0["sdu"] as? Int ?? 0 }.first == 1)
    }

    /// The items of `follow`'s default hex dump, parsed back: each heading and its bytes.
    static func parseHexDump(_ text: String) -> [(heading: String, bytes: [UInt8])] {
        var items: [(heading: String, bytes: [UInt8])] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("#") {
                items.append((String(line), []))
            } else if line.hasPrefix("    "), !items.isEmpty {
                // "    0000  43 3e …  ASCII": 16 three-column bytes and one extra space.
                let columns = line.dropFirst(10).prefix(49)
                items[items.count - 1].bytes += columns.split(separator: " ").compactMap { UInt8($0, radix: 16) }
            }
        }
        return items
    }

    @Test("the default hex dump and --text show the same SDUs, headed by frame, direction and channel")
    func hexDumpAndText() throws {
        let path = TestPaths.projectCapture("le-coc.btsnoop")
        let expected = try Self.oracle("le-coc.sdus.json", key: nil)
        let dump = try Run.bleinspect(["follow", "--psm", "0x0085", path])
        #expect(dump.status == 0)
        let items = Self.parseHexDump(dump.stdoutText)
        try #require(items.count == expected.count)
        for (item, sent) in zip(items, expected) {
            let direction = sent.direction == "sent" ? "sent, central → peripheral" : "received, peripheral → central"
            #expect(item.heading.contains("  \(direction)  connection 0x0001  channel 1  PSM 0x0085  CID 0x0040"))
            #expect(Self.hex(item.bytes) == sent.hex)
        }
        #expect(items.first?.heading.hasPrefix("#59  2025-01-01 00:00:00.") == true)
        #expect(
            dump.stdoutText.contains("    0000  43 3e 50 20 53 44 55 20  31 20 6c 65 6e 20 32 30  C>P SDU 1 len 20\n")
        )

        let text = try Run.bleinspect(["follow", "--psm", "0x0085", "--text", path])
        #expect(text.status == 0)
        let lines = text.stdoutText.split(separator: "\n").map(String.init)
        let bodies = lines.filter { $0.hasPrefix("    ") }
        #expect(bodies.count == expected.count)
        // Printable bytes as they are; a backslash, DEL, and bytes that are not UTF-8 escaped.
        #expect(bodies.first?.hasPrefix(#"    C>P SDU 1 len 200 |PQRSTUVWXYZ[\\]^_`abc"#) == true)
        #expect(bodies.first?.contains(#"{|}~\x7F\x80\x81"#) == true)
        #expect(text.stdout.allSatisfy { $0 >= 0x20 || $0 == 0x0A })
    }

    /// le-coc.btsnoop with the peripheral's endpoint moved to CID 0x0041: the connection
    /// response's DCID, the central's K-frames and the peripheral's credit packets.
    static func distinctCIDs() throws -> [UInt8] {
        var b = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestPaths.projectCapture("le-coc.btsnoop"))))
        var at = 16
        func be32(_ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
        while at + 24 <= b.count {
            let included = be32(at + 4)
            let received = b[at + 11] & 1 == 1
            let p = at + 24
            at = p + included
            // An HCI ACL packet that starts an L2CAP PDU: H4 type, handle and flags, length, L2CAP header.
            guard at <= b.count, included >= 15, b[p] == 0x02, (b[p + 2] >> 4) & 3 != 1 else { continue }
            let cid = Int(b[p + 7]) | Int(b[p + 8]) << 8
            if !received && cid == 0x40 {
                b[p + 7] = 0x41
            } else if received && cid == 5 && (b[p + 9] == 0x15 || b[p + 9] == 0x16) && b[p + 13] == 0x40 {
                b[p + 13] = 0x41
            }
        }
        return b
    }

    @Test("--psm and --l2cap HANDLE:CID, with the local or the peer CID, give the same SDUs")
    func selectorsAgree() throws {
        let path = TestPaths.projectCapture("le-coc.btsnoop")
        let reference = try Self.items(["--psm", "0x0085", path]).items.map { $0["hex"] as? String ?? "" }
        #expect(reference.count == 6)
        for arguments in [["--psm", "133"], ["--l2cap", "0x0001:0x0040"], ["--l2cap", "1:64"]] {
            let (items, status, _) = try Self.items(arguments + [path])
            #expect(status == 0)
            #expect(items.map { $0["hex"] as? String ?? "" } == reference, "\(arguments)")
        }

        let dir = TemporaryDirectory()
        let moved = dir.write(try Self.distinctCIDs(), to: "distinct-cids.btsnoop")
        let endpoints = try Run.bleinspect([
            "read", "-T", "fields", "-e", "coc.local_cid", "-e", "coc.peer_cid", "-Y", "coc.local_cid", "-c", "50",
            moved,
        ])
        #expect(endpoints.stdoutText.hasPrefix("0x0040\t0x0041\n"), "\(endpoints.stdoutText)")
        for arguments in [["--psm", "0x85"], ["--l2cap", "1:0x0040"], ["--l2cap", "1:0x0041"]] {
            let (items, status, stderr) = try Self.items(arguments + [moved])
            #expect(status == 0, "\(stderr)")
            #expect(items.map { $0["hex"] as? String ?? "" } == reference, "\(arguments)")
            // A K-frame carries its receiver's CID: the peer's when sent, the local one's when received.
            for item in items {
                #expect(item["cid"] as? Int == (item["direction"] as? String == "sent" ? 0x41 : 0x40))
            }
        }
        // One direction: the channel and the roles are still learned from the other one.
        let sentOnly = try Self.items(["--l2cap", "1:0x0040", "--direction", "sent", moved]).items
        #expect(sentOnly.map { $0["hex"] as? String ?? "" } == Array(reference.prefix(3)))
        #expect(sentOnly.allSatisfy { $0["from"] as? String == "central" && $0["to"] as? String == "peripheral" })
        #expect(try Self.items(["--l2cap", "1:0x0042", moved]).items.isEmpty)
        #expect(try Self.items(["--l2cap", "2:0x0040", moved]).items.isEmpty)
        #expect(try Self.items(["--psm", "0x0081", moved]).items.isEmpty)
        // Without any signalling among the frames taken in, a K-frame sent to the peer CID
        // identifies the channel, and it is followed both ways from there.
        let hidden = try Self.items(["-Y", "btl2cap.cid != 5", "--l2cap", "1:0x0041", moved])
        #expect(hidden.items.map { $0["hex"] as? String ?? "" } == reference)
    }

    @Test("--att 0x0010: Battery Level read (87), then notified 86, 85, 84; --att 2A19 gives the same")
    func batteryLevel() throws {
        let path = TestPaths.projectCapture("gatt-discovery.btsnoop")
        let (items, status, stderr) = try Self.items(["--att", "0x0010", path])
        #expect(status == 0, "\(stderr)")
        #expect(items.map { $0["kind"] as? String ?? "" } == ["read", "notification", "notification", "notification"])
        #expect(items.map { $0["hex"] as? String ?? "" } == ["57", "56", "55", "54"])
        #expect(items.map { $0["frame"] as? Int ?? 0 } == [88, 95, 96, 97])
        for item in items {
            #expect(item["handle"] as? Int == 0x10)
            #expect(item["uuid"] as? String == "0x2a19")
            #expect(item["direction"] as? String == "received")
            #expect(item["from"] as? String == "peripheral")
            #expect(item["to"] as? String == "central")
        }
        for other in ["2A19", "0x10", "16", "uuid:0x2a19", "handle:16", "00002a19-0000-1000-8000-00805f9b34fb"] {
            let again = try Self.items(["--att", other, path])
            #expect(again.status == 0)
            #expect(again.items.map { $0["hex"] as? String ?? "" } == ["57", "56", "55", "54"], "--att \(other)")
        }
        let text = try Run.bleinspect(["follow", "--att", "2A19", path]).stdoutText
        #expect(
            text.contains(
                "received, peripheral → central  connection 0x0001  read  handle 0x0010 (0x2A19 Battery Level)  1 byte\n"
                    + "    0000  57 "
            ),
            "\(text)"
        )
        // The client's write of the CCCD, sent by the central.
        let cccd = try Self.items(["--att", "2902", path]).items
        #expect(cccd.map { $0["kind"] as? String ?? "" } == ["write"])
        #expect(cccd.first?["hex"] as? String == "0100")
        #expect(cccd.first?["direction"] as? String == "sent")
        #expect(cccd.first?["from"] as? String == "central")
        // Nothing the central sent to the Battery Level value.
        let none = try Run.bleinspect(["follow", "--att", "0x0010", "--direction", "sent", path])
        #expect(none.status == 0)
        #expect(none.stdoutText == "No values of handle 0x0010 in the frames read.\n")
    }

    @Test("gatt-database: for every attribute, follow's items agree with gatt's counts and last value")
    func agreesWithGATT() throws {
        let path = TestPaths.projectCapture("gatt-database.btsnoop")
        let json = try GATTViewTests.gattJSON([path]).json
        let device = try #require(GATTViewTests.devices(json).first)
        let attributes = GATTDatabaseTests.flatten(device).values.filter { $0["reads"] is Int }
        #expect(attributes.count > 10)
        var used = 0
        for a in attributes {
            let handle = try #require(a["handle"] as? Int)
            let items = try Self.items(["--att", "handle:\(handle)", path]).items
            // A Read Blob at an offset continues a value: gatt counts the read once.
            let counted = items.filter { !($0["kind"] as? String == "read" && $0["offset"] as? Int != 0) }
            for (kind, count) in [
                ("read", "reads"), ("write", "writes"), ("notification", "notifications"),
                ("indication", "indications"),
            ] {
                #expect(counted.filter { $0["kind"] as? String == kind }.count == a[count] as? Int, "\(handle) \(kind)")
            }
            if let last = a["last_value"] as? [String: Any], let item = items.last, item["offset"] as? Int == 0 {
                #expect(item["hex"] as? String == last["hex"] as? String, "handle \(handle)")
                #expect(item["frame"] as? Int == last["frame"] as? Int, "handle \(handle)")
                used += 1
            }
        }
        #expect(used > 5)
    }

    @Test("-c stops after N frames, -Y chooses the frames")
    func countAndFilter() throws {
        let path = TestPaths.projectCapture("le-coc.btsnoop")
        #expect(
            try Self.items(["-c", "100", "--psm", "0x85", path]).items.map { $0["frame"] as? Int ?? 0 } == [59, 100]
        )
        let filtered = try Self.items(["-Y", "frame.number > 150", "--psm", "0x85", path]).items
        #expect(filtered.map { $0["frame"] as? Int ?? 0 } == [192, 249, 315])
        let bad = try Run.bleinspect(["follow", "-Y", "btl2cap.cid ==", "--psm", "0x85", path])
        #expect(bad.status == 64)
    }

    @Test("a cut capture: the items before the damage, an error naming the frame, exit status 65")
    func damaged() throws {
        let path = TestPaths.projectCapture("le-coc.btsnoop")
        var source = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // Cut inside record 200, after the fourth SDU (frame 192).
        var at = 16
        for _ in 0..<199 {
            at +=
                24
                + (Int(source[at + 4]) << 24 | Int(source[at + 5]) << 16 | Int(source[at + 6]) << 8
                    | Int(source[at + 7]))
        }
        source = Array(source.prefix(at + 10))
        let dir = TemporaryDirectory()
        let cut = dir.write(source, to: "cut.btsnoop")
        let full = try Self.items(["--psm", "0x85", path]).items.map { $0["hex"] as? String ?? "" }
        let (items, status, stderr) = try Self.items(["--psm", "0x85", cut])
        #expect(status == 65)
        #expect(stderr.contains("cut.btsnoop") && stderr.contains("frame 200"), "\(stderr)")
        #expect(items.map { $0["hex"] as? String ?? "" } == Array(full.prefix(4)))
        let raw = dir.path("cut.bin")
        let rawRun = try Run.bleinspect(["follow", "--psm", "0x85", "--raw", raw, cut])
        #expect(rawRun.status == 65)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: raw))) == full.prefix(4).flatMap(Self.bytes))
    }

    @Test("bad arguments: a usage error, exit status 64, saying what is wrong")
    func badArguments() throws {
        let path = TestPaths.projectCapture("le-coc.btsnoop")
        let cases: [([String], String)] = [
            (["--l2cap", "nonsense"], "--l2cap takes HANDLE:CID"),
            (["--l2cap", "0x0001"], "--l2cap takes HANDLE:CID"),
            (["--l2cap", "0x0001:0x10000"], "--l2cap takes HANDLE:CID"),
            (["--l2cap", "0xF000:0x0040"], "--l2cap takes HANDLE:CID"),
            ([], "Say what to follow"),
            (["--psm", "0x85", "--att", "0x10"], "only one of"),
            (["--psm", "0x85", "--l2cap", "1:64"], "only one of"),
            (["--psm", "psm"], "--psm takes a PSM"),
            (["--att", "battery"], "--att takes a handle"),
            (["--psm", "0x85", "--text", "--json"], "one of --text, --json and --raw"),
            (["--psm", "0x85", "--direction", "up"], "direction"),
        ]
        for (arguments, message) in cases {
            let result = try Run.bleinspect(["follow"] + arguments + [path])
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        let unwritable = try Run.bleinspect(["follow", "--psm", "0x85", "--raw", "/nonexistent/dir/out.bin", path])
        #expect(unwritable.status == 73)
        #expect(unwritable.stderr.contains("/nonexistent/dir/out.bin"))
    }

    @Test("selector arguments: hex with 0x or decimal, UUIDs as the specifications write them")
    func parsing() throws {
        #expect(FollowSelector.l2cap("0x0001:0x0040") == .l2cap(handle: 1, cid: 0x40))
        #expect(FollowSelector.l2cap("1:64") == .l2cap(handle: 1, cid: 0x40))
        #expect(FollowSelector.l2cap("1:") == nil)
        #expect(FollowSelector.l2cap(":64") == nil)
        #expect(FollowSelector.l2cap("1:2:3") == nil)
        #expect(FollowSelector.l2cap("+1:64") == nil)
        #expect(FollowSelector.psm("0x0085") == .psm(0x85))
        #expect(FollowSelector.psm("99999") == nil)
        #expect(FollowSelector.att("0x0010") == .attHandle(0x10))
        #expect(FollowSelector.att("16") == .attHandle(16))
        #expect(FollowSelector.att("2A19") == .attUUID(BluetoothUUID(uuid16: 0x2A19)))
        #expect(FollowSelector.att("uuid:0x2a19") == .attUUID(BluetoothUUID(uuid16: 0x2A19)))
        #expect(FollowSelector.att("handle:0x2a19") == .attHandle(0x2A19))
        #expect(FollowSelector.att("0x2a19") == .attHandle(0x2A19))
        #expect(
            FollowSelector.att("b1e15ec7-0001-4000-8000-000000000001")
                == .attUUID(try #require(BluetoothUUID("b1e15ec7-0001-4000-8000-000000000001")))
        )
        #expect(FollowSelector.att("0x10000") == nil)
        #expect(FollowSelector.att("") == nil)
    }
}
