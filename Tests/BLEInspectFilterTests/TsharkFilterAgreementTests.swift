import BLECapture
import BLEInspectCore
import BLEInspectFilter
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import Foundation
import Testing

/// One display filter that bleinspect and tshark must agree on, frame for frame.
struct AgreementCase: Sendable, CustomTestStringConvertible {
    let expression: String
    /// The filter reads fields above HCI ACL (L2CAP, ATT, SMP). Qualcomm controllers log vendor
    /// debug data on ACL handle 0x0edc in Android captures; tshark decodes it as L2CAP (inventing
    /// CIDs, ATT and SMP PDUs) while bleinspect shows it as vendor data (see
    /// Tests/BLEInspectTests/TsharkAgreementTests.swift). For these filters both tools run
    /// `(EXPR) && !(bthci_acl.chandle == 0x0edc)`, which leaves those frames out on both sides.
    let aboveACL: Bool
    /// What the case covers.
    let covers: String
    /// Captures the case is not compared on, because the two tools decode the field differently
    /// there (see `opaqueValues`).
    let skippedCaptures: Set<String>

    init(_ expression: String, aboveACL: Bool = false, skip: Set<String> = [], _ covers: String) {
        self.expression = expression
        self.aboveACL = aboveACL
        self.covers = covers
        self.skippedCaptures = skip
    }

    /// The filter both tools run.
    var filter: String { aboveACL ? "(\(expression)) && !(bthci_acl.chandle == 0x0edc)" : expression }
    var testDescription: String { expression }
}

/// Captures whose notifications and write commands carry values of characteristics tshark
/// knows (Battery Level, HID reports, the gatt-discovery recordings' Heart Rate…): tshark decodes
/// those into their own fields and has no `btatt.value` there, while bleinspect keeps
/// `btatt.value` with the decoded fields inside it. The `btatt.value` cases are compared on the
/// other captures, where the values are opaque to both tools.
let knownCharacteristics: Set<String> = [
    "blepcapanalyzer_hci.pcap", "ix7tracker_btsnoop_hci.log", "gatt-discovery.btsnoop", "gatt-discovery.pcapng",
    "gatt-discovery-be.pklg", "gatt-discovery-le.pklg", "gatt-database.btsnoop",
]

