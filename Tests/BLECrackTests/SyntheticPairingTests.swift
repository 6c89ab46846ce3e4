import BLECrack
import BLECrypto
import BLEInspectCore
import BLETestVectors
import Testing

/// Pairings made here with c1 for a chosen TK: the search must find the passkey, or nothing.
@Suite("Legacy pairing crack on made pairings")
struct SyntheticPairingTests {
    static func inputs() throws -> C1Inputs {
        try C1Inputs(
            pairingRequest: [0x01, 0x04, 0x00, 0x05, 0x10, 0x07, 0x07],
            pairingResponse: [0x02, 0x00, 0x00, 0x05, 0x10, 0x07, 0x07],
            initiator: LEAddress(BDAddr(rawValue: 0x5A_1234_5678_9A), isRandom: true),
            responder: LEAddress(BDAddr(rawValue: 0x00_1B_DC_07_32_EF), isRandom: false)
        )
    }

    /// The pairing a TK of `tk` gives, with random Mrand and Srand.
    static func pairing(tk: Value128, seed: UInt64) throws -> LegacyPairing {
        var rng = SplitMix64(seed: seed)
        let mrand = Value128(high: rng.next(), low: rng.next())
        let srand = Value128(high: rng.next(), low: rng.next())
        let aes = try AES128()
        let inputs = try Self.inputs()
        return LegacyPairing(
            inputs: inputs,
            mconfirm: try aes.c1(k: tk, r: mrand, inputs),
            sconfirm: try aes.c1(k: tk, r: srand, inputs),
            mrand: mrand,
            srand: srand
        )
    }

    @Test(arguments: [0, 1, 725_522, 999_999] as [UInt32])
    func findsThePasskey(_ passkey: UInt32) throws {
        let pairing = try Self.pairing(tk: Value128(UInt64(passkey)), seed: UInt64(passkey))
        let found = try LegacyPairingCrack.crack(pairing)
        #expect(found?.passkey == passkey)
        let stk = try AES128().s1(k: Value128(UInt64(passkey)), r1: pairing.srand, r2: pairing.mrand)
        #expect(found?.stk == stk)
        #expect(found?.tk == Value128(UInt64(passkey)))
    }

    @Test func findsThePasskeyOnOneThread() throws {
        let pairing = try Self.pairing(tk: Value128(725_522), seed: 7)
        #expect(try LegacyPairingCrack.crack(pairing, threads: 1)?.passkey == 725_522)
    }

    /// An out-of-band TK is no passkey: nothing is found.
    @Test func anOutOfBandTKIsNotFound() throws {
        let pairing = try Self.pairing(tk: Value128(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210), seed: 9)
        #expect(try LegacyPairingCrack.crack(pairing) == nil)
    }

    /// A passkey that gives Mconfirm but not Sconfirm (a corrupted Sconfirm) is not reported.
    @Test func bothConfirmsMustMatch() throws {
        var pairing = try Self.pairing(tk: Value128(0), seed: 11)
        pairing.sconfirm = pairing.sconfirm ^ Value128(1)
        #expect(try LegacyPairingCrack.crack(pairing) == nil)
    }
}
