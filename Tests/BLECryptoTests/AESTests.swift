import BLECrypto
import BLETestVectors
import Testing

/// e() and AES-CMAC against their standards' examples.
@Suite("AES-128 and AES-CMAC")
struct AESTests {
    /// FIPS-197 Appendix C.1 (AES-128), key and block most significant octet first.
    @Test func eMatchesFIPS197() throws {
        let aes = try AES128()
        let out = try aes.e(spec("000102030405060708090a0b0c0d0e0f"), spec("00112233445566778899aabbccddeeff"))
        #expect(out == (try spec("69c4e0d86a7b0430d8cdb78070b4c55a")))
    }

    /// Core Vol 6 Part C 1 (HCI_LE_Encrypt of the encryption sample data): e(LTK, SKD) = SK.
    /// Also in google/bumble and scholzri's ll_crypt tests.
    @Test func eGivesTheSampleSessionKey() throws {
        let aes = try AES128()
        let sk = try aes.e(spec("4C68384139F574D836BCF34E9DFB01BF"), spec("0213243546576879ACBDCEDFE0F10213"))
        #expect(sk == (try spec("99AD1B5226A37E3E058E3B8E27C2C666")))
    }

    /// RFC 4493 section 4 (the same four examples as NIST SP 800-38B D.1 and bluekitchen/btstack's
    /// test/crypto/aes_cmac_test.c): key 2b7e1516..., messages of 0, 16, 40 and 64 octets.
    @Test(arguments: [
        (0, "bb1d6929e95937287fa37d129b756746"),
        (16, "070a16b46b4d4144f79bdd9dd04a287c"),
        (40, "dfa66747de9ae63030ca32611497c827"),
        (64, "51f0bebf7e3b9d92fc49741779363cfe"),
    ])
    func cmacMatchesRFC4493(length: Int, tag: String) throws {
        let message = Hex.bytes(
            "6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51"
                + "30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710"
        )
        let mac = try aesCMAC(key: spec("2b7e151628aed2a6abf7158809cf4f3c"), message: Array(message.prefix(length)))
        #expect(mac == (try spec(tag)))
    }
}
