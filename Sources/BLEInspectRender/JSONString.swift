import BLEInspectCore

/// JSON string literals: quoting and escaping.
extension JSONFrame {
    /// A JSON string literal. Control characters, DEL, C1 controls and bidi overrides are
    /// written as \u escapes, so the output is safe on a terminal too; invalid UTF-8 cannot occur
    /// (strings were decoded with replacement).
    public static func quote(_ s: String) -> String {
        var out = TextBuffer()
        appendQuoted(s, to: &out)
        return out.string
    }

    /// Appends the bytes of `quote(s)`.
    static func appendQuoted(_ s: String, to out: inout TextBuffer) {
        // Read in place when the String is contiguous UTF-8 (a native one always is): no copy.
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { appendQuoted($0, to: &out) }
        guard done == nil else { return }
        var s = s
        s.withUTF8 { appendQuoted($0, to: &out) }
    }

    /// Appends the text `ref` refers to in `texts` as a JSON string literal (`""` when there is
    /// none), read in place: the String is not copied out of the array.
    static func appendQuoted(_ ref: TextRef, _ texts: [String], to out: inout TextBuffer) {
        let i = Int(ref.index)
        texts.withUnsafeBufferPointer { texts in
            if i < texts.count { appendQuoted(texts[i], to: &out) } else { appendQuoted("", to: &out) }
        }
    }

    /// Appends `bytes`, which are valid UTF-8, as a JSON string literal (as `quote` does). Runs
    /// that need no escaping are copied whole.
    static func appendQuoted(_ b: UnsafeBufferPointer<UInt8>, to out: inout TextBuffer) {
        out.append(0x22)
        if isPlain(b) {
            out.append(contentsOf: b)
            out.append(0x22)
            return
        }
        let n = b.count
        var i = 0
        var runStart = 0
        while i < n {
            // Skip eight plain ASCII bytes at a time.
            if let base = b.baseAddress {
                while i &+ 8 <= n && !Self.needsAttention(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) {
                    i &+= 8
                }
                if i >= n { break }
            }
            let c = b[i]
            if c >= 0x20 && c != 0x22 && c != 0x5C && c < 0x7F {
                i += 1
                continue
            }
            // A character above U+007F: copied unless `TerminalSafeText.isUnsafe` says it needs a
            // \u escape (C1 controls, bidi controls).
            var unsafe: UInt32 = 0
            var length = 1
            if c >= 0x80 {
                let (value, count) = Self.decode(b, at: i)
                if let scalar = Unicode.Scalar(value), TerminalSafeText.isUnsafe(scalar) {
                    unsafe = value
                    length = count
                } else {
                    i += count
                    continue
                }
            }
            if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: b[runStart..<i])) }
            switch c {
            case 0x22:
                out.append(0x5C)
                out.append(0x22)
            case 0x5C:
                out.append(0x5C)
                out.append(0x5C)
            case 0x0A:
                out.append(0x5C)
                out.append(0x6E)
            case 0x0D:
                out.append(0x5C)
                out.append(0x72)
            case 0x09:
                out.append(0x5C)
                out.append(0x74)
            default:
                let v = c < 0x80 ? UInt32(c) : unsafe
                out.append(0x5C)
                out.append(0x75)
                out.appendHex(UInt64(v), minimumDigits: 4)
            }
            i += length
            runStart = i
        }
        if runStart < n { out.append(contentsOf: UnsafeBufferPointer(rebasing: b[runStart..<n])) }
        out.append(0x22)
    }

    /// The scalar value and length of the UTF-8 sequence at `i` of valid UTF-8 (a stray byte
    /// counts as one byte with no scalar).
    @inline(__always)
    static func decode(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> (UInt32, Int) {
        let lead = b[i]
        let length = lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        guard length > 1, i + length <= b.count else { return (UInt32.max, 1) }
        var value = UInt32(lead) & (0x7F >> UInt32(length))
        for k in 1..<length { value = value << 6 | UInt32(b[i + k] & 0x3F) }
        return (value, length)
    }

    /// Whether all of `b` is plain ASCII that a JSON string keeps as is (`needsAttention`), a
    /// word at a time: a string shorter than a word is read into one padded with spaces, the
    /// tail of a longer one as the last word, which overlaps the one before.
    @inline(__always)
    static func isPlain(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = b.baseAddress else { return true }
        let n = b.count
        if n < 8 {
            var w: UInt64 = 0x2020_2020_2020_2020
            for k in 0..<n { w = w << 8 | UInt64(base[k]) }
            return !needsAttention(w)
        }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i &+ 8 <= n {
            if needsAttention(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { return false }
            i &+= 8
        }
        return i == n || !needsAttention(raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self))
    }

    /// Whether any of the eight bytes in `w` is not plain ASCII that a JSON string keeps as is:
    /// a control character, `"`, `\\`, DEL or a byte of a multi-byte character.
    @inline(__always)
    static func needsAttention(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = w ^ (ones &* 0x22)
        let backslash = w ^ (ones &* 0x5C)
        let delete = w ^ (ones &* 0x7F)
        let below20 = (w &- ones &* 0x20) & ~w
        let zeros = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((delete &- ones) & ~delete)
        return (below20 | zeros | w) & highs != 0
    }
}