/// The filters compared with tshark. Together they use every operator and literal kind, and
/// the advertising, L2CAP signalling, ATT and SMP fields. Space-separated sets (`{1 2}`) are left
/// to the unit tests: tshark 4.0.17 rejects them ("was unexpected in this context"), so these use
/// commas.
let agreementCases: [AgreementCase] = [
    // Presence.
    AgreementCase("btatt", aboveACL: true, "protocol presence"),
    AgreementCase("btl2cap.psm && btl2cap.cmd_code == 0x02", aboveACL: true, "field presence (Connection Request)"),
    AgreementCase("bthci_evt.rssi", "field presence (advertising)"),
    // Integers in each base, keyword operators, value names.
    AgreementCase("btatt.opcode == 0x12", aboveACL: true, "hex"),
    AgreementCase("btatt.opcode == 82", aboveACL: true, "decimal"),
    AgreementCase("btatt.opcode == 033", aboveACL: true, "octal (leading 0)"),
    AgreementCase("btatt.opcode eq 0b1010010", aboveACL: true, "binary, eq"),
    AgreementCase("btatt.opcode == \"Handle Value Notification\"", aboveACL: true, "value name in quotes"),
    AgreementCase("btatt.opcode == \"write request\"", aboveACL: true, "value name, other case"),
    AgreementCase("btatt.opcode != 0x1b", aboveACL: true, "!= (all not equal)"),
    AgreementCase("btatt.opcode ne 0x52 && btl2cap.cid == 0x0004", aboveACL: true, "ne, &&"),
    AgreementCase("btatt.handle > 0x0010 and btatt.handle <= 0x0020", aboveACL: true, "> <= and"),
    AgreementCase("btatt.handle lt 0x000a || btatt.handle ge 0x0030", aboveACL: true, "lt ge ||"),
    AgreementCase("btatt.handle gt 16 or btatt.handle le 3", aboveACL: true, "gt le or"),
    AgreementCase("btatt.handle >= 0x0e && btatt.handle < 0x12", aboveACL: true, ">= <"),
    AgreementCase("btatt.handle in {0x0003, 0x0010..0x0015, 42}", aboveACL: true, "in with a range"),
    AgreementCase("btatt.opcode not in {0x1b, 0x52, 0x12}", aboveACL: true, "not in"),
    AgreementCase("btatt.opcode in {\"Read Request\", \"Read Response\"}", aboveACL: true, "in with value names"),
    AgreementCase("btatt.uuid16 == 0x2902 && btatt.opcode == 0x05", aboveACL: true, "ATT 16-bit UUID"),
    AgreementCase(
        "btatt.uuid16 in {0x2800, 0x2803} && btatt.opcode in {0x08, 0x10}",
        aboveACL: true,
        "ATT 16-bit UUIDs"
    ),
    AgreementCase("btatt.opcode.command == True", aboveACL: true, "boolean True"),
    AgreementCase("btatt.opcode.command == 0", aboveACL: true, "boolean 0"),
    AgreementCase("btatt.opcode & 0x40", aboveACL: true, "bit mask"),
    // Bytes: slices and byte strings in each spelling.
    AgreementCase(
        "btatt.value && btatt.opcode in {0x1b, 0x52}",
        aboveACL: true,
        skip: knownCharacteristics,
        "bytes presence"
    ),
    AgreementCase(
        "btatt.value[0] == 0x01 && btatt.opcode in {0x1b, 0x52}",
        aboveACL: true,
        skip: knownCharacteristics,
        "[i], 0xNN byte"
    ),
    AgreementCase(
        "btatt.value[0:2] == 01:00 && btatt.opcode in {0x1b, 0x52}",
        aboveACL: true,
        skip: knownCharacteristics,
        "[i:j], colons"
    ),
    AgreementCase(
        "btatt.value[0-1] == 01-00 && btatt.opcode in {0x1b, 0x52}",
        aboveACL: true,
        skip: knownCharacteristics,
        "[i-j], dashes"
    ),
    AgreementCase(
        "btatt.value[:2] == 0100 && btatt.opcode in {0x1b, 0x52}",
        aboveACL: true,
        skip: knownCharacteristics,
        "[:j], no separator"
    ),
    AgreementCase(
        "btatt.value[1:] contains 00 && btatt.opcode in {0x1b, 0x52}",
        aboveACL: true,
        skip: knownCharacteristics,
        "[i:], contains"
    ),
    AgreementCase(
        "btatt.value[-1] == 0a && btatt.opcode in {0x1b, 0x52}",
        aboveACL: true,
        skip: knownCharacteristics,
        "negative offset"
    ),
    AgreementCase(
        "btatt.value[-2:] == 0d.0a && btatt.opcode in {0x1b, 0x52}",
        aboveACL: true,
        skip: knownCharacteristics,
        "dots"
    ),
    AgreementCase(
        "btatt.value > 01:00 && btatt.opcode in {0x1b, 0x52}",
        aboveACL: true,
        skip: knownCharacteristics,
        "bytes order (length first)"
    ),
    AgreementCase(
        "btatt.value contains \"AT+\" && btatt.opcode in {0x1b, 0x52}",
        aboveACL: true,
        skip: knownCharacteristics,
        "contains a quoted string"
    ),
    AgreementCase(
        "btatt.value matches \"^at\\\\+\" && btatt.opcode in {0x1b, 0x52}",
        aboveACL: true,
        skip: knownCharacteristics,
        "matches (case-insensitive)"
    ),
    AgreementCase(
        "btatt.value[0] == 'A' && btatt.opcode in {0x1b, 0x52}",
        aboveACL: true,
        skip: knownCharacteristics,
        "character constant"
    ),
    AgreementCase(
        "len(btatt.value) == 2 && btatt.opcode in {0x1b, 0x52}",
        aboveACL: true,
        skip: knownCharacteristics,
        "len()"
    ),
    // Advertising.
    AgreementCase("bthci_evt.le_meta_subevent == 0x02", "LE meta subevent"),
    AgreementCase("bthci_evt.le_meta_subevent == \"LE Extended Advertising Report\"", "subevent by name"),
    AgreementCase("bthci_evt.rssi < -80", "negative decimal"),
    AgreementCase("bthci_evt.rssi >= -0x40", "negative hex"),
    AgreementCase("bthci_evt.bd_addr == 40:22:46:1d:d1:f5", "address with colons"),
    AgreementCase("bthci_evt.bd_addr == 2C-26-17-0E-C0-EA", "address with dashes, upper case"),
    AgreementCase("bthci_evt.bd_addr in {40:22:46:1d:d1:f5, 2c:26:17:0e:c0:ea}", "address set"),
    AgreementCase("bthci_evt.bd_addr[0:3] == 40:22:46", "address slice"),
    AgreementCase(
        "bthci_evt.bd_addr == 4022.461d.d1f5 || bthci_evt.bd_addr == 2c26170ec0ea",
        "address with dots, none"
    ),
    AgreementCase("btcommon.eir_ad.entry.type == 0x09", "AD type"),
    AgreementCase("btcommon.eir_ad.entry.type != 0x01", "!= on a repeated field (all not equal)"),
    AgreementCase("btcommon.eir_ad.entry.type ~= 0x01", "~= on a repeated field (any not equal)"),
    AgreementCase("btcommon.eir_ad.entry.type === 0xff", "=== on a repeated field (all equal)"),
    AgreementCase("count(btcommon.eir_ad.entry.type) >= 3", "count()"),
    AgreementCase("btcommon.eir_ad.entry.type !== 0xff", "!== (any not equal)"),
    AgreementCase("btcommon.eir_ad.entry.type all_ne 0x0a || btcommon.eir_ad.entry.type any_eq 0x16", "all_ne, any_eq"),
    AgreementCase("btcommon.eir_ad.entry.type any_ne 0x01 && btcommon.eir_ad.entry.type all_eq 0x09", "any_ne, all_eq"),
    AgreementCase("btcommon.eir_ad.entry.company_id == 0x004c", "company id"),
    AgreementCase("btcommon.eir_ad.entry.uuid_16 == 0xfe9f", "AD 16-bit UUID"),
    AgreementCase("btcommon.eir_ad.entry.device_name == \"Hue Lamp\"", "string =="),
    AgreementCase("btcommon.eir_ad.entry.device_name contains \"Redmi\"", "string contains"),
    AgreementCase("btcommon.eir_ad.entry.device_name contains Moto", "unquoted string"),
    AgreementCase("btcommon.eir_ad.entry.device_name matches \"^(moto|hue) \"", "string matches"),
    AgreementCase("btcommon.eir_ad.entry.device_name matches \"(?-i)^[A-Z]{2}-\"", "matches, case-sensitive"),
    AgreementCase("btcommon.eir_ad.entry.device_name[0:3] == \"Hue\"", "string slice"),
    AgreementCase("btcommon.eir_ad.entry.device_name == \"\\x48ue\\040Lamp\"", "escapes"),
    AgreementCase("btcommon.eir_ad.entry.device_name > \"M\"", "string order"),
    AgreementCase(
        "btcommon.eir_ad.entry.device_name ~ \"^red\" || btcommon.eir_ad.entry.device_name == r\"Moto G6\"",
        "~, raw string"
    ),
    // L2CAP signalling.
    AgreementCase("btl2cap.cmd_code == 0x12", aboveACL: true, "signalling command"),
    AgreementCase("btl2cap.cmd_code in {0x12..0x13}", aboveACL: true, "signalling range"),
    AgreementCase("btl2cap.cid == 0x0005", aboveACL: true, "LE signalling channel"),
    AgreementCase("btl2cap.cid in {4, 5, 6}", aboveACL: true, "fixed channels"),
    AgreementCase("btl2cap.psm == 0x0001 && btl2cap.cmd_code == 0x02", aboveACL: true, "SDP PSM"),
    AgreementCase("btl2cap && !btatt", aboveACL: true, "!"),
    AgreementCase("btl2cap and not (btatt or btsmp)", aboveACL: true, "not, parentheses"),
    // SMP.
    AgreementCase("btsmp", aboveACL: true, "SMP"),
    AgreementCase("btsmp.opcode == 0x01", aboveACL: true, "Pairing Request"),
    AgreementCase("btsmp.opcode in {0x01..0x04}", aboveACL: true, "pairing phase 2"),
    AgreementCase("btsmp.io_capability == 0x03", aboveACL: true, "IO capability"),
    AgreementCase("btsmp.opcode == \"Pairing Response\"", aboveACL: true, "SMP opcode name"),
    AgreementCase("btsmp.authreq & 0x08 && btsmp.opcode == \"Pairing Request\"", aboveACL: true, "mask on SMP AuthReq"),
    AgreementCase("btsmp.max_enc_key_size == 16", aboveACL: true, "key size"),
    // HCI and logic.
    AgreementCase("bthci_cmd.opcode == 0x0c03", "command opcode"),
    AgreementCase("bthci_evt.code == 0x0e && !(bthci_evt.code == 0x3e)", "event code"),
    AgreementCase(
        "(btatt.opcode == 0x12 || btatt.opcode == 0x52) && !(btatt.handle == 0x0010)",
        aboveACL: true,
        "grouping"
    ),
    AgreementCase("!!btatt", aboveACL: true, "double negation"),
]

