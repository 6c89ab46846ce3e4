import BLEInspectCore

/// The functions of the language.
enum FunctionName: String, CaseIterable {
    case len, count, upper, lower, string, max, min, abs

    static var list: String { allCases.map { "\($0.rawValue)()" }.joined(separator: ", ") }
}

/// An operand of the general evaluator after checking: what it yields and its static type.
struct TypedValue {
    var expr: ValueExpr
    var type: ValueType
    /// As written, for messages.
    var text: String
    var typeName: String
    var range: Range<Int>
    /// A plain field (`btatt.handle`, `btatt.handle#2`): what `count()` and `len()` read.
    var field: (Operand, FieldRead, LayerFilter?)?

    /// The operand as the literal parsers see it (they need only its type and text).
    var asOperand: CompiledOperand {
        CompiledOperand(
            operand: Operand(slot: 0, field: FieldID(0)),
            type: type,
            reader: .node,
            text: text,
            typeName: typeName,
            range: range
        )
    }
}

/// The general evaluator's compiler: arithmetic, functions, layers, references and slice lists,
/// with Wireshark's type rules. Literals take the type of what they meet, as in the specialised
/// tests.
extension Compiler {
    // MARK: Which path

    /// Whether the test fits the specialised tests (`Program`'s cases other than `general`).
    mutating func isSimple(_ t: TestExpression) throws(FilterError) -> Bool {
        guard try isSimple(t.lhs) else { return false }
        switch t.relation {
        case nil: return true
        case .compare(_, _, let rhs), .matches(_, let rhs): return try isSimple(rhs)
        case .contains(_, let rhs):
            // A field after `contains` is the general evaluator's.
            guard try isSimple(rhs) else { return false }
            return try !isFieldTerm(rhs)
        case .inSet(_, _, let elements, _):
            for e in elements {
                for term in [e.low] + (e.high.map { [$0] } ?? []) {
                    guard try isSimple(term) else { return false }
                    if try isFieldTerm(term) { return false }
                }
            }
            return true
        }
    }

    private func isSimple(_ term: Term) throws(FilterError) -> Bool {
        switch term {
        case .word, .string, .character:
            return true
        case .slice(.word, let specs, _):
            return specs.count == 1
        case .function(let name, let arguments, _):
            guard arguments.count == 1, case .word = arguments[0] else { return false }
            let fn = name.text.lowercased()
            return fn == "len" || fn == "count"
        case .arithmetic(.bitwiseAnd, .word(let base), let mask, _):
            // Integer fields only: a mask on bytes is the general evaluator's.
            guard let id = try fieldID(base) else { return false }
            switch registry.descriptor(id).kind {
            case .unsigned, .signed: break
            default: return false
            }
            switch mask {
            case .word(let m): return try fieldID(m) == nil
            case .character: return true
            default: return false
            }
        default:
            return false
        }
    }

    private func isFieldTerm(_ term: Term) throws(FilterError) -> Bool {
        if case .word(let t) = term { return try fieldID(t) != nil }
        return false
    }

    /// Whether the term is a value written in the filter, with no field in it.
    func isLiteral(_ term: Term) throws(FilterError) -> Bool {
        switch term {
        case .word(let t): return try fieldID(t) == nil
        case .string, .character: return true
        case .negate(let inner, _), .group(let inner, _): return try isLiteral(inner)
        case .arithmetic(_, let a, let b, _):
            guard try isLiteral(a) else { return false }
            return try isLiteral(b)
        default: return false
        }
    }

    /// The error for a test whose left side is a value, as Wireshark words it.
    func leftSideError(_ t: TestExpression) throws(FilterError) -> FilterError {
        let written = text(t.lhs.range)
        switch t.relation {
        case nil:
            if case .word = t.lhs { return unknownField(t.lhs) }
            return FilterError(.usage, "\(written) is a value; a test needs a field name here", at: t.lhs.range)
        case .compare(let op, _, _):
            if case .arithmetic = t.lhs {
                return FilterError(
                    .usage,
                    "constant arithmetic on the left of `\(op.spelling)` is not allowed",
                    at: t.lhs.range
                )
            }
            if case .word(let w) = t.lhs, Self.looksLikeFieldName(w.text) { return unknownField(t.lhs) }
            return FilterError(
                .usage,
                "the left side of `\(op.spelling)` must be a field or function, not \(written)",
                at: t.lhs.range
            )
        default:
            if case .word(let w) = t.lhs, Self.looksLikeFieldName(w.text) { return unknownField(t.lhs) }
            return FilterError(.usage, "the left side must be a field or function, not \(written)", at: t.lhs.range)
        }
    }

