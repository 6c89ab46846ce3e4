import BLECrypto
import BLEDissectorTestSupport
import BLEInspectCore

/// A connection that pairs (legacy, Just Works: TK 0), encrypts with the STK, receives the
/// peripheral's LTK, EDIV and Rand (SMP Encryption Information, Central Identification), pauses
/// and encrypts again with that LTK. Confirms from `AES128.c1` and PDUs from `LinkLayerCipher`,
/// both tested against the specification's sample data; every packet is acknowledged.
struct PairedConnection {
    static let ltk = Value128(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
    static let ediv: UInt16 = 0x2474
    static let rand: UInt64 = 0x1122_3344_5566_7788

    private var s = SyntheticConnection()
    private var events = 0
    private var counters: [UInt64] = [0, 0]
    private var cipher: LinkLayerCipher?

    /// One event: each side's PDU (LLID, payload), encrypted when a cipher is set.
    private mutating func event(_ c: (UInt8, [UInt8]), _ p: (UInt8, [UInt8]), clearCentral: Bool = false) throws {
        let bit = UInt8(events % 2)
        events += 1
        let central = try pdu(c, nesn: bit, sn: bit, index: 0, clear: clearCentral)
        let peripheral = try pdu(p, nesn: 1 - bit, sn: bit, index: 1, clear: false)
        s.event(central: central, peripheral: peripheral)
    }

    private mutating func pdu(_ x: (UInt8, [UInt8]), nesn: UInt8, sn: UInt8, index: Int, clear: Bool) throws
        -> [UInt8]
    {
        let first = x.0 | nesn << 2 | sn << 3
        guard let cipher, !x.1.isEmpty, !clear else { return [first, UInt8(x.1.count)] + x.1 }
        let body = try cipher.encrypt(
            headerFirstOctet: first,
            payload: x.1,
            counter: counters[index],
            direction: index == 0 ? .centralToPeripheral : .peripheralToCentral
        )
        counters[index] += 1
        return [first, UInt8(body.count)] + body
    }

    private static func smp(_ bytes: [UInt8]) -> (UInt8, [UInt8]) {
        (2, [UInt8(bytes.count), 0, 0x06, 0] + bytes)
    }

    static func le(_ v: UInt64, _ n: Int) -> [UInt8] { EncryptedConnection.le(v, n) }

    /// Frames: 1 CONNECT_IND; 2-3 Pairing Request/Response; 4-5 confirms; 6-7 randoms;
    /// 8-9 LL_ENC_REQ/RSP; 10-11 empty, LL_START_ENC_REQ; 12-13 LL_START_ENC_RSPs (STK);
    /// 14-15 empty, Encryption Information; 16-17 empty, Central Identification;
    /// 18-19 LL_PAUSE_ENC_REQ/RSP; 20-21 LL_PAUSE_ENC_RSP (clear), empty;
    /// 22-23 LL_ENC_REQ (EDIV, Rand)/RSP; 24-25 empty, LL_START_ENC_REQ;
    /// 26-27 LL_START_ENC_RSPs (LTK); 28-29 ATT Read Request, empty.
    static func scenario() throws -> SyntheticConnection {
        var b = PairedConnection()
        b.s.connectIndication()
        let aes = try AES128()
        let request: [UInt8] = [0x01, 0x03, 0x00, 0x01, 0x10, 0x00, 0x01]
        let response: [UInt8] = [0x02, 0x03, 0x00, 0x01, 0x10, 0x00, 0x01]
        let inputs = try C1Inputs(
            pairingRequest: request,
            pairingResponse: response,
            initiator: LEAddress(BDAddr(rawValue: 0xC655_4433_2211), isRandom: true),
            responder: LEAddress(BDAddr(rawValue: 0x0605_0403_0201), isRandom: false)
        )
        let mrand = Value128(high: 0x1111_2222_3333_4444, low: 0x5555_6666_7777_8888)
        let srand = Value128(high: 0x9999_AAAA_BBBB_CCCC, low: 0xDDDD_EEEE_FFFF_0000)
        let tk = Value128(0)
        try b.event(smp(request), smp(response))
        try b.event(
            smp([0x03] + aes.c1(k: tk, r: mrand, inputs).lsoFirst),
            smp([0x03] + aes.c1(k: tk, r: srand, inputs).lsoFirst)
        )
        try b.event(smp([0x04] + mrand.lsoFirst), smp([0x04] + srand.lsoFirst))
        let stk = try aes.s1(k: tk, r1: srand, r2: mrand)
        try b.encrypt(with: stk, rand: 0, ediv: 0, skd: 0x0102_0304_0506_0708, iv: 0x0A0B_0C0D, aes)
        try b.event((1, []), smp([0x06] + ltk.lsoFirst))
        try b.event((1, []), smp([0x07] + le(UInt64(ediv), 2) + le(rand, 8)))
        try b.event((3, [0x0A]), (3, [0x0B]))
        try b.event((3, [0x0B]), (1, []), clearCentral: true)
        b.cipher = nil
        try b.encrypt(with: ltk, rand: rand, ediv: ediv, skd: 0x1112_1314_1516_1718, iv: 0x1A1B_1C1D, aes)
        try b.event((2, EncryptedConnection.readRequest), (1, []))
        return b.s
    }

    /// LL_ENC_REQ and LL_ENC_RSP, LL_START_ENC_REQ, then both LL_START_ENC_RSPs encrypted with `key`.
    private mutating func encrypt(
        with key: Value128,
        rand: UInt64,
        ediv: UInt16,
        skd: UInt64,
        iv: UInt32,
        _ aes: AES128
    )
        throws
    {
        let skdP = skd ^ 0xFFFF_0000_FFFF_0000
        let ivP = iv ^ 0xFFFF_0000
        try event(
            (3, [0x03] + Self.le(rand, 8) + Self.le(UInt64(ediv), 2) + Self.le(skd, 8) + Self.le(UInt64(iv), 4)),
            (3, [0x04] + Self.le(skdP, 8) + Self.le(UInt64(ivP), 4))
        )
        try event((1, []), (3, [0x05]))
        cipher = try LinkLayerCipher(
            ltk: key,
            skdCentral: skd,
            ivCentral: iv,
            skdPeripheral: skdP,
            ivPeripheral: ivP,
            using: aes
        )
        counters = [0, 0]
        try event((3, [0x06]), (3, [0x06]))
    }
}
