import BLECrypto
import BLEDissectorTestSupport
import BLEInspectCore
import BLEKeys
import Foundation
import Testing

/// A BlueZ info file written here, in the form BlueZ's doc/settings-storage.txt describes.
@Suite("BlueZ info files")
struct BlueZKeysTests {
    static let path = "/var/lib/bluetooth/00:1A:7D:DA:71:13/C8:5B:C1:B5:9B:F3/info"
    static let text = """
        [General]
        Name=Keyboard
        AddressType=static
        SupportedTechnologies=LE;

        [IdentityResolvingKey]
        Key=3F52F2F31FB5D93F1C8786B7B8BB6085

        [LongTermKey]
        Key=BF01FB9D4EF3BC36D874F5394138684C
        Authenticated=0
        EncSize=16
        EDiv=9332
        Rand=12379813812177893520

        [PeripheralLongTermKey]
        Key=8C94FCC9BF039330A6A03B48227E4F8E
        Authenticated=2
        EncSize=16
        EDiv=0
        Rand=0

        [SlaveLongTermKey]
        Key=8C94FCC9BF039330A6A03B48227E4F8E
        Authenticated=2
        EncSize=16
        EDiv=0
        Rand=0
        """

    @Test func readsTheKeys() throws {
        let keys = try BlueZKeys.parse(Self.text, path: Self.path)
        let device = BDAddr(rawValue: 0xC85B_C1B5_9BF3)
        #expect(keys.longTermKeys.count == 2)
        // Key= holds the key least significant octet first: this is the specification's sample
        // LTK 0x4C68384139F574D836BCF34E9DFB01BF.
        let ltk = keys.longTermKeys[0]
        #expect(ltk.peer == device)
        #expect(ltk.key == Value128(high: 0x4C68_3841_39F5_74D8, low: 0x36BC_F34E_9DFB_01BF))
        #expect(ltk.ediv == 0x2474)
        #expect(ltk.rand == 0xABCD_EF12_3456_7890)
        #expect(ltk.source == KeySource(file: Self.path, line: 10))
        #expect(keys.longTermKeys[1].key.lsoFirst.first == 0x8C)
        #expect(keys.longTermKeys[1].ediv == 0)
        #expect(keys.identityKeys.count == 1)
        #expect(keys.identityKeys[0].identity == device)
        #expect(keys.identityKeys[0].isRandom == true)
        #expect(keys.identityKeys[0].irk.lsoFirst.first == 0x3F)
    }

    @Test func loadsAFile() throws {
        let dir = TemporaryDirectory()
        let deviceDir = dir.url.appendingPathComponent("00:1A:7D:DA:71:13/C8:5B:C1:B5:9B:F3")
        try FileManager.default.createDirectory(at: deviceDir, withIntermediateDirectories: true)
        let file = deviceDir.appendingPathComponent("info")
        try Self.text.write(to: file, atomically: true, encoding: .utf8)
        #expect(try BlueZKeys.load(file.path) == BlueZKeys.parse(Self.text, path: file.path))
    }

    @Test func everyErrorNamesItsLineAndOffset() {
        let p = Self.path
        expectKeyError(.address, source: "/x/adapter/info", line: 0, offset: 0) {
            _ = try BlueZKeys.parse(Self.text, path: "/x/adapter/info")
        }
        expectKeyError(.hex, source: p, line: 2, offset: 7) {
            _ = try BlueZKeys.parse("[LongTermKey]\nKey=BF0XFB9D4EF3BC36D874F5394138684C", path: p)
        }
        expectKeyError(.length, source: p, line: 2, offset: 4) {
            _ = try BlueZKeys.parse("[IdentityResolvingKey]\nKey=BF01", path: p)
        }
        expectKeyError(.missing, source: p, line: 1, offset: 0) {
            _ = try BlueZKeys.parse("[LongTermKey]\nEDiv=1\n[General]\nName=x", path: p)
        }
        expectKeyError(.number, source: p, line: 3, offset: 5) {
            _ = try BlueZKeys.parse("[LongTermKey]\nKey=BF01FB9D4EF3BC36D874F5394138684C\nEDiv=70000", path: p)
        }
        expectKeyError(.number, source: p, line: 3, offset: 5) {
            _ = try BlueZKeys.parse("[LongTermKey]\nKey=BF01FB9D4EF3BC36D874F5394138684C\nRand=x1", path: p)
        }
        expectKeyError(.syntax, source: p, line: 2, offset: 0) { _ = try BlueZKeys.parse("[General]\nName", path: p) }
        expectKeyError(.syntax, source: p, line: 1, offset: 1) { _ = try BlueZKeys.parse(" [General", path: p) }
    }
}