    // MARK: Tests

    mutating func compileGeneral(_ t: TestExpression) throws(FilterError) -> Program {
        if try isLiteral(t.lhs) { throw try leftSideError(t) }
        let lhs = try typed(t.lhs, expected: nil)
        let any = t.quantifier ?? .any
        var order = lhs.type.bytesOrder
        let relation: GeneralTest.Relation
        switch t.relation {
        case nil:
            relation = try presence(t.lhs, lhs)
            return .general(GeneralTest(lhs: lhs.expr, quantifier: .any, relation: relation, order: order))
        case .compare(let op, let opRange, let rhsTerm):
            let (semantics, c) = op.semantics
            let rhs = try typed(rhsTerm, expected: lhs)
            try Self.checkComparable(lhs, rhs, c, op.spelling, opRange)
            if case .string = rhs.type, case .string = lhs.type { order = .lexicographic }
            return .general(
                GeneralTest(
                    lhs: lhs.expr,
                    quantifier: t.quantifier ?? semantics,
                    relation: .compare(c, rhs.expr),
                    order: order
                )
            )
        case .contains(let opRange, let rhsTerm):
            try Self.requireBytes(
                lhs.asOperand,
                "`contains` applies to bytes, strings, addresses and protocols",
                opRange
            )
            let rhs = try typed(rhsTerm, expected: lhs)
            guard rhs.type.hasBytes else {
                throw FilterError(.usage, "\(rhs.text) (\(rhs.typeName)) has no bytes to look for", at: rhs.range)
            }
            relation = .contains(rhs.expr)
        case .matches(let opRange, let rhsTerm):
            try Self.requireBytes(lhs.asOperand, "`matches` applies to strings, bytes and protocols", opRange)
            let pattern: String
            switch rhsTerm {
            case .string(_, let bytes): pattern = String(decoding: bytes, as: UTF8.self)
            default: throw FilterError(.usage, "`matches` needs a regular expression in quotes", at: rhsTerm.range)
            }
            relation = .matches(try Literals.regex(pattern, range: rhsTerm.range))
        case .inSet(let negated, let opRange, let elements, _):
            // As in `Compiler.compileTest`: `not in` ignores the quantifier, and `all f in {a, b}`
            // is `all f == a || all f == b`.
            if t.quantifier == .all, !negated, elements.count > 1 {
                var each: [Program] = []
                for e in elements {
                    var one = t
                    one.relation = .inSet(negated: false, operatorRange: opRange, [e], setRange: opRange)
                    each.append(try compileGeneral(one))
                }
                return .or(each)
            }
            let any: Quantifier = negated ? .any : any
            var set: [GeneralSetElement] = []
            for e in elements {
                if let high = e.high {
                    guard try isLiteral(e.low), try isLiteral(high) else {
                        throw FilterError(
                            .usage,
                            "a range in a set needs values at both ends",
                            at: e.low.range.lowerBound..<high.range.upperBound
                        )
                    }
                    let low = try literalValues(e.low, for: lhs)
                    let top = try literalValues(high, for: lhs)
                    guard low.count == 1, top.count == 1, let l = low.first, let h = top.first else {
                        throw FilterError(
                            .usage,
                            "a range needs single values at both ends",
                            at: e.low.range.lowerBound..<high.range.upperBound
                        )
                    }
                    set.append(.range(l, h))
                } else {
                    let v = try typed(e.low, expected: lhs)
                    try Self.checkComparable(lhs, v, .equal, "in", opRange)
                    set.append(.values(v.expr))
                }
            }
            let test = Program.general(GeneralTest(lhs: lhs.expr, quantifier: any, relation: .inSet(set), order: order))
            // `not in` is `!(… in …)`: true when the field is absent.
            return negated ? .not(test) : test
        }
        return .general(GeneralTest(lhs: lhs.expr, quantifier: any, relation: relation, order: order))
    }

