public import BLEInspectCore

/// The order of bits within a byte of Apple's overflow bitmap (§2.7). Both are measured; which
/// one current iOS (15 and later) sends is unverified (§5.1).
public enum OverflowBitOrder: String, CaseIterable, Hashable, Sendable, Codable {
    /// Order B, `bitmap[c >> 3] |= 0x80 >> (c & 7)`: D. Young's iOS 13/14 table (128 of 128 rows).
    case msbFirst = "msb-first"
    /// Order A, `bitmap[c >> 3] |= 1 << (c & 7)`: the iOS 11-era captures F3–F7 (5 of 5 UUIDs).
    case lsbFirst = "lsb-first"
}

/// Where one UUID lands in the overflow bitmap.
public struct OverflowBit: Hashable, Sendable, Codable {
    public var uuid: BluetoothUUID
    /// c: the 7-bit hash (0...127).
    public var hash: Int
    /// Byte index in the 16-byte bitmap: c >> 3 under both orders.
    public var byte: Int
    /// The mask within that byte under order B (`0x80 >> (c & 7)`).
    public var msbFirstMask: UInt8
    /// The mask within that byte under order A (`1 << (c & 7)`).
    public var lsbFirstMask: UInt8

    public init(_ uuid: BluetoothUUID) {
        self.uuid = uuid
        hash = OverflowArea.hash(uuid)
        byte = hash >> 3
        msbFirstMask = UInt8(0x80) >> UInt8(hash & 7)
        lsbFirstMask = UInt8(1) << UInt8(hash & 7)
    }

    public func mask(_ order: OverflowBitOrder) -> UInt8 { order == .msbFirst ? msbFirstMask : lsbFirstMask }

    private enum CodingKeys: String, CodingKey { case uuid, hash, byte, msbFirstMask, lsbFirstMask }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(uuid.canonical, forKey: .uuid)
        try c.encode(hash, forKey: .hash)
        try c.encode(byte, forKey: .byte)
        try c.encode(msbFirstMask, forKey: .msbFirstMask)
        try c.encode(lsbFirstMask, forKey: .lsbFirstMask)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let text = try c.decode(String.self, forKey: .uuid)
        guard let uuid = BluetoothUUID(text) else {
            throw DecodingError.dataCorruptedError(forKey: .uuid, in: c, debugDescription: "not a UUID")
        }
        self.init(uuid)
    }
}

/// Apple's overflow area: the 21-byte AD `14 FF 4C 00 01` + a 16-byte bitmap (§2.7).
public enum OverflowArea {
    /// The AD structure's size on air.
    public static let size = 21

    /// c = CRC-8 (polynomial 0x09, init 0, MSB first, no reflection, no final XOR) over the 16
    /// big-endian bytes of the 128-bit UUID (16- and 32-bit UUIDs expanded on the base UUID),
    /// masked to 7 bits (§2.7 "Bit function").
    public static func hash(_ uuid: BluetoothUUID) -> Int {
        var crc: UInt8 = 0
        for byte in uuid.bigEndianBytes {
            crc ^= byte
            for _ in 0..<8 {
                crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x09 : crc << 1
            }
        }
        return Int(crc & 0x7F)
    }

    /// The 16-byte bitmap with the bits of `bits` set in `order`.
    public static func bitmap(_ bits: [OverflowBit], order: OverflowBitOrder) -> [UInt8] {
        var map = [UInt8](repeating: 0, count: 16)
        for bit in bits where bit.byte >= 0 && bit.byte < 16 { map[bit.byte] |= bit.mask(order) }
        return map
    }

    /// The overflow AD: Manufacturer Specific Data, Apple (0x004C), sub-type 0x01, bitmap.
    public static func structure(_ bits: [OverflowBit], order: OverflowBitOrder) -> ADStructure {
        ADStructure(type: ADType.manufacturer, data: [0x4C, 0x00, 0x01] + bitmap(bits, order: order))
    }

    /// Whether a structure is an overflow area (sub-type 0x01 + 16 bytes; not Handoff 0x0C, Nearby
    /// Info 0x10 or iBeacon 0x02, §2.7).
    public static func isOverflowArea(_ s: ADStructure) -> Bool {
        s.type == ADType.manufacturer && s.data.count == 19 && s.data[0] == 0x4C && s.data[1] == 0x00
            && s.data[2] == 0x01
    }
}
