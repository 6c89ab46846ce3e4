import BLEInspectTestSupport
import Foundation
import Testing

/// bleinspect's ATT fields compared with tshark's, frame by frame and occurrence by occurrence:
/// the handles, the UUIDs Wireshark puts under them (the attribute, its service and its
/// characteristic, as recorded from discovery earlier in the capture), the UUIDs in the PDUs, and
/// the per-entry fields of discovery responses. Both sides are read as `-T fields` output with
/// every occurrence (tshark's `-E occurrence=a`), comma-separated.
enum ATTParity {
    /// The fields compared.
    static let fields = [
        "btatt.handle", "btatt.uuid16", "btatt.uuid128", "btatt.service_uuid16", "btatt.service_uuid128",
        "btatt.characteristic_uuid16", "btatt.characteristic_uuid128", "btatt.attribute_data",
        "btatt.information_data", "btatt.handles_info", "btatt.group_end_handle", "btatt.ending_handle",
        "btatt.value", "btatt.opcode.method", "btatt.req_opcode_in_error",
    ]
    /// Asked of both sides to line the PDUs up and to judge allowances, not compared themselves
    /// (the opcode is compared by the agreement tests; a frame whose PDU is in dispute is not
    /// compared further, see `Allowance.attInDispute`).
    static let context = ["btatt.opcode", "btatt.request_in_frame"]
    /// Asked of tshark only, to judge allowances.
    static let tsharkContext = ["bthci_acl.chandle"]

    /// A difference that is not a fault of bleinspect's, with the reason it is allowed. Each is as
    /// narrow as its check in `compare` can make it.
    enum Allowance: String, CaseIterable, CustomStringConvertible {
        /// One side shows an ATT PDU that the other does not, or another one. The agreement tests
        /// (`TsharkAgreementTests`, `SnifferAgreementTests`) compare btatt.opcode on every frame
        /// and name each such case (LL retransmissions, bad CRCs, ciphertext); the fields under a
        /// PDU in dispute are not compared here.
        case attInDispute
        /// Qualcomm controllers log vendor debug data on ACL handle 0x0edc; tshark decodes it as
        /// L2CAP (inventing ATT PDUs), bleinspect does not. Those frames are left out on both sides.
        case vendorDebugHandle
        /// tshark 4.0 does not know the EATT PDUs of Core 5.2 (0x20, 0x21, 0x23) and shows no
        /// parameters for them; bleinspect decodes their handles.
        case eattOpcodeUnknownToTshark
        /// A Read Multiple Request (or its response) with a single handle, which the PDU should not
        /// have: tshark 4.0 shows no handle, bleinspect the one there is.
        case readMultipleOneHandle
        /// tshark decodes the values of many more characteristics and descriptors (by the UUID it
        /// recorded for the handle) and then shows no btatt.value; bleinspect always keeps the
        /// value's bytes as btatt.value, with what it decodes inside. Allowed where tshark's values
        /// are bleinspect's less some, and tshark names a UUID in the frame.
        case valueDecodedByTshark
        /// tshark 4.0 records the handle a Find By Type Value Response lists under a UUID equal to
        /// the request's Ending Handle (0xffff for a search of everything) and shows it as
        /// btatt.uuid16 under that handle later; bleinspect forgets the handle instead. Allowed
        /// where tshark's UUIDs are bleinspect's plus one equal to such an Ending Handle.
        case findByTypeValueEndingHandle
        /// A Read By Group Type Response whose request is not in the capture: tshark shows each
        /// entry's last bytes as btatt.value; bleinspect reads 6- and 20-byte entries as services
        /// (the only grouping types GATT has) and shows their UUIDs. Allowed where neither side
        /// matched a request, tshark shows no UUID and a value per entry, and bleinspect a UUID per
        /// entry and no value.
        case groupTypeResponseWithoutRequest

        var description: String { rawValue }
    }

    struct Mismatch: CustomStringConvertible {
        let frame: Int
        let field: String
        let ours: String
        let theirs: String

