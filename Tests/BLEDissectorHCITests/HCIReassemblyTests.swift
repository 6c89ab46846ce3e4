import BLECaptureTestSupport
import BLEDissectorHCI
import BLEDissectorTestSupport
import BLEInspectCore
import Testing

/// ACL fragments into L2CAP PDUs, and the connection table.
@Suite("HCI ACL reassembly and connections")
struct HCIReassemblyTests {
    /// An ACL packet with `payload`, on `handle` with packet-boundary flag `pb`.
    static func acl(
        _ handle: UInt16,
        pb: UInt16,
        _ payload: [UInt8],
        direction: Direction = .controllerToHost
    ) -> CapturedFrame {
        var f = Dissect.hci(.aclData, "", direction: direction)
        let word = handle | pb << 12
        let length = UInt16(payload.count)
        f.bytes = [UInt8(word & 0xFF), UInt8(word >> 8), UInt8(length & 0xFF), UInt8(length >> 8)] + payload
        f.originalLength = f.bytes.count
        return f
    }

    /// An L2CAP PDU of `total` bytes (header included) on the ATT channel.
    static func pdu(_ total: Int) -> [UInt8] {
        let length = total - 4
        return [UInt8(length & 0xFF), UInt8(length >> 8), 0x04, 0x00]
            + (0..<length).map { UInt8(truncatingIfNeeded: $0) }
    }

    static func fragments(
        _ bytes: [UInt8],
        sizes: [Int],
        handle: UInt16 = 0x40,
        firstPB: UInt16 = 2,
        direction: Direction = .controllerToHost
    ) -> [CapturedFrame] {
        var out: [CapturedFrame] = []
        var at = 0
        for (i, size) in sizes.enumerated() {
            out.append(acl(handle, pb: i == 0 ? firstPB : 1, Array(bytes[at..<(at + size)]), direction: direction))
            at += size
        }
        return out
    }

    @Test("a PDU in one packet is handed on in place, with the connection set")
    func single() {
        let s = HCIHarness.one(HCIHarness.acl("40 20 07 00 03 00 04 00 02 17 00"))
        #expect(s.uints("hci_h4.type") == [2])
        #expect(s.uints("bthci_acl.chandle") == [0x40])
        #expect(s.uints("bthci_acl.pb_flag") == [2])
        #expect(s.uints("bthci_acl.bc_flag") == [0])
        #expect(s.uints("bthci_acl.length") == [7])
        #expect(s.uints("probe.l2cap_handle") == [0x40])
        #expect(s.uints("probe.l2cap_length") == [7])
        #expect(s.uints("probe.l2cap_source") == [0])
        #expect(s.sources.isEmpty)
        #expect(s.expertMessages.isEmpty)
    }

