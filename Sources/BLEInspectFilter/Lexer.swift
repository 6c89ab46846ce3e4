/// A comparison operator as written.
enum ComparisonOperator: Sendable, Equatable {
    /// `==`, `eq`, `any_eq`: some occurrence equals.
    case anyEqual
    /// `!=`, `ne`, `all_ne`: the field occurs and no occurrence equals.
    case allNotEqual
    /// `===`, `all_eq`: the field occurs and every occurrence equals.
    case allEqual
    /// `!==`, `~=`, `any_ne`: some occurrence differs.
    case anyNotEqual
    case less, lessOrEqual, greater, greaterOrEqual

    var spelling: String {
        switch self {
        case .anyEqual: "=="
        case .allNotEqual: "!="
        case .allEqual: "==="
        case .anyNotEqual: "!=="
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        }
    }

    /// The operator a keyword spells (`eq`, `all_ne`…).
    static func keyword(_ word: String) -> ComparisonOperator? {
        switch word.lowercased() {
        case "eq", "any_eq": .anyEqual
        case "ne", "all_ne": .allNotEqual
        case "all_eq": .allEqual
        case "any_ne": .anyNotEqual
        case "lt": .less
        case "le": .lessOrEqual
        case "gt": .greater
        case "ge": .greaterOrEqual
        default: nil
        }
    }
}

enum TokenKind: Sendable, Equatable {
    /// Field names, numbers, byte strings, addresses, keywords: anything unquoted.
    case word
    /// A quoted string, its escapes decoded (the bytes may not be valid UTF-8).
    case string([UInt8])
    /// A character constant such as `'a'` or `'\x41'`.
    case character(UInt8)
    case comparison(ComparisonOperator)
    /// `~`: the same as `matches`.
    case tilde
    case and, or, not
    case leftParen, rightParen, leftBrace, rightBrace, leftBracket, rightBracket
    case comma, dotDot, ampersand
    /// Arithmetic: `+`, `-` (binary, or unary before an operand), `*`, `/`, `%`.
    case plus, minus, star, slash, percent
    /// `#`: the layer operator (`btatt.handle#2`).
    case hash
    /// `${`: the start of a field reference (`${btatt.handle}`).
    case referenceStart
    case end
}

struct Token: Sendable {
    var kind: TokenKind
    /// Columns in the filter.
    var range: Range<Int>
    /// The token's text as written.
    var text: String
}

/// Splits a filter into tokens, each with its columns.
struct Lexer {
    let chars: [Character]
    private var position = 0

    init(_ chars: [Character]) {
        self.chars = chars
    }

    static func tokens(_ chars: [Character]) throws(FilterError) -> [Token] {
        var lexer = Lexer(chars)
        var tokens: [Token] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ offset: Int = 0) -> Character? {
        let i = position + offset
        return i < chars.count ? chars[i] : nil
    }

    private func text(_ range: Range<Int>) -> String { String(chars[range]) }

    static func isWordCharacter(_ c: Character) -> Bool {
        if c.isLetter || c.isNumber { return true }
        return c == "_" || c == "." || c == ":" || c == "-"
    }

    /// Whether `position` is on the `+` of a number's exponent (`1e+3`, `-2.5E+10`) in the word
    /// that began at `start`: the word so far starts with a digit (after an optional `-` or `.`)
    /// and ends with `e`, and a digit follows. Elsewhere `+` is not part of the language.
    private func isExponentSign(_ start: Int) -> Bool {
        guard peek() == "+", position > start, let e = peek(-1), e == "e" || e == "E",
            let after = peek(1), after.isASCII, after.isNumber
        else { return false }
        var i = start
        while i < position, chars[i] == "-" || chars[i] == "." { i += 1 }
        return i < position && chars[i].isASCII && chars[i].isNumber
    }

    /// The kind of the token before `position`, for telling a minus sign from a negative literal.
    private var previousKind: TokenKind? = nil

