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
}