    @Test("drip-fed fragments: start, continuation, last; the PDU in a new data source")
    func dripFeed() {
        let pdu = Self.pdu(69)
        let s = HCIHarness.run(HCIHarness.numbered(Self.fragments(pdu, sizes: [27, 27, 15])))
        #expect(s[0].info == "ACL fragment (start, 27 of 69 bytes)")
        #expect(s[1].info == "ACL fragment (continuation, 54 of 69 bytes)")
        #expect(!s[0].has("probe.l2cap_length"))
        #expect(!s[1].has("probe.l2cap_length"))
        #expect(s[0].bytes("data.data") == [Array(pdu[0..<27])])
        #expect(s[2].uints("probe.l2cap_length") == [69])
        #expect(s[2].uints("probe.l2cap_source") == [1])
        #expect(s[2].uints("probe.l2cap_handle") == [0x40])
        #expect(s[2].sources == [pdu])
        #expect(s[2].uints("bthci_acl.fragment_count") == [3])
        #expect(s[2].uints("bthci_acl.reassembled_length") == [69])
        for f in s { #expect(f.expertMessages.isEmpty) }
    }

    @Test("one byte at a time, the length field itself split")
    func byteByByte() {
        let pdu = Self.pdu(12)
        let s = HCIHarness.run(HCIHarness.numbered(Self.fragments(pdu, sizes: Array(repeating: 1, count: 12))))
        #expect(s[0].info == "ACL fragment (start, 1 of ? bytes)")
        #expect(s[1].info == "ACL fragment (continuation, 2 of 12 bytes)")
        #expect(s[11].sources == [pdu])
        #expect(s[11].uints("bthci_acl.fragment_count") == [12])
        #expect(s.dropLast().allSatisfy { !$0.has("probe.l2cap_length") })
    }

    @Test("host-to-controller start flag 0b00, and the two directions kept apart")
    func directions() {
        let a = Self.pdu(40)
        let b = Self.pdu(50)
        let sent = Self.fragments(a, sizes: [20, 20], firstPB: 0, direction: .hostToController)
        let rcvd = Self.fragments(b, sizes: [27, 23], direction: .controllerToHost)
        let s = HCIHarness.run(HCIHarness.numbered([sent[0], rcvd[0], sent[1], rcvd[1]]))
        #expect(s[2].sources == [a])
        #expect(s[3].sources == [b])
        for f in s { #expect(f.expertMessages.isEmpty) }
    }

    @Test("an orphan continuation is noted and discarded")
    func orphan() {
        let s = HCIHarness.one(Self.acl(0x40, pb: 1, [1, 2, 3]))
        #expect(s.info == "ACL fragment (continuation, no start)")
        #expect(s.expertMessages.contains { $0.contains("without a start") })
        #expect(s.bytes("data.data") == [[1, 2, 3]])
        #expect(!s.has("probe.l2cap_length"))
        #expect(!s.isMalformed)
    }

    @Test("a new start while a PDU is incomplete discards the old one with a note")
    func restart() {
        let first = Self.fragments(Self.pdu(60), sizes: [27])
        let second = Self.fragments(Self.pdu(30), sizes: [27, 3])
        let s = HCIHarness.run(HCIHarness.numbered(first + second))
        #expect(
            s[1].expertMessages.contains {
                $0.contains("Incomplete L2CAP PDU discarded (27 of 60 bytes, started in frame 1)")
            }
        )
        #expect(s[2].uints("probe.l2cap_length") == [30])
    }

    @Test("fragments beyond the L2CAP length are noted and kept")
    func excess() {
        let pdu = Self.pdu(30)
        let s = HCIHarness.run(
            HCIHarness.numbered([
                Self.acl(0x40, pb: 2, Array(pdu[0..<27])), Self.acl(0x40, pb: 1, Array(pdu[27...]) + [9, 9]),
            ])
        )
        #expect(s[1].uints("probe.l2cap_length") == [32])
        #expect(s[1].expertMessages.contains { $0.contains("2 bytes beyond the L2CAP length") })
    }

    @Test("the cap on incomplete PDUs: the oldest is dropped with a note, memory stays bounded")
    func capHit() {
        var frames: [CapturedFrame] = []
        for h in 1...257 { frames.append(Self.acl(UInt16(h), pb: 2, Array(Self.pdu(40)[0..<10]))) }
        frames.append(Self.acl(1, pb: 1, Array(Self.pdu(40)[10...])))  // its start was dropped
        frames.append(Self.acl(257, pb: 1, Array(Self.pdu(40)[10...])))
        let s = HCIHarness.run(HCIHarness.numbered(frames))
        #expect(s[255].expertMessages.isEmpty)
        #expect(
            s[256].expertMessages.contains {
                $0.contains("Limit reached: 256 incomplete L2CAP PDUs; dropped the one started in frame 1")
            }
        )
        #expect(s[257].expertMessages.contains { $0.contains("without a start") })
        #expect(s[258].uints("probe.l2cap_length") == [40])
    }

