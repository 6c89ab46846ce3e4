import BLECrypto
import BLEInspectCore
import BLETestVectors
import Testing

/// c1, s1 and ah with the sample data of Core Vol 3 Part H: c1 and s1 from the worked examples
/// of 2.2.3 and 2.2.4, ah from Appendix D.7. The same values are in google/bumble's
/// tests/smp_test.py and in Zephyr's and other stacks' tests (found with the search tool).
@Suite("Legacy pairing functions c1, s1, ah")
struct LegacyFunctionTests {
    static let initiator = LEAddress(BDAddr(rawValue: 0xA1A2_A3A4_A5A6), isRandom: true)
    static let responder = LEAddress(BDAddr(rawValue: 0xB1B2_B3B4_B5B6), isRandom: false)
    /// preq = 0x07071000000101 and pres = 0x05000800000302 (most significant first), so their
    /// octets as SMP carries them are the reverse.
    static let preq = Array(Hex.bytes("07071000000101").reversed())
    static let pres = Array(Hex.bytes("05000800000302").reversed())

    /// p1 and p2, then c1 itself, as the example shows them.
    @Test func c1MatchesTheExample() throws {
        let inputs = try C1Inputs(
            pairingRequest: Self.preq,
            pairingResponse: Self.pres,
            initiator: Self.initiator,
            responder: Self.responder
        )
        #expect(inputs.p1 == (try spec("05000800000302070710000001010001")))
        #expect(inputs.p2 == (try spec("00000000A1A2A3A4A5A6B1B2B3B4B5B6")))
        let confirm = try AES128().c1(k: .zero, r: spec("5783D52156AD6F0E6388274EC6702EE0"), inputs)
        #expect(confirm == (try spec("1e1e3fef878988ead2a74dc5bef13b86")))
    }

    @Test func c1RefusesCommandsOfTheWrongLength() {
        #expect(throws: CryptoError(.wrongLength, offset: 6, "")) {
            try C1Inputs(
                pairingRequest: Array(Self.preq.prefix(6)),
                pairingResponse: Self.pres,
                initiator: Self.initiator,
                responder: Self.responder
            )
        }
    }

    @Test func s1MatchesTheExample() throws {
        let stk = try AES128().s1(
            k: .zero,
            r1: spec("000F0E0D0C0B0A091122334455667788"),
            r2: spec("010203040506070899AABBCCDDEEFF00")
        )
        #expect(stk == (try spec("9a1fe1f0e8b0f49b5b4216ae796da062")))
    }

    @Test func ahMatchesAppendixD7() throws {
        let hash = try AES128().ah(irk: spec("ec0234a357c8ad05341010a60a397d9b"), prand: 0x708194)
        #expect(hash == 0x0DFBAA)
        #expect(throws: CryptoError(.outOfRange, offset: 0, "")) { try AES128().ah(irk: .zero, prand: 1 << 24) }
    }

    /// The resolvable private address prand || hash of D.7 resolves with its IRK, and not with
    /// another key, nor when a bit differs or the address is public.
    @Test func theSampleAddressResolves() throws {
        let aes = try AES128()
        let irk = try spec("ec0234a357c8ad05341010a60a397d9b")
        let rpa = LEAddress(BDAddr(rawValue: 0x70_8194_0DFBAA), isRandom: true)
        #expect(rpa.isResolvablePrivate)
        #expect(try aes.resolves(rpa, irk: irk))
        #expect(!(try aes.resolves(rpa, irk: irk ^ Value128(1))))
        #expect(!(try aes.resolves(LEAddress(BDAddr(rawValue: 0x70_8194_0DFBAB), isRandom: true), irk: irk)))
        #expect(!(try aes.resolves(LEAddress(rpa.address, isRandom: false), irk: irk)))
    }
}