    /// A value alone: a slice or layer that yields something, `x & mask` not zero.
    private func presence(_ term: Term, _ value: TypedValue) throws(FilterError) -> GeneralTest.Relation {
        switch term {
        case .group(let inner, _):
            if case .word = inner { return .nonZero }
            return try presence(inner, value)
        case .slice, .layer:
            return .exists
        case .arithmetic, .negate:
            // A computed value alone holds when it is not zero (`btatt.handle * 0` never does).
            return .nonZero
        case .function(let name, _, _):
            throw FilterError(
                .usage,
                "a function's result cannot be tested alone; compare it, as in \(name.text)(…) > 0",
                at: term.range
            )
        case .reference:
            throw FilterError(
                .usage,
                "a field reference cannot be tested alone; compare it with a field",
                at: term.range
            )
        default:
            throw FilterError(
                .usage,
                "\(value.text) is a value, not a test; compare it, as in \(value.text) == 1",
                at: term.range
            )
        }
    }

    static func checkComparable(
        _ a: TypedValue,
        _ b: TypedValue,
        _ c: Comparison,
        _ spelling: String,
        _ opRange: Range<Int>
    ) throws(FilterError) {
        let ok: Bool
        switch (a.type, b.type) {
        case (.integer, .integer), (.integer, .boolean), (.boolean, .integer), (.boolean, .boolean), (.real, .real),
            (.real, .integer), (.integer, .real), (.time, .time), (.absoluteTime, .absoluteTime),
            (.address, .address), (.bytes, .bytes), (.string, .string), (.bytes, .string), (.string, .bytes),
            (.bytes, .address), (.address, .bytes):
            ok = true
        case (.uuid, .uuid):
            guard c == .equal || c == .notEqual else {
                throw FilterError(.usage, "UUIDs can only be compared with == and != (and `in`)", at: opRange)
            }
            ok = true
        default:
            ok = false
        }
        guard ok else {
            throw FilterError(
                .usage,
                "\(a.text) (\(a.typeName)) cannot be compared with \(b.text) (\(b.typeName))",
                at: opRange
            )
        }
    }

    // MARK: Values