    @Test("the byte budget over all incomplete PDUs: the oldest make room, with a note")
    func byteBudget() {
        // Start fragments of 65,535 bytes (of PDUs of 65,539): 64 fit in 4 MiB, the 65th does not.
        let start = Array(Self.pdu(65_539)[0..<65_535])
        var frames: [CapturedFrame] = []
        for h in 1...65 { frames.append(Self.acl(UInt16(h), pb: 2, start)) }
        // The first handle's PDU was dropped; the second's goes on.
        frames.append(Self.acl(1, pb: 1, Array(Self.pdu(65_539)[65_535...])))
        frames.append(Self.acl(2, pb: 1, Array(Self.pdu(65_539)[65_535...])))
        let s = HCIHarness.run(HCIHarness.numbered(frames))
        #expect(s[63].expertMessages.isEmpty)
        #expect(
            s[64].expertMessages.contains {
                $0.contains("Limit reached: 4194304 bytes of incomplete L2CAP PDUs; dropped the one started in frame 1")
            },
            "\(s[64].expertMessages)"
        )
        #expect(s[65].expertMessages.contains { $0.contains("without a start") })
        #expect(s[66].uints("probe.l2cap_length") == [65_539])
    }

    @Test("a cut ACL packet is malformed and does not join reassembly")
    func cutPacket() {
        var f = HCIHarness.acl("40 20 1b 00 41 00 04 00")
        f.number = 1
        var cont = Self.acl(0x40, pb: 1, [1, 2, 3])
        cont.number = 2
        let s = HCIHarness.run([f, cont])
        #expect(s[0].isMalformed)
        #expect(s[1].expertMessages.contains { $0.contains("without a start") })
    }

    // MARK: Connections

    static let leConnectionComplete0EDC = "3e 13 01 00 dc 0e 00 01 02 00 de c0 de c0 18 00 00 00 48 00 05"

    @Test("ACL on handle 0x0EDC with no connection is vendor debug data, not L2CAP")
    func vendorDebug() {
        let s = HCIHarness.one(Self.acl(0x0EDC, pb: 2, [0x05, 0x00, 0x00, 0x00, 1, 2, 3, 4, 5]))
        #expect(s.info == "Vendor debug data (handle 0x0EDC)")
        #expect(!s.has("probe.l2cap_length"))
        #expect(s.bytes("data.data").first?.count == 9)
        #expect(s.uints("bthci_acl.chandle") == [0x0EDC])
    }

    @Test("connection complete opens, disconnection complete closes (the 0x0EDC check follows)")
    func openClose() {
        let data = Self.acl(0x0EDC, pb: 2, [0x01, 0x00, 0x04, 0x00, 0x0A])
        let frames = HCIHarness.numbered([
            data,
            HCIHarness.evt(Self.leConnectionComplete0EDC),
            data,
            HCIHarness.evt("05 04 00 dc 0e 13"),
            data,
        ])
        let s = HCIHarness.run(frames)
        #expect(s[0].info == "Vendor debug data (handle 0x0EDC)")
        #expect(s[2].uints("probe.l2cap_handle") == [0x0EDC])
        #expect(s[4].info == "Vendor debug data (handle 0x0EDC)")
    }

    @Test("failed connections open nothing; BR/EDR and enhanced v2 completes open")
    func otherCompletes() {
        let data = Self.acl(0x0EDC, pb: 2, [0x01, 0x00, 0x04, 0x00, 0x0A])
        let failed = HCIHarness.run(
            HCIHarness.numbered([
                HCIHarness.evt("3e 13 01 3e dc 0e 00 01 02 00 de c0 de c0 18 00 00 00 48 00 05"), data,
            ])
        )
        #expect(failed[1].info == "Vendor debug data (handle 0x0EDC)")
        let bredr = HCIHarness.run(
            HCIHarness.numbered([
                HCIHarness.evt("03 0b 00 dc 0e 66 55 44 33 22 11 01 00"), data,
            ])
        )
        #expect(bredr[1].uints("probe.l2cap_handle") == [0x0EDC])
        let v2 = HCIHarness.run(
            HCIHarness.numbered([
                HCIHarness.evt(
                    "3e 22 29 00 dc 0e 01 00 66 55 44 33 22 11 01 02 03 04 05 46 0a 0b 0c 0d 0e 4f 28 00 01 00 c8 00 01 02 ff ff"
                ),
                data,
            ])
        )
        #expect(v2[1].uints("probe.l2cap_handle") == [0x0EDC])
        let v1 = HCIHarness.run(
            HCIHarness.numbered([
                HCIHarness.evt(
                    "3e 1f 0a 00 dc 0e 01 00 66 55 44 33 22 11 01 02 03 04 05 46 0a 0b 0c 0d 0e 4f 28 00 01 00 c8 00 01"
                ),
                data,
            ])
        )
        #expect(v1[1].uints("probe.l2cap_handle") == [0x0EDC])
    }

    @Test("disconnection drops the connection's incomplete PDU")
    func disconnectDropsPartial() {
        let pdu = Self.pdu(40)
        let frames = HCIHarness.numbered([
            HCIHarness.evt("3e 13 01 00 40 00 00 01 02 00 de c0 de c0 18 00 00 00 48 00 05"),
            Self.acl(0x40, pb: 2, Array(pdu[0..<27])),
            HCIHarness.evt("05 04 00 40 00 08"),
            Self.acl(0x40, pb: 1, Array(pdu[27...])),
        ])
        let s = HCIHarness.run(frames)
        #expect(s[3].expertMessages.contains { $0.contains("without a start") })
        #expect(!s[3].has("probe.l2cap_length"))
    }
}