        var description: String { "#\(frame) \(field): bleinspect [\(ours)] tshark [\(theirs)]" }
    }

    struct Result {
        /// Frames with an ATT PDU on either side.
        var attFrames = 0
        /// Frames whose fields were compared.
        var compared = 0
        /// Per field: frames where either side has it (compared frames only).
        var present: [String: Int] = [:]
        /// The frames each allowance excused (a frame once per field).
        var excused: [Allowance: [Int]] = [:]
        var mismatches: [Mismatch] = []

        var summary: String {
            let fields = ATTParity.fields.compactMap { f in present[f].map { "\(f) \($0)" } }
            let allowed = Allowance.allCases.compactMap { a in excused[a].map { "\(a) \($0.count)" } }
            return "ATT frames \(attFrames), compared \(compared); fields: " + fields.joined(separator: ", ")
                + "; allowed: " + (allowed.isEmpty ? "none" : allowed.joined(separator: ", "))
        }
    }

    /// The occurrences of one field in a `-T fields` cell.
    static func values(_ cell: String) -> [String] {
        cell.isEmpty ? [] : cell.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    /// Whether two occurrence lists of `field` agree. 128-bit UUIDs are compared as values:
    /// bleinspect prints the 8-4-4-4-12 form, tshark prints the field's bytes (FT_BYTES), in wire
    /// order (least significant first) for a UUID in the PDU and most significant first for a UUID
    /// it recorded.
    static func agree(_ field: String, _ ours: [String], _ theirs: [String]) -> Bool {
        guard ours.count == theirs.count else { return false }
        guard field.hasSuffix("uuid128") else { return ours == theirs }
        return zip(ours, theirs).allSatisfy { mine, tshark in
            let hex = mine.replacingOccurrences(of: "-", with: "").lowercased()
            return hex == tshark || reversedBytes(hex) == tshark
        }
    }

    static func reversedBytes(_ hex: String) -> String {
        let chars = Array(hex)
        guard chars.count % 2 == 0 else { return hex }
        return stride(from: chars.count - 2, through: 0, by: -2).map { String(chars[$0...($0 + 1)]) }.joined()
    }

    /// Whether `longer` is `shorter` with some occurrences left out, in order.
    static func isSubsequence(_ shorter: [String], of longer: [String]) -> Bool {
        var i = 0
        for v in longer where i < shorter.count && shorter[i] == v { i += 1 }
        return i == shorter.count
    }

    /// One frame's cells by field name.
    typealias Row = [String: String]

    /// Compares bleinspect's and tshark's rows, one per frame.
    static func compare(ours: [Row], theirs: [Row]) -> Result {
        var result = Result()
        // Ending Handles of the Find By Type Value Requests seen so far (tshark's reading).
        var findByTypeValueEnds: Set<String> = []
        for (n, (mine, tshark)) in zip(ours, theirs).enumerated() {
            let frame = n + 1
            let ourOps = values(mine["btatt.opcode"] ?? "")
            let theirOps = values(tshark["btatt.opcode"] ?? "")
            if theirOps == ["0x06"] { findByTypeValueEnds.formUnion(values(tshark["btatt.ending_handle"] ?? "")) }
            guard !ourOps.isEmpty || !theirOps.isEmpty else { continue }
            result.attFrames += 1
            if let allowance = frameAllowance(ourOps, theirOps, mine, tshark) {
                result.excused[allowance, default: []].append(frame)
                continue
            }
            result.compared += 1
            for field in fields {
                let a = values(mine[field] ?? "")
                let b = values(tshark[field] ?? "")
                if !a.isEmpty || !b.isEmpty { result.present[field, default: 0] += 1 }
                if agree(field, a, b) { continue }
                if let allowance = fieldAllowance(field, a, b, ourOps, mine, tshark, findByTypeValueEnds) {
                    result.excused[allowance, default: []].append(frame)
                    continue
                }
                let mismatch = Mismatch(
                    frame: frame,
                    field: field,
                    ours: a.joined(separator: ","),
                    theirs: b.joined(separator: ",")
                )
                result.mismatches.append(mismatch)
            }
        }
        return result
    }

    /// The allowance that leaves a whole frame out, if one applies.
    static func frameAllowance(_ ourOps: [String], _ theirOps: [String], _ mine: Row, _ tshark: Row) -> Allowance? {
        let ourHandles = values(mine["btatt.handle"] ?? "")
        let theirHandles = values(tshark["btatt.handle"] ?? "")
        let op = ourOps.first ?? ""
        if tshark["bthci_acl.chandle"] == "0x0edc" { return .vendorDebugHandle }
        if ourOps != theirOps { return .attInDispute }
        if ["0x20", "0x21", "0x23"].contains(op), theirHandles.isEmpty { return .eattOpcodeUnknownToTshark }
        // A one-handle request shows no handle in tshark; its response, matched by tshark to an
        // earlier Read Multiple or to none, shows that one handle in bleinspect.
        if op == "0x0e" && theirHandles.isEmpty || op == "0x0f", ourHandles.count == 1 {
            return .readMultipleOneHandle
        }
        return nil
    }

    /// The allowance for one field's difference, if one applies.
    static func fieldAllowance(
        _ field: String,
        _ a: [String],
        _ b: [String],
        _ ourOps: [String],
        _ mine: Row,
        _ tshark: Row,
        _ findByTypeValueEnds: Set<String>
    ) -> Allowance? {
        let tsharkNamesUUID = ["btatt.uuid16", "btatt.uuid128"].contains { !(tshark[$0] ?? "").isEmpty }
        if field == "btatt.value", a.count > b.count, tsharkNamesUUID, isSubsequence(b, of: a) {
            return .valueDecodedByTshark
        }
        if field == "btatt.uuid16", b.count == a.count + 1,
            b.indices.contains(where: { findByTypeValueEnds.contains(b[$0]) && Array(b[..<$0] + b[($0 + 1)...]) == a })
        {
            return .findByTypeValueEndingHandle
        }
        if ourOps == ["0x11"], ["btatt.uuid16", "btatt.uuid128", "btatt.value"].contains(field),
            (mine["btatt.request_in_frame"] ?? "").isEmpty, (tshark["btatt.request_in_frame"] ?? "").isEmpty,
            !tsharkNamesUUID
        {
            let entries = values(tshark["btatt.attribute_data"] ?? "").count
            let ourUUIDs = values(mine["btatt.uuid16"] ?? "").count + values(mine["btatt.uuid128"] ?? "").count
            let ourValues = values(mine["btatt.value"] ?? "")
            if ourUUIDs == entries, ourValues.isEmpty, b.count == (field == "btatt.value" ? entries : 0) {
                return .groupTypeResponseWithoutRequest
            }
        }
        return nil
    }

    /// Rows of `-T fields` output for `fields`, by name.
    static func rows(_ text: String, _ fields: [String]) -> [Row] {
        SnifferCaptures.rows(text).map { cells in
            var row: Row = [:]
            for (i, f) in fields.enumerated() where i < cells.count { row[f] = cells[i] }
            return row
        }
    }

    /// `-T fields` rows of bleinspect for `path`.
    static func ourRows(_ path: String) throws -> [Row] {
        let asked = context + fields
        // tshark cannot decrypt: what a key recovered from a sniffed pairing would decrypt stays
        // encrypted in both.
        var args = ["read", "--no-crack", "-T", "fields"]
        for f in asked { args += ["-e", f] }
        args.append(path)
        let run = try Run.bleinspect(args)
        try #require(run.status == 0, "\(path): \(run.stderr)")
        return rows(run.stdoutText, asked)
    }

    /// tshark's `-T fields -E occurrence=a` rows for `path`, with `options` before the file.
    static func tsharkRows(_ path: String, options: [String]) throws -> [Row] {
        guard let tshark = Run.tshark else { return [] }
        let asked = context + fields + tsharkContext
        var args = options + ["-r", path, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a"]
        for f in asked { args += ["-e", f] }
        return rows(try Run.program(tshark, args).stdoutText, asked)
    }

    /// The captures compared: the project's own, and the shared ones that have ATT (HCI, and
    /// sniffer captures, whose link layer bleinspect decodes), each with the tshark options it
    /// needs.
    static func captures() -> [Capture] {
        let sniffer = Set(SnifferCaptures.projectPaths())
        var list = TestPaths.projectCaptureFiles(extensions: ["btsnoop", "pklg", "pcap", "pcapng"]).map { url in
            Capture(path: url.path, sniffer: sniffer.contains(url.path), shared: false)
        }
        guard TestPaths.sharedCapturesAvailable else { return list }
        let snifferNames = Set(SnifferCaptures.sharedEntries().map(\.name))
        for entry in ManifestEntry.all() where (entry.attPDUs ?? 1) > 0 {
            let hci =
                entry.linkType.contains("H4") || entry.linkType.contains("monitor")
                || entry.linkType.contains("PacketLogger")
            guard hci || snifferNames.contains(entry.name) else { continue }
            list.append(Capture(path: entry.url.path, sniffer: !hci, shared: true))
        }
        return list
    }

    struct Capture: CustomStringConvertible, Sendable {
        let path: String
        let sniffer: Bool
        /// One of the shared captures, listed in MANIFEST.tsv as having ATT.
        let shared: Bool
        var options: [String] { sniffer ? SnifferCaptures.tsharkOptions : [] }
        var description: String { SnifferCaptures.name(path) }
    }
}

/// A session that visits each way Wireshark records and shows handles, as a pcap (link type 201)
/// that tshark and bleinspect both read: ATT on fixed channel 4 of ACL handle 0x0001, then, after
/// a disconnection, of 0x0002.
enum ATTParitySession {
    enum Step {
        case sent(String), received(String), disconnect(UInt16), connection(UInt16)
    }

    static let steps: [Step] = [
        // MTU; services (16- and 128-bit), an Error Response to Read By Group Type
        .sent("02 f7 00"),
        .received("03 05 02"),
        .sent("10 01 00 ff ff 00 28"),
        .received("11 06 01 00 05 00 00 18 0e 00 11 00 0f 18"),
        .sent("10 12 00 ff ff 00 28"),
        .received("11 14 70 00 7f 00 00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff"),
        .sent("10 80 00 ff ff 00 28"),
        .received("01 10 80 00 0a"),
        // Characteristics (16- and 128-bit), an Error Response to Read By Type, an include
        .sent("08 01 00 05 00 03 28"),
        .received("09 07 02 00 02 03 00 00 2a 04 00 02 05 00 01 2a"),
        .sent("08 0e 00 11 00 03 28"),
        .received("09 07 0f 00 12 10 00 19 2a"),
        .sent("08 70 00 7f 00 03 28"),
        .received("09 15 71 00 02 72 00 ff ee dd cc bb aa 99 88 77 66 55 44 33 22 11 00"),
        .sent("08 73 00 7f 00 03 28"),
        .received("01 08 73 00 0a"),
        .sent("08 01 00 10 00 02 28"),
        .received("09 08 05 00 0a 00 0f 00 0f 18"),
        // Descriptors (16- and 128-bit), an Error Response to Find Information
        .sent("04 11 00 11 00"),
        .received("05 01 11 00 02 29"),
        .sent("04 73 00 7f 00"),
        .received("05 02 73 00 00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee fe"),
        .sent("04 74 00 7f 00"),
        .received("01 04 74 00 0a"),
        // Read By Type of a characteristic UUID; a read of a declaration; reads, a blob, Read Multiple
        .sent("08 01 00 ff ff 00 2a"),
        .received("09 05 03 00 41 42 43"),
        .sent("0a 02 00"),
        .received("0b 02 03 00 00 2a"),
        .sent("0a 10 00"),
        .received("0b 57"),
        .sent("0c 03 00 00 00"),
        .received("0d 61 62"),
        .sent("0e 03 00 10 00"),
        .received("0f 61 62 57"),
        .sent("0e 10 00"),
        .received("0f 57"),
        // Write, prepare and execute, notifications, an indication and its confirmation
        .sent("12 11 00 01 00"),
        .received("13"),
        .sent("16 03 00 00 00 61 62"),
        .received("17 03 00 00 00 61 62"),
        .sent("18 01"),
        .received("19"),
        .received("1b 10 00 56"),
        .received("1b 72 00 01 02"),
        .received("1d 10 00 58"),
        .sent("1e"),
        .sent("52 73 00 01"),
        // A Read By Group Type Response without its request; an Error Response to a Read
        .received("11 06 90 00 95 00 aa aa"),
        .sent("0a 20 00"),
        .received("01 0a 20 00 0a"),
        // Find By Type Value, then handles of that service
        .sent("06 01 00 ff ff 00 28 0f 18"),
        .received("07 0e 00 11 00"),
        .sent("52 0e 00 00"),
        .sent("52 10 00 00"),
        // A new connection: what was recorded is kept
        .disconnect(0x0001),
        .connection(0x0002),
        .sent("52 10 00 00"),
        .sent("52 72 00 00"),
        .received("1b 03 00 41 42"),
    ]

    static func pcap() -> [UInt8] {
        var out = CaptureBytes.pcapHeader(linkType: 201)
        var handle: UInt16 = 0x0001
        var second: UInt32 = 0
        func record(_ sent: Bool, _ packet: [UInt8]) {
            out += CaptureBytes.pcapRecord(CaptureBytes.be32(sent ? 0 : 1) + packet, seconds: second, micros: 0)
            second += 1
        }
        for step in steps {
            switch step {
            case .connection(let h):
                handle = h
            case .disconnect(let h):
                // HCI Disconnection Complete, reason 0x13.
                record(false, [0x04, 0x05, 0x04, 0x00, UInt8(h & 0xFF), UInt8(h >> 8), 0x13])
            case .sent(let hex), .received(let hex):
                let pdu = Hex.bytes(hex)
                let l2cap = [UInt8(pdu.count & 0xFF), UInt8(pdu.count >> 8), 0x04, 0x00] + pdu
                let flagged = handle | 0x2000
                let acl = [
                    UInt8(flagged & 0xFF), UInt8(flagged >> 8), UInt8(l2cap.count & 0xFF), UInt8(l2cap.count >> 8),
                ]
                if case .sent = step { record(true, [0x02] + acl + l2cap) } else { record(false, [0x02] + acl + l2cap) }
            }
        }
        return out
    }
}

@Suite("ATT fields agree with tshark occurrence by occurrence", .enabled(if: Run.tshark != nil))
struct ATTFieldParityTests {
    @Test("handles, UUIDs and per-entry fields agree with tshark, frame by frame", arguments: ATTParity.captures())
    func parity(_ capture: ATTParity.Capture) throws {
        let ours = try ATTParity.ourRows(capture.path)
        let theirs = try ATTParity.tsharkRows(capture.path, options: capture.options)
        try #require(ours.count == theirs.count, "\(capture): \(ours.count) frames, tshark \(theirs.count)")
        let result = ATTParity.compare(ours: ours, theirs: theirs)
        print("\(capture): \(result.summary)")
        #expect(
            result.mismatches.isEmpty,
            "\(capture): \(result.mismatches.count) differences:\n\(result.mismatches.prefix(25).map(\.description).joined(separator: "\n"))"
        )
        // The allowances explain a minority of the ATT frames, never a whole capture.
        let excusedFrames = result.attFrames - result.compared
        #expect(
            excusedFrames * 2 <= result.attFrames,
            "\(capture): \(excusedFrames) of \(result.attFrames) frames excused"
        )
    }