/// HCI captures: the project's own and, when present, the shared real-world ones (btsnoop,
/// PacketLogger and LINKTYPE 201 files of MANIFEST.tsv).
func filterCaptures() -> [String] {
    var paths = TestPaths.projectCaptureFiles(extensions: ["btsnoop", "pklg", "pcap", "pcapng"]).map(\.path)
    if TestPaths.sharedCapturesAvailable {
        paths += ManifestEntry.all().filter { entry in
            entry.packetCount > 0
                && (entry.format == "btsnoop" || entry.format == "pklg" || entry.linkType.contains("LINKTYPE 201"))
        }.map(\.url.path)
    }
    return paths
}

@Suite("display filters agree with tshark -Y", .enabled(if: Run.tshark != nil))
struct TsharkFilterAgreementTests {
    /// One capture's answers: ours and tshark's, per filter.
    struct FileResult: Sendable {
        let name: String
        let frames: Int
        let ours: [[Int]]
        let theirs: [[Int]?]
    }

    static func run(_ path: String, _ filters: [DisplayFilter], scratch: TemporaryDirectory) throws -> FileResult {
        let capture = CaptureFiles.readAll(path)
        let ours = FilterHarness.matchingFrames(capture.frames, filters)
        let theirs = try TsharkFilters.frames(path, agreementCases.map(\.filter), scratch: scratch)
        return FileResult(
            name: URL(fileURLWithPath: path).lastPathComponent,
            frames: capture.frames.count,
            ours: ours,
            theirs: theirs
        )
    }

