/// A parsed filter, before names are looked up. Every node keeps its columns for errors.
indirect enum Expression: Sendable {
    case or([Expression])
    case and([Expression])
    case not(Expression, operatorRange: Range<Int>)
    case test(TestExpression)
}

struct TestExpression: Sendable {
    /// An `any` or `all` written before the test: it overrides the operator's own quantifier.
    var quantifier: Quantifier?
    var lhs: Term
    var relation: Relation?
}

enum Relation: Sendable {
    case compare(ComparisonOperator, operatorRange: Range<Int>, Term)
    case contains(operatorRange: Range<Int>, Term)
    case matches(operatorRange: Range<Int>, Term)
    case inSet(negated: Bool, operatorRange: Range<Int>, [SetElement], setRange: Range<Int>)
}

struct SetElement: Sendable {
    var low: Term
    var high: Term?
}

/// Byte offsets a slice selects, as written: `[i:j]` (start, length), `[i-j]` (start, end
/// inclusive), `[i]`, `[:j]`, `[i:]`. Negative offsets count from the end.
struct SliceSpec: Sendable, Equatable {
    enum End: Sendable, Equatable {
        case length(Int)
        case inclusiveEnd(Int)
        case toEnd
    }
    var start: Int
    var end: End

    /// The byte range for a value of `count` bytes, or nil when the slice does not fit (then the
    /// occurrence is left out, as Wireshark does).
    @inline(__always)
    func resolve(count: Int) -> Range<Int>? {
        let first = start < 0 ? count + start : start
        guard first >= 0 else { return nil }
        switch end {
        case .length(let length):
            let last = first + length
            return last <= count ? first..<last : nil
        case .toEnd:
            return first <= count ? first..<count : nil
        case .inclusiveEnd(let e):
            let last = (e < 0 ? count + e : e) + 1
            return last <= count && last > first ? first..<last : nil
        }
    }
}

/// The arithmetic operators, from the loosest: `&` (`bitwise_and`), then `+ -`, then `* / %`.
enum ArithmeticOperator: Sendable, Equatable {
    case bitwiseAnd, add, subtract, multiply, divide, modulo

    var spelling: String {
        switch self {
        case .bitwiseAnd: "&"
        case .add: "+"
        case .subtract: "-"
        case .multiply: "*"
        case .divide: "/"
        case .modulo: "%"
        }
    }
}

/// The layers a `#` selects: `#2`, or `#[2-4]`, `#[2:3]`, `#[2:]` (1 is the outermost).
struct LayerSpec: Sendable, Equatable {
    var ranges: [ClosedRange<Int>]

    @inline(__always)
    func contains(_ layer: Int) -> Bool {
        for r in ranges where r.contains(layer) { return true }
        return false
    }
}

indirect enum Term: Sendable {
    /// A field name or an unquoted literal: which one is decided against the registry.
    case word(Token)
    case string(Token, [UInt8])
    case character(Token, UInt8)
    /// `term[…]`: one range, or several joined (`[0:1,3]`).
    case slice(Term, [SliceSpec], bracketRange: Range<Int>)
    /// `field#N`: the field's occurrences in the given layers of its protocol.
    case layer(Term, LayerSpec, range: Range<Int>)
    /// `${field}`: the field's value in the reference frame.
    case reference(Term, range: Range<Int>)
    case function(name: Token, arguments: [Term], range: Range<Int>)
    case arithmetic(ArithmeticOperator, Term, Term, operatorRange: Range<Int>)
    /// Unary minus.
    case negate(Term, operatorRange: Range<Int>)
    /// `{ … }` around an arithmetic expression.
    case group(Term, range: Range<Int>)

    var range: Range<Int> {
        switch self {
        case .word(let t), .string(let t, _), .character(let t, _): t.range
        case .slice(let base, _, let brackets): base.range.lowerBound..<brackets.upperBound
        case .layer(_, _, let range), .reference(_, let range), .function(_, _, let range), .group(_, let range):
            range
        case .arithmetic(_, let a, let b, _): a.range.lowerBound..<b.range.upperBound
        case .negate(let inner, let op): op.lowerBound..<inner.range.upperBound
        }
    }
}