    /// Every way of recording and showing handles in one session: the only differences are the
    /// allowances, exactly where expected, and the record outlives the connection.
    @Test("a session that visits every kind of ATT PDU differs from tshark only where allowed")
    func session() throws {
        let dir = TemporaryDirectory()
        let path = dir.write(ATTParitySession.pcap(), to: "att-parity.pcap")
        let ours = try ATTParity.ourRows(path)
        let theirs = try ATTParity.tsharkRows(path, options: [])
        try #require(ours.count == ATTParitySession.steps.count - 1 && theirs.count == ours.count)
        let result = ATTParity.compare(ours: ours, theirs: theirs)
        #expect(result.mismatches.isEmpty, "\(result.mismatches)")
        // Values tshark decodes: Device Name (26, 58), a declaration read (28), Battery Level (30,
        // 34, 43, 45, 54, 56), a CCCD write (37). 35, 36: Read Multiple of one handle; 48: services
        // without their request; 53: a handle Find By Type Value listed.
        let excused = result.excused.mapValues(Set.init)
        #expect(excused[.valueDecodedByTshark] == [26, 28, 30, 34, 37, 43, 45, 54, 56, 58])
        #expect(excused[.readMultipleOneHandle] == [35, 36])
        #expect(excused[.groupTypeResponseWithoutRequest] == [48])
        #expect(excused[.findByTypeValueEndingHandle] == [53])
        #expect(
            Set(excused.keys) == [
                .valueDecodedByTshark, .readMultipleOneHandle, .groupTypeResponseWithoutRequest,
                .findByTypeValueEndingHandle,
            ]
        )
        // After the disconnection (frame 55), the handles are still named on the new connection.
        for frame in 56...58 {
            let named = { (row: ATTParity.Row) in
                !(row["btatt.uuid16"] ?? "").isEmpty || !(row["btatt.uuid128"] ?? "").isEmpty
            }
            #expect(named(theirs[frame - 1]) && named(ours[frame - 1]), "frame \(frame)")
        }
    }

    /// The reason for the work: a Wireshark filter on an attribute's UUID finds the frames that
    /// tshark finds. For each shared HCI capture with ATT, the UUID tshark shows most often on reads,
    /// writes, notifications and indications is filtered for on both sides; where tshark shows none
    /// (no discovery captured), the filter is the field's existence, which must then find nothing.
    @Test(
        "a filter on btatt.uuid16 selects the frames tshark selects",
        arguments: ATTParity.captures().filter { $0.shared && !$0.sniffer }
    )
    func uuidFilter(_ capture: ATTParity.Capture) throws {
        let theirs = try ATTParity.tsharkRows(capture.path, options: capture.options)
        let valuePDUs: Set<String> = ["0x0a", "0x0b", "0x12", "0x13", "0x1b", "0x1d", "0x52"]
        var counts: [String: Int] = [:]
        for row in theirs where valuePDUs.contains(row["btatt.opcode"] ?? "") {
            for v in Set(ATTParity.values(row["btatt.uuid16"] ?? "")) { counts[v, default: 0] += 1 }
        }
        let filter =
            counts.max { ($0.value, $1.key) < ($1.value, $0.key) }.map { "btatt.uuid16 == \($0.key)" } ?? "btatt.uuid16"
        // Vendor debug data on ACL handle 0x0edc is not ATT (see `Allowance.vendorDebugHandle`).
        let tsharkFrames = try Run.tsharkFilter(capture.path, "(\(filter)) && !(bthci_acl.chandle == 0x0edc)")
        let run = try Run.bleinspect(["read", "-Y", filter, "-T", "fields", "-e", "frame.number", capture.path])
        #expect(run.status == 0, "\(run.stderr)")
        let ourFrames = run.stdoutText.split(separator: "\n").compactMap { Int($0) }
        print("\(capture): \(filter): bleinspect \(ourFrames.count) frames, tshark \(tsharkFrames.count)")
        #expect(ourFrames == tsharkFrames, "\(capture): \(filter)")
    }
}
