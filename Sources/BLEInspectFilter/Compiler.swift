import BLEInspectCore

/// What an operand yields: decides how literals next to it are parsed and which operators apply.
enum ValueType {
    case integer(signed: Bool, bits: UInt8, names: ValueNames?)
    /// A real number (`FieldKind.real`); literals are decimal numbers, integers included.
    case real
    case boolean(names: ValueNames?)
    /// Nanoseconds, an offset (Wireshark's FT_RELATIVE_TIME, which `frame.time_epoch` is too:
    /// seconds since 1970); literals are seconds.
    case time
    /// Nanoseconds since the epoch, a date (FT_ABSOLUTE_TIME); literals are dates in quotes.
    case absoluteTime
    /// Bytes: byte fields, protocols, slices.
    case bytes
    /// An unsliced string field.
    case string
    case address
    case uuid(names: ValueNames?)
    /// Groups and expert notes: they can only be tested for presence.
    case none
}

/// How an operand's values are read.
enum Reader {
    /// Presence only.
    case node
    case number(NumberSource)
    case real
    case count
    case bytes(ByteView, SliceSpec?)
    case string
    case address
    case uuid
}

/// A field operand after checking: the field's slot, how to read it, and what for messages.
struct CompiledOperand {
    var operand: Operand
    var type: ValueType
    var reader: Reader
    /// The operand as written, for messages (`btatt.value[0:2]`).
    var text: String
    /// The operand's type name for messages (`uint8`, `bytes`).
    var typeName: String
    var range: Range<Int>
}

/// The semantic pass: looks names up in the registry, parses literals by the field's type,
/// checks operators, and builds the `Program`.
struct Compiler {
    let registry: DissectorRegistry
    let chars: [Character]
    private(set) var slotFields: [FieldID] = []
    /// The fields `${…}` reads, in the order of `ValueExpr.reference`'s index.
    var references: [ReferenceRead] = []
    private var slotIndex: [FieldID: Int] = [:]

    init(registry: DissectorRegistry, chars: [Character]) {
        self.registry = registry
        self.chars = chars
    }

    func text(_ range: Range<Int>) -> String {
        let r = max(0, min(range.lowerBound, chars.count))..<max(0, min(range.upperBound, chars.count))
        return String(chars[r])
    }

    mutating func slot(_ id: FieldID) -> Int {
        if let s = slotIndex[id] { return s }
        let s = slotFields.count
        slotFields.append(id)
        slotIndex[id] = s
        return s
    }

    mutating func compile(_ e: Expression) throws(FilterError) -> Program {
        switch e {
        case .or(let terms):
            var out: [Program] = []
            for t in terms { out.append(try compile(t)) }
            return .or(out)
        case .and(let terms):
            var out: [Program] = []
            for t in terms { out.append(try compile(t)) }
            return .and(out)
        case .not(let inner, _):
            return .not(try compile(inner))
        case .test(let t):
            return try compileTest(t)
        }
    }

    // MARK: Operands