/// A hand-written recursive-descent parser. From the loosest: `||`, `&&`, `!`, comparisons (with
/// an optional `any`/`all` before them), `&`, `+ -`, `* / %`, unary minus, then `#` layers and
/// `[…]` slices. Nesting of parentheses, braces, function calls and `!` is bounded, so no filter
/// can exhaust the stack.
struct Parser {
    static let maximumNesting = 256

    private let tokens: [Token]
    private let chars: [Character]
    private var index = 0
    private var nesting = 0

    init(tokens: [Token], chars: [Character]) {
        self.tokens = tokens
        self.chars = chars
    }

    static func parse(_ chars: [Character]) throws(FilterError) -> Expression {
        let tokens = try Lexer.tokens(chars)
        var parser = Parser(tokens: tokens, chars: chars)
        if tokens.first?.kind == .end {
            throw FilterError(.syntax, "the filter is empty", at: 0..<max(1, chars.count))
        }
        let expression = try parser.parseOr()
        let next = parser.current
        switch next.kind {
        case .end:
            return expression
        case .rightParen:
            throw FilterError(.syntax, "this `)` has no matching `(`", at: next.range)
        default:
            throw FilterError(
                .syntax,
                "`\(next.text)` was unexpected here; expected `&&`, `||` or the end",
                at: next.range
            )
        }
    }

    private var current: Token { tokens[min(index, tokens.count - 1)] }
    private var previous: Token? { index > 0 ? tokens[index - 1] : nil }

    private mutating func advance() -> Token {
        let t = current
        if index < tokens.count - 1 { index += 1 }
        return t
    }

    private func isWord(_ word: String, _ token: Token? = nil) -> Bool {
        let t = token ?? current
        return t.kind == .word && t.text.lowercased() == word
    }

    private mutating func enter(_ token: Token) throws(FilterError) {
        nesting += 1
        if nesting > Self.maximumNesting {
            throw FilterError(
                .limit,
                "the filter nests parentheses and `!` more than \(Self.maximumNesting) deep",
                at: token.range
            )
        }
    }

    private mutating func parseOr() throws(FilterError) -> Expression {
        try parseJoined(.or, "or", Expression.or) { (p: inout Parser) throws(FilterError) in try p.parseAnd() }
    }

    private mutating func parseAnd() throws(FilterError) -> Expression {
        try parseJoined(.and, "and", Expression.and) { (p: inout Parser) throws(FilterError) in try p.parseUnary() }
    }

    /// One or more `operand`s joined by the operator `kind` or its `word`; more than one are
    /// `join`ed.
    private mutating func parseJoined(
        _ kind: TokenKind,
        _ word: String,
        _ join: ([Expression]) -> Expression,
        _ operand: (inout Parser) throws(FilterError) -> Expression
    ) throws(FilterError) -> Expression {
        var terms = [try operand(&self)]
        while current.kind == kind || isWord(word) {
            _ = advance()
            terms.append(try operand(&self))
        }
        return terms.count == 1 ? terms[0] : join(terms)
    }

    private mutating func parseUnary() throws(FilterError) -> Expression {
        if current.kind == .not || isWord("not") {
            let op = advance()
            try enter(op)
            let inner = try parseUnary()
            nesting -= 1
            return .not(inner, operatorRange: op.range)
        }
        if current.kind == .leftParen {
            let open = advance()
            try enter(open)
            let inner = try parseOr()
            guard current.kind == .rightParen else {
                if current.kind == .end {
                    throw FilterError(.syntax, "this `(` is never closed", at: open.range)
                }
                throw FilterError(
                    .syntax,
                    "`\(current.text)` was unexpected here; expected `)` to close the `(` at column \(open.range.lowerBound + 1)",
                    at: current.range
                )
            }
            _ = advance()
            nesting -= 1
            return inner
        }
        return .test(try parseTest())
    }

