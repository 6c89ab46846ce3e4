/// A Bluetooth UUID of any width, stored as its full 128-bit value; 16- and 32-bit UUIDs are
/// expanded on the Bluetooth base UUID 00000000-0000-1000-8000-00805F9B34FB and remember their
/// width, so that a 16-bit UUID equals its 128-bit base form but is still shown short.
public struct BluetoothUUID: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64
    /// Width on the wire in bytes: 2, 4 or 16. Not part of equality.
    public var width: UInt8

    public static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB
    public static let baseHighLow32: UInt64 = 0x0000_1000

    @inlinable
    public init(high: UInt64, low: UInt64, width: UInt8) {
        self.high = high
        self.low = low
        self.width = width
    }

    @inlinable
    public init(uuid16: UInt16) { self.init(uuid32: UInt32(uuid16)); width = 2 }

    @inlinable
    public init(uuid32: UInt32) {
        self.init(high: UInt64(uuid32) << 32 | Self.baseHighLow32, low: Self.baseLow, width: 4)
    }

    /// The 32-bit value when this UUID is on the base UUID.
    @inlinable
    public var shortValue: UInt32? {
        low == Self.baseLow && high & 0xFFFF_FFFF == Self.baseHighLow32 ? UInt32(truncatingIfNeeded: high >> 32) : nil
    }

    /// The 16-bit value when this UUID is on the base UUID and fits.
    @inlinable
    public var uuid16: UInt16? { shortValue.flatMap { $0 <= 0xFFFF ? UInt16($0) : nil } }

    /// The 16 bytes, most significant first (display order).
    public var bigEndianBytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64($0))) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
    }

    /// `0x180F` for short UUIDs on the base, the canonical 8-4-4-4-12 form otherwise.
    public var description: String {
        if width <= 4, let short = shortValue {
            return HexText.prefixed(UInt64(short), digits: width == 2 ? 4 : 8)
        }
        return canonical
    }

    /// The 128-bit 8-4-4-4-12 form, upper case.
    public var canonical: String {
        String(unsafeUninitializedCapacity: 36) { out in
            var n = 0
            for i in 0..<32 {
                if i == 8 || i == 12 || i == 16 || i == 20 {
                    out[n] = 0x2D
                    n += 1
                }
                let word = i < 16 ? high : low
                out[n] = HexText.digit(UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * (i % 16))))
                n += 1
            }
            return n
        }
    }

    /// Parses `180F`, `0x180F`, `0000180F`, or the 128-bit form with or without dashes.
    public init?(_ text: String) {
        var t = text.lowercased()
        if t.hasPrefix("0x") { t.removeFirst(2) }
        t.removeAll { $0 == "-" }
        guard t.allSatisfy(\.isHexDigit) else { return nil }
        switch t.count {
        case 4: guard let v = UInt16(t, radix: 16) else { return nil }; self.init(uuid16: v)
        case 8: guard let v = UInt32(t, radix: 16) else { return nil }; self.init(uuid32: v)
        case 32:
            guard let hi = UInt64(t.prefix(16), radix: 16), let lo = UInt64(t.suffix(16), radix: 16) else { return nil }
            self.init(high: hi, low: lo, width: 16)
        default: return nil
        }
    }

    public static func == (a: BluetoothUUID, b: BluetoothUUID) -> Bool { a.high == b.high && a.low == b.low }
    public func hash(into h: inout Hasher) {
        h.combine(high)
        h.combine(low)
    }
}