    /// The field operand `term` names, or nil when `term` is a literal.
    mutating func resolve(_ term: Term) throws(FilterError) -> CompiledOperand? {
        switch term {
        case .word(let token):
            guard let id = try fieldID(token) else { return nil }
            let d = registry.descriptor(id)
            let type = Self.valueType(d)
            let reader: Reader =
                switch d.kind {
                case .unsigned, .signed, .boolean, .time, .relativeTime: .number(.value)
                case .real: .real
                case .bytes, .layer: .bytes(.range, nil)
                case .string: .string
                case .address: .address
                case .uuid: .uuid
                case .group, .expert: .node
                }
            return CompiledOperand(
                operand: Operand(slot: slot(id), field: id),
                type: type,
                reader: reader,
                text: token.text,
                typeName: d.kind.typeName,
                range: token.range
            )
        case .string, .character:
            return nil
        case .slice(let base, let specs, let brackets):
            guard specs.count == 1, let spec = specs.first else { throw internalGeneral(term) }
            let b = try requireField(base)
            guard let view = Self.byteView(of: b) else {
                throw FilterError(
                    .usage,
                    "\(b.text) is a \(b.typeName) and cannot be sliced; slices apply to bytes, strings, addresses and protocols",
                    at: b.range
                )
            }
            return CompiledOperand(
                operand: b.operand,
                type: .bytes,
                reader: .bytes(view, spec),
                text: text(term.range),
                typeName: "bytes",
                range: term.range.lowerBound..<brackets.upperBound
            )
        case .function(let name, let arguments, let range):
            guard arguments.count == 1, let argument = arguments.first else { throw internalGeneral(term) }
            let b = try requireField(argument)
            if name.text.lowercased() == "count" {
                return CompiledOperand(
                    operand: b.operand,
                    type: .integer(signed: false, bits: 32, names: nil),
                    reader: .count,
                    text: text(range),
                    typeName: "uint32",
                    range: range
                )
            }
            // Bytes, strings, addresses and protocols by their bytes; other fields by their type's
            // width (`len(btatt.handle)` is 2, a flag's 0), as in Wireshark.
            let d = registry.descriptor(b.operand.field)
            let source: NumberSource = Self.byteView(of: b).map { .length($0) } ?? .width(d.kind.filterWidth)
            return CompiledOperand(
                operand: b.operand,
                type: .integer(signed: false, bits: 32, names: nil),
                reader: .number(source),
                text: text(range),
                typeName: "uint32",
                range: range
            )
        case .arithmetic(.bitwiseAnd, let base, let maskTerm, let opRange):
            let b = try requireField(base)
            guard case .number(.value) = b.reader, case .integer(_, let bits, _) = b.type else {
                throw FilterError(
                    .usage,
                    "`&` applies to integer fields; \(b.text) is a \(b.typeName)",
                    at: opRange
                )
            }
            try requireValue(maskTerm, "the bit mask after `&` must be a number")
            let mask = try Literals.unsignedMask(maskTerm, bits: bits, compiler: self)
            return CompiledOperand(
                operand: b.operand,
                type: .integer(signed: false, bits: 64, names: nil),
                reader: .number(.masked(mask)),
                text: text(term.range),
                typeName: b.typeName,
                range: term.range
            )
        case .arithmetic, .layer, .reference, .negate, .group:
            throw internalGeneral(term)
        }
    }

    /// The field a word names: its text, or after a leading dot (`.btatt.opcode`), which marks a
    /// field name (an unknown one is an error, never a literal). Nil for a literal.
    func fieldID(_ token: Token) throws(FilterError) -> FieldID? {
        if token.text.hasPrefix("."), token.text.dropFirst().first?.isLetter == true {
            guard let id = registry.index[String(token.text.dropFirst())] else {
                throw unknownField(.word(token))
            }
            return id
        }
        return registry.index[token.text]
    }

    /// A term that `isSimple` should have sent to the general evaluator.
    private func internalGeneral(_ term: Term) -> FilterError {
        FilterError(.usage, "this expression cannot be used here", at: term.range)
    }

    /// `term` as a plain field (the base of a slice, function or mask).
    /// How slices and `len()` see an operand's bytes: its byte range, its text or its address;
    /// nil for operands that have no bytes to see.
    private static func byteView(of operand: CompiledOperand) -> ByteView? {
        switch operand.reader {
        case .bytes(.range, nil): .range
        case .string: .string
        case .address: .address
        default: nil
        }
    }

    private mutating func requireField(_ term: Term) throws(FilterError) -> CompiledOperand {
        guard let operand = try resolve(term) else { throw unknownField(term) }
        if case .bytes(_, .some) = operand.reader {
            throw FilterError(.usage, "a slice cannot be used here; name a field", at: operand.range)
        }
        switch operand.reader {
        case .count, .number(.length), .number(.masked), .number(.width):
            throw FilterError(.usage, "a function or mask cannot be used here; name a field", at: operand.range)
        default:
            return operand
        }
    }