    private mutating func parseTest() throws(FilterError) -> TestExpression {
        var quantifier: Quantifier? = nil
        if isWord("any") || isWord("all") {
            quantifier = isWord("any") ? .any : .all
            _ = advance()
        }
        let lhs = try parseValue(role: "a field name")
        let t = current
        if let relation = Self.operandRelation(t) {
            _ = advance()
            return TestExpression(
                quantifier: quantifier,
                lhs: lhs,
                relation: relation(t.range, try parseOperand(after: t))
            )
        }
        let notIn = isWord("not", t) && isWord("in", tokens[min(index + 1, tokens.count - 1)])
        if notIn || isWord("in", t) {
            try requireEntity(lhs, before: t)
            _ = advance()
            let end = notIn ? advance().range.upperBound : t.range.upperBound
            return TestExpression(
                quantifier: quantifier,
                lhs: lhs,
                relation: try parseSet(negated: notIn, operatorRange: t.range.lowerBound..<end)
            )
        }
        if let q = quantifier {
            throw FilterError(
                .syntax,
                "`\(q == .any ? "any" : "all")` needs a comparison after the field, such as `all btatt.handle > 3`",
                at: t.range
            )
        }
        return TestExpression(quantifier: nil, lhs: lhs, relation: nil)
    }

    /// The relation an operator that takes one operand after it names (`==`, `eq`, `~`,
    /// `contains`, `matches`), given the operator's range and that operand; nil for any other token.
    private static func operandRelation(_ t: Token) -> ((Range<Int>, Term) -> Relation)? {
        switch t.kind {
        case .comparison(let op): return { .compare(op, operatorRange: $0, $1) }
        case .tilde: return Relation.matches
        case .word:
            let word = t.text.lowercased()
            if let op = ComparisonOperator.keyword(word) { return { .compare(op, operatorRange: $0, $1) } }
            if word == "contains" { return Relation.contains }
            if word == "matches" { return Relation.matches }
            return nil
        default: return nil
        }
    }

    /// `in` tests a field (in some layers, perhaps), as in Wireshark: not a slice, a function or
    /// arithmetic.
    private func requireEntity(_ lhs: Term, before op: Token) throws(FilterError) {
        switch lhs {
        case .word, .layer:
            return
        case .arithmetic, .negate, .group:
            throw FilterError(
                .syntax,
                "`\(op.text)` was unexpected here: `in` tests a field, not arithmetic",
                at: op.range
            )
        default:
            throw FilterError(.syntax, "only a field may be tested for membership in a set", at: lhs.range)
        }
    }

    /// The right side of an operator: a value; a missing one is reported at the operator.
    private mutating func parseOperand(after op: Token) throws(FilterError) -> Term {
        switch current.kind {
        case .end, .and, .or, .rightParen:
            throw FilterError(.syntax, "`\(op.text)` needs a value after it", at: op.range)
        default:
            return try parseValue(role: "a value")
        }
    }

    private mutating func parseSet(negated: Bool, operatorRange: Range<Int>) throws(FilterError) -> Relation {
        guard current.kind == .leftBrace else {
            if current.kind == .end {
                throw FilterError(.syntax, "`in` needs a set such as {1, 2, 4..6} after it", at: operatorRange)
            }
            throw FilterError(.syntax, "expected `{` to start a set, such as {1, 2, 4..6}", at: current.range)
        }
        let open = advance()
        var elements: [SetElement] = []
        while true {
            switch current.kind {
            case .rightBrace:
                let close = advance()
                if elements.isEmpty {
                    throw FilterError(.syntax, "the set is empty", at: open.range.lowerBound..<close.range.upperBound)
                }
                throw FilterError(
                    .syntax,
                    "a set element is missing after this `,`",
                    at: previous?.range ?? close.range
                )
            case .end:
                throw FilterError(.syntax, "this `{` is never closed", at: open.range)
            case .comma:
                throw FilterError(.syntax, "a set element is missing before this `,`", at: current.range)
            default:
                break
            }
            let low = try parseUnaryValue(role: "a set element")
            var high: Term? = nil
            if current.kind == .dotDot {
                let dots = advance()
                guard current.kind != .rightBrace, current.kind != .end, current.kind != .comma else {
                    throw FilterError(.syntax, "`..` needs an upper bound after it", at: dots.range)
                }
                high = try parseUnaryValue(role: "the upper bound of a range")
            }
            elements.append(SetElement(low: low, high: high))
            switch current.kind {
            case .comma:
                _ = advance()
            case .rightBrace:
                let close = advance()
                return .inSet(
                    negated: negated,
                    operatorRange: operatorRange,
                    elements,
                    setRange: open.range.lowerBound..<close.range.upperBound
                )
            case .end:
                throw FilterError(.syntax, "this `{` is never closed", at: open.range)
            default:
                throw FilterError(
                    .syntax,
                    "`\(current.text)` was unexpected here; set elements are separated by commas, as in {1, 2, 4..6}",
                    at: current.range
                )
            }
        }
    }

