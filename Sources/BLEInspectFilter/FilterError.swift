/// Why a display filter did not compile: a code, a message, the columns of the offending token,
/// and for unknown fields the nearest known field name.
public struct FilterError: Error, Sendable, CustomStringConvertible {
    /// What kind of problem it is: comparable, where the message is for people.
    public enum Code: Sendable, Hashable {
        /// A character, string, escape or character constant the lexer cannot read.
        case lexical
        /// Tokens in an order the grammar does not allow (a missing `)`, an empty set).
        case syntax
        /// A name that is neither a field nor a protocol.
        case unknownField
        /// A function name that is not one of the functions.
        case unknownFunction
        /// A literal that is not a value of the field's type (too big, not a date, a bad UUID).
        case value
        /// Parts that are well formed but do not go together (a type mismatch, an operator the
        /// field's type does not have, a value where a field is needed).
        case usage
        /// The filter is longer, or nests deeper, than the compiler takes.
        case limit
    }

    public let code: Code
    public let message: String
    /// Character offsets (0-based columns) of the offending token in the filter text. May start
    /// at the filter's length (one past its end) when something is missing at the end.
    public let range: Range<Int>
    /// The nearest field name, when the problem is an unknown field.
    public let suggestion: String?

    public init(_ code: Code, _ message: String, at range: Range<Int>, suggestion: String? = nil) {
        self.code = code
        self.message = message
        self.range = range
        self.suggestion = suggestion
    }

    public var description: String {
        var text = "column \(range.lowerBound + 1): \(message)"
        if let suggestion { text += "; did you mean `\(suggestion)`?" }
        return text
    }

    /// The filter, a line with a caret under the offending token (`^~~~`), the message, and
    /// "did you mean `x`?" when there is a suggestion. Control characters in the filter are shown
    /// as spaces so that the caret stays under its column; very long filters are cut to a window
    /// around the offending token.
    public func rendered(filter: String) -> String {
        let characters = Array(filter)
        let start = min(max(0, range.lowerBound), characters.count)
        let width = max(1, min(range.count, max(1, characters.count - start)))
        // A window of at most `maxWidth` columns around the token, with "…" where text is cut.
        let maxWidth = 160
        var windowStart = 0
        var windowEnd = characters.count
        if characters.count > maxWidth {
            windowStart = max(0, start - 60)
            windowEnd = min(characters.count, max(windowStart + maxWidth, start + min(width, 80) + 20))
        }
        var line = ""
        var column = 0
        if windowStart > 0 {
            line += "…"
            column = 1
        }
        let caretColumn = column + (start - windowStart)
        for c in characters[windowStart..<windowEnd] {
            line.append(Self.printable(c))
        }
        if windowEnd < characters.count { line += "…" }
        let caretWidth = min(width, max(1, windowEnd - start))
        let caret = String(repeating: " ", count: caretColumn) + "^" + String(repeating: "~", count: caretWidth - 1)
        var out = line + "\n" + caret + "\n" + message
        if let suggestion { out += "\ndid you mean `\(suggestion)`?" }
        return out
    }

    /// One column for each character: control and other invisible characters become a space.
    private static func printable(_ c: Character) -> Character {
        for scalar in c.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || v == 0x7F || (v >= 0x80 && v < 0xA0) || v == 0x2028 || v == 0x2029 { return " " }
            if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) { return " " }
        }
        return c
    }
}
