import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore

/// One LL control PDU of every opcode, with plausible parameters, as LE link-layer frames of pcap
/// link type 251, each on an access address of its own (so that LL_START_ENC_REQ starts no
/// encryption for the others); and the formatting both sides of the tshark comparison share.
enum LLControlSamples {
    /// The access address of frame 0 (not the advertising one, so the frames are data PDUs).
    static let accessAddress: UInt32 = 0x5065_4300

    /// Opcode and CtrData (hex), in opcode order.
    static let parameters: [(UInt8, String)] = [
        (0x00, "02 0500 1800 0000 4800 2301"),
        (0x01, "ffffffff1f 4000"),
        (0x02, "13"),
        (0x03, "0102030405060708 3412 1112131415161718 21222324"),
        (0x04, "3132333435363738 41424344"),
        (0x05, ""), (0x06, ""),
        (0x07, "2b"),
        (0x08, "ff7f010000000080"),
        (0x09, "01fe001000000000"),
        (0x0A, ""), (0x0B, ""),
        (0x0C, "0d 5900 3412"),
        (0x0D, "06"),
        (0x0E, "2f00000000000000"),
        (0x0F, "0600 0c00 0100 c800 02 1000 0000 0200 0400 ffff ffff ffff"),
        (0x10, "0800 1000 0000 6400 04 2000 0100 0300 0500 0700 ffff ffff"),
        (0x11, "0f 23"),
        (0x12, ""), (0x13, ""),
        (0x14, "fb00 4808 1b00 4808"),
        (0x15, "1b00 4801 fb00 9000"),
        (0x16, "03 05"),
        (0x17, "07 01"),
        (0x18, "02 01 3412"),
        (0x19, "05 0c"),
        (0x1A, "54"),
        (0x1B, ""),
        (0x1C, periodicSync),
        (0x1D, "05"),
        (0x1E, "07"),
        (0x1F, "01 02 02 01 28c0 6400 102700 204e00 2800 6400 03 c40900 21 02 03 0800 f40100 e80300 0a00"),
        (0x20, "f40100 e80300 0a00"),
        (0x21, "78563412 f40100 102700 881300 0b00"),
        (0x22, "01 02 13"),
        (0x23, "02 fd 08"),
        (0x24, "01 03 f6 05"),
        (0x25, "06 02 fe 7f"),
        (0x26, "0100 0400 0200 0000 c800"),
        (0x27, "0200 1000 0100 0100 c800"),
        (0x28, "01 05 0a"),
        (0x29, "00 55 aa ff 1b e4 00 00 00 00"),
        (0x2A, periodicSync + " 44332211 05 10 02 08"),
        (0x2B, "01 00 ff7f010000000080" + String(repeating: "00", count: 16)),
        (0x2C, "01 01 03" + String(repeating: "00", count: 23)),
        (0x2D, "0102030405060708 090a0b0c 1112131415161718"),
        (0x2E, "01 07 1e 1e 1e 0100 0100 06 21 1b 04 0000 02 7f00 7f00 ff01 0300 1e"),
        (0x2F, "00 01 0a 00 00 0000 0000 02 11 01 01 0100 00 0000 0000 0000 0000 00"),
        (0x30, "41 ffffffffffffffff7f00 01 02 01 02 05 01 03 02 12 11 03 02 03 04 01 00"),
        (0x31, "01"),
        (0x32, "01 2000 f40100 e80300 1000 0400 02 1000 e02e00 0a00 0000 01 03 02 fd 21"),
        (0x33, "01 2000 f40100 e80300 0400 02 1000 e02e00 01 02 00 00"),
        (0x34, "01 2000 f40100 0400 02 1000 e02e00 01 02 00 00"),
        (0x35, "02 0500 13"),
        (0x36, ""),
        (0x37, (0..<72).map { i in hex(UInt8(truncatingIfNeeded: i &* 7 &- 100)) }.joined()),
        (0x38, "ffffffffffffffff7f00 3412"),
        (0x39, "2122232425262728 292a2b2c 3132333435363738"),
        (0x3A, "02 0500 00"),
        (0x3B, "6400 c800 03 0500"),
        (0x3C, "9600 01 0100"),
    ]

    static let periodicSync = "0a00 3421 a000 ffffffff1f d6be898e 555555 0700 2000 3000 f5 02 112233445566 4000"

    /// The opcodes tshark 4.0 decodes: 0x00 (LL_CONNECTION_UPDATE_IND) to 0x25
    /// (LL_POWER_CHANGE_IND), the PDUs of Core 5.2. It shows the later ones as "Unknown".
    static let knownToTshark: ClosedRange<UInt8> = 0x00...0x25

    /// A data-channel frame carrying `payload` as an LL control PDU (LLID 3, NESN 1), with a CRC
    /// of zeros (unchecked: no CONNECT_IND gives the CRC init).
    static func frame(_ payload: [UInt8], number: Int, llid: UInt8 = 3) -> CapturedFrame {
        let aa = accessAddress &+ UInt32(truncatingIfNeeded: number)
        let bytes = CaptureBytes.le32(aa) + [0x04 | llid, UInt8(payload.count)] + payload + [0, 0, 0]
        return CapturedFrame(
            number: number,
            timestamp: Timestamp(seconds: Int64(number), nanoseconds: 0, precision: .microseconds),
            direction: .unknown,
            controllerIndex: nil,
            kind: .linkLayer(linkType: 251),
            bytes: bytes,
            originalLength: bytes.count,
            sourceOffset: 0
        )
    }

    /// The frames of `parameters`, numbered from 1.
    static var frames: [CapturedFrame] {
        parameters.enumerated().map { i, p in frame([p.0] + Hex.bytes(p.1), number: i + 1) }
    }

    /// The frames as a pcap file of link type 251.
    static func pcap(_ frames: [CapturedFrame]) -> [UInt8] {
        frames.reduce(CaptureBytes.pcapHeader(linkType: 251)) { file, f in
            file + CaptureBytes.pcapRecord(f.bytes, seconds: UInt32(f.number), micros: 0)
        }
    }

    /// The values of the field named `name`, as tshark's `-T fields` shows them once numbers are
    /// made decimal (`normalized`): integers in decimal, booleans 1 or 0, bytes in hex,
    /// addresses in lower case, joined with commas.
    static func text(_ s: FrameSnapshot, _ name: String) -> String {
        guard let id = s.registry.field(named: name) else { return "" }
        if s.registry.descriptor(id).kind == .bytes { return s.hex(name).joined(separator: ",") }
        return s.values(name).compactMap { v -> String? in
            switch v {
            case .unsigned(let u): String(u)
            case .signed(let i): String(i)
            case .boolean(let b): b ? "1" : "0"
            case .address(let a): a.description.lowercased()
            default: nil
            }
        }.joined(separator: ",")
    }

    /// tshark's text with its hex numbers (`0x…`) made decimal.
    static func normalized(_ tshark: String) -> String {
        guard !tshark.isEmpty else { return "" }
        return tshark.split(separator: ",", omittingEmptySubsequences: false).map { token in
            if token.hasPrefix("0x"), let v = UInt64(token.dropFirst(2), radix: 16) { return String(v) }
            return token.lowercased()
        }.joined(separator: ",")
    }

    private static func hex(_ b: UInt8) -> String { (b < 16 ? "0" : "") + String(b, radix: 16) }
}
