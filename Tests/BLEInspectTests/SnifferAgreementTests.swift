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

/// Sniffer (link-layer) captures and the way tshark is run on them; used by the agreement test here
/// and by `SweynToothTests`.
enum SnifferCaptures {
    /// The link types read as over-the-air frames: LE LL (251), LE LL with RF header (256), nRF Sniffer
    /// (272) and PPI (192) wrapping DLT 147 (user DLT 0, btle).
    static let linkTypes: Set<UInt32> = [251, 256, 272, 192]

    /// tshark leaves the DLT 147 payload of a PPI record undecoded unless user DLT 0 is mapped to btle.
    /// The option changes nothing for the other link types (the same `-T fields` output with and
    /// without it), so it is passed for every sniffer capture.
    static let tsharkOptions = ["-o", #"uat:user_dlts:"User 0 (DLT=147)","btle","0","","0","""#]

    /// The shared captures with a sniffer link type (none when they are absent).
    static func sharedEntries() -> [ManifestEntry] {
        guard TestPaths.sharedCapturesAvailable else { return [] }
        return ManifestEntry.all().filter { entry in
            guard entry.linkType.hasPrefix("LINKTYPE ") else { return false }
            let digits = entry.linkType.dropFirst("LINKTYPE ".count).prefix { $0.isNumber }
            return UInt32(digits).map { linkTypes.contains($0) } ?? false
        }
    }

    /// The project's own pcap and pcapng captures whose link type is a sniffer one.
    static func projectPaths() -> [String] {
        TestPaths.projectCaptureFiles(extensions: ["pcap", "pcapng"]).map(\.path).filter { path in
            guard let reader = try? CaptureOpener.open(path: path) else { return false }
            return linkTypes.contains(reader.format.linkType)
        }
    }

    /// Every sniffer capture to test: the project's, then the shared ones.
    static func allPaths() -> [String] {
        projectPaths() + sharedEntries().map(\.url.path)
    }

    /// tshark's `-T fields` output for `path` with the user DLT option: one array of values per frame.
    static func tsharkFields(_ path: String, _ fields: [String], aggregator: String = ",") throws -> [[String]] {
        guard let tshark = Run.tshark else { return [] }
        var args =
            tsharkOptions + [
                "-r", path, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E",
                "aggregator=\(aggregator)",
            ]
        for f in fields { args += ["-e", f] }
        let result = try Run.program(tshark, args)
        return rows(result.stdoutText)
    }

    /// Tab-separated lines as arrays of values (the last, empty line dropped).
    static func rows(_ text: String) -> [[String]] {
        text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }

    static func name(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }
}

/// The fields bleinspect and tshark must agree on, frame by frame, for every sniffer capture.
private let agreedFields = [
    "btle.advertising_header.pdu_type", "btle.access_address", "btle.advertising_address", "btle.control_opcode",
    "btatt.opcode", "btatt.handle", "btsmp.opcode",
]

/// tshark-only fields read to decide whether an exception applies (bleinspect is not asked for them).
private let contextFields = [
    "frame.protocols", "nordic_ble.crcok", "nordic_ble.encrypted", "nordic_ble.micok", "btle_rf.flags.crc_checked",
    "btle_rf.flags.crc_valid", "btle_rf.flags.mic_checked", "btle_rf.flags.mic_valid", "btle_rf.flags.decrypted",
]

/// What tshark says about one frame: its values of the agreed and context fields, and what the test
/// works out from them.
private struct TsharkFrame {
    var values: [String: String]
    /// The sniffer says the frame's CRC was wrong (the nRF header's CRC flag, or the RF header's
    /// "CRC checked" with "CRC valid" clear).
    var badCRC: Bool
    /// The PDU is still encrypted in the file (see `CiphertextTracker`).
    var ciphertext: Bool
    /// bleinspect marked the frame an LL retransmission (`ll.retransmission`).
    var retransmission = false