    func unknownField(_ term: Term) -> FilterError {
        switch term {
        case .word(let t):
            let name = t.text.hasPrefix(".") ? String(t.text.dropFirst()) : t.text
            return FilterError(
                .unknownField,
                "`\(name)` is neither a field nor a protocol name",
                at: t.range,
                suggestion: Suggestions.field(for: name, in: registry.index.keys)
            )
        case .string(let t, _), .character(let t, _):
            return FilterError(.usage, "\(t.text) is a value; a test needs a field name here", at: t.range)
        case .slice(let base, _, _), .arithmetic(_, let base, _, _), .layer(let base, _, _), .reference(let base, _),
            .negate(let base, _), .group(let base, _):
            return unknownField(base)
        case .function(_, let arguments, let range):
            guard let first = arguments.first else { return FilterError(.usage, "a field is missing", at: range) }
            return unknownField(first)
        }
    }

    static func valueType(_ d: FieldDescriptor) -> ValueType {
        switch d.kind {
        case .unsigned(let bits): .integer(signed: false, bits: bits, names: d.valueNames)
        case .signed(let bits): .integer(signed: true, bits: bits, names: d.valueNames)
        case .real: .real
        case .boolean: .boolean(names: d.valueNames)
        case .time: .absoluteTime
        case .relativeTime: .time
        case .bytes, .layer: .bytes
        case .string: .string
        case .address: .address
        case .uuid: .uuid(names: d.valueNames)
        case .group, .expert: .none
        }
    }

    // MARK: Tests

    private mutating func compileTest(_ t: TestExpression) throws(FilterError) -> Program {
        guard try isSimple(t) else {
            return try compileGeneral(t)
        }
        guard let lhs = try resolve(t.lhs) else {
            throw try leftSideError(t)
        }
        switch t.relation {
        case nil:
            if case .function = t.lhs {
                throw FilterError(
                    .usage,
                    "a function's result cannot be tested alone; compare it, as in \(lhs.text) > 0",
                    at: t.lhs.range
                )
            }
            switch lhs.reader {
            case .bytes(let view, .some(let slice)):
                return .sliceExists(lhs.operand, view, slice)
            case .number(.masked(let mask)):
                return .number(lhs.operand, .masked(mask), .any, .nonZero)
            default:
                return .exists(lhs.operand)
            }
        case .compare(let op, let opRange, let rhsTerm):
            return try compare(lhs, op, t.quantifier, opRange, rhsTerm)
        case .contains(let opRange, let rhsTerm):
            return try contains(lhs, t.quantifier ?? .any, opRange, rhsTerm)
        case .matches(let opRange, let rhsTerm):
            return try matches(lhs, t.quantifier ?? .any, opRange, rhsTerm)
        case .inSet(let negated, let opRange, let elements, _):
            // `not in` is `!(… in …)` whatever the quantifier, as in Wireshark. `all f in {a, b}`
            // is `all f == a || all f == b`: every occurrence is in one and the same element.
            if negated { return .not(try membership(lhs, .any, opRange, elements)) }
            if t.quantifier == .all, elements.count > 1 {
                var each: [Program] = []
                for e in elements { each.append(try membership(lhs, .all, opRange, [e])) }
                return .or(each)
            }
            return try membership(lhs, t.quantifier ?? .any, opRange, elements)
        }
    }

    private func noValue(_ lhs: CompiledOperand, _ opRange: Range<Int>, _ op: String) -> FilterError {
        FilterError(
            .usage,
            "\(lhs.text) is a \(lhs.typeName) and has no value to compare with `\(op)`; test for its presence with `\(lhs.text)` alone",
            at: opRange
        )
    }

