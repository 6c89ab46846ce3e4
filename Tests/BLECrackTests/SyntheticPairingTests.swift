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

    /// The slow search (no confirm values): an LL_START_ENC_RSP encrypted (AES-CCM, counter 0,
    /// central to peripheral) with the session key of the STK that passkey `passkey` gives. Only
    /// that passkey's STK verifies its MIC.
    @Test(arguments: [0, 725_522, 999_999] as [UInt32])
    func slowSearchFindsThePasskeyByMIC(_ passkey: UInt32) throws {
        var rng = SplitMix64(seed: UInt64(passkey) &+ 3)
        let mrand = Value128(high: rng.next(), low: rng.next())
        let srand = Value128(high: rng.next(), low: rng.next())
        let (skdC, skdP, ivC, ivP) = (rng.next(), rng.next(), UInt32(truncatingIfNeeded: rng.next()), UInt32(99))
        let aes = try AES128()
        let stk = try aes.s1(k: Value128(UInt64(passkey)), r1: srand, r2: mrand)
        let sent = try LinkLayerCipher(
            ltk: stk,
            skdCentral: skdC,
            ivCentral: ivC,
            skdPeripheral: skdP,
            ivPeripheral: ivP,
            using: aes
        ).encrypt(headerFirstOctet: 0x03, payload: [0x06], counter: 0, direction: .centralToPeripheral)
        let found = try LegacyPairingCrack.crack(mrand: mrand, srand: srand) { candidate, aes throws(CryptoError) in
            let cipher = try LinkLayerCipher(
                ltk: candidate,
                skdCentral: skdC,
                ivCentral: ivC,
                skdPeripheral: skdP,
                ivPeripheral: ivP,
                using: aes
            )
            let result = try cipher.decrypt(
                headerFirstOctet: 0x03,
                payloadAndMIC: sent,
                counter: 0,
                direction: .centralToPeripheral
            )
            return result == .plaintext([0x06])
        }
        #expect(found?.passkey == passkey)
        #expect(found?.stk == stk)
    }

    /// No passkey's STK verifies a MIC made with another key: nothing is found.
    @Test func slowSearchFindsNothingForAnotherKey() throws {
        let sent = try LinkLayerCipher(sessionKey: Value128(high: 1, low: 2), ivCentral: 3, ivPeripheral: 4)
            .encrypt(headerFirstOctet: 0x03, payload: [0x06], counter: 0, direction: .centralToPeripheral)
        let found = try LegacyPairingCrack.crack(mrand: Value128(5), srand: Value128(6)) {
            candidate,
            aes throws(CryptoError) in
            let cipher = try LinkLayerCipher(
                ltk: candidate,
                skdCentral: 7,
                ivCentral: 3,
                skdPeripheral: 8,
                ivPeripheral: 4,
                using: aes
            )
            return try cipher.decrypt(
                headerFirstOctet: 0x03,
                payloadAndMIC: sent,
                counter: 0,
                direction: .centralToPeripheral
            )
                != .micFailure
        }
        #expect(found == nil)
    }
}
