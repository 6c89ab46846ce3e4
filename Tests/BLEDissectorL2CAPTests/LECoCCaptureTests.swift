import BLECaptureTestSupport
import BLEDissectorL2CAP
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// captures/le-coc.btsnoop (Bumble): PSM 0x0085, MTU 512 both ways, central MPS 23 with 1
/// initial credit, peripheral MPS 64 with 4; six SDUs; credits run out repeatedly both ways.
/// The capture holds the central's HCI, so the local host is the central.
@Suite("le-coc.btsnoop")
struct LECoCCaptureTests {
    static let frames = CaptureFiles.readAll(TestPaths.projectCapture("le-coc.btsnoop")).frames

    /// The capture's PDUs through the L2CAP dissector (ACL reassembled by the test).
    static func dissect(drop: Set<Int> = []) -> [FrameSnapshot] {
        let feeder = PDUFeeder.l2cap()
        let byNumber = feeder.replay(ACLReplay.events(frames, drop: drop))
        return byNumber.keys.sorted().compactMap { byNumber[$0] }
    }

    static func direction(_ s: FrameSnapshot) -> String {
        s.uints("coc.sender") == [1] ? "central->peripheral" : "peripheral->central"
    }

    @Test("the six SDUs are reassembled byte for byte, in order and direction")
    func sdus() throws {
        let expected = try CaptureData.cocSDUs()
        try #require(expected.count == 6)
        let snaps = Self.dissect()
        let got = snaps.filter { $0.has("coc.sdu") }.map { (Self.direction($0), $0.bytes("coc.sdu")[0]) }
        #expect(got.count == 6)
        for (g, e) in zip(got, expected) {
            #expect(g.0 == e.0)
            #expect(g.1 == e.1)
        }
        let lengths = snaps.flatMap { $0.uints("btl2cap.le_sdu.reassembled.length") }
        #expect(lengths == [200, 333, 500, 256, 420, 487])
        let segments = snaps.flatMap { $0.uints("coc.sdu_segments") }
        #expect(segments == [4, 6, 8, 12, 19, 22])
        #expect(snaps.flatMap(\.warnings).isEmpty, "a well-behaved capture has no warnings")
        #expect(snaps.filter(\.isMalformed).isEmpty)
    }

    @Test("the channel is learned from the signalling: PSM 0x0085, MTU 512, MPS 23/64, credits 1/4")
    func channel() throws {
        let snaps = Self.dissect()
        let rsp = try #require(snaps.first { $0.uints("btl2cap.cmd_code") == [0x15] })
        #expect(rsp.uints("coc.psm") == [0x85])
        #expect(rsp.uints("coc.local_cid") == [0x40])
        #expect(rsp.uints("coc.peer_cid") == [0x40])
        #expect(rsp.uints("coc.tx_credits") == [4])
        #expect(rsp.uints("coc.rx_credits") == [1])
        let req = try #require(snaps.first { $0.uints("btl2cap.cmd_code") == [0x14] })
        #expect(req.info == "LE Credit Based Connection Request (PSM 0x0085, SCID 0x0040, MTU 512, MPS 23, credits 1)")
        let kframes = snaps.filter { $0.has("coc.segment") }
        #expect(kframes.count == 4 + 6 + 8 + 12 + 19 + 22)
        for k in kframes {
            let toPeer = k.uints("coc.sender") == [1]
            #expect(k.uints("coc.mps") == [toPeer ? 64 : 23])
            #expect(k.uints("coc.mtu") == [512])
            #expect(k.uints("btl2cap.connect_in") == [47])
            #expect(k.uints("btl2cap.psm") == [0x85])
        }
        let third = try #require(kframes.first { $0.uints("coc.sdu_index") == [3] && $0.uints("coc.segment") == [2] })
        #expect(third.info.hasPrefix("K-frame CID 0x0040 SDU 3 part 2/8, credits left "))
        let last = try #require(kframes.last)
        #expect(last.info.hasSuffix("SDU 487 bytes (reassembled)"))
    }

