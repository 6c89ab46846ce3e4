import BLECrypto
import BLEDissectorTestSupport
import BLEInspectCore
import BLEKeys
import Testing

/// Keys from an HCI log, built command by command as Core Vol 4 Part E 7.8.24, 7.8.25 and
/// 7.7.65 lay them out: the central's LE Enable Encryption and the peripheral's LE Long Term Key
/// Request Reply, with the LE Connection Complete that names the peer.
@Suite("keys from HCI logs")
struct HCIKeysTests {
    typealias D = HCIKeysStack

    /// LE Connection Complete: status 0, handle 0x0040, role central, public 78:C5:E5:6E:DD:E8.
    static let connected = D.hci(.hciEvent, "3E 13 01 00 40 00 00 00 E8 DD 6E E5 C5 78 36 00 00 00 2A 00 00", number: 1)
    /// The LTK 7f62c053f104a5bbe68b1d896a2ed49c least significant octet first, as HCI carries it.
    static let ltk = "9C D4 2E 6A 89 1D 8B E6 BB A5 04 F1 53 C0 62 7F"

    @Test func enableEncryption() throws {
        var scanner = HCIKeyScanner(source: "central.btsnoop")
        scanner.add(Self.connected)
        // Handle 0x0040, Rand 0x1122334455667788, EDIV 0x2474, LTK.
        scanner.add(D.hci(.hciCommand, "19 20 1C 40 00 88 77 66 55 44 33 22 11 74 24 " + Self.ltk, number: 2))
        let key = try #require(scanner.keys.first)
        #expect(scanner.keys.count == 1)
        #expect(key.key == Value128(high: 0x7F62_C053_F104_A5BB, low: 0xE68B_1D89_6A2E_D49C))
        #expect(key.ediv == 0x2474 && key.rand == 0x1122_3344_5566_7788)
        #expect(key.peer?.description == "78:C5:E5:6E:DD:E8")
        #expect(key.source.description == "central.btsnoop, frame 2")
    }

    @Test func longTermKeyRequestReply() throws {
        var scanner = HCIKeyScanner(source: "peripheral.log")
        // LE Long Term Key Request: handle 0x0001, Rand 0, EDIV 0 (Secure Connections), then the reply.
        scanner.add(D.hci(.hciEvent, "3E 0D 05 01 00 00 00 00 00 00 00 00 00 00 00", number: 1))
        scanner.add(D.hci(.hciCommand, "1A 20 12 01 00 " + Self.ltk, number: 2))
        // A reply repeated on a later connection gives the same key once; a short command none.
        scanner.add(D.hci(.hciCommand, "1A 20 12 01 00 " + Self.ltk, number: 3))
        scanner.add(D.hci(.hciCommand, "1A 20 12 01 00 9C D4", number: 4))
        let key = try #require(scanner.keys.first)
        #expect(scanner.keys.count == 1)
        #expect(key.key == Value128(high: 0x7F62_C053_F104_A5BB, low: 0xE68B_1D89_6A2E_D49C))
        #expect(key.ediv == 0 && key.rand == 0)
        #expect(key.peer == nil)
    }

    @Test func otherFramesGiveNothing() {
        var scanner = HCIKeyScanner(source: "x")
        scanner.add(D.hci(.hciCommand, "03 0C 00"))
        scanner.add(D.hci(.hciEvent, "0E 04 01 03 0C 00"))
        scanner.add(D.hci(.aclData, "40 00 05 00 01 00 04 00 0A"))
        #expect(scanner.keys.isEmpty)
    }
}

/// For `DissectorStack.hci`: no modules are needed to build frames.
enum HCIKeysStack: DissectorStack {
    static var modules: [any DissectorModule.Type] { [] }
}
