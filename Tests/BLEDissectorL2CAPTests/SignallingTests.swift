import BLECaptureTestSupport
import BLEDissectorL2CAP
import BLEDissectorTestSupport
import BLEInspectCore
import Testing

@Suite("L2CAP basic header and signalling")
struct SignallingTests {
    @Test("the registry builds with the L2CAP fields, Wireshark's names and the coc.* names")
    func registry() {
        let names = [
            "btl2cap", "btl2cap.length", "btl2cap.cid", "btl2cap.payload", "btl2cap.command", "btl2cap.cmd_code",
            "btl2cap.cmd_ident", "btl2cap.cmd_length", "btl2cap.cmd_data", "btl2cap.psm", "btl2cap.le_psm",
            "btl2cap.scid", "btl2cap.dcid", "btl2cap.result", "btl2cap.status", "btl2cap.rej_reason",
            "btl2cap.sig_mtu", "btl2cap.info_type", "btl2cap.info_result", "btl2cap.info_mtu",
            "btl2cap.info_extfeatures", "btl2cap.info_fixedchans", "btl2cap.flags.continuation",
            "btl2cap.conf_result", "btl2cap.option_type", "btl2cap.option_mtu", "btl2cap.mps",
            "btl2cap.retransmissionmode", "btl2cap.min_interval", "btl2cap.max_interval", "btl2cap.slave_latency",
            "btl2cap.timeout_multiplier", "btl2cap.move_result", "btl2cap.le_result", "btl2cap.credits",
            "btl2cap.initial_credits", "btl2cap.le_sdu_length", "btl2cap.data", "btl2cap.connect_in",
            "coc", "coc.channel", "coc.sender", "coc.local_cid", "coc.peer_cid", "coc.mtu", "coc.mps",
            "coc.tx_credits", "coc.rx_credits", "coc.sdu_index", "coc.segment", "coc.sdu_pending", "coc.sdu",
            "coc.sdu_len", "coc.sdu_segments", "coc.sdu_start", "coc.ecfc_result", "coc.reconf_result", "coc.initiator",
            // aliases
            "coc.psm", "btl2cap.le_sdu.reassembled.length", "btl2cap.le_sdu.fragment.count",
        ]
        for n in names { #expect(l2capRegistry.field(named: n) != nil, "\(n)") }
        #expect(l2capRegistry.binding(StandardTables.l2cap, DissectorKey(0))?.owner == "l2cap")
        #expect(l2capRegistry.binding(StandardTables.l2capCID, DissectorKey(5))?.owner == "l2cap")
        #expect(l2capRegistry.binding(StandardTables.l2capCID, DissectorKey(1))?.owner == "l2cap")
        // Every coc field says what it means.
        for (i, d) in l2capRegistry.fields.enumerated() where d.abbrev.hasPrefix("coc.") {
            #expect(!d.help.isEmpty, "\(d.abbrev) (\(i)) has no help text")
        }
    }

    @Test("every Wireshark-named field exists in tshark 4.0 with the same abbreviation")
    func wiresharkNames() throws {
        guard let tshark = Run.tshark else { return }
        let out = try Run.program(tshark, ["-G", "fields"]).stdoutText
        var known = Set<String>()
        for line in out.split(separator: "\n") {
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false)
            if cols.count > 2 { known.insert(String(cols[2])) }
        }
        known.insert("btl2cap")
        for d in l2capRegistry.fields where d.abbrev == "btl2cap" || d.abbrev.hasPrefix("btl2cap.") {
            #expect(known.contains(d.abbrev), "\(d.abbrev) is not a tshark field")
        }
    }

