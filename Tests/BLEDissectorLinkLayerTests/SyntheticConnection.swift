import BLECaptureTestSupport
import BLEDissectorTestSupport
import Foundation

@testable import BLEDissectorLinkLayer

/// Builds an over-the-air connection as a pcap of link type 251 (access address, PDU, CRC),
/// with CRCs computed by `LinkLayerCRC` (itself checked against a sniffer's packets in
/// `CRCTests`) and times that follow connection events: the central first, the peripheral
/// 400 µs later.
struct SyntheticConnection {
    static let accessAddress: UInt32 = 0x5065_4A27
    static let crcInit: UInt32 = 0x12_3456
    static let central: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0xC6]  // C6:55:44:33:22:11, random
    static let peripheral: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06]  // 06:05:04:03:02:01, public

    /// (microseconds since the start, packet bytes) per frame.
    private(set) var packets: [(micros: UInt32, bytes: [UInt8])] = []
    private var event = 0

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le24(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF)] }

    /// A packet: access address, PDU, and its CRC (spoiled when `badCRC`).
    static func packet(_ accessAddress: UInt32, _ pdu: [UInt8], crcInit: UInt32, badCRC: Bool = false) -> [UInt8] {
        var crc = LinkLayerCRC.compute(pdu[...], initial: crcInit)
        if badCRC { crc ^= 0x00_0100 }
        return CaptureBytes.le32(accessAddress) + pdu + le24(crc)
    }

    mutating func connectIndication() {
        var payload = Self.central + Self.peripheral + CaptureBytes.le32(Self.accessAddress) + Self.le24(Self.crcInit)
        payload += [2] + Self.le16(3) + Self.le16(40) + Self.le16(0) + Self.le16(400)  // 50 ms, 4 s
        payload += [0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0x25]  // all 37 channels; hop 5, SCA 1
        // CONNECT_IND, ChSel 0, TxAdd random (the central), RxAdd public.
        let pdu: [UInt8] = [0x45, UInt8(payload.count)] + payload
        packets.append((micros: 0, bytes: Self.packet(0x8E89_BED6, pdu, crcInit: 0x55_5555)))
    }

    /// One connection event: the central's PDU, then (optionally) the peripheral's.
    mutating func event(central: [UInt8], peripheral: [UInt8]?, centralBadCRC: Bool = false) {
        event += 1
        let t = UInt32(10_000 + event * 50_000)
        packets.append(
            (t, Self.packet(Self.accessAddress, central, crcInit: Self.crcInit, badCRC: centralBadCRC))
        )
        if let peripheral {
            packets.append((t + 400, Self.packet(Self.accessAddress, peripheral, crcInit: Self.crcInit)))
        }
    }

    /// A data PDU header and payload.
    static func data(llid: UInt8, nesn: UInt8, sn: UInt8, _ payload: [UInt8] = []) -> [UInt8] {
        [llid | nesn << 2 | sn << 3, UInt8(payload.count)] + payload
    }

    /// The whole capture as pcap bytes.
    var pcap: [UInt8] {
        var out = CaptureBytes.pcapHeader(linkType: 251)
        for p in packets {
            out += CaptureBytes.pcapRecord(
                p.bytes,
                seconds: 1_700_000_000 + p.micros / 1_000_000,
                micros: p.micros % 1_000_000
            )
        }
        return out
    }

    /// The scenario the tests read, frame by frame:
    ///  1 CONNECT_IND
    ///  2 C: L2CAP start (ATT Read By Group Type Request, 6 of 11 bytes)   3 P: empty (acknowledges)
    ///  4 C: continuation (5 bytes) → the request                          5 P: empty
    ///  6 C: empty                                                         7 P: Read By Group Type Response
    ///  8 C: empty, not acknowledging                                      9 P: the response again (retransmission)
    /// 10 C: L2CAP start of a Read Request, bad CRC                        11 P: empty
    /// 12 C: continuation (its start was bad)                              13 P: empty
    /// 14 C: LL_ENC_REQ                                                    15 P: LL_ENC_RSP
    /// 16 C: empty                                                         17 P: LL_START_ENC_REQ
    /// 18 C: LL_START_ENC_RSP, encrypted (1 + 4 MIC bytes)                 19 P: the same, encrypted
    /// 20 C: encrypted L2CAP (ATT Write Request)
    static func scenario() -> SyntheticConnection {
        var s = SyntheticConnection()
        s.connectIndication()
        let request: [UInt8] = [0x07, 0x00, 0x04, 0x00, 0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]
        s.event(
            central: data(llid: 2, nesn: 0, sn: 0, Array(request[0..<6])),
            peripheral: data(llid: 1, nesn: 1, sn: 0)
        )
        s.event(central: data(llid: 1, nesn: 1, sn: 1, Array(request[6...])), peripheral: data(llid: 1, nesn: 0, sn: 1))
        let response: [UInt8] = [0x08, 0x00, 0x04, 0x00, 0x11, 0x06, 0x01, 0x00, 0x05, 0x00, 0x00, 0x18]
        s.event(central: data(llid: 1, nesn: 0, sn: 0), peripheral: data(llid: 2, nesn: 1, sn: 0, response))
        s.event(central: data(llid: 1, nesn: 0, sn: 0), peripheral: data(llid: 2, nesn: 1, sn: 0, response))
        let read: [UInt8] = [0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00]
        s.event(
            central: data(llid: 2, nesn: 1, sn: 1, Array(read[0..<5])),
            peripheral: data(llid: 1, nesn: 0, sn: 1),
            centralBadCRC: true
        )
        s.event(central: data(llid: 1, nesn: 0, sn: 1, Array(read[5...])), peripheral: data(llid: 1, nesn: 0, sn: 1))
        let encReq: [UInt8] = [0x03] + [UInt8](repeating: 0xA5, count: 22)
        let encRsp: [UInt8] = [0x04] + [UInt8](repeating: 0x5A, count: 12)
        s.event(central: data(llid: 3, nesn: 0, sn: 0, encReq), peripheral: data(llid: 3, nesn: 1, sn: 0, encRsp))
        s.event(central: data(llid: 1, nesn: 1, sn: 1), peripheral: data(llid: 3, nesn: 0, sn: 1, [0x05]))
        let sealed: [UInt8] = [0x9C, 0x01, 0x02, 0x03, 0x04]
        s.event(central: data(llid: 3, nesn: 0, sn: 0, sealed), peripheral: data(llid: 3, nesn: 1, sn: 0, sealed))
        s.event(
            central: data(llid: 2, nesn: 1, sn: 1, [0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0x10, 0x11]),
            peripheral: nil
        )
        return s
    }
}
