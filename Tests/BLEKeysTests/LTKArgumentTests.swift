import BLECrypto
import BLEInspectCore
import BLEKeys
import Testing

@Suite("--ltk values")
struct LTKArgumentTests {
    @Test func aKeyForAnyConnection() throws {
        let ltk = try LongTermKey.argument("4C68384139F574D836BCF34E9DFB01BF")
        #expect(ltk.peer == nil)
        #expect(ltk.key == Value128(high: 0x4C68_3841_39F5_74D8, low: 0x36BC_F34E_9DFB_01BF))
        #expect(ltk.ediv == nil && ltk.rand == nil)
        #expect(try LongTermKey.argument("0x4c68384139f574d836bcf34e9dfb01bf").key == ltk.key)
    }

    @Test func aKeyForOnePeer() throws {
        let ltk = try LongTermKey.argument("78:c5:e5:6e:dd:e8=7f62c053f104a5bbe68b1d896a2ed49c")
        #expect(ltk.peer == BDAddr(rawValue: 0x78C5_E56E_DDE8))
        #expect(ltk.key == Value128(high: 0x7F62_C053_F104_A5BB, low: 0xE68B_1D89_6A2E_D49C))
    }

    @Test func badValuesNameTheirOffset() {
        expectKeyError(.hex, source: "--ltk", line: 0, offset: 31) {
            _ = try LongTermKey.argument("4C68384139F574D836BCF34E9DFB01BG")
        }
        expectKeyError(.length, source: "--ltk", line: 0, offset: 0) { _ = try LongTermKey.argument("4C6838") }
        expectKeyError(.length, source: "--ltk", line: 0, offset: 18) {
            _ = try LongTermKey.argument("78:c5:e5:6e:dd:e8=4C68384139F574D836BCF34E9DFB01BF00")
        }
        expectKeyError(.hex, source: "--ltk", line: 0, offset: 20) {
            _ = try LongTermKey.argument("78:c5:e5:6e:dd:e8=4C 68384139F574D836BCF34E9DFB01BF")
        }
        expectKeyError(.address, source: "--ltk", line: 0, offset: 0) {
            _ = try LongTermKey.argument("78:c5:e5:6e:dd=4C68384139F574D836BCF34E9DFB01BF")
        }
        expectKeyError(.length, source: "--ltk", line: 0, offset: 0) { _ = try LongTermKey.argument("") }
    }

    @Test func messagesAreReadableAndEscaped() {
        do {
            _ = try LongTermKey.argument("4C68\u{1B}[31m")
            Issue.record("accepted")
        } catch {
            #expect(error.description.hasPrefix("--ltk: error at byte 4: a long term key: "))
            #expect(!error.safeDescription.contains("\u{1B}"))
        }
    }
}