    // MARK: Values

    /// A value: arithmetic over fields, literals, slices, layers, references and function calls.
    /// The loosest operator is `&` (`bitwise_and`), then `+ -`, then `* / %`.
    private mutating func parseValue(role: String) throws(FilterError) -> Term {
        var term = try parseAdditive(role: role)
        while current.kind == .ampersand || isWord("bitwise_and") {
            let op = advance()
            let rhs = try parseAdditive(role: "a value after `\(op.text)`")
            term = .arithmetic(.bitwiseAnd, term, rhs, operatorRange: op.range)
        }
        return term
    }

    private mutating func parseAdditive(role: String) throws(FilterError) -> Term {
        var term = try parseMultiplicative(role: role)
        while current.kind == .plus || current.kind == .minus {
            let op = advance()
            try rejectSecondSign(after: op)
            let rhs = try parseMultiplicative(role: "a value after `\(op.text)`")
            term = .arithmetic(op.kind == .plus ? .add : .subtract, term, rhs, operatorRange: op.range)
        }
        return term
    }

    private mutating func parseMultiplicative(role: String) throws(FilterError) -> Term {
        var term = try parseUnaryValue(role: role)
        while true {
            let op: ArithmeticOperator
            switch current.kind {
            case .star: op = .multiply
            case .slash: op = .divide
            case .percent: op = .modulo
            default: return term
            }
            let t = advance()
            let rhs = try parseUnaryValue(role: "a value after `\(t.text)`")
            term = .arithmetic(op, term, rhs, operatorRange: t.range)
        }
    }

    private mutating func parseUnaryValue(role: String) throws(FilterError) -> Term {
        guard current.kind == .minus else { return try parsePostfix(role: role) }
        let op = advance()
        try enter(op)
        defer { nesting -= 1 }
        try rejectSecondSign(after: op)
        let inner = try parsePostfix(role: role)
        return .negate(inner, operatorRange: op.range)
    }

    /// `--1`, `- -x`, `+-1`: Wireshark takes one sign, not two.
    private func rejectSecondSign(after op: Token) throws(FilterError) {
        let t = current
        if t.kind == .minus || (t.kind == .word && t.text.hasPrefix("-") && t.range.lowerBound == op.range.upperBound) {
            throw FilterError(.syntax, "`-` was unexpected here", at: t.range.lowerBound..<t.range.lowerBound + 1)
        }
    }

    /// An atom with an optional layer (`#2`, `#[1-2]`) and an optional slice.
    private mutating func parsePostfix(role: String) throws(FilterError) -> Term {
        var term = try parseAtom(role: role)
        if current.kind == .hash {
            term = try parseLayer(term)
        }
        if current.kind == .leftBracket {
            term = try parseSlice(term)
            if current.kind == .leftBracket {
                throw FilterError(.syntax, "a slice cannot be sliced again", at: current.range)
            }
        }
        return term
    }

    private mutating func parseAtom(role: String) throws(FilterError) -> Term {
        let t = current
        switch t.kind {
        case .word:
            if Self.keywords.contains(t.text.lowercased()) {
                throw FilterError(.syntax, "`\(t.text)` was unexpected here; expected \(role)", at: t.range)
            }
            _ = advance()
            if current.kind == .leftParen {
                return try parseFunction(name: t)
            }
            return .word(t)
        case .string(let bytes):
            _ = advance()
            return .string(t, bytes)
        case .character(let byte):
            _ = advance()
            return .character(t, byte)
        case .referenceStart:
            return try parseReference()
        case .leftBrace:
            let open = advance()
            try enter(open)
            let inner = try parseValue(role: "a value")
            guard current.kind == .rightBrace else {
                if current.kind == .end { throw FilterError(.syntax, "this `{` is never closed", at: open.range) }
                throw FilterError(.syntax, "`\(current.text)` was unexpected here; expected `}`", at: current.range)
            }
            let close = advance()
            nesting -= 1
            return .group(inner, range: open.range.lowerBound..<close.range.upperBound)
        case .end:
            if let p = previous {
                throw FilterError(.syntax, "`\(p.text)` needs an operand after it", at: p.range)
            }
            throw FilterError(.syntax, "the filter is empty", at: 0..<1)
        case .rightParen:
            if let p = previous, p.kind == .leftParen {
                throw FilterError(.syntax, "empty parentheses", at: p.range.lowerBound..<t.range.upperBound)
            }
            if let p = previous, p.kind == .and || p.kind == .or || p.kind == .not {
                throw FilterError(.syntax, "`\(p.text)` needs an operand after it", at: p.range)
            }
            throw FilterError(.syntax, "`)` was unexpected here; expected \(role)", at: t.range)
        case .and, .or:
            if let p = previous, p.kind == .and || p.kind == .or || p.kind == .not || p.kind == .leftParen {
                throw FilterError(.syntax, "`\(t.text)` was unexpected here; expected \(role)", at: t.range)
            }
            throw FilterError(.syntax, "`\(t.text)` needs an operand before it", at: t.range)
        default:
            throw FilterError(.syntax, "`\(t.text)` was unexpected here; expected \(role)", at: t.range)
        }
    }

