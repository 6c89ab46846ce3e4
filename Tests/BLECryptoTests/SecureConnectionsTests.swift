import BLECrypto
import BLEInspectCore
import Testing

/// f4, f5, f6, g2, h6 and h7 with the sample data of Core Vol 3 Part H Appendix D (D.2 to D.6,
/// D.8 and D.9). The same values are in google/bumble's tests/smp_test.py and bluekitchen/
/// btstack's test/crypto/aes_cmac_test.c (found with the search tool), which agree.
@Suite("LE Secure Connections functions")
struct SecureConnectionsTests {
    static let u = "20b003d2f297be2c5e2c83a7e9f9a5b9eff49111acf4fddbcc0301480e359de6"
    static let v = "55188b3d32f6bb9a900afcfbeed4e72a59cb9ac2f19d7cfb6b4fdd49f47fc5fd"
    static let n1 = "d5cb8454d177733effffb2ec712baeab"
    static let n2 = "a6e8e7cc25a75f6e216583f7ff3dc4cf"
    static let a1 = LEAddress(BDAddr(rawValue: 0x5612_3737_BFCE), isRandom: false)
    static let a2 = LEAddress(BDAddr(rawValue: 0xA713_702D_CFC1), isRandom: false)
    static let macKey = "2965f176a1084a02fd3f6a20ce636e20"

    @Test func f4MatchesD2() throws {
        let value = try SecureConnections.f4(u: spec256(Self.u), v: spec256(Self.v), x: spec(Self.n1), z: 0)
        #expect(value == (try spec("f2c916f107a9bd1cf1eda1bea974872d")))
    }

    @Test func f5MatchesD3() throws {
        let w = try spec256("ec0234a357c8ad05341010a60a397d9b99796b13b4f866f1868d34f373bfa698")
        let keys = try SecureConnections.f5(w: w, n1: spec(Self.n1), n2: spec(Self.n2), a1: Self.a1, a2: Self.a2)
        #expect(keys.macKey == (try spec(Self.macKey)))
        #expect(keys.ltk == (try spec("6986791169d7cd23980522b594750a38")))
    }

    @Test func f6MatchesD4() throws {
        let check = try SecureConnections.f6(
            w: spec(Self.macKey),
            n1: spec(Self.n1),
            n2: spec(Self.n2),
            r: spec("12a3343bb453bb5408da42d20c2d0fc8"),
            ioCap: 0x010102,
            a1: Self.a1,
            a2: Self.a2
        )
        #expect(check == (try spec("e3c473989cd0e8c5d26c0b09da958f61")))
        #expect(throws: CryptoError(.outOfRange, offset: 0, "")) {
            try SecureConnections.f6(
                w: .zero,
                n1: .zero,
                n2: .zero,
                r: .zero,
                ioCap: 1 << 24,
                a1: Self.a1,
                a2: Self.a2
            )
        }
    }

    @Test func g2MatchesD5() throws {
        let value = try SecureConnections.g2(u: spec256(Self.u), v: spec256(Self.v), x: spec(Self.n1), y: spec(Self.n2))
        #expect(value == 0x2f9e_d5ba)
    }

    @Test func h6MatchesD6() throws {
        let value = try SecureConnections.h6(w: spec("ec0234a357c8ad05341010a60a397d9b"), keyID: 0x6c65_6272)
        #expect(value == (try spec("2d9ae102e76dc91ce8d3a9e280b16399")))
    }

    @Test func h7MatchesD8() throws {
        let value = try SecureConnections.h7(
            salt: spec("000000000000000000000000746D7031"),
            w: spec("ec0234a357c8ad05341010a60a397d9b")
        )
        #expect(value == (try spec("fb173597c6a3c0ecd2998c2a75a57011")))
    }
}