/// Arbitrary bytes behind every bound opcode, event code and subevent: no trap, and the header
/// lengths keep every frame's nodes inside its bytes.
@Suite("HCI with arbitrary parameters")
struct HCIArbitraryBytesTests {
    static func keys(_ table: TableID) -> [UInt64] {
        (HCIHarness.registry.tables[table]?.bindings.keys.map(\.low) ?? []).sorted()
    }

    @Test("random parameters for every decoder")
    func randomParameters() {
        var g = SplitMix64(seed: 0x5EED)
        var frames: [CapturedFrame] = []
        func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) } }
        for _ in 0..<12 {
            for op in Self.keys(StandardTables.hciCommand.id) {
                let p = bytes(Int.random(in: 0...48, using: &g))
                var f = HCIHarness.cmd("")
                f.bytes = [UInt8(op & 0xFF), UInt8(op >> 8), UInt8(p.count)] + p
                frames.append(f)
            }
            for op in Self.keys(StandardTables.hciCommandComplete.id) {
                let p = [0x01, UInt8(op & 0xFF), UInt8(op >> 8), 0x00] + bytes(Int.random(in: 0...40, using: &g))
                var f = HCIHarness.evt("")
                f.bytes = [0x0E, UInt8(p.count)] + p
                frames.append(f)
            }
            for code in Self.keys(StandardTables.hciEvent.id) {
                let p = bytes(Int.random(in: 0...48, using: &g))
                var f = HCIHarness.evt("")
                f.bytes = [UInt8(code), UInt8(p.count)] + p
                frames.append(f)
            }
            for sub in Self.keys(StandardTables.leMetaSubevent.id) {
                let p = [UInt8(sub)] + bytes(Int.random(in: 0...60, using: &g))
                var f = HCIHarness.evt("")
                f.bytes = [0x3E, UInt8(p.count)] + p
                frames.append(f)
            }
            for kind in [FrameKind.aclData, .scoData, .isoData, .hciCommand, .hciEvent] {
                var f = Dissect.hci(kind, "")
                f.bytes = bytes(Int.random(in: 0...40, using: &g))
                frames.append(f)
            }
        }
        for i in frames.indices {
            frames[i].originalLength = frames[i].bytes.count
            frames[i].number = i + 1
        }
        let snapshots = HCIHarness.run(frames)
        #expect(snapshots.count == frames.count)
        for s in snapshots {
            for node in s.nodes where node.source == 0 {
                #expect(node.range.upperBound <= s.frame.bytes.count)
            }
        }
    }
}