    /// Checks `term` and says what it yields. `expected` is what a literal in it is read as (the
    /// other side of the comparison); nil where a literal cannot stand.
    mutating func typed(_ term: Term, expected: TypedValue?) throws(FilterError) -> TypedValue {
        if try isLiteral(term) {
            guard let expected else {
                throw FilterError(.usage, "\(text(term.range)) is a value; a field is needed here", at: term.range)
            }
            var value = expected
            value.expr = .constant(try literalValues(term, for: expected))
            value.text = text(term.range)
            value.range = term.range
            value.field = nil
            return value
        }
        switch term {
        case .word(let t):
            guard let id = try fieldID(t) else { throw unknownField(term) }
            return field(id, layers: nil, text: t.text, range: t.range)
        case .layer(.word(let t), let spec, let range):
            guard let id = try fieldID(t) else { throw unknownField(term) }
            let d = registry.descriptor(id)
            let protocolName = String(d.abbrev.prefix { $0 != "." })
            let protocolField = registry.index[protocolName]
            // The protocol's own nodes count the layers: the engine must keep them.
            if let p = protocolField { _ = slot(p) }
            let filter = LayerFilter(layers: spec, protocolField: protocolField)
            return field(id, layers: filter, text: text(range), range: range)
        case .reference(let inner, let range):
            var value = try typed(inner, expected: nil)
            guard let (operand, read, layers) = value.field else {
                throw FilterError(.usage, "a field reference names a field: ${btatt.handle}", at: range)
            }
            // Its values come from the reference frame (`DisplayFilter.settingReferences`);
            // without one it has none, so every comparison with it is false, as in tshark.
            value.expr = .reference(references.count)
            references.append(ReferenceRead(operand: operand, read: read, layers: layers))
            value.field = nil
            value.text = text(range)
            value.range = range
            return value
        case .group(let inner, let range):
            var value = try typed(inner, expected: expected)
            value.range = range
            value.text = text(range)
            return value
        case .slice(let base, let specs, let brackets):
            let b = try typed(base, expected: nil)
            guard b.type.hasBytes else {
                throw FilterError(
                    .usage,
                    "\(b.text) is a \(b.typeName) and cannot be sliced; slices apply to bytes, strings, addresses and protocols",
                    at: b.range
                )
            }
            let range = term.range.lowerBound..<brackets.upperBound
            return TypedValue(
                expr: .slice(b.expr, specs),
                type: .bytes,
                text: text(range),
                typeName: "bytes",
                range: range,
                field: nil
            )
        case .negate(let inner, _):
            let v = try typed(inner, expected: nil)
            var type = v.type
            switch v.type {
            case .integer: type = .integer(signed: true, bits: 64, names: nil)
            case .real, .time: break
            default:
                throw FilterError(.usage, "\(v.text) is a \(v.typeName) and cannot be negated", at: term.range)
            }
            return TypedValue(
                expr: .negate(v.expr),
                type: type,
                text: text(term.range),
                typeName: type.name,
                range: term.range,
                field: nil
            )
        case .arithmetic(let op, let a, let b, let opRange):
            return try arithmetic(op, a, b, opRange, term.range, expected: expected)
        case .function(let name, let arguments, let range):
            return try function(name, arguments, range, expected: expected)
        default:
            throw unknownField(term)
        }
    }

    private mutating func field(_ id: FieldID, layers: LayerFilter?, text: String, range: Range<Int>) -> TypedValue {
        let d = registry.descriptor(id)
        let type = Self.valueType(d)
        let read: FieldRead =
            switch d.kind {
            case .unsigned, .signed, .boolean: .number
            case .real: .real
            case .time, .relativeTime: .time
            case .bytes, .layer: .bytes
            case .string: .text
            case .address: .address
            case .uuid: .uuid
            case .group, .expert: .none
            }
        let operand = Operand(slot: slot(id), field: id)
        return TypedValue(
            expr: .field(operand, read, layers),
            type: type,
            text: text,
            typeName: d.kind.typeName,
            range: range,
            field: (operand, read, layers)
        )
    }

    private mutating func arithmetic(
        _ op: ArithmeticOperator,
        _ a: Term,
        _ b: Term,
        _ opRange: Range<Int>,
        _ range: Range<Int>,
        expected: TypedValue?
    ) throws(FilterError) -> TypedValue {
        // The side with a field decides what a literal on the other side is read as.
        let left: TypedValue
        let right: TypedValue
        if try isLiteral(a) {
            right = try typed(b, expected: expected)
            left = try typed(a, expected: right)
        } else {
            left = try typed(a, expected: expected)
            right = try typed(b, expected: left)
        }
        let allowed: Bool
        switch (op, left.type, right.type) {
        case (.bitwiseAnd, .integer, .integer), (.bitwiseAnd, .bytes, .bytes):
            allowed = true
        case (.add, .integer, .integer), (.subtract, .integer, .integer), (.multiply, .integer, .integer),
            (.divide, .integer, .integer), (.modulo, .integer, .integer):
            allowed = true
        case (.add, .real, .real), (.subtract, .real, .real), (.multiply, .real, .real), (.divide, .real, .real),
            (.modulo, .real, .real):
            allowed = true
        case (.add, .time, .time), (.subtract, .time, .time):
            allowed = true
        default:
            allowed = false
        }
        guard allowed else {
            let culprit = Self.arithmeticCulprit(op, left) ? left : right
            if op == .bitwiseAnd {
                throw FilterError(
                    .usage,
                    "`&` applies to integer fields and bytes; \(culprit.text) is a \(culprit.typeName)",
                    at: opRange
                )
            }
            throw FilterError(
                .usage,
                "`\(op.spelling)` cannot be used with \(culprit.text) (\(culprit.typeName)); it applies to integers, reals"
                    + (op == .add || op == .subtract ? " and relative times" : ""),
                at: opRange
            )
        }
        var type = left.type
        if case .integer(let signed, let bits, _) = left.type {
            type = .integer(signed: signed, bits: bits, names: nil)
        }
        let expr = ValueExpr.arithmetic(op, left.expr, right.expr)
        if case .constant(let x) = left.expr, case .constant(let y) = right.expr {
            var values: [Value] = []
            for p in x { for q in y { if let v = ValueExpr.apply(op, p, q) { values.append(v) } } }
            return TypedValue(
                expr: .constant(values),
                type: type,
                text: text(range),
                typeName: left.typeName,
                range: range,
                field: nil
            )
        }
        return TypedValue(expr: expr, type: type, text: text(range), typeName: left.typeName, range: range, field: nil)
    }