    private mutating func compare(
        _ lhs: CompiledOperand,
        _ op: ComparisonOperator,
        _ quantifier: Quantifier?,
        _ opRange: Range<Int>,
        _ rhsTerm: Term
    ) throws(FilterError) -> Program {
        let (semantics, c) = op.semantics
        let q = quantifier ?? semantics
        if let rhs = try resolve(rhsTerm) {
            return try compareFields(lhs, rhs, q, c, op, opRange)
        }
        do {
            return try compareWithLiteral(lhs, q, c, op, opRange, rhsTerm)
        } catch {
            // `btatt.handle == btatt.hadle`: a misspelt field reads better as one than as a bad value.
            if case .word(let t) = rhsTerm, Self.looksLikeFieldName(t.text) {
                if case .string = lhs.type {
                    throw error
                }
                throw unknownField(rhsTerm)
            }
            throw error
        }
    }

    /// `proto.field`: letters first, then letters, digits, `_` and at least one `.`.
    static func looksLikeFieldName(_ text: String) -> Bool {
        guard let first = text.first, first.isLetter, text.contains(".") else { return false }
        return text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
    }

    private func compareWithLiteral(
        _ lhs: CompiledOperand,
        _ q: Quantifier,
        _ c: Comparison,
        _ op: ComparisonOperator,
        _ opRange: Range<Int>,
        _ rhsTerm: Term
    ) throws(FilterError) -> Program {
        switch lhs.type {
        case .none:
            throw noValue(lhs, opRange, op.spelling)
        case .integer, .boolean, .time, .absoluteTime:
            let values = try Literals.numbers(rhsTerm, for: lhs, compiler: self)
            let predicate: NumberPredicate
            if values.count == 1, let v = values.first {
                predicate = .compare(c, v)
            } else if c == .equal || c == .notEqual {
                predicate = .ranges(values.map { $0...$0 }, outside: c == .notEqual)
            } else {
                throw FilterError(
                    .usage,
                    "\(text(rhsTerm.range)) names several values of \(lhs.text); use a number with `\(op.spelling)`",
                    at: rhsTerm.range
                )
            }
            return numberProgram(lhs, q, predicate)
        case .real:
            // Exact IEEE comparison with the literal as `Double(String)` reads it, as Wireshark
            // compares FT_DOUBLE with the literal `strtod` reads: `== 23.45` holds for the double
            // nearest 23.45, so a value computed another way (23.4 + 0.05) may differ from it.
            return .real(lhs.operand, q, .compare(c, try Literals.real(rhsTerm, for: lhs, compiler: self)))
        case .bytes, .string:
            let literal = try Literals.bytes(rhsTerm, for: lhs, compiler: self)
            let (view, slice, mode) = byteAccess(lhs)
            return .bytes(lhs.operand, view, slice, q, .compare(c, literal, mode))
        case .address:
            let a = try Literals.address(rhsTerm, for: lhs, compiler: self)
            return .address(lhs.operand, q, .compare(c, a))
        case .uuid:
            guard c == .equal || c == .notEqual else {
                throw FilterError(.usage, "UUIDs can only be compared with == and != (and `in`)", at: opRange)
            }
            let u = try Literals.uuid(rhsTerm, for: lhs, compiler: self)
            return .uuid(lhs.operand, q, .compare(equal: c == .equal, u))
        }
    }

    private func numberProgram(_ lhs: CompiledOperand, _ q: Quantifier, _ p: NumberPredicate) -> Program {
        switch lhs.reader {
        case .count: .count(lhs.operand, p)
        case .number(let source): .number(lhs.operand, source, q, p)
        default: .number(lhs.operand, .value, q, p)
        }
    }

    /// How a bytes-like operand is read, and how its values are ordered.
    private func byteAccess(_ lhs: CompiledOperand) -> (ByteView, SliceSpec?, BytesOrder) {
        switch lhs.reader {
        case .bytes(let view, let slice): (view, slice, .lengthFirst)
        case .string: (.string, nil, .lexicographic)
        case .address: (.address, nil, .lengthFirst)
        default: (.range, nil, .lengthFirst)
        }
    }

    private func fieldReader(_ o: CompiledOperand) -> FieldReader? {
        switch o.reader {
        case .number(let s): .number(s)
        case .real: .real
        case .bytes(let view, let slice): .bytes(view, slice)
        case .string: .bytes(.string, nil)
        case .address: .bytes(.address, nil)
        case .uuid: .uuid
        case .node, .count: nil
        }
    }

