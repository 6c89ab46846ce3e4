/// A 48-bit Bluetooth device address, shown most significant byte first (`AA:BB:CC:DD:EE:FF`).
public struct BDAddr: RawRepresentable, Hashable, Sendable, BitwiseCopyable, Comparable, CustomStringConvertible {
    public var rawValue: UInt64

    @inlinable
    public init(rawValue: UInt64) { self.rawValue = rawValue & 0xFFFF_FFFF_FFFF }

    /// Parses `aa:bb:cc:dd:ee:ff` (or with `-`), most significant byte first.
    public init?(_ text: String) {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == 6 else { return nil }
        var v: UInt64 = 0
        for p in parts {
            guard p.count == 2, let b = UInt8(p, radix: 16) else { return nil }
            v = v << 8 | UInt64(b)
        }
        rawValue = v
    }

    public var description: String {
        let hex: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
        var s = ""
        s.reserveCapacity(17)
        for i in stride(from: 40, through: 0, by: -8) {
            let b = Int((rawValue >> UInt64(i)) & 0xFF)
            s.append(hex[b >> 4])
            s.append(hex[b & 0xF])
            if i > 0 { s.append(":") }
        }
        return s
    }

    public static func < (a: BDAddr, b: BDAddr) -> Bool { a.rawValue < b.rawValue }
}
