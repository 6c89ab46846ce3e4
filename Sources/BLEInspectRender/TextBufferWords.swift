/// Writing a word at a time: short runs of text, and decimal digits.

/// Decimal digits eight at a time in one machine word: the digits of a number below 10^8 are
/// split into halves, pairs and single digits by multiplications in the lanes of the word, with no
/// division and no loop (the way `TextBuffer.hexDigits` spreads hex digits).
enum DecimalWords {
    /// The eight decimal digits of `v` (below 10^8, zero-padded), most significant first, as
    /// the bytes of the value returned in little-endian memory order.
    @inline(__always)
    static func eightDigits(_ v: UInt64) -> UInt64 {
        // Four-digit halves in 32-bit lanes, the high half first in memory.
        let high = v / 10_000
        var x = high | (v &- high &* 10_000) << 32
        // Each lane (below 10^4) into two-digit pairs in 16-bit lanes: x * 10486 >> 20 is x / 100
        // for x below 43,699, and no product reaches the next lane.
        let hundreds = ((x &* 10_486) >> 20) & 0x0000_007F_0000_007F
        x = hundreds | (x &- hundreds &* 100) << 16
        // Each pair (below 100) into digits in bytes: x * 103 >> 10 is x / 10 for x below 179.
        let tens = ((x &* 103) >> 10) & 0x000F_000F_000F_000F
        x = tens | (x &- tens &* 10) << 8
        return x | 0x3030_3030_3030_3030
    }
}

extension TextBuffer {
    /// Appends the last `n` (1...8) of the eight digits of `v` (below 10^8): one store of a word
    /// whose leading digits are shifted out.
    @inline(__always)
    mutating func appendDigits(_ v: UInt64, last n: Int) {
        let word = DecimalWords.eightDigits(v) >> UInt64(8 &* (8 &- n))
        UnsafeMutableRawPointer(reserve(8)).storeBytes(of: word.littleEndian, as: UInt64.self)
        advance(n)
    }

    /// Appends `v` (below 10^9) as exactly nine digits, zero-padded.
    @inline(__always)
    mutating func appendNineDigits(_ v: UInt64) {
        let first = v / 100_000_000
        append(UInt8(truncatingIfNeeded: first) &+ 0x30)
        appendDigits(v &- first &* 100_000_000, last: 8)
    }

    /// Appends the `digits` (1...16) decimal digits of `v` (below 10^16).
    @inline(__always)
    mutating func appendDigits(_ v: UInt64, count digits: Int) {
        if digits <= 8 {
            appendDigits(v, last: digits)
        } else {
            let high = v / 100_000_000
            appendDigits(high, last: digits &- 8)
            appendDigits(v &- high &* 100_000_000, last: 8)
        }
    }
}

extension TextBuffer {
    /// The slack `appendRun(_:count:)` may read past the end of a run.
    static var runSlack: Int { 32 }

    /// Makes sure the `runSlack` bytes past the end are allocated and initialized, for
    /// `appendRun(_:count:)` reading runs of this buffer's text.
    mutating func zeroSlack() {
        reserve(Self.runSlack).initialize(repeating: 0, count: Self.runSlack)
    }

    /// Appends the `n` bytes at `run`, whose memory goes on for `runSlack` bytes past them (the
    /// text of a buffer with `zeroSlack`): copied as whole blocks of four words, with no branch on
    /// the length for runs up to 32 bytes and no call for longer ones.
    @inline(__always)
    mutating func appendRun(_ run: UnsafeRawPointer, count n: Int) {
        let to = UnsafeMutableRawPointer(reserve(n &+ Self.runSlack))
        var i = 0
        repeat {
            to.storeBytes(of: run.loadUnaligned(fromByteOffset: i, as: UInt64.self), toByteOffset: i, as: UInt64.self)
            to.storeBytes(
                of: run.loadUnaligned(fromByteOffset: i &+ 8, as: UInt64.self),
                toByteOffset: i &+ 8,
                as: UInt64.self
            )
            to.storeBytes(
                of: run.loadUnaligned(fromByteOffset: i &+ 16, as: UInt64.self),
                toByteOffset: i &+ 16,
                as: UInt64.self
            )
            to.storeBytes(
                of: run.loadUnaligned(fromByteOffset: i &+ 24, as: UInt64.self),
                toByteOffset: i &+ 24,
                as: UInt64.self
            )
            i &+= 32
        } while i < n
        advance(n)
    }
}