    /// Whether `value`'s type cannot take part in `op` at all.
    private static func arithmeticCulprit(_ op: ArithmeticOperator, _ value: TypedValue) -> Bool {
        switch (op, value.type) {
        case (.bitwiseAnd, .integer), (.bitwiseAnd, .bytes): false
        case (.bitwiseAnd, _): true
        case (_, .integer), (_, .real): false
        case (.add, .time), (.subtract, .time): false
        default: true
        }
    }

    private mutating func function(
        _ name: Token,
        _ arguments: [Term],
        _ range: Range<Int>,
        expected: TypedValue?
    ) throws(FilterError) -> TypedValue {
        guard let fn = FunctionName(rawValue: name.text.lowercased()) else {
            throw FilterError(
                .unknownFunction,
                "unknown function `\(name.text)`; the functions are \(FunctionName.list)",
                at: name.range
            )
        }
        let written = text(range)
        func result(_ expr: ValueExpr, _ type: ValueType) -> TypedValue {
            TypedValue(expr: expr, type: type, text: written, typeName: type.name, range: range, field: nil)
        }
        let uint32 = ValueType.integer(signed: false, bits: 32, names: nil)
        if fn != .max, fn != .min, arguments.count != 1 {
            throw FilterError(.usage, "\(fn.rawValue)() takes one argument", at: range)
        }
        guard let first = arguments.first else {
            throw FilterError(.usage, "\(fn.rawValue)() needs an argument", at: range)
        }
        // Values may stand in max() and min() where the other side of the comparison types them.
        let literalsAllowed = (fn == .max || fn == .min) && expected != nil
        if try isLiteral(first), !literalsAllowed {
            if case .word(let w) = first, Self.looksLikeFieldName(w.text) { throw unknownField(first) }
            throw FilterError(
                .usage,
                "\(text(first.range)) is not valid for \(fn.rawValue)(); it takes a field",
                at: first.range
            )
        }
        let x = try typed(first, expected: literalsAllowed ? expected : nil)
        switch fn {
        case .len, .count:
            guard let (operand, read, layers) = x.field else {
                throw FilterError(
                    .usage,
                    "\(fn.rawValue)() takes a field, such as \(fn.rawValue)(btatt.value)",
                    at: x.range
                )
            }
            if fn == .count { return result(.count(operand, layers), uint32) }
            let width = registry.descriptor(operand.field).kind.filterWidth
            return result(.fieldLength(operand, read, layers, width: width), uint32)
        case .upper, .lower:
            guard case .string = x.type else {
                throw FilterError(.usage, "\(fn.rawValue)() takes a string; \(x.text) is a \(x.typeName)", at: x.range)
            }
            return result(fn == .upper ? .upper(x.expr) : .lower(x.expr), .string)
        case .string:
            switch x.type {
            case .integer: return result(.string(x.expr, .decimal), .string)
            case .address: return result(.string(x.expr, .address), .string)
            default:
                throw FilterError(
                    .usage,
                    "string() converts integers and addresses; \(x.text) is a \(x.typeName)",
                    at: x.range
                )
            }
        case .abs:
            switch x.type {
            case .integer, .real, .time: return result(.abs(x.expr), x.type)
            default: throw FilterError(.usage, "abs() takes a number; \(x.text) is a \(x.typeName)", at: x.range)
            }
        case .max, .min:
            switch x.type {
            case .integer, .boolean, .real, .time, .absoluteTime, .string, .bytes, .address: break
            default:
                throw FilterError(
                    .usage,
                    "\(fn.rawValue)() compares numbers, times, strings, bytes and addresses; \(x.text) is a \(x.typeName)",
                    at: x.range
                )
            }
            var values = [x.expr]
            for argument in arguments.dropFirst() {
                let v = try typed(argument, expected: x.field == nil ? expected ?? x : x)
                guard v.typeName == x.typeName else {
                    throw FilterError(
                        .usage,
                        "the arguments of \(fn.rawValue)() must have the same type: \(x.text) is a \(x.typeName), \(v.text) a \(v.typeName)",
                        at: v.range
                    )
                }
                values.append(v.expr)
            }
            return TypedValue(
                expr: .extreme(max: fn == .max, values, x.type.bytesOrder),
                type: x.type,
                text: written,
                typeName: x.typeName,
                range: range,
                field: nil
            )
        }
    }