    /// Whether the `-` at `start` is an operator rather than the sign of a literal (`-3`, `-0x40`,
    /// `-1e3`, `-.5`). As in Wireshark, subtraction is written with a space before the `-` (`a - b`
    /// or `a -b`; `a-b` is one word); after an operator, `(`, `{` or `,`, a `-` before a digit is a
    /// sign, and before anything else (a field, `{`, `${`) it is unary minus.
    private func isMinusOperator(_ start: Int) -> Bool {
        let afterOperand: Bool
        switch previousKind {
        case .word?, .string?, .character?, .rightBracket?, .rightBrace?, .rightParen?: afterOperand = true
        default: afterOperand = false
        }
        if afterOperand { return start > 0 && chars[start - 1].isWhitespace }
        guard let next = peek(1) else { return true }
        if next.isASCII && next.isNumber { return false }
        if next == ".", let after = peek(2), after.isASCII, after.isNumber { return false }
        return true
    }

    mutating func next() throws(FilterError) -> Token {
        let token = try scan()
        previousKind = token.kind
        return token
    }

    private mutating func scan() throws(FilterError) -> Token {
        while let c = peek(), c.isWhitespace { position += 1 }
        let start = position
        guard let c = peek() else { return Token(kind: .end, range: start..<start + 1, text: "") }
        func make(_ kind: TokenKind, _ length: Int) -> Token {
            position = start + length
            return Token(kind: kind, range: start..<position, text: text(start..<position))
        }
        switch c {
        case "(": return make(.leftParen, 1)
        case ")": return make(.rightParen, 1)
        case "{": return make(.leftBrace, 1)
        case "}": return make(.rightBrace, 1)
        case "[": return make(.leftBracket, 1)
        case "]": return make(.rightBracket, 1)
        case ",": return make(.comma, 1)
        case "=":
            if peek(1) == "=" {
                return peek(2) == "=" ? make(.comparison(.allEqual), 3) : make(.comparison(.anyEqual), 2)
            }
            throw FilterError(.lexical, "`=` is not an operator; use `==` to compare", at: start..<start + 1)
        case "!":
            if peek(1) == "=" {
                return peek(2) == "=" ? make(.comparison(.anyNotEqual), 3) : make(.comparison(.allNotEqual), 2)
            }
            return make(.not, 1)
        case "~":
            return peek(1) == "=" ? make(.comparison(.anyNotEqual), 2) : make(.tilde, 1)
        case "<": return peek(1) == "=" ? make(.comparison(.lessOrEqual), 2) : make(.comparison(.less), 1)
        case ">": return peek(1) == "=" ? make(.comparison(.greaterOrEqual), 2) : make(.comparison(.greater), 1)
        case "&": return peek(1) == "&" ? make(.and, 2) : make(.ampersand, 1)
        case "+":
            // `+42`: a sign before a number where an operand starts, as `-42` is.
            if !isMinusOperator(start), let n = peek(1), n.isASCII, n.isNumber { break }
            return make(.plus, 1)
        case "*": return make(.star, 1)
        case "/": return make(.slash, 1)
        case "%": return make(.percent, 1)
        case "#": return make(.hash, 1)
        case "$":
            if peek(1) == "{" { return make(.referenceStart, 2) }
            throw FilterError(.lexical, "`$` starts a field reference, written ${field}", at: start..<start + 1)
        case "-":
            if isMinusOperator(start) { return make(.minus, 1) }
        case "|":
            if peek(1) == "|" { return make(.or, 2) }
            throw FilterError(.lexical, "`|` is not an operator; use `||` (or `or`)", at: start..<start + 1)
        case "\"":
            return try quotedString(raw: false)
        case "'":
            return try characterConstant()
        default:
            break
        }
        if c == ".", peek(1) == "." { return make(.dotDot, 2) }
        if c == "r" || c == "R", peek(1) == "\"" {
            position += 1
            return try quotedString(raw: true)
        }
        if c == "+" {
            position += 1  // a number's sign (see `case "+"`)
        } else if !Self.isWordCharacter(c) {
            throw FilterError(.lexical, "unexpected character `\(c)`", at: start..<start + 1)
        }
        while let d = peek(), Self.isWordCharacter(d) || isExponentSign(start) {
            // `..` ends a word: it separates the bounds of a range in a set (`0x10..0x13`).
            if d == ".", peek(1) == ".", position > start { break }
            position += 1
        }
        return Token(kind: .word, range: start..<position, text: text(start..<position))
    }

