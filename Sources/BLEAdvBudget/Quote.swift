import BLEInspectCore
import Foundation

/// Escaping of untrusted text (names, ids, expressions and paths from plans and sources) for
/// messages, and of messages for the CI formats.
public enum Quote {
    /// `"text"` with control characters, bidi overrides and invalid UTF-8 escaped
    /// (`TerminalSafeText`) and `"` written as `\"`.
    public static func text(_ s: String) -> String {
        "\"" + safe(s).replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// The same for raw bytes, such as a name cut inside a UTF-8 character.
    public static func bytes(_ b: [UInt8]) -> String {
        "\"" + TerminalSafeText.escape(b).replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// `` `expression` `` with its text escaped.
    public static func code(_ s: String) -> String { "`" + safe(s) + "`" }

    /// The text with control characters escaped, no quotes.
    public static func safe(_ s: String) -> String { TerminalSafeText.escape(s) }

    /// XML 1.0 character data or attribute value: the five predefined entities, tab, LF and CR as
    /// character references, and characters XML cannot carry at all (other C0 controls, C1
    /// controls, U+FFFE, U+FFFF) as the text `\u{XXXX}`.
    public static func xml(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            // As character references, so that attribute-value normalization keeps them.
            case "\t": out += "&#9;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            default:
                let v = scalar.value
                if v < 0x20 || v == 0xFFFE || v == 0xFFFF || (v >= 0x7F && v <= 0x9F) {
                    out += "\\u{" + String(v, radix: 16, uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// A GitHub workflow command's message: `%`, CR and LF percent-encoded, so that a message
    /// cannot end the command or start another.
    public static func githubData(_ s: String) -> String {
        s.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// A GitHub workflow command's property value: as `githubData`, plus `:` and `,`.
    public static func githubProperty(_ s: String) -> String {
        githubData(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    /// Upper-case hex, bytes separated by spaces.
    public static func hex<C: Collection<UInt8>>(_ bytes: C, separator: String = " ") -> String {
        HexText.bytes(bytes, separator: separator)
    }

    static func hexByte(_ b: UInt8) -> String { HexText.bytes([b]) }

    /// `0x004C`-style hex of a value with `digits` digits.
    static func hex(_ value: UInt64, digits: Int) -> String { HexText.prefixed(value, digits: digits) }
}
