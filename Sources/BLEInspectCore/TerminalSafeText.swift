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
        let b = Array(bytes)
        var out = ""
        out.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            if let (scalar, length) = decodeScalar(b, at: i) {
                append(scalar, to: &out)
                i += length
            } else {
                appendHexByte(b[i], to: &out)
                i += 1
            }
        }
        return out
    }

    /// Decodes one well-formed UTF-8 scalar at `i`: no overlong forms, no surrogates, at most U+10FFFF.
    private static func decodeScalar(_ b: [UInt8], at i: Int) -> (Unicode.Scalar, Int)? {
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

    /// The escaped form of a Swift string.
    public static func escape(_ string: String) -> String {
        escape(Array(string.utf8))
    }

    /// True when `scalar` must not reach a terminal as is.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        switch v {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: return true
        default: return false
        }
    }

    private static func append(_ scalar: Unicode.Scalar, to out: inout String) {
        let v = scalar.value
        if scalar == "\\" {
            out += "\\\\"
        } else if !isUnsafe(scalar) {
            out.unicodeScalars.append(scalar)
        } else if v == 0x0A {
            out += "\\n"
        } else if v == 0x0D {
            out += "\\r"
        } else if v == 0x09 {
            out += "\\t"
        } else if v == 0 {
            out += "\\0"
        } else if v <= 0x7F {
            appendHexByte(UInt8(v), to: &out)
        } else {
            out += "\\u{"
            out += String(v, radix: 16, uppercase: true)
            out += "}"
        }
    }

    private static func appendHexByte(_ b: UInt8, to out: inout String) {
        let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
        out += "\\x"
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 0x0F)])
    }
}
