/// Hex digits and `0x` numbers as text, for summaries, notes and names: one implementation for
/// every module (renderers write their hex straight into their byte buffers).
public enum HexText {
    /// The hex digit of the low four bits of `d`.
    @inlinable @inline(__always)
    public static func digit(_ d: UInt8, upperCase: Bool = true) -> UInt8 {
        let v = d & 0xF
        return v < 10 ? 0x30 + v : (upperCase ? 0x37 : 0x57) + v
    }

    /// `0x` and `value` in hex, zero-padded to `digits` digits (more when the value needs
    /// them): `prefixed(0x40, digits: 4)` is `0x0040`.
    public static func prefixed(_ value: UInt64, digits: Int, upperCase: Bool = true) -> String {
        let count = max(digits, (64 - value.leadingZeroBitCount + 3) / 4, 1)
        return String(unsafeUninitializedCapacity: count + 2) { out in
            out[0] = 0x30
            out[1] = 0x78
            for i in 0..<count {
                out[2 + i] = digit(
                    UInt8(truncatingIfNeeded: value >> UInt64(4 * (count - 1 - i))),
                    upperCase: upperCase
                )
            }
            return count + 2
        }
    }

    /// Upper-case hex pairs separated by `separator`: `bytes([0xAC, 0x01])` is `AC 01`.
    public static func bytes<C: Collection<UInt8>>(_ bytes: C, separator: String = " ") -> String {
        bytes.map { b in String(decoding: [digit(b >> 4), digit(b)], as: UTF8.self) }.joined(separator: separator)
    }

    /// The bytes `text` writes as hex pairs: `4C000215`, `4c 00 02 15`, `4C:00:02:15` or
    /// `0x4C000215` (separators ` `, `:`, `-` and `_` are ignored). Nil for any other character
    /// (only ASCII hex digits count) or an odd number of digits.
    public static func parse(_ text: String) -> [UInt8]? {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { digits = digits.dropFirst(2) }
        var out: [UInt8] = []
        var high: UInt8? = nil
        for c in digits.utf8 where c != 0x20 && c != 0x3A && c != 0x2D && c != 0x5F {
            guard let v = value(c) else { return nil }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return high == nil ? out : nil
    }

    /// The value of one ASCII hex digit.
    public static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x37
        case 0x61...0x66: c - 0x57
        default: nil
        }
    }
}
