/// Hex helpers for built frames and test vectors.
public enum Hex {
    /// Bytes from hex text; spaces, colons and newlines are ignored.
    public static func bytes(_ text: String) -> [UInt8] {
        let digits = text.filter(\.isHexDigit)
        var out: [UInt8] = []
        var i = digits.startIndex
        while i < digits.endIndex {
            let j = digits.index(i, offsetBy: 2, limitedBy: digits.endIndex) ?? digits.endIndex
            if let b = UInt8(digits[i..<j], radix: 16) { out.append(b) }
            i = j
        }
        return out
    }
}

/// A small deterministic random generator (SplitMix64): sweeps over arbitrary bytes are the same
/// on every run, so failures repeat. The tests use it too.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