    private func compareFields(
        _ lhs: CompiledOperand,
        _ rhs: CompiledOperand,
        _ q: Quantifier,
        _ c: Comparison,
        _ op: ComparisonOperator,
        _ opRange: Range<Int>
    ) throws(FilterError) -> Program {
        let mismatch = FilterError(
            .usage,
            "\(lhs.text) (\(lhs.typeName)) cannot be compared with \(rhs.text) (\(rhs.typeName))",
            at: opRange
        )
        guard let l = fieldReader(lhs), let r = fieldReader(rhs) else {
            if case .none = lhs.type { throw noValue(lhs, opRange, op.spelling) }
            throw mismatch
        }
        var order = BytesOrder.lengthFirst
        switch (l, r) {
        case (.number, .number), (.real, .real), (.real, .number), (.number, .real):
            break
        case (.bytes, .bytes):
            // Strings order as text; a string and an address do not compare.
            switch (lhs.type, rhs.type) {
            case (.string, .string): order = .lexicographic
            case (.string, .address), (.address, .string): throw mismatch
            default: break
            }
        case (.uuid, .uuid):
            guard c == .equal || c == .notEqual else {
                throw FilterError(.usage, "UUIDs can only be compared with == and != (and `in`)", at: opRange)
            }
        default:
            throw mismatch
        }
        return .fields(
            FieldComparison(
                lhs: lhs.operand,
                lhsReader: l,
                rhs: rhs.operand,
                rhsReader: r,
                quantifier: q,
                comparison: c,
                order: order
            )
        )
    }

    private mutating func contains(
        _ lhs: CompiledOperand,
        _ q: Quantifier,
        _ opRange: Range<Int>,
        _ rhsTerm: Term
    ) throws(FilterError) -> Program {
        try requireValue(rhsTerm, "`contains` needs a value after it")
        try Self.requireBytes(lhs, "`contains` applies to bytes, strings, addresses and protocols", opRange)
        let literal = try Literals.bytes(rhsTerm, for: lhs, compiler: self)
        let (view, slice, _) = byteAccess(lhs)
        return .bytes(lhs.operand, view, slice, q, .contains(literal))
    }

    private mutating func matches(
        _ lhs: CompiledOperand,
        _ q: Quantifier,
        _ opRange: Range<Int>,
        _ rhsTerm: Term
    ) throws(FilterError) -> Program {
        try requireValue(rhsTerm, "`matches` needs a regular expression in quotes")
        guard case .string(_, let bytes) = rhsTerm else {
            throw FilterError(.usage, "`matches` needs a regular expression in double quotes", at: rhsTerm.range)
        }
        let pattern = String(decoding: bytes, as: UTF8.self)
        let box = try Literals.regex(pattern, range: rhsTerm.range)
        try Self.requireBytes(lhs, "`matches` applies to strings, bytes and protocols", opRange)
        if case .string = lhs.type { return .stringMatches(lhs.operand, q, box) }
        let (view, slice, _) = byteAccess(lhs)
        return .bytes(lhs.operand, view, slice, q, .matches(box))
    }

    /// Throws "`needs`, not the field …" when `term` names a field where a value must stand.
    private mutating func requireValue(_ term: Term, _ needs: String) throws(FilterError) {
        if let field = try resolve(term) {
            throw FilterError(.usage, "\(needs), not the field \(field.text)", at: field.range)
        }
    }

    /// Throws "`what`; x is a T" at `at` unless `lhs` has bytes to look in.
    static func requireBytes(_ lhs: CompiledOperand, _ what: String, _ at: Range<Int>) throws(FilterError) {
        guard lhs.type.hasBytes else { throw FilterError(.usage, "\(what); \(lhs.text) is a \(lhs.typeName)", at: at) }
    }