    /// A string in double quotes; `position` is on the opening quote. Raw strings (`r"…"`) keep
    /// backslashes; a backslash still stops the next quote from ending the string.
    private mutating func quotedString(raw: Bool) throws(FilterError) -> Token {
        let start = raw ? position - 1 : position
        position += 1
        var bytes: [UInt8] = []
        while true {
            guard let c = peek() else {
                throw FilterError(.lexical, "the closing quote of this string is missing", at: start..<chars.count)
            }
            if c == "\"" {
                position += 1
                return Token(kind: .string(bytes), range: start..<position, text: text(start..<position))
            }
            if c == "\\" {
                if raw {
                    bytes.append(0x5C)
                    position += 1
                    if let n = peek() {
                        bytes.append(contentsOf: Array(String(n).utf8))
                        position += 1
                    }
                    continue
                }
                try escape(into: &bytes)
                continue
            }
            bytes.append(contentsOf: Array(String(c).utf8))
            position += 1
        }
    }

    /// Decodes the escape at `position` (on the backslash).
    private mutating func escape(into bytes: inout [UInt8]) throws(FilterError) {
        let start = position
        position += 1
        guard let e = peek() else {
            throw FilterError(.lexical, "the closing quote of this string is missing", at: start..<chars.count)
        }
        position += 1
        switch e {
        case "\\": bytes.append(0x5C)
        case "\"": bytes.append(0x22)
        case "'": bytes.append(0x27)
        case "a": bytes.append(0x07)
        case "b": bytes.append(0x08)
        case "f": bytes.append(0x0C)
        case "n": bytes.append(0x0A)
        case "r": bytes.append(0x0D)
        case "t": bytes.append(0x09)
        case "v": bytes.append(0x0B)
        case "0"..."7":
            var value = Int(e.hexDigitValue ?? 0)
            var count = 1
            while count < 3, let d = peek(), let v = d.hexDigitValue, v < 8, d.isASCII {
                value = value * 8 + v
                count += 1
                position += 1
            }
            guard value <= 0xFF else {
                throw FilterError(
                    .lexical,
                    "octal escape \\\(text(start + 1..<position)) is larger than 377",
                    at: start..<position
                )
            }
            bytes.append(UInt8(value))
        case "x":
            var value = 0
            var count = 0
            while count < 2, let d = peek(), d.isASCII, let v = d.hexDigitValue {
                value = value * 16 + v
                count += 1
                position += 1
            }
            guard count > 0 else {
                throw FilterError(.lexical, "\\x must be followed by one or two hex digits", at: start..<position)
            }
            bytes.append(UInt8(value))
        case "u", "U":
            let digits = e == "u" ? 4 : 8
            var value: UInt32 = 0
            for _ in 0..<digits {
                guard let d = peek(), d.isASCII, let v = d.hexDigitValue else {
                    throw FilterError(.lexical, "\\\(e) must be followed by \(digits) hex digits", at: start..<position)
                }
                value = value &* 16 &+ UInt32(v)
                position += 1
            }
            // As in C (and Wireshark), a universal character name is not for ASCII or C1 controls.
            guard value >= 0xA0, let scalar = Unicode.Scalar(value) else {
                throw FilterError(
                    .lexical,
                    "\\\(e) escape is not a valid universal character name (U+00A0 and above; write \\x41 for ASCII)",
                    at: start..<position
                )
            }
            bytes.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            throw FilterError(.lexical, "\\\(e) is not a valid escape sequence", at: start..<position)
        }
    }

    /// A character constant: `'a'`, `'\n'`, `'\x41'`, `'\101'`.
    private mutating func characterConstant() throws(FilterError) -> Token {
        let start = position
        position += 1
        var bytes: [UInt8] = []
        if peek() == "\\" {
            try escape(into: &bytes)
        } else if let c = peek(), c != "'" {
            bytes.append(contentsOf: Array(String(c).utf8))
            position += 1
        }
        guard peek() == "'" else {
            var end = position
            while end < chars.count, chars[end] != "'", !chars[end].isWhitespace { end += 1 }
            throw FilterError(
                .lexical,
                "a character constant holds one character in single quotes, such as 'a' or '\\x41'",
                at: start..<min(chars.count, end + 1)
            )
        }
        position += 1
        guard bytes.count == 1, let byte = bytes.first else {
            throw FilterError(.lexical, "a character constant must be a single byte", at: start..<position)
        }
        return Token(kind: .character(byte), range: start..<position, text: text(start..<position))
    }
}
