import BLECrypto
import BLEInspectCore
import BLEKeys
import Testing

@Suite("bleinspect's key file")
struct KeyFileTests {
    static let text = """
        # keys for the test bench
        ltk * 4C68384139F574D836BCF34E9DFB01BF

        ltk 78:C5:E5:6E:DD:E8 7f62c053f104a5bbe68b1d896a2ed49c ediv=0x2474 rand=12379813812177893520  # legacy
        irk 70:81:94:0d:fb:aa ec0234a357c8ad05341010a60a397d9b
        \tirk c0:de:c0:de:00:01 00112233445566778899aabbccddeeff random
        """

    @Test func readsEveryKind() throws {
        let keys = try KeyFile.parse(Self.text, source: "bench.keys")
        #expect(keys.longTermKeys.count == 2)
        #expect(keys.identityKeys.count == 2)
        let any = keys.longTermKeys[0]
        #expect(any.peer == nil && any.source == KeySource(file: "bench.keys", line: 2))
        #expect(any.key == Value128(high: 0x4C68_3841_39F5_74D8, low: 0x36BC_F34E_9DFB_01BF))
        let legacy = keys.longTermKeys[1]
        #expect(legacy.peer == BDAddr(rawValue: 0x78C5_E56E_DDE8))
        #expect(legacy.ediv == 0x2474)
        #expect(legacy.rand == 0xABCD_EF12_3456_7890)
        #expect(keys.identityKeys[0].isRandom == nil)
        #expect(keys.identityKeys[1].isRandom == true)
        #expect(keys.identityKeys[1].source.line == 6)
    }

    /// The IRK of the specification's ah sample (Core Vol 3 Part H D.7) resolves the address
    /// prand 0x708194 || hash 0x0dfbaa, and nothing else.
    @Test func resolvesAPrivateAddress() throws {
        let keys = try KeyFile.parse(Self.text, source: "bench.keys")
        let aes = try AES128()
        let rpa = LEAddress(BDAddr(rawValue: 0x7081_940D_FBAA), isRandom: true)
        func identity(resolving address: LEAddress) throws -> IdentityKey? {
            try keys.identityKeys.first { try aes.resolves(address, irk: $0.irk) }
        }
        #expect(try identity(resolving: rpa)?.source.line == 5)
        #expect(try identity(resolving: LEAddress(BDAddr(rawValue: 0x7081_940D_FBAB), isRandom: true)) == nil)
    }

    @Test func everyErrorNamesItsLineAndOffset() {
        let f = "bad.keys"
        expectKeyError(.syntax, source: f, line: 2, offset: 2) { _ = try KeyFile.parse("\n  key * 00", source: f) }
        expectKeyError(.syntax, source: f, line: 1, offset: 0) { _ = try KeyFile.parse("ltk *", source: f) }
        expectKeyError(.hex, source: f, line: 1, offset: 7) {
            _ = try KeyFile.parse("ltk * 0z112233445566778899aabbccddeeff", source: f)
        }
        expectKeyError(.length, source: f, line: 1, offset: 6) { _ = try KeyFile.parse("ltk * 0011", source: f) }
        expectKeyError(.address, source: f, line: 1, offset: 4) {
            _ = try KeyFile.parse("irk 70:81:94:0d:fb 00112233445566778899aabbccddeeff", source: f)
        }
        expectKeyError(.number, source: f, line: 1, offset: 44) {
            _ = try KeyFile.parse("ltk * 00112233445566778899aabbccddeeff ediv=65536", source: f)
        }
        expectKeyError(.number, source: f, line: 1, offset: 44) {
            _ = try KeyFile.parse("ltk * 00112233445566778899aabbccddeeff rand=-1", source: f)
        }
        expectKeyError(.syntax, source: f, line: 1, offset: 39) {
            _ = try KeyFile.parse("ltk * 00112233445566778899aabbccddeeff div=1", source: f)
        }
        expectKeyError(.syntax, source: f, line: 1, offset: 55) {
            _ = try KeyFile.parse("irk 70:81:94:0d:fb:aa 00112233445566778899aabbccddeeff static", source: f)
        }
        expectKeyError(.unreadable, source: "/nonexistent/keys", line: 0, offset: 0) {
            _ = try KeyFile.load("/nonexistent/keys")
        }
    }
}