    /// The values a literal term stands for, read as `target`'s type.
    func literalValues(_ term: Term, for target: TypedValue) throws(FilterError) -> [Value] {
        let lhs = target.asOperand
        switch term {
        case .group(let inner, _):
            return try literalValues(inner, for: target)
        case .negate(let inner, let opRange):
            // `- 3`: the literal with its sign.
            guard case .word(let t) = inner, !t.text.hasPrefix("-") else {
                throw FilterError(.usage, "`-` was unexpected here", at: opRange)
            }
            let signed = Token(kind: .word, range: opRange.lowerBound..<t.range.upperBound, text: "-" + t.text)
            return try literalValues(.word(signed), for: target)
        case .arithmetic(let op, let a, let b, let opRange):
            let x = try literalValues(a, for: target)
            let y = try literalValues(b, for: target)
            var out: [Value] = []
            for p in x { for q in y { if let v = ValueExpr.apply(op, p, q) { out.append(v) } } }
            if out.isEmpty {
                throw FilterError(.usage, "this arithmetic on values has no result (division by zero?)", at: opRange)
            }
            return out
        default:
            break
        }
        switch target.type {
        case .none:
            throw FilterError(.usage, "\(target.text) has no value to compare", at: term.range)
        case .integer, .boolean:
            return try Literals.numbers(term, for: lhs, compiler: self).map(Value.number)
        case .time:
            return try Literals.numbers(term, for: lhs, compiler: self).map {
                .time(Int64(truncatingIfNeeded: $0.low))
            }
        case .absoluteTime:
            return [.time(try Literals.absoluteTime(term, for: lhs, compiler: self))]
        case .real:
            return [.real(try Literals.real(term, for: lhs, compiler: self))]
        case .bytes:
            return [.bytes(try Literals.bytes(term, for: lhs, compiler: self))]
        case .string:
            return [.text(try Literals.bytes(term, for: lhs, compiler: self))]
        case .address:
            return [.address(try Literals.address(term, for: lhs, compiler: self))]
        case .uuid:
            return [.uuid(try Literals.uuid(term, for: lhs, compiler: self))]
        }
    }
}

extension ValueType {
    /// Whether slices, `contains` and `matches` see bytes in it.
    var hasBytes: Bool {
        switch self {
        case .bytes, .string, .address: true
        default: false
        }
    }

    var bytesOrder: BytesOrder {
        if case .string = self { return .lexicographic }
        return .lengthFirst
    }

    /// The type's name in messages.
    var name: String {
        switch self {
        case .integer(let signed, let bits, _): signed ? "int\(bits)" : "uint\(bits)"
        case .real: "double"
        case .boolean: "boolean"
        case .time: "time offset"
        case .absoluteTime: "time"
        case .bytes: "bytes"
        case .string: "string"
        case .address: "bdaddr"
        case .uuid: "uuid"
        case .none: "none"
        }
    }
}
