import BLECaptureTestSupport
import BLEDissectorL2CAP
import BLEDissectorTestSupport
import BLEInspectCore
import Testing

/// Hand-built LE credit-based channels: credits, SDU reassembly and the warnings that explain stalls.
@Suite("LE credit-based channels")
struct CreditChannelTests {
    /// Opens a channel: the local host asks (SCID 0x0040), the peer accepts (DCID 0x0041).
    static func open(
        _ feeder: PDUFeeder,
        localMTU: Int = 512,
        localMPS: Int = 23,
        localCredits: Int = 1,
        peerMTU: Int = 512,
        peerMPS: Int = 64,
        peerCredits: Int = 4,
        handle: UInt16 = 0x0040
    ) {
        feeder.pdu(
            PDU.le(0x14, 1, [0x0085, 0x0040, localMTU, localMPS, localCredits]),
            .hostToController,
            handle: handle
        )
        feeder.pdu(PDU.le(0x15, 1, [0x0041, peerMTU, peerMPS, peerCredits, 0]), .controllerToHost, handle: handle)
    }

    static func bytes(_ n: Int, from start: Int = 0) -> [UInt8] { (0..<n).map { UInt8((start + $0) & 0xFF) } }

    @Test("a local host that sends with no credits left is flagged, and its balance never goes negative")
    func localOutOfCredits() {
        let feeder = PDUFeeder.l2cap()
        Self.open(feeder, peerCredits: 2)
        let a = feeder.pdu(PDU.kframe(cid: 0x41, sduLength: 10, Self.bytes(10)), .hostToController)
        #expect(a.uints("coc.tx_credits") == [1])
        #expect(a.warnings.isEmpty)
        #expect(a.info == "K-frame CID 0x0041 SDU 1 part 1/1, credits left 1, SDU 10 bytes (reassembled)")
        let b = feeder.pdu(PDU.kframe(cid: 0x41, sduLength: 10, Self.bytes(10)), .hostToController)
        #expect(b.uints("coc.tx_credits") == [0])
        #expect(b.warnings.isEmpty)
        #expect(b.expertMessages.contains { $0.hasPrefix("The local host has no credits left") })
        let c = feeder.pdu(PDU.kframe(cid: 0x41, sduLength: 10, Self.bytes(10)), .hostToController)
        #expect(c.uints("coc.tx_credits") == [0])
        #expect(c.warnings.contains { $0.hasPrefix("The local host sent a K-frame with no credits left") })
        #expect(c.uints("coc.sender") == [1])
        // The peer's credit packet names the peer's own CID and unblocks the local host.
        let credit = feeder.pdu(PDU.le(0x16, 2, [0x0041, 3]), .controllerToHost)
        #expect(credit.info == "LE Flow Control Credit (CID 0x0041, +3), credits now 3")
        #expect(credit.uints("coc.tx_credits") == [3])
        #expect(
            credit.expertMessages.contains { $0.hasPrefix("Unblocks the local host, out of credits since frame 4") }
        )
        let d = feeder.pdu(PDU.kframe(cid: 0x41, sduLength: 1, [9]), .hostToController)
        #expect(d.uints("coc.tx_credits") == [2])
        #expect(d.warnings.isEmpty)
    }

    @Test("a peer that sends with no credits left is flagged")
    func peerOutOfCredits() {
        let feeder = PDUFeeder.l2cap()
        Self.open(feeder, localCredits: 1)
        let a = feeder.pdu(PDU.kframe(cid: 0x40, sduLength: 40, Self.bytes(21)), .controllerToHost)
        #expect(a.uints("coc.rx_credits") == [0])
        #expect(a.uints("coc.sender") == [2])
        #expect(a.info == "K-frame CID 0x0040 SDU 1 part 1/2, credits left 0")
        let b = feeder.pdu(PDU.kframe(cid: 0x40, Self.bytes(19, from: 21)), .controllerToHost)
        #expect(b.warnings.contains { $0.hasPrefix("The peer sent a K-frame with no credits left") })
        #expect(b.info == "K-frame CID 0x0040 SDU 1 part 2/2, credits left 0, SDU 40 bytes (reassembled)")
        #expect(b.bytes("coc.sdu") == [Self.bytes(40)])
        #expect(b.uints("coc.sdu_len") == [40])
        #expect(b.uints("btl2cap.le_sdu.reassembled.length") == [40])
        #expect(b.uints("coc.sdu_segments") == [2])
    }

    @Test("an SDU over the receiver's MTU is flagged and still reassembled")
    func sduOverMTU() {
        let feeder = PDUFeeder.l2cap()
        Self.open(feeder, localMTU: 100, localMPS: 100, localCredits: 10)
        let a = feeder.pdu(PDU.kframe(cid: 0x40, sduLength: 150, Self.bytes(98)), .controllerToHost)
        #expect(a.warnings == ["SDU length 150 exceeds the receiver's MTU of 100"])
        #expect(a.uints("btl2cap.le_sdu_length") == [150])
        #expect(a.uints("coc.sdu_pending") == [52])
        let b = feeder.pdu(PDU.kframe(cid: 0x40, Self.bytes(52, from: 98)), .controllerToHost)
        #expect(b.bytes("coc.sdu") == [Self.bytes(150)])
        #expect(b.warnings.isEmpty)
    }

    @Test("a K-frame over the receiver's MPS is flagged")
    func kframeOverMPS() {
        let feeder = PDUFeeder.l2cap()
        Self.open(feeder, peerMPS: 30)
        let a = feeder.pdu(PDU.kframe(cid: 0x41, sduLength: 38, Self.bytes(38)), .hostToController)
        #expect(a.warnings == ["K-frame payload of 40 bytes exceeds the receiver's MPS of 30"])
        #expect(a.uints("coc.mps") == [30])
        #expect(a.bytes("coc.sdu") == [Self.bytes(38)])
    }

    @Test("a K-frame longer than the rest of its SDU is flagged; the extra bytes are ignored")
    func overrun() {
        let feeder = PDUFeeder.l2cap()
        Self.open(feeder)
        feeder.pdu(PDU.kframe(cid: 0x41, sduLength: 30, Self.bytes(20)), .hostToController)
        let b = feeder.pdu(PDU.kframe(cid: 0x41, Self.bytes(15, from: 20)), .hostToController)
        #expect(b.warnings.contains("K-frame carries 5 bytes beyond the SDU length: they are ignored"))
        #expect(b.bytes("coc.sdu") == [Self.bytes(30)])
    }

    @Test("K-frames on an unknown channel are shown as data with a warning")
    func orphan() {
        let feeder = PDUFeeder.l2cap()
        let s = feeder.pdu(PDU.kframe(cid: 0x0050, sduLength: 4, [1, 2, 3, 4]), .controllerToHost)
        #expect(s.bytes("btl2cap.payload") == [[4, 0, 1, 2, 3, 4]])
        #expect(s.warnings.count == 1)
        #expect(s.warnings.first?.hasPrefix("No channel known for CID 0x0050 on this connection") == true)
        #expect(s.info == "Data on unknown channel CID 0x0050, 6 bytes")
        #expect(!s.has("coc"))
        // The same CID on another connection is another channel.
        Self.open(feeder, handle: 0x0001)
        let other = feeder.pdu(PDU.kframe(cid: 0x40, sduLength: 1, [1]), .controllerToHost, handle: 0x0002)
        #expect(other.warnings.first?.hasPrefix("No channel known") == true)
    }

    @Test("both directions reassemble independently when their K-frames interleave")
    func interleaved() {
        let feeder = PDUFeeder.l2cap()
        Self.open(feeder, localCredits: 10, peerCredits: 10)
        let sduOut = Self.bytes(100, from: 7)
        let sduIn = Self.bytes(50, from: 200)
        feeder.pdu(PDU.kframe(cid: 0x41, sduLength: 100, Array(sduOut[0..<62])), .hostToController)
        feeder.pdu(PDU.kframe(cid: 0x40, sduLength: 50, Array(sduIn[0..<21])), .controllerToHost)
        let out = feeder.pdu(PDU.kframe(cid: 0x41, Array(sduOut[62...])), .hostToController)
        feeder.pdu(PDU.kframe(cid: 0x40, Array(sduIn[21..<44])), .controllerToHost)
        let inn = feeder.pdu(PDU.kframe(cid: 0x40, Array(sduIn[44...])), .controllerToHost)
        #expect(out.bytes("coc.sdu") == [sduOut])
        #expect(inn.bytes("coc.sdu") == [sduIn])
        #expect(inn.uints("coc.sdu_segments") == [3])
        #expect(inn.uints("coc.sdu_start") == [4])
        #expect(inn.uints("coc.tx_credits") == [8])
        #expect(inn.uints("coc.rx_credits") == [7])
    }

    @Test("disconnection removes the channel and reports an SDU left incomplete")
    func disconnection() {
        let feeder = PDUFeeder.l2cap()
        Self.open(feeder)
        feeder.pdu(PDU.kframe(cid: 0x41, sduLength: 100, Self.bytes(62)), .hostToController)
        let req = feeder.pdu(PDU.le(0x06, 9, [0x0041, 0x0040]), .hostToController)
        #expect(req.uints("btl2cap.connect_in") == [1])
        #expect(req.uints("btl2cap.psm") == [0x85])
        let rsp = feeder.pdu(PDU.le(0x07, 9, [0x0041, 0x0040]), .controllerToHost)
        #expect(rsp.expertMessages.contains("Channel closed with an SDU to the peer incomplete: 62 of 100 bytes"))
        #expect(rsp.uints("coc.channel") == [1])
        let after = feeder.pdu(PDU.kframe(cid: 0x41, [1, 2]), .hostToController)
        #expect(after.warnings.first?.hasPrefix("No channel known for CID 0x0041") == true)
    }

    @Test("the connection closing removes its channels")
    func connectionClosed() {
        let feeder = PDUFeeder.l2cap()
        Self.open(feeder)
        Self.open(feeder, handle: 0x0041)
        feeder.state.closeConnection(ConnectionKey(controller: 0, handle: 0x0040))
        let gone = feeder.pdu(PDU.kframe(cid: 0x41, sduLength: 1, [1]), .hostToController)
        #expect(gone.warnings.first?.hasPrefix("No channel known") == true)
        let kept = feeder.pdu(PDU.kframe(cid: 0x41, sduLength: 1, [1]), .hostToController, handle: 0x0041)
        #expect(kept.warnings.isEmpty)
        #expect(kept.uints("coc.channel") == [2])
    }

    @Test("enhanced credit-based connection with several CIDs, one refused, and a reconfiguration")
    func enhanced() {
        let feeder = PDUFeeder.l2cap()
        let req = feeder.pdu(PDU.le(0x17, 3, [0x0085, 100, 64, 5, 0x0040, 0x0041, 0x0042]), .hostToController)
        #expect(req.uints("btl2cap.scid") == [0x40, 0x41, 0x42])
        #expect(
            req.info
                == "Enhanced Credit Based Connection Request (PSM 0x0085, MTU 100, MPS 64, credits 5, SCIDs 0x0040 0x0041 0x0042)"
        )
        let rsp = feeder.pdu(PDU.le(0x18, 3, [200, 80, 3, 0x0004, 0x0060, 0x0000, 0x0062]), .controllerToHost)
        #expect(rsp.uints("btl2cap.dcid") == [0x60, 0, 0x62])
        #expect(rsp.uints("coc.ecfc_result") == [4])
        #expect(rsp.uints("coc.channel") == [1, 2])
        #expect(rsp.uints("coc.local_cid") == [0x40, 0x42])
        #expect(rsp.uints("coc.peer_cid") == [0x60, 0x62])
        #expect(rsp.uints("coc.mode") == [2, 2])
        // Each channel has its own credits and its own SDU.
        let a = feeder.pdu(PDU.kframe(cid: 0x60, sduLength: 3, [1, 2, 3]), .hostToController)
        #expect(a.uints("coc.channel") == [1])
        #expect(a.uints("coc.tx_credits") == [2])
        #expect(a.uints("coc.mtu") == [200])
        let b = feeder.pdu(PDU.kframe(cid: 0x62, sduLength: 2, [4, 5]), .hostToController)
        #expect(b.uints("coc.channel") == [2])
        #expect(b.uints("coc.tx_credits") == [2])
        #expect(b.bytes("coc.sdu") == [[4, 5]])
        let refused = feeder.pdu(PDU.kframe(cid: 0x0061, sduLength: 1, [1]), .hostToController)
        #expect(refused.warnings.first?.hasPrefix("No channel known for CID 0x0061") == true)
        // The local host raises its MTU and MPS on both channels.
        let reconf = feeder.pdu(PDU.le(0x19, 4, [300, 100, 0x0040, 0x0042]), .hostToController)
        #expect(reconf.uints("btl2cap.dcid") == [0x40, 0x42])
        let reconfRsp = feeder.pdu(PDU.le(0x1A, 4, [0]), .controllerToHost)
        #expect(reconfRsp.uints("coc.reconf_result") == [0])
        #expect(reconfRsp.info == "Credit Based Reconfigure Response (Reconfiguration successful)")
        let c = feeder.pdu(PDU.kframe(cid: 0x42, sduLength: 1, [1]), .controllerToHost)
        #expect(c.uints("coc.mtu") == [300])
        #expect(c.uints("coc.mps") == [100])
        #expect(c.uints("coc.rx_credits") == [4])
    }

    @Test("with no direction, K-frames are placed by their CID")
    func unknownDirection() {
        let feeder = PDUFeeder.l2cap()
        feeder.pdu(PDU.le(0x14, 1, [0x0085, 0x0040, 512, 23, 2]), .unknown)
        feeder.pdu(PDU.le(0x15, 1, [0x0041, 512, 64, 4, 0]), .unknown)
        let toPeer = feeder.pdu(PDU.kframe(cid: 0x41, sduLength: 1, [1]), .unknown)
        #expect(toPeer.uints("coc.tx_credits") == [3])
        let toLocal = feeder.pdu(PDU.kframe(cid: 0x40, sduLength: 1, [1]), .unknown)
        #expect(toLocal.uints("coc.rx_credits") == [1])
    }

    @Test("the channel table is bounded, with a warning when full")
    func tableFull() {
        let feeder = PDUFeeder.l2cap()
        for i in 0..<512 { Self.open(feeder, handle: UInt16(i)) }
        feeder.pdu(PDU.le(0x14, 1, [0x0085, 0x0040, 512, 23, 1]), .hostToController, handle: 0x0600)
        let full = feeder.pdu(PDU.le(0x15, 1, [0x0041, 512, 64, 4, 0]), .controllerToHost, handle: 0x0600)
        #expect(full.warnings.contains { $0.hasPrefix("Limit reached: channel table full (512 channels)") })
        // Closing a connection makes room again.
        feeder.state.closeConnection(ConnectionKey(controller: 0, handle: 0))
        Self.open(feeder, handle: 0x0601)
        let ok = feeder.pdu(PDU.kframe(cid: 0x41, sduLength: 1, [1]), .hostToController, handle: 0x0601)
        #expect(ok.warnings.isEmpty)
    }

    @Test("SDU reassembly is bounded per connection and in all; the reservation is freed with the connection")
    func reassemblyBudgets() {
        let feeder = PDUFeeder.l2cap()
        // Each connection (handles 0-4) opens one channel with MTU 65,535 and many credits.
        // 16 SDUs of 65,535 bytes fill one connection's 1 MiB.
        func start(_ handle: UInt16) -> FrameSnapshot {
            feeder.pdu(PDU.kframe(cid: 0x40, sduLength: 65_535, [1, 2, 3]), .controllerToHost, handle: handle)
        }
        for h in UInt16(0)..<5 { Self.open(feeder, localMTU: 65_535, localCredits: 100, handle: h) }
        // One channel per connection holds one SDU at a time: open 16 more channels on handle 0.
        for k in 0..<16 {
            let scid = 0x0050 + k
            feeder.pdu(PDU.le(0x14, UInt8(2 + k), [0x0085, scid, 65_535, 23, 100]), .hostToController, handle: 0)
            feeder.pdu(PDU.le(0x15, UInt8(2 + k), [0x0060 + k, 512, 64, 4, 0]), .controllerToHost, handle: 0)
        }
        var notes: [String] = []
        for k in 0..<16 {
            let f = feeder.pdu(
                PDU.kframe(cid: 0x0050 + k, sduLength: 65_535, [1, 2, 3]),
                .controllerToHost,
                handle: 0
            )
            notes += f.expertMessages.filter { $0.hasPrefix("Limit reached") }
        }
        #expect(notes.isEmpty, "\(notes)")
        // The 17th SDU on connection 0 is over its budget.
        let over = start(0)
        #expect(
            over.expertMessages.contains {
                $0.hasPrefix("Limit reached: reassembly budget of 1048576 bytes in progress on this connection")
            },
            "\(over.expertMessages)"
        )
        // Connections 1-3 take 3 MiB in all; with connection 0's 1 MiB the total budget (4 MiB)
        // is spent, so connection 4's SDU is refused by the total.
        for h in UInt16(1)...3 {
            for k in 0..<16 {
                let scid = 0x0050 + k
                feeder.pdu(PDU.le(0x14, UInt8(2 + k), [0x0085, scid, 65_535, 23, 100]), .hostToController, handle: h)
                feeder.pdu(PDU.le(0x15, UInt8(2 + k), [0x0060 + k, 512, 64, 4, 0]), .controllerToHost, handle: h)
                feeder.pdu(
                    PDU.kframe(cid: scid, sduLength: 65_535, [1, 2, 3]),
                    .controllerToHost,
                    handle: h
                )
            }
        }
        let total = start(4)
        #expect(
            total.expertMessages.contains {
                $0.hasPrefix("Limit reached: reassembly budget of 4194304 bytes in progress reached")
            },
            "\(total.expertMessages)"
        )
        // Closing connection 0 frees its reservations: connection 4's next SDU is collected.
        feeder.state.closeConnection(ConnectionKey(controller: 0, handle: 0))
        Self.open(feeder, localMTU: 65_535, localCredits: 100, handle: 5)
        let after = feeder.pdu(PDU.kframe(cid: 0x40, sduLength: 65_535, [1]), .controllerToHost, handle: 5)
        #expect(!after.expertMessages.contains { $0.hasPrefix("Limit reached") }, "\(after.expertMessages)")
    }

    @Test("unanswered requests are bounded, with a note when one is forgotten")
    func pendingBounded() {
        let feeder = PDUFeeder.l2cap()
        var last: FrameSnapshot?
        for i in 0..<65 {
            last = feeder.pdu(PDU.le(0x14, UInt8(i), [0x0085, 0x0040 + i, 512, 23, 1]), .hostToController)
        }
        #expect(
            last?.expertMessages.contains { $0.hasPrefix("Limit reached: too many unanswered signalling requests") }
                == true
        )
    }

    @Test("a reassembled SDU of a bound PSM goes to that PSM's dissector in its own data source")
    func handOn() {
        let feeder = PDUFeeder.l2cap()
        feeder.pdu(PDU.le(0x14, 1, [0x0027, 0x0040, 512, 64, 5]), .hostToController)
        feeder.pdu(PDU.le(0x15, 1, [0x0041, 512, 64, 5, 0]), .controllerToHost)
        // An ATT Exchange MTU Request over EATT, in two K-frames.
        feeder.pdu(PDU.kframe(cid: 0x41, sduLength: 3, [0x02]), .hostToController)
        let s = feeder.pdu(PDU.kframe(cid: 0x41, [0x17, 0x00]), .hostToController)
        #expect(s.bytes("coc.sdu") == [[0x02, 0x17, 0x00]])
        let sdu = s.nodes.first { s.registry.descriptor($0.field).abbrev == "coc.sdu" }
        #expect(sdu?.source == 1)
        #expect(s.sources == [[0x02, 0x17, 0x00]])
        if l2capRegistry.binding(StandardTables.l2capPSM, DissectorKey(0x27)) != nil {
            #expect(s.has("btatt"))
        }
    }

    @Test("random PDUs on signalling and channel CIDs never trap, and balances stay in range")
    func randomPDUs() {
        var rng = SplitMix64(seed: 0x1234_5678)
        let feeder = PDUFeeder.l2cap()
        Self.open(feeder, localCredits: 3, peerCredits: 3)
        let cids: [Int] = [1, 4, 5, 0x40, 0x41, 0x42, 0x0F00]
        let directions: [Direction] = [.hostToController, .controllerToHost, .unknown]
        for i in 0..<4000 {
            let cid = cids[Int(rng.next() % UInt64(cids.count))]
            var payload = (0..<Int(rng.next() % 40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            if cid == 5, !payload.isEmpty, i % 2 == 0 { payload[0] = UInt8(0x12 + rng.next() % 9) }
            var pdu = PDU.frame(cid: cid, payload)
            if i % 7 == 0 { pdu = Array(pdu.prefix(Int(rng.next() % UInt64(pdu.count + 1)))) }
            let s = feeder.pdu(pdu, directions[Int(rng.next() % 3)])
            for v in s.uints("coc.tx_credits") + s.uints("coc.rx_credits") { #expect(v <= 65535) }
        }
    }
}