    /// A set's elements as ranges of the values `value` reads (a single value is a range of one);
    /// a range may not start above its end.
    private static func ranges<T: Comparable>(
        _ elements: [SetElement],
        _ value: (Term) throws(FilterError) -> T
    ) throws(FilterError) -> [ClosedRange<T>] {
        var ranges: [ClosedRange<T>] = []
        for e in elements {
            let low = try value(e.low)
            if let h = e.high {
                ranges.append(try range(low, try value(h), e.low, h))
            } else {
                ranges.append(low...low)
            }
        }
        return ranges
    }

    /// `low...high`, written from `from` to `to`; a range may not start above its end.
    private static func range<T: Comparable>(_ low: T, _ high: T, _ from: Term, _ to: Term) throws(FilterError)
        -> ClosedRange<T>
    {
        guard low <= high else {
            throw FilterError(.usage, "the range starts above its end", at: from.range.lowerBound..<to.range.upperBound)
        }
        return low...high
    }

    private mutating func membership(
        _ lhs: CompiledOperand,
        _ q: Quantifier,
        _ opRange: Range<Int>,
        _ elements: [SetElement]
    ) throws(FilterError) -> Program {
        for e in elements {
            for term in [e.low] + (e.high.map { [$0] } ?? []) {
                try requireValue(term, "set elements must be values")
            }
        }
        switch lhs.type {
        case .none:
            throw noValue(lhs, opRange, "in")
        case .integer, .boolean, .time, .absoluteTime:
            var ranges: [ClosedRange<Number>] = []
            for e in elements {
                let lows = try Literals.numbers(e.low, for: lhs, compiler: self)
                if let highTerm = e.high {
                    let highs = try Literals.numbers(highTerm, for: lhs, compiler: self)
                    guard lows.count == 1, highs.count == 1, let low = lows.first, let high = highs.first else {
                        throw FilterError(
                            .usage,
                            "a range needs single values at both ends",
                            at: e.low.range.lowerBound..<highTerm.range.upperBound
                        )
                    }
                    ranges.append(try Self.range(low, high, e.low, highTerm))
                } else {
                    ranges += lows.map { $0...$0 }
                }
            }
            return numberProgram(lhs, q, .ranges(ranges, outside: false))
        case .real:
            let ranges = try Self.ranges(elements) { (t: Term) throws(FilterError) in
                try Literals.real(t, for: lhs, compiler: self)
            }
            return .real(lhs.operand, q, .ranges(ranges, outside: false))
        case .bytes, .string:
            let (view, slice, mode) = byteAccess(lhs)
            var set: [BytesRange] = []
            for e in elements {
                let low = try Literals.bytes(e.low, for: lhs, compiler: self)
                let high = try e.high.map { (t: Term) throws(FilterError) in
                    try Literals.bytes(t, for: lhs, compiler: self)
                }
                set.append(BytesRange(low: low, high: high))
            }
            return .bytes(lhs.operand, view, slice, q, .set(set, mode))
        case .address:
            let ranges = try Self.ranges(elements) { (t: Term) throws(FilterError) in
                try Literals.address(t, for: lhs, compiler: self)
            }
            return .address(lhs.operand, q, .ranges(ranges))
        case .uuid:
            var set: [BluetoothUUID] = []
            for e in elements {
                if let h = e.high {
                    throw FilterError(
                        .usage,
                        "UUIDs have no ranges; list them",
                        at: e.low.range.lowerBound..<h.range.upperBound
                    )
                }
                set.append(try Literals.uuid(e.low, for: lhs, compiler: self))
            }
            return .uuid(lhs.operand, q, .set(set))
        }
    }
}

extension FieldKind {
    /// What `len()` gives for a field without bytes to see: the width of Wireshark's type (2 for
    /// a 16-bit integer, 8 for a double, 16 for a UUID), 0 for flags and times.
    var filterWidth: UInt8 {
        switch self {
        case .unsigned(let bits), .signed(let bits): UInt8((Int(bits) + 7) / 8)
        case .real: 8
        case .uuid: 16
        default: 0
        }
    }
}
