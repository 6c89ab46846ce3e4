import BLECaptureTestSupport
import BLEDissectorTestSupport
import Testing

@testable import BLEDissectorLinkLayer

@Suite("link-layer CRC")
struct CRCTests {
    /// An ADV_SCAN_IND an nRF Sniffer captured with its CRC marked good: the CRC computed over
    /// the PDU with the advertising channels' CRC init matches the three bytes sent.
    @Test func advertisingPacketFromASniffer() {
        let packet: [UInt8] = Hex.bytes(
            "d6be898e 2621 053 43a43ca48 0201061716d2fc440c50284154084366036 2c0912100638 09d0500 e44999"
        )
        let pdu = packet[4..<(packet.count - 3)]
        let crc = LinkLayerCRC.compute(pdu, initial: 0x55_5555)
        #expect(crc == 0x99_49E4)
        #expect(LinkLayerCRC.reversed24(crc) == 0x27_9299)
        var damaged = Array(pdu)
        damaged[5] ^= 0x01
        #expect(LinkLayerCRC.compute(damaged[...], initial: 0x55_5555) != crc)
    }

    /// The 24 bits reversed, against the reversal of their binary digits as text (bits above 24
    /// ignored).
    @Test func reversed24ReversesTheBinaryDigits() {
        for value: UInt32 in [0, 1, 0x55_5555, 0x8E89_BED6, 0xFF00_0F0F, 0x12_3456, 0xFF_FFFF, 0x80_0000] {
            let digits = String(value & 0xFF_FFFF, radix: 2)
            let padded = String(repeating: "0", count: 24 - digits.count) + digits
            #expect(LinkLayerCRC.reversed24(value) == UInt32(String(padded.reversed()), radix: 2))
        }
    }
}