    subscript(_ field: String) -> String { values[field] ?? "" }
}

/// Decides which frames carry PDUs still encrypted in the file. tshark 4.0 does not track LL
/// encryption, so the test does, from tshark's own fields:
/// - nRF Sniffer header: the sniffer's verdict. Encrypted with the MIC flag clear is ciphertext;
///   encrypted with a good MIC was decrypted by the sniffer and is plaintext; not encrypted is
///   plaintext (SweynTooth's captures hold plaintext after LL_START_ENC with this flag clear).
/// - RF header (256): "decrypted" is plaintext; "MIC checked" without "MIC valid" is ciphertext.
/// - Otherwise (PPI/DLT 147, or an RF header that checked no MIC): every PDU after an
///   LL_START_ENC_REQ on the same access address is ciphertext.
private struct CiphertextTracker {
    /// Access addresses of connections whose LL_START_ENC_REQ has been seen.
    var encryptedLinks: Set<String> = []

    mutating func frame(_ values: [String: String]) -> TsharkFrame {
        let v = { (field: String) in values[field] ?? "" }
        let accessAddress = v("btle.access_address")
        let ciphertext: Bool
        if v("frame.protocols").split(separator: ":").contains("nordic_ble") {
            ciphertext = v("nordic_ble.encrypted") == "1" && v("nordic_ble.micok") == "0"
        } else if v("btle_rf.flags.decrypted") == "1" {
            ciphertext = false
        } else if v("btle_rf.flags.mic_checked") == "1" {
            ciphertext = v("btle_rf.flags.mic_valid") == "0"
        } else {
            ciphertext = encryptedLinks.contains(accessAddress)
        }
        // LL_START_ENC_REQ itself travels in the clear; the PDUs after it do not.
        if !ciphertext, v("btle.control_opcode").split(separator: ",").contains("0x05") {
            encryptedLinks.insert(accessAddress)
        }
        let badCRC =
            v("nordic_ble.crcok") == "0"
            || (v("btle_rf.flags.crc_checked") == "1" && v("btle_rf.flags.crc_valid") == "0")
        return TsharkFrame(values: values, badCRC: badCRC, ciphertext: ciphertext)
    }
}

/// A disagreement that is not a bug of ours, with the reason it is legitimate.
private struct Exception: Sendable {
    let reason: String
    let applies: @Sendable (_ field: String, _ ours: String, _ theirs: String, _ frame: TsharkFrame) -> Bool
}

/// Fields past the PDU header (access address, header): the ones a damaged or encrypted payload
/// affects.
private let payloadFields: Set<String> = [
    "btle.advertising_address", "btle.control_opcode", "btatt.opcode", "btatt.handle", "btsmp.opcode",
]

private let exceptions: [Exception] = [
    Exception(
        reason: """
            An LL retransmission: the same sequence number and payload as the sender's previous packet, which \
            the peer's NESN had not acknowledged. bleinspect marks it (ll.retransmission) and does not pass its \
            L2CAP PDU up a second time (ATT would see a duplicate request); tshark decodes it again. Accepted \
            only where bleinspect marked the frame and shows no ATT or SMP field.
            """,
        applies: { field, ours, _, frame in
            frame.retransmission && ours.isEmpty && ["btatt.opcode", "btatt.handle", "btsmp.opcode"].contains(field)
        }
    ),
    Exception(
        reason: """
            A Read Multiple Request with a single handle (the PDU needs two): tshark 4.0 shows no handle; \
            bleinspect shows the one there is.
            """,
        applies: { field, ours, theirs, frame in
            field == "btatt.handle" && frame["btatt.opcode"] == "0x0e" && theirs.isEmpty && ours.count == 6
        }
    ),
    Exception(
        reason: """
            The sniffer says the frame's CRC is bad, so its payload bytes are not what was sent. tshark decodes \
            them anyway (addresses, AD, even L2CAP and SMP: tesible_Lv4_passkey 3713); bleinspect may stop \
            after the PDU header. Accepted only where bleinspect shows nothing for a payload field.
            """,
        applies: { field, ours, _, frame in frame.badCRC && payloadFields.contains(field) && ours.isEmpty }
    ),
    Exception(
        reason: """
            The PDU is still encrypted in the file. tshark 4.0 does not track LL encryption: it reads the first \
            ciphertext byte of an LLID 3 PDU as a control opcode (0x4e, 0xb4, 0x71, sometimes a real-looking \
            one) and would decode ciphertext as L2CAP if its length happened to fit. Accepted only where \
            bleinspect shows no control opcode, ATT or SMP field for such a PDU.
            """,
        applies: { field, ours, _, frame in
            frame.ciphertext && ours.isEmpty
                && ["btle.control_opcode", "btatt.opcode", "btatt.handle", "btsmp.opcode"].contains(field)
        }
    ),
]

@Suite(
    "sniffer captures agree with tshark",
    .enabled(if: Run.tshark != nil && !SnifferCaptures.allPaths().isEmpty)
)
struct SnifferAgreementTests {
    /// The most disagreements printed per capture.
    static let printedLimit = 25