    @Test("every filter matches the frames tshark -Y matches, on every HCI capture")
    func agree() async throws {
        let filters = try agreementCases.map { c throws(FilterError) in try FilterHarness.compile(c.filter) }
        let scratch = TemporaryDirectory()
        let results = try await CaptureComparison.twoAtATime(filterCaptures()) { p in
            try Self.run(p, filters, scratch: scratch)
        }.sorted { $0.name < $1.name }
        var totals = [Int](repeating: 0, count: agreementCases.count)
        var frameTotal = 0
        var problems: [String] = []
        for r in results {
            try #require(r.theirs.count == agreementCases.count, "\(r.name): tshark gave no answer")
            frameTotal += r.frames
            for (i, c) in agreementCases.enumerated() where !c.skippedCaptures.contains(r.name) {
                guard let t = r.theirs[i] else {
                    problems.append("\(r.name): tshark rejects \(c.filter)")
                    continue
                }
                totals[i] += r.ours[i].count
                if r.ours[i] != t {
                    let apart = CaptureComparison.framesApart(r.ours[i], t, limit: 8)
                    problems.append("\(r.name): \(c.filter): \(r.ours[i].count) vs tshark \(t.count); \(apart)")
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.count) disagreements:\n\(problems.joined(separator: "\n"))")
        // Every filter matches something somewhere, and no filter matches everything: none passes
        // vacuously. (The project's own captures alone do not have every kind of frame.)
        guard TestPaths.sharedCapturesAvailable else { return }
        for (i, c) in agreementCases.enumerated() {
            #expect(totals[i] > 0, "\(c.expression) matches no frame in any capture")
            #expect(totals[i] < frameTotal, "\(c.expression) matches every frame")
        }
        #expect(agreementCases.count >= 40)
        #expect(results.count >= 20)
    }

    @Test("the Lua taps give what tshark -Y gives")
    func tapsMatchDisplayFilter() throws {
        let path = TestPaths.projectCapture("smp-pairing.btsnoop")
        let sample = [
            "btatt.opcode == 0x12", "btsmp.io_capability == 0x03", "btcommon.eir_ad.entry.type != 0x01",
            "btl2cap.cid in {4, 6}", "bthci_evt.rssi",
        ]
        let scratch = TemporaryDirectory()
        let taps = try TsharkFilters.frames(path, sample, scratch: scratch)
        for (i, f) in sample.enumerated() {
            let y = try TsharkFilters.framesWithY(path, f)
            #expect(taps[i] == y, "\(f)")
        }
    }
}
