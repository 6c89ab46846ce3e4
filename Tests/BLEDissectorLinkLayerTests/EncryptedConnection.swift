import BLECrypto
import BLEDissectorTestSupport
import BLEInspectCore
import BLEKeys

@testable import BLEDissectorLinkLayer

/// An encrypted connection built packet by packet: the encryption procedure with the
/// specification's sample values (Vol 6 Part C 1: LTK, SKD_C, IV_C, SKD_P, IV_P), then PDUs
/// encrypted by `LinkLayerCipher` (itself tested against the specification's sample packets).
enum EncryptedConnection {
    static let ltk = Value128(high: 0x4C68_3841_39F5_74D8, low: 0x36BC_F34E_9DFB_01BF)
    static let skdCentral: UInt64 = 0xACBD_CEDF_E0F1_0213
    static let ivCentral: UInt32 = 0xBADC_AB24
    static let skdPeripheral: UInt64 = 0x0213_2435_4657_6879
    static let ivPeripheral: UInt32 = 0xDEAF_BABE

    static let readRequest: [UInt8] = [0x03, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00]
    static let readResponse: [UInt8] = [0x06, 0x00, 0x04, 0x00, 0x0B, 0x68, 0x65, 0x6C, 0x6C, 0x6F]
    static let writeRequest: [UInt8] = [0x04, 0x00, 0x04, 0x00, 0x12, 0x05, 0x00, 0x01]

    /// A data PDU whose payload is encrypted with `counter` in the sender's direction.
    static func sealed(
        _ cipher: LinkLayerCipher,
        llid: UInt8,
        nesn: UInt8,
        sn: UInt8,
        _ payload: [UInt8],
        counter: UInt64,
        central: Bool
    ) throws -> [UInt8] {
        let first = llid | nesn << 2 | sn << 3
        let body = try cipher.encrypt(
            headerFirstOctet: first,
            payload: payload,
            counter: counter,
            direction: central ? .centralToPeripheral : .peripheralToCentral
        )
        return [first, UInt8(body.count)] + body
    }

    static func le(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * $0)) }
    }

    /// The frames:
    ///  1 CONNECT_IND
    ///  2 C: LL_ENC_REQ                        3 P: LL_ENC_RSP
    ///  4 C: empty                             5 P: LL_START_ENC_REQ (in the clear)
    ///  6 C: LL_START_ENC_RSP (counter 0)      7 P: LL_START_ENC_RSP (counter 0)
    ///  8 C: ATT Read Request (1)              9 P: empty
    /// 10 C: empty                            11 P: ATT Read Response (1)
    /// 12 C: empty, not acknowledging         13 P: the response again (retransmission, 1)
    /// 14 C: ATT Write Request (3: the sniffer missed 2)   15 P: empty
    /// 16 C: LL_PAUSE_ENC_REQ (4)             17 P: LL_PAUSE_ENC_RSP (2)
    /// 18 C: LL_PAUSE_ENC_RSP (in the clear)  19 P: empty
    /// 20 C: ATT Read Request (in the clear)
    static func scenario() throws -> SyntheticConnection {
        let cipher = try LinkLayerCipher(
            ltk: ltk,
            skdCentral: skdCentral,
            ivCentral: ivCentral,
            skdPeripheral: skdPeripheral,
            ivPeripheral: ivPeripheral,
            using: AES128()
        )
        func c(_ llid: UInt8, _ nesn: UInt8, _ sn: UInt8, _ p: [UInt8], _ counter: UInt64) throws -> [UInt8] {
            try sealed(cipher, llid: llid, nesn: nesn, sn: sn, p, counter: counter, central: true)
        }
        func p(_ llid: UInt8, _ nesn: UInt8, _ sn: UInt8, _ p: [UInt8], _ counter: UInt64) throws -> [UInt8] {
            try sealed(cipher, llid: llid, nesn: nesn, sn: sn, p, counter: counter, central: false)
        }
        let data = SyntheticConnection.plain
        var s = SyntheticConnection()
        s.connectIndication()
        let encReq = [0x03] + le(0, 8) + le(0, 2) + le(skdCentral, 8) + le(UInt64(ivCentral), 4)
        let encRsp = [0x04] + le(skdPeripheral, 8) + le(UInt64(ivPeripheral), 4)
        s.event(central: data(3, 0, 0, encReq), peripheral: data(3, 1, 0, encRsp))
        s.event(central: data(1, 1, 1, []), peripheral: data(3, 0, 1, [0x05]))
        s.event(central: try c(3, 0, 0, [0x06], 0), peripheral: try p(3, 1, 0, [0x06], 0))
        s.event(central: try c(2, 1, 1, readRequest, 1), peripheral: data(1, 0, 1, []))
        let response = try p(2, 1, 0, readResponse, 1)
        s.event(central: data(1, 0, 0, []), peripheral: response)
        s.event(central: data(1, 0, 1, []), peripheral: response.enumerated().map { $0 == 0 ? $1 & 0xFB : $1 })
        s.event(central: try c(2, 1, 0, writeRequest, 3), peripheral: data(1, 1, 1, []))
        s.event(central: try c(3, 0, 1, [0x0A], 4), peripheral: try p(3, 0, 0, [0x0B], 2))
        s.event(central: data(3, 1, 0, [0x0B]), peripheral: data(1, 1, 1, []))
        s.event(central: data(2, 0, 1, readRequest), peripheral: nil)
        return s
    }
}

extension SyntheticConnection {
    /// `data(llid:nesn:sn:_:)` without labels.
    static func plain(_ llid: UInt8, _ nesn: UInt8, _ sn: UInt8, _ payload: [UInt8]) -> [UInt8] {
        data(llid: llid, nesn: nesn, sn: sn, payload)
    }
}