    @Test("every sniffer capture has tshark's frame count", arguments: SnifferCaptures.allPaths())
    func frameCount(path: String) throws {
        let ours = try Run.bleinspect(["read", "--count", path])
        #expect(ours.status == 0, "\(SnifferCaptures.name(path)): \(ours.stderr)")
        let theirs = try SnifferCaptures.tsharkFields(path, ["frame.number"]).count
        let count = Int(ours.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(
            count == theirs,
            "\(SnifferCaptures.name(path)): bleinspect \(count.map(String.init) ?? "?"), tshark \(theirs)"
        )
    }

    @Test("link-layer, ATT and SMP fields agree with tshark frame by frame", arguments: SnifferCaptures.allPaths())
    func agree(path: String) throws {
        let name = SnifferCaptures.name(path)
        // tshark cannot decrypt: the PDUs a cracked legacy pairing would decrypt stay encrypted
        // in both.
        var args = ["read", "--no-crack", "-T", "fields"]
        for f in agreedFields + ["ll.retransmission"] { args += ["-e", f] }
        args.append(path)
        let ours = try Run.bleinspect(args)
        try #require(ours.status == 0, "\(name): bleinspect exited with \(ours.status): \(ours.stderr)")
        let ourRows = SnifferCaptures.rows(ours.stdoutText)
        let theirRows = try SnifferCaptures.tsharkFields(path, agreedFields + contextFields)
        try #require(
            ourRows.count == theirRows.count,
            "\(name): frame counts differ: bleinspect \(ourRows.count), tshark \(theirRows.count)"
        )
        var tracker = CiphertextTracker()
        var problems: [String] = []
        var problemCount = 0
        var excused: [String: Int] = [:]
        for (n, (mine, theirs)) in zip(ourRows, theirRows).enumerated() {
            var values: [String: String] = [:]
            for (i, f) in (agreedFields + contextFields).enumerated() where i < theirs.count {
                values[f] = theirs[i]
            }
            var frame = tracker.frame(values)
            frame.retransmission = mine.count > agreedFields.count && mine[agreedFields.count] == "1"
            for (i, field) in agreedFields.enumerated() {
                let a = i < mine.count ? mine[i] : ""
                let b = frame[field]
                guard a != b else { continue }
                if let e = exceptions.first(where: { $0.applies(field, a, b, frame) }) {
                    excused[e.reason, default: 0] += 1
                    continue
                }
                problemCount += 1
                if problems.count < Self.printedLimit {
                    problems.append("  frame \(n + 1) \(field): bleinspect \"\(a)\", tshark \"\(b)\"")
                }
            }
        }
        let more = problemCount > problems.count ? "\n  … \(problemCount - problems.count) more" : ""
        #expect(
            problemCount == 0,
            "\(name): \(problemCount) disagreements (file, frame, field, ours, theirs):\n\(problems.joined(separator: "\n"))\(more)"
        )
        // The exceptions explain a few frames each; none may swallow a whole capture.
        let excusedTotal = excused.values.reduce(0, +)
        #expect(
            excusedTotal < ourRows.count * agreedFields.count / 2,
            "\(name): \(excusedTotal) differences excused: \(excused.values.sorted())"
        )
    }
}