    @Test("LE Credit Based Connection Request and Response")
    func leCreditBased() {
        let feeder = PDUFeeder.l2cap()
        let req = feeder.pdu(PDU.le(0x14, 1, [0x0085, 0x0040, 512, 23, 1]), .hostToController)
        #expect(req.uints("btl2cap.length") == [14])
        #expect(req.uints("btl2cap.cid") == [5])
        #expect(req.uints("btl2cap.cmd_code") == [0x14])
        #expect(req.uints("btl2cap.cmd_ident") == [1])
        #expect(req.uints("btl2cap.cmd_length") == [10])
        #expect(req.uints("btl2cap.le_psm") == [0x85])
        #expect(req.uints("btl2cap.scid") == [0x40])
        #expect(req.uints("btl2cap.option_mtu") == [512])
        #expect(req.uints("btl2cap.mps") == [23])
        #expect(req.uints("btl2cap.initial_credits") == [1])
        #expect(req.info == "LE Credit Based Connection Request (PSM 0x0085, SCID 0x0040, MTU 512, MPS 23, credits 1)")
        #expect(req.warnings.isEmpty)
        #expect(!req.isMalformed)

        let rsp = feeder.pdu(PDU.le(0x15, 1, [0x0041, 512, 64, 4, 0]), .controllerToHost)
        #expect(rsp.uints("btl2cap.dcid") == [0x41])
        #expect(rsp.uints("btl2cap.le_result") == [0])
        #expect(
            rsp.info
                == "LE Credit Based Connection Response (DCID 0x0041, MTU 512, MPS 64, credits 4, Connection successful)"
        )
        // The channel exists now: local CID 0x0040 (the requester's), peer 0x0041.
        #expect(rsp.uints("coc.channel") == [1])
        #expect(rsp.uints("coc.local_cid") == [0x40])
        #expect(rsp.uints("coc.peer_cid") == [0x41])
        #expect(rsp.uints("coc.tx_credits") == [4])
        #expect(rsp.uints("coc.rx_credits") == [1])
        #expect(rsp.uints("coc.psm") == [0x85])
        #expect(rsp.uints("coc.initiator") == [1])
    }

    @Test("a refused LE connection creates no channel")
    func refused() {
        let feeder = PDUFeeder.l2cap()
        feeder.pdu(PDU.le(0x14, 7, [0x0085, 0x0040, 512, 23, 1]), .hostToController)
        let rsp = feeder.pdu(PDU.le(0x15, 7, [0x0000, 0, 0, 0, 0x0002]), .controllerToHost)
        #expect(rsp.info.hasSuffix("Connection refused - SPSM not supported)"))
        #expect(!rsp.has("coc.channel"))
        let data = feeder.pdu(PDU.kframe(cid: 0x0040, sduLength: 1, [0xAA]), .controllerToHost)
        #expect(data.warnings.contains { $0.hasPrefix("No channel known for CID 0x0040") })
    }

    @Test("Command Reject, each reason")
    func commandReject() {
        let feeder = PDUFeeder.l2cap()
        var s = feeder.pdu(PDU.le(0x01, 3, [0x0000]), .controllerToHost)
        #expect(s.uints("btl2cap.rej_reason") == [0])
        #expect(s.info == "Command Reject (Command not understood)")
        s = feeder.pdu(PDU.le(0x01, 3, [0x0001, 23]), .controllerToHost)
        #expect(s.uints("btl2cap.sig_mtu") == [23])
        s = feeder.pdu(PDU.le(0x01, 3, [0x0002, 0x0040, 0x0041]), .controllerToHost)
        #expect(s.uints("btl2cap.dcid") == [0x40])
        #expect(s.uints("btl2cap.scid") == [0x41])
        #expect(s.info == "Command Reject (Invalid CID in request)")
        #expect(!s.isMalformed)
    }

    @Test("Connection Parameter Update Request and Response")
    func parameterUpdate() {
        let feeder = PDUFeeder.l2cap()
        let req = feeder.pdu(PDU.le(0x12, 0, [16, 24, 0, 600]), .controllerToHost)
        #expect(req.uints("btl2cap.min_interval") == [16])
        #expect(req.uints("btl2cap.max_interval") == [24])
        #expect(req.uints("btl2cap.slave_latency") == [0])
        #expect(req.uints("btl2cap.timeout_multiplier") == [600])
        #expect(req.info == "Connection Parameter Update Request (interval 16-24, latency 0, timeout 600)")
        let rsp = feeder.pdu(PDU.le(0x13, 0, [1]), .hostToController)
        #expect(rsp.uints("btl2cap.move_result") == [1])
        #expect(rsp.info == "Connection Parameter Update Response (Connection Parameters rejected)")
    }

    @Test("fixed channels go on with packet.cid set; unknown commands are named and kept")
    func fixedAndUnknown() {
        let feeder = PDUFeeder.l2cap()
        let att = feeder.pdu(PDU.frame(cid: 4, [0x02, 0x17, 0x00]), .hostToController)
        #expect(att.uints("btl2cap.cid") == [4])
        #expect(!att.isMalformed)
        let unknown = feeder.pdu(PDU.frame(cid: 5, PDU.command(0x40, 1, [1, 2, 3])), .hostToController)
        #expect(unknown.uints("btl2cap.cmd_code") == [0x40])
        #expect(unknown.bytes("btl2cap.cmd_data") == [[1, 2, 3]])
        #expect(unknown.warnings.contains("Unknown command code 0x40"))
        let null = feeder.pdu(PDU.frame(cid: 0, [1]), .hostToController)
        #expect(null.warnings.contains { $0.contains("null identifier") })
    }

    @Test("an LE signalling PDU with two commands decodes both and warns")
    func twoCommandsOnLE() {
        let feeder = PDUFeeder.l2cap()
        let two = PDU.frame(cid: 5, PDU.command(0x13, 1, [0, 0]) + PDU.command(0x13, 2, [1, 0]))
        let s = feeder.pdu(two, .hostToController)
        #expect(s.uints("btl2cap.cmd_code") == [0x13, 0x13])
        #expect(s.warnings.contains { $0.contains("carries one command") })
    }

    @Test("length mismatches: a cut PDU and trailing bytes are flagged, never trap")
    func lengths() {
        let feeder = PDUFeeder.l2cap()
        let cut = feeder.pdu([10, 0, 5, 0, 0x13, 1], .hostToController)
        #expect(cut.warnings.contains { $0.contains("cut short") })
        #expect(cut.isMalformed)
        let extra = feeder.pdu(PDU.le(0x13, 1, [0]) + [0xEE], .hostToController)
        #expect(extra.warnings.contains { $0.contains("after the 6-byte L2CAP payload") })
    }

    /// Signalling vectors for the prefix sweep (LE and BR/EDR).
    static let vectors: [[UInt8]] = [
        PDU.le(0x01, 1, [0x0002, 0x0040, 0x0041]),
        PDU.le(0x06, 2, [0x0040, 0x0041]),
        PDU.le(0x07, 2, [0x0040, 0x0041]),
        PDU.le(0x12, 3, [6, 12, 0, 100]),
        PDU.le(0x13, 3, [0]),
        PDU.le(0x14, 4, [0x0085, 0x0040, 512, 23, 1]),
        PDU.le(0x15, 4, [0x0040, 512, 64, 4, 0]),
        PDU.le(0x16, 5, [0x0040, 2]),
        PDU.le(0x17, 6, [0x0027, 512, 64, 10, 0x0040, 0x0041, 0x0042]),
        PDU.le(0x18, 6, [512, 64, 10, 0, 0x0050, 0x0051, 0x0052]),
        PDU.le(0x19, 7, [600, 64, 0x0040, 0x0041]),
        PDU.le(0x1A, 7, [0]),
        PDU.frame(cid: 1, PDU.command(0x02, 1, PDU.le16(0x0001) + PDU.le16(0x0040))),
        PDU.frame(cid: 1, PDU.command(0x03, 1, [0x41, 0, 0x40, 0, 0, 0, 0, 0])),
        PDU.frame(
            cid: 1,
            PDU.command(
                0x04,
                2,
                [0x41, 0, 0, 0, 0x01, 2, 0x00, 0x04, 0x04, 9, 3, 10, 20, 0xD0, 0x07, 0xE0, 0x2E, 0xF0, 0x03]
            )
        ),
        PDU.frame(cid: 1, PDU.command(0x05, 2, [0x40, 0, 0, 0, 0, 0, 0x01, 2, 0xA0, 0x02])),
        PDU.frame(cid: 1, PDU.command(0x0A, 3, [2, 0]) + PDU.command(0x0B, 3, [2, 0, 0, 0, 0xB8, 0x02, 0, 0])),
        PDU.frame(cid: 1, PDU.command(0x0B, 4, [3, 0, 0, 0, 0x86, 0, 0, 0, 0, 0, 0, 0])),
        PDU.frame(cid: 1, PDU.command(0x08, 5, [1, 2, 3])),
    ]

    /// The cuts of each vector (by index in `vectors`) that the signalling decoder does not mark
    /// truncated, besides cut 4 (the bare basic header: the warning "Empty signalling PDU"). A
    /// command cut inside its variable part (options, echo data, a CID list) on an even length
    /// only gets the warning "Command length N runs past the PDU"; on an odd length inside a CID
    /// list it is malformed ("the CID list has an odd number of bytes"). Cut 10 of vector 16 ends
    /// after its first command.
    static let notTruncated: [Int: [Int: FrameMark]] = {
        func cidList(_ cuts: Range<Int>) -> [Int: FrameMark] {
            Dictionary(uniqueKeysWithValues: cuts.map { ($0, $0 % 2 == 0 ? FrameMark.warning : .malformed) })
        }
        return [
            8: cidList(16..<22), 9: cidList(16..<22), 10: cidList(12..<16),
            14: [12: .warning, 16: .warning], 15: [14: .warning], 16: [10: .clean],
            18: [8: .warning, 9: .warning, 10: .warning],
        ]
    }()

    @Test("every prefix of every signalling vector is truncated unless listed; nothing traps")
    func everyPrefix() {
        for (i, vector) in Self.vectors.enumerated() {
            let marks = (Self.notTruncated[i] ?? [:]).merging([4: .warning]) { kept, _ in kept }
            // Vector 7 (LE Flow Control Credit) names a channel this connection never opened.
            let whole: FrameMark = i == 7 ? .warning : .clean
            // As is: the L2CAP header's length then disagrees with the bytes, which adds the
            // warning "PDU cut short" (so the clean cut of vector 16 is a warning here).
            let asIs = marks.mapValues { $0 == .clean ? FrameMark.warning : $0 }
            expectEveryPrefix(of: vector, "vector \(i)", marks: asIs, whole: whole) {
                PDUFeeder.l2cap().pdu($0, .hostToController)
            }
            // With the header's length made to fit, the signalling decoder itself sees the cut.
            expectEveryPrefix(of: vector, "fitted vector \(i)", marks: marks, whole: whole) { cut in
                var fitted = cut
                if fitted.count >= 4 {
                    fitted[0] = UInt8((fitted.count - 4) & 0xFF)
                    fitted[1] = 0
                }
                let t = PDUFeeder.l2cap().pdu(fitted, .controllerToHost)
                #expect(t.has("btl2cap"))
                return t
            }
        }
    }

    @Test("BR/EDR signalling: connection, configuration, information, disconnection")
    func bredr() {
        let feeder = PDUFeeder.l2cap()
        let req = feeder.pdu(
            PDU.frame(cid: 1, PDU.command(0x02, 1, PDU.le16(0x0001) + PDU.le16(0x0040))),
            .hostToController
        )
        #expect(req.uints("btl2cap.psm") == [1])
        #expect(req.uints("btl2cap.scid") == [0x40])
        #expect(req.info == "Connection Request (PSM 0x0001, SCID 0x0040)")
        let rsp = feeder.pdu(
            PDU.frame(cid: 1, PDU.command(0x03, 1, [0x41, 0, 0x40, 0, 0, 0, 0, 0])),
            .controllerToHost
        )
        #expect(rsp.uints("btl2cap.result") == [0])
        #expect(rsp.uints("btl2cap.status") == [0])
        #expect(rsp.uints("coc.local_cid") == [0x40])
        #expect(rsp.uints("coc.peer_cid") == [0x41])
        let conf = feeder.pdu(Self.vectors[14], .hostToController)
        #expect(conf.uints("btl2cap.option_type") == [0x01, 0x04])
        #expect(conf.uints("btl2cap.option_mtu") == [1024])
        #expect(conf.uints("btl2cap.retransmissionmode") == [3])
        #expect(conf.uints("btl2cap.mps") == [1008])
        #expect(conf.values("btl2cap.flags.continuation") == [.boolean(false)])
        let confRsp = feeder.pdu(Self.vectors[15], .controllerToHost)
        #expect(confRsp.uints("btl2cap.conf_result") == [0])
        #expect(confRsp.uints("btl2cap.option_mtu") == [672])
        let info = feeder.pdu(Self.vectors[16], .hostToController)
        #expect(info.uints("btl2cap.cmd_code") == [0x0A, 0x0B])
        #expect(info.uints("btl2cap.info_extfeatures") == [0x2B8])
        #expect(info.values("btl2cap.info_enh_retransmission") == [.boolean(true)])
        #expect(info.values("btl2cap.info_streaming") == [.boolean(true)])
        #expect(
            info.info
                == "Information Request (Extended Features Mask), Information Response (Extended Features Mask, Success)"
        )
        let fixed = feeder.pdu(Self.vectors[17], .controllerToHost)
        #expect(fixed.uints("btl2cap.info_fixedchans") == [0x86])
        #expect(fixed.values("btl2cap.info_fixedchans_signal") == [.boolean(true)])
        // Data on the ERTM channel is shown, not decoded.
        let data = feeder.pdu(PDU.frame(cid: 0x41, [1, 2, 3, 4]), .hostToController)
        #expect(data.uints("btl2cap.psm") == [1])
        #expect(data.has("btl2cap.payload"))
        #expect(data.warnings.isEmpty)
        let disc = feeder.pdu(PDU.frame(cid: 1, PDU.command(0x06, 9, [0x41, 0, 0x40, 0])), .hostToController)
        #expect(disc.uints("btl2cap.connect_in") == [1])
        feeder.pdu(PDU.frame(cid: 1, PDU.command(0x07, 9, [0x41, 0, 0x40, 0])), .controllerToHost)
        let after = feeder.pdu(PDU.frame(cid: 0x41, [1, 2]), .hostToController)
        #expect(after.warnings.contains { $0.hasPrefix("No channel known") })
    }
}
