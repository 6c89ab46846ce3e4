import BLECrypto
import BLEInspectCore
import BLEKeys
import Foundation
import Testing

/// An Android bt_config.conf written here: the key records as the stack dumps them.
@Suite("Android bt_config.conf")
struct AndroidKeysTests {
    static let text = """
        [Info]
        FileSource = Empty

        [Adapter]
        Address = 11:22:33:44:55:66
        LE_LOCAL_KEY_IRK = 00112233445566778899aabbccddeeff

        [c5:93:15:6b:e6:34]
        Name = LinkBuds S
        DevType = 2
        LE_KEY_PENC = bf01fb9d4ef3bc36d874f5394138684c9078563412efcdab74240110
        LE_KEY_PID = 9b7d390aa6101034 05adc857a33402ec01c593156be634
        LE_KEY_LENC = 00112233445566778899aabbccddeeff3412 1001
        LE_KEY_LID = 00000000
        """

    @Test func readsTheKeys() throws {
        // The PID value above has a space in it: not hex. Remove it for the valid file.
        let valid = Self.text.replacingOccurrences(of: "9b7d390aa6101034 ", with: "9b7d390aa6101034")
            .replacingOccurrences(of: "3412 1001", with: "34121001")
        let keys = try AndroidKeys.parse(valid, source: "bt_config.conf")
        let peer = BDAddr(rawValue: 0xC593_156B_E634)
        #expect(keys.longTermKeys.count == 2)
        let penc = keys.longTermKeys[0]
        #expect(penc.peer == peer)
        // The record holds the specification's sample LTK, Rand and EDIV least significant first.
        #expect(penc.key == Value128(high: 0x4C68_3841_39F5_74D8, low: 0x36BC_F34E_9DFB_01BF))
        #expect(penc.rand == 0xABCD_EF12_3456_7890)
        #expect(penc.ediv == 0x2474)
        #expect(penc.source == KeySource(file: "bt_config.conf", line: 11))
        let lenc = keys.longTermKeys[1]
        #expect(lenc.key.lsoFirst.first == 0x00 && lenc.key.msoFirst.first == 0xFF)
        #expect(lenc.ediv == nil && lenc.rand == nil)
        // The PID record holds the IRK of the specification's ah sample, least significant first,
        // then a random identity address.
        let pid = try #require(keys.identityKeys.first)
        #expect(pid.irk == Value128(high: 0xEC02_34A3_57C8_AD05, low: 0x3410_10A6_0A39_7D9B))
        #expect(pid.identity == peer)
        #expect(pid.isRandom == true)
    }

    @Test func everyErrorNamesItsLineAndOffset() {
        let f = "bt_config.conf"
        expectKeyError(.hex, source: f, line: 12, offset: 29) { _ = try AndroidKeys.parse(Self.text, source: f) }
        expectKeyError(.length, source: f, line: 2, offset: 14) {
            _ = try AndroidKeys.parse("[aa:bb:cc:dd:ee:ff]\nLE_KEY_PENC = bf01fb9d4ef3bc36d874f5394138684c", source: f)
        }
        expectKeyError(.address, source: f, line: 2, offset: 0) {
            _ = try AndroidKeys.parse("[Adapter]\nLE_KEY_PENC = 00", source: f)
        }
        expectKeyError(.syntax, source: f, line: 2, offset: 0) {
            _ = try AndroidKeys.parse("[Adapter]\nAddress", source: f)
        }
    }
}
