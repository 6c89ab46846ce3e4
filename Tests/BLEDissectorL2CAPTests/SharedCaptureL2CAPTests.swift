import BLECaptureTestSupport
import BLEDissectorL2CAP
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// The real-world HCI captures of ../shared/captures, through the L2CAP dissector (ACL
/// reassembled by the test, as the HCI module does), compared with tshark frame by frame.
@Suite("shared HCI captures: L2CAP against tshark", .enabled(if: TestPaths.sharedCapturesAvailable))
struct SharedCaptureL2CAPTests {
    /// HCI captures (btsnoop, PacketLogger, LINKTYPE 201) that hold frames.
    static let entries: [ManifestEntry] = ManifestEntry.all().filter {
        ($0.format == "btsnoop" || $0.format == "pklg" || $0.linkType.contains("201")) && $0.packetCount > 0
    }

    @Test("never traps, and btl2cap.cid / btl2cap.cmd_code match tshark", arguments: entries)
    func compare(entry: ManifestEntry) throws {
        let frames = CaptureFiles.readAll(entry.url.path).frames
        // PDUs fed straight to the dissector, and (once it is in) the whole pipeline through HCI.
        var runs: [(String, [Int: FrameSnapshot])] = [("direct", PDUFeeder.l2cap().replay(ACLReplay.events(frames)))]
        if hciDeliversL2CAP {
            let snaps = Dissect.frames(frames)
            runs.append(("through HCI", Dictionary(uniqueKeysWithValues: snaps.map { ($0.frame.number, $0) })))
        }
        try Self.compareWithTshark(entry, runs)
    }

    /// Compares frame by frame, leaving out ACL handle 0x0EDC: Qualcomm debug data that tshark
    /// decodes as L2CAP and the HCI module does not hand to L2CAP.
    static func compareWithTshark(_ entry: ManifestEntry, _ runs: [(String, [Int: FrameSnapshot])]) throws {
        guard Run.tshark != nil else { return }
        let fields = ["frame.number", "bthci_acl.chandle", "btl2cap.cid", "btl2cap.cmd_code"]
        let rows = try Run.tsharkFields(entry.url.path, fields)
        for (how, ours) in runs {
            var mismatches: [String] = []
            for row in rows where row.count == fields.count {
                guard let n = Int(row[0]), row[1] != "0x0edc" else { continue }
                let s = ours[n]
                let cid = s?.tsharkText("btl2cap.cid") ?? ""
                let code = s?.tsharkText("btl2cap.cmd_code") ?? ""
                if cid != row[2] || code != row[3] {
                    mismatches.append("#\(n) ours cid=\(cid) code=\(code), tshark cid=\(row[2]) code=\(row[3])")
                }
            }
            #expect(mismatches.isEmpty, "\(entry.name) \(how): \(mismatches.count) mismatches: \(mismatches.prefix(8))")
        }
    }
}
