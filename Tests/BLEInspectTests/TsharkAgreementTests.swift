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

/// The fields bleinspect and tshark must agree on, frame by frame, for every HCI capture.
private let agreedFields = [
    "hci_h4.type", "bthci_cmd.opcode", "bthci_evt.code", "bthci_evt.le_meta_subevent", "bthci_acl.chandle",
    "btl2cap.cid", "btatt.opcode", "btatt.handle", "btsmp.opcode", "bthci_evt.bd_addr", "bthci_evt.rssi",
    "btcommon.eir_ad.entry.device_name",
]

/// Fields decoded above HCI ACL: the ones a vendor's non-L2CAP data on an ACL handle affects.
private let aboveACL: Set<String> = ["btl2cap.cid", "btatt.opcode", "btatt.handle", "btsmp.opcode"]

/// HCI captures: the project's own and, when present, the shared real-world ones.
func hciCaptures() -> [String] {
    var paths = TestPaths.projectCaptureFiles(extensions: ["btsnoop", "pklg", "pcap", "pcapng"]).map(\.path)
    if TestPaths.sharedCapturesAvailable {
        paths += ManifestEntry.all().filter { entry in
            entry.packetCount > 0
                && (entry.format == "btsnoop" || entry.format == "pklg" || entry.linkType.contains("LINKTYPE 201"))
        }.map(\.url.path)
    }
    return paths
}

/// A disagreement that is not a bug of ours, with the reason it is legitimate.
private struct Exception: Sendable {
    let reason: String
    let applies: @Sendable (_ field: String, _ ours: String, _ theirs: String, _ tsharkRow: [String: String]) -> Bool
}

/// The H4 packet type that a PacketLogger record type carries.
private let packetLoggerH4: [String: String] = [
    "0x00": "0x01", "0x01": "0x04", "0x02": "0x02", "0x03": "0x02", "0x08": "0x03", "0x09": "0x03",
]

private let exceptions: [Exception] = [
    Exception(
        reason: """
            PacketLogger files have no H4 header, so tshark has no hci_h4.type there; bleinspect gives every HCI \
            packet its type. Accepted only where it matches tshark's packetlogger.type.
            """,
        applies: { field, ours, theirs, row in
            field == "hci_h4.type" && theirs.isEmpty && packetLoggerH4[row["packetlogger.type"] ?? ""] == ours
        }
    ),
    Exception(
        reason: """
            Qualcomm controllers log vendor debug data on ACL handle 0x0edc in Android captures. It is not L2CAP: \
            tshark decodes it as L2CAP anyway (inventing CIDs, ATT and SMP PDUs); bleinspect shows it as vendor data.
            """,
        applies: { field, _, _, row in aboveACL.contains(field) && row["bthci_acl.chandle"] == "0x0edc" }
    ),
]

@Suite("agreement with tshark", .enabled(if: Run.tshark != nil))
struct TsharkAgreementTests {
    @Test("HCI, L2CAP, ATT, SMP and advertising fields agree with tshark frame by frame", arguments: hciCaptures())
    func agree(path: String) throws {
        var args = ["read", "-T", "fields"]
        for f in agreedFields { args += ["-e", f] }
        args.append(path)
        let ours = try Run.bleinspect(args)
        #expect(ours.status == 0, "\(ours.stderr)")
        let ourRows = ours.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        let theirRows = try Run.tsharkFields(path, agreedFields + ["packetlogger.type"])
        try #require(ourRows.count == theirRows.count, "frame counts differ: \(ourRows.count) vs \(theirRows.count)")
        var problems: [String] = []
        var excused: [String: Int] = [:]
        for (n, (mine, theirs)) in zip(ourRows, theirRows).enumerated() {
            var row: [String: String] = [:]
            for (i, f) in (agreedFields + ["packetlogger.type"]).enumerated() where i < theirs.count {
                row[f] = theirs[i]
            }
            for (i, field) in agreedFields.enumerated() {
                let a = i < mine.count ? mine[i] : ""
                let b = i < theirs.count ? theirs[i] : ""
                guard a != b else { continue }
                if let e = exceptions.first(where: { $0.applies(field, a, b, row) }) {
                    excused[e.reason, default: 0] += 1
                } else if problems.count < 20 {
                    problems.append("frame \(n + 1) \(field): bleinspect \"\(a)\" tshark \"\(b)\"")
                }
            }
        }
        #expect(
            problems.isEmpty,
            "\(URL(fileURLWithPath: path).lastPathComponent):\n\(problems.joined(separator: "\n"))"
        )
        // Every excused difference is one of the documented kinds; none hides a whole file.
        #expect(excused.values.reduce(0, +) < ourRows.count * agreedFields.count / 2)
    }
}