    @Test("credit balances: they hit zero, never go below, and move with every K-frame and credit packet")
    func credits() {
        let snaps = Self.dissect()
        var tx = 4
        var rx = 1
        var txZero = 0
        var rxZero = 0
        var received = 0
        var sent = 0
        var started = false
        for s in snaps {
            if s.uints("btl2cap.cmd_code") == [0x15] {
                started = true
                continue
            }
            guard started else { continue }
            if s.uints("btl2cap.cmd_code") == [0x16] {
                let granted = Int(s.uints("btl2cap.credits").first ?? 0)
                if s.frame.direction == .controllerToHost {
                    #expect(granted == 2)
                    received += 1
                    tx += granted
                } else {
                    #expect(granted == 1)
                    sent += 1
                    rx += granted
                }
            } else if s.has("coc.segment") {
                if s.frame.direction == .hostToController {
                    tx -= 1
                    if tx == 0 { txZero += 1 }
                } else {
                    rx -= 1
                    if rx == 0 { rxZero += 1 }
                }
                #expect(tx >= 0 && rx >= 0)
                // The credits-left figure on the info line is the sender's balance.
                let left = s.frame.direction == .hostToController ? tx : rx
                #expect(s.info.contains("credits left \(left)"))
            } else {
                continue
            }
            #expect(s.uints("coc.tx_credits") == [UInt64(tx)], "frame \(s.frame.number)")
            #expect(s.uints("coc.rx_credits") == [UInt64(rx)], "frame \(s.frame.number)")
        }
        #expect(received == 9)
        #expect(sent == 53)
        #expect(txZero == 6)
        #expect(rxZero == 53)
        let exhausted = snaps.flatMap(\.expertMessages).filter { $0.contains("has no credits left") }
        #expect(exhausted.count == 6 + 53)
        let unblocked = snaps.flatMap(\.expertMessages).filter { $0.hasPrefix("Unblocks") }
        #expect(unblocked.count == 6 + 53)
    }

    @Test("without one of the peer's credit packets, the central sends with no credits and is flagged")
    func droppedCreditPacket() throws {
        // Frame 70 is the peer's first LE Flow Control Credit (+2).
        let first = try #require(Self.dissect().first { $0.uints("btl2cap.cmd_code") == [0x16] })
        #expect(first.frame.number == 70)
        let snaps = Self.dissect(drop: [70])
        let flagged = snaps.filter { !$0.warnings.isEmpty }
        let firstFlag = try #require(flagged.first)
        #expect(firstFlag.frame.number == 80)
        #expect(
            firstFlag.warnings == [
                "The local host sent a K-frame with no credits left (flow control violation: it must wait for credits)"
            ]
        )
        #expect(firstFlag.uints("coc.tx_credits") == [0])
        // The SDUs still reassemble: credits are flow control, not data.
        #expect(snaps.filter { $0.has("coc.sdu") }.count == 6)
    }

    @Test("the L2CAP fields agree with tshark frame by frame", .enabled(if: Run.tshark != nil))
    func tshark() throws {
        let fields = ["frame.number", "btl2cap.cid", "btl2cap.cmd_code", "btl2cap.le_sdu_length", "btl2cap.credits"]
        let rows = try Run.tsharkFields(TestPaths.projectCapture("le-coc.btsnoop"), fields)
        let ours = Dictionary(uniqueKeysWithValues: Self.dissect().map { ($0.frame.number, $0) })
        #expect(rows.count == Self.frames.count)
        var compared = 0
        for row in rows where row.count == fields.count {
            guard let n = Int(row[0]) else { continue }
            let s = ours[n]
            for (i, name) in fields.enumerated().dropFirst() {
                #expect((s?.tsharkText(name) ?? "") == row[i], "frame \(n) \(name)")
            }
            if !row[1].isEmpty { compared += 1 }
        }
        // tshark shows L2CAP on the 147 frames that complete a PDU, as we do.
        #expect(compared == ours.count)
        #expect(compared == 147)
    }
}