    private static let keywords: Set<String> = [
        "and", "or", "not", "in", "contains", "matches", "eq", "ne", "lt", "gt", "le", "ge", "any_eq", "all_eq",
        "any_ne", "all_ne", "bitwise_and", "any", "all",
    ]

    /// `${field}` or `${field#N}`.
    private mutating func parseReference() throws(FilterError) -> Term {
        let open = advance()
        guard current.kind == .word else {
            throw FilterError(
                .syntax,
                "a field reference names a field: ${btatt.handle}",
                at: open.range.lowerBound..<current.range.upperBound
            )
        }
        var inner = Term.word(advance())
        if current.kind == .hash {
            inner = try parseLayer(inner)
        }
        guard current.kind == .rightBrace else {
            if current.kind == .end { throw FilterError(.syntax, "this `${` is never closed", at: open.range) }
            throw FilterError(
                .syntax,
                "`\(current.text)` was unexpected here; expected `}` to close the field reference",
                at: current.range
            )
        }
        let close = advance()
        return .reference(inner, range: open.range.lowerBound..<close.range.upperBound)
    }

    /// `#N` or `#[ranges]` after a field name.
    private mutating func parseLayer(_ base: Term) throws(FilterError) -> Term {
        let hash = advance()
        guard case .word = base else {
            throw FilterError(
                .syntax,
                "`#` selects layers of a field; put it right after the field name",
                at: hash.range
            )
        }
        guard current.range.lowerBound == hash.range.upperBound, current.kind == .word || current.kind == .leftBracket
        else {
            throw FilterError(.syntax, "`#` needs a layer number right after it, such as #2 or #[1-2]", at: hash.range)
        }
        if current.kind == .word {
            let t = advance()
            guard let n = Int(t.text), t.text.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw FilterError(.syntax, "`\(t.text)` is not a layer number; write #2 or #[1-2]", at: t.range)
            }
            return .layer(base, LayerSpec(ranges: [n...n]), range: base.range.lowerBound..<t.range.upperBound)
        }
        guard current.kind == .leftBracket else {
            throw FilterError(.syntax, "`#` needs a layer number after it, such as #2 or #[1-2]", at: hash.range)
        }
        let (specs, brackets) = try bracketed()
        var ranges: [ClosedRange<Int>] = []
        for spec in specs {
            guard spec.start >= 0 else {
                throw FilterError(.syntax, "layer numbers count from 1; negative ones are not supported", at: brackets)
            }
            switch spec.end {
            case .length(let n): ranges.append(spec.start...(spec.start + n - 1))
            case .inclusiveEnd(let e):
                guard e >= 0 else {
                    throw FilterError(
                        .syntax,
                        "layer numbers count from 1; negative ones are not supported",
                        at: brackets
                    )
                }
                ranges.append(spec.start...e)
            case .toEnd: ranges.append(spec.start...Int(Int32.max))
            }
        }
        return .layer(base, LayerSpec(ranges: ranges), range: base.range.lowerBound..<brackets.upperBound)
    }

    private mutating func parseFunction(name: Token) throws(FilterError) -> Term {
        let open = advance()
        try enter(open)
        defer { nesting -= 1 }
        let fn = name.text.lowercased()
        guard FunctionName(rawValue: fn) != nil else {
            throw FilterError(
                .unknownFunction,
                "unknown function `\(name.text)`; the functions are \(FunctionName.list)",
                at: name.range
            )
        }
        guard current.kind != .rightParen else {
            throw FilterError(
                .syntax,
                "\(fn)() needs an argument",
                at: name.range.lowerBound..<current.range.upperBound
            )
        }
        var arguments = [try parseValue(role: "an argument")]
        while current.kind == .comma {
            _ = advance()
            arguments.append(try parseValue(role: "an argument"))
        }
        guard current.kind == .rightParen else {
            if current.kind == .end {
                throw FilterError(.syntax, "this `(` is never closed", at: open.range)
            }
            throw FilterError(.syntax, "`\(current.text)` was unexpected here; expected `,` or `)`", at: current.range)
        }
        let close = advance()
        return .function(name: name, arguments: arguments, range: name.range.lowerBound..<close.range.upperBound)
    }

    private mutating func parseSlice(_ base: Term) throws(FilterError) -> Term {
        let (specs, brackets) = try bracketed()
        return .slice(base, specs, bracketRange: brackets)
    }

    /// `[…]`: one or more ranges separated by commas, and the brackets' columns.
    private mutating func bracketed() throws(FilterError) -> ([SliceSpec], Range<Int>) {
        let open = advance()
        while current.kind != .rightBracket {
            if current.kind == .end {
                throw FilterError(.syntax, "this `[` is never closed", at: open.range)
            }
            _ = advance()
        }
        let close = advance()
        let bracketRange = open.range.lowerBound..<close.range.upperBound
        let inner = open.range.upperBound..<close.range.lowerBound
        let text = String(chars[inner]).filter { !$0.isWhitespace }
        var specs: [SliceSpec] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            specs.append(try Self.sliceSpec(String(part), range: bracketRange))
        }
        return (specs, bracketRange)
    }

    static func sliceSpec(_ text: String, range: Range<Int>) throws(FilterError) -> SliceSpec {
        func number(_ s: Substring) throws(FilterError) -> Int {
            var digits = s
            var negative = false
            if digits.first == "-" {
                negative = true
                digits = digits.dropFirst()
            }
            var value: Int? = nil
            if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
                value = Int(digits.dropFirst(2), radix: 16)
            } else if !digits.isEmpty, digits.allSatisfy(\.isASCII) {
                value = Int(digits, radix: 10)
            }
            guard let v = value, v <= 1 << 30 else {
                throw FilterError(
                    .syntax,
                    "`\(s)` is not a byte offset; slices are written [i:j] (offset, length), [i-j], [i], [:j] or [i:]",
                    at: range
                )
            }
            return negative ? -v : v
        }
        if text.isEmpty {
            throw FilterError(
                .syntax,
                "the slice is empty; write [i:j] (offset, length), [i-j], [i], [:j] or [i:]",
                at: range
            )
        }
        if let colon = text.firstIndex(of: ":") {
            let startText = text[..<colon]
            let lengthText = text[text.index(after: colon)...]
            let start = startText.isEmpty ? 0 : try number(startText)
            if lengthText.isEmpty {
                if startText.isEmpty {
                    throw FilterError(.syntax, "the slice [:] selects nothing in particular", at: range)
                }
                return SliceSpec(start: start, end: .toEnd)
            }
            let length = try number(lengthText)
            guard length > 0 else {
                throw FilterError(.syntax, "the slice length \(length) is not positive", at: range)
            }
            return SliceSpec(start: start, end: .length(length))
        }
        // `i-j`: the dash that is not a sign.
        let chars = Array(text)
        var dash: Int? = nil
        for i in 1..<max(1, chars.count) where chars[i] == "-" && chars[i - 1] != "-" {
            dash = i
            break
        }
        if let dash {
            let start = try number(Substring(String(chars[..<dash])))
            let end = try number(Substring(String(chars[(dash + 1)...])))
            if start >= 0, end >= 0, end < start {
                throw FilterError(.syntax, "the slice ends (\(end)) before it starts (\(start))", at: range)
            }
            if start < 0, end < 0, end < start {
                throw FilterError(.syntax, "the slice ends (\(end)) before it starts (\(start))", at: range)
            }
            return SliceSpec(start: start, end: .inclusiveEnd(end))
        }
        return SliceSpec(start: try number(Substring(text)), end: .length(1))
    }
}
