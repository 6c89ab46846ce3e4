/// Makes untrusted text safe to print on a terminal.
///
/// Valid UTF-8 is kept, except characters that can change what a terminal shows or where it
/// writes: C0 and C1 controls (ESC starts every ANSI sequence), DEL, NUL, and the bidirectional
/// overrides, embeddings and isolates that can reorder a line. Those become `\xNN` or `\u{XXXX}`.
/// Bytes that are not valid UTF-8 become `\xNN`. A backslash becomes `\\`, so the escaped form is
/// unambiguous.
public enum TerminalSafeText {
    /// The escaped form of `bytes`.
    public static func escape<C: Collection<UInt8>>(_ bytes: C) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        let done: Void? = bytes.withContiguousStorageIfAvailable { appendEscaped($0, to: &out) }
        if done == nil { Array(bytes).withUnsafeBufferPointer { appendEscaped($0, to: &out) } }
        return String(decoding: out, as: UTF8.self)
    }

    /// The escaped form of a Swift string.
    public static func escape(_ string: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(string.utf8.count)
        appendEscaped(string, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the escaped form of a Swift string's UTF-8 to `out`: the same bytes as
    /// `escape(string).utf8`, without making a String.
    @inlinable
    public static func appendEscaped<Output: EscapedTextOutput & ~Copyable>(_ string: String, to out: inout Output) {
        var s = string
        s.withUTF8 { appendEscaped($0, to: &out) }
    }

    /// Appends the escaped form of `bytes` to `out`: the same bytes as `escape(bytes).utf8`.
    /// Runs of text that need no escaping are copied whole.
    @inlinable
    public static func appendEscaped<Output: EscapedTextOutput & ~Copyable>(
        _ bytes: UnsafeBufferPointer<UInt8>,
        to out: inout Output
    ) {
        let n = bytes.count
        var i = 0
        var runStart = 0
        while i < n {
            // Skip eight printable ASCII bytes (other than backslash) at a time.
            if let base = bytes.baseAddress {
                while i &+ 8 <= n && !needsAttention(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) {
                    i &+= 8
                }
                if i >= n { break }
            }
            let c = bytes[i]
            if c >= 0x20 && c < 0x7F && c != 0x5C {
                i += 1
                continue
            }
            if c >= 0x80, let (scalar, length) = decodeScalar(bytes, at: i), !isUnsafe(scalar) {
                i += length
                continue
            }
            if runStart < i { out.appendRun(UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
            if c < 0x80 {
                switch c {
                case 0x5C: appendPair(0x5C, 0x5C, to: &out)
                case 0x0A: appendPair(0x5C, 0x6E, to: &out)
                case 0x0D: appendPair(0x5C, 0x72, to: &out)
                case 0x09: appendPair(0x5C, 0x74, to: &out)
                case 0x00: appendPair(0x5C, 0x30, to: &out)
                default: appendHexByte(c, to: &out)
                }
                i += 1
            } else if let (scalar, length) = decodeScalar(bytes, at: i) {
                // An unsafe scalar above U+007F: \u{XXXX}, upper case, no padding.
                appendPair(0x5C, 0x75, to: &out)
                out.appendByte(0x7B)
                let v = scalar.value
                var shift = (32 - v.leadingZeroBitCount + 3) / 4 * 4
                repeat {
                    shift -= 4
                    out.appendByte(upperHexDigit(UInt8(truncatingIfNeeded: v >> UInt32(shift)) & 0x0F))
                } while shift > 0
                out.appendByte(0x7D)
                i += length
            } else {
                appendHexByte(c, to: &out)
                i += 1
            }
            runStart = i
        }
        if runStart < n { out.appendRun(UnsafeBufferPointer(rebasing: bytes[runStart..<n])) }
    }

    /// Whether any of the eight bytes in `w` is not printable ASCII or is a backslash.
    @inlinable @inline(__always)
    static func needsAttention(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let backslash = w ^ (ones &* 0x5C)
        let delete = w ^ (ones &* 0x7F)
        let below20 = (w &- ones &* 0x20) & ~w
        let zeros = ((backslash &- ones) & ~backslash) | ((delete &- ones) & ~delete)
        return (below20 | zeros | w) & highs != 0
    }

    /// Decodes one well-formed UTF-8 scalar at `i`: no overlong forms, no surrogates, at most U+10FFFF.
    @usableFromInline
    static func decodeScalar(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> (Unicode.Scalar, Int)? {
        let lead = b[i]
        let length: Int
        var value: UInt32
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0x00...0x7F: return Unicode.Scalar(UInt32(lead)).map { ($0, 1) }
        case 0xC2...0xDF: length = 2; value = UInt32(lead & 0x1F)
        case 0xE0: length = 3; value = 0; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3; value = UInt32(lead & 0x0F)
        case 0xED: length = 3; value = 0x0D; upper = 0x9F
        case 0xF0: length = 4; value = 0; lower = 0x90
        case 0xF1...0xF3: length = 4; value = UInt32(lead & 0x07)
        case 0xF4: length = 4; value = 4; upper = 0x8F
        default: return nil
        }
        guard b.count - i >= length else { return nil }
        for k in 1..<length {
            let c = b[i + k]
            let lo: UInt8 = k == 1 ? lower : 0x80
            let hi: UInt8 = k == 1 ? upper : 0xBF
            guard c >= lo, c <= hi else { return nil }
            value = (value << 6) | UInt32(c & 0x3F)
        }
        return Unicode.Scalar(value).map { ($0, length) }
    }

    /// True when `scalar` must not reach a terminal as is.
    @inlinable
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        switch v {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: return true
        default: return false
        }
    }

    @inlinable @inline(__always)
    static func appendPair<Output: EscapedTextOutput & ~Copyable>(_ a: UInt8, _ b: UInt8, to out: inout Output) {
        out.appendByte(a)
        out.appendByte(b)
    }

    @inlinable @inline(__always)
    static func upperHexDigit(_ d: UInt8) -> UInt8 { HexText.digit(d) }

    @inlinable
    static func appendHexByte<Output: EscapedTextOutput & ~Copyable>(_ b: UInt8, to out: inout Output) {
        appendPair(0x5C, 0x78, to: &out)
        out.appendByte(upperHexDigit(b >> 4))
        out.appendByte(upperHexDigit(b & 0x0F))
    }
}

/// Where `TerminalSafeText.appendEscaped` writes: a byte buffer that takes single bytes and runs.
public protocol EscapedTextOutput: ~Copyable {
    mutating func appendByte(_ byte: UInt8)
    mutating func appendRun(_ run: UnsafeBufferPointer<UInt8>)
}

extension Array: EscapedTextOutput where Element == UInt8 {
    @inlinable
    public mutating func appendByte(_ byte: UInt8) { append(byte) }

    @inlinable
    public mutating func appendRun(_ run: UnsafeBufferPointer<UInt8>) { append(contentsOf: run) }
}
