import BLECaptureTestSupport
import BLEDissectorL2CAP
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// Whether the HCI module hands ACL data to L2CAP yet (the modules are written side by side).
let hciDeliversL2CAP: Bool = {
    let frame = Dissect.hci(.aclData, "01 20 07 00 03 00 04 00 02 17 00")
    return Dissect.frames([frame]).first?.has("btl2cap") ?? false
}()

/// The whole pipeline: capture file → HCI → L2CAP → ATT.
@Suite("end to end through the HCI module", .enabled(if: hciDeliversL2CAP))
struct EndToEndTests {
    @Test("le-coc.btsnoop: the SDUs, credit balances and signalling as with the test's own ACL reassembly")
    func leCoC() throws {
        let snaps = Dissect.capture(TestPaths.projectCapture("le-coc.btsnoop"))
        let expected = try CaptureData.cocSDUs()
        let got = snaps.filter { $0.has("coc.sdu") }
        #expect(got.count == 6)
        for (g, e) in zip(got, expected) {
            #expect(LECoCCaptureTests.direction(g) == e.0)
            #expect(g.bytes("coc.sdu").first == e.1)
        }
        let channelNotes = snaps.flatMap(\.warnings).filter {
            $0.contains("credit") || $0.contains("MTU") || $0.contains("MPS") || $0.contains("channel")
        }
        #expect(channelNotes.isEmpty)
        // Field for field, the same as the PDUs fed straight to the dissector.
        let direct = Dictionary(uniqueKeysWithValues: LECoCCaptureTests.dissect().map { ($0.frame.number, $0) })
        let names = [
            "btl2cap.cid", "btl2cap.cmd_code", "btl2cap.le_sdu_length", "btl2cap.credits", "coc.tx_credits",
            "coc.rx_credits", "coc.segment", "coc.sdu_len",
        ]
        for s in snaps {
            let d = direct[s.frame.number]
            for n in names {
                #expect(s.tsharkText(n) == (d?.tsharkText(n) ?? ""), "frame \(s.frame.number) \(n)")
            }
        }
    }

    @Test(
        "the other project captures decode with no L2CAP warnings",
        arguments: [
            "gatt-discovery.btsnoop", "gatt-discovery-le.pklg", "smp-pairing.btsnoop", "smp-legacy-pairing.btsnoop",
        ]
    )
    func otherCaptures(name: String) {
        let snaps = Dissect.capture(TestPaths.projectCapture(name))
        #expect(snaps.contains { $0.has("btl2cap") })
        let ours = snaps.flatMap(\.warnings).filter { $0.contains("L2CAP") || $0.contains("channel") }
        #expect(ours.isEmpty, "\(name): \(ours.prefix(3))")
    }
}
