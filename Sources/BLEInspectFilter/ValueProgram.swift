import BLEInspectCore

/// One value in the general evaluator: what a field occurrence, a literal, a slice, an arithmetic
/// result or a function call yields. The static `ValueType` of the expression says how values
/// compare (for example bytes by length first, strings as text).
enum Value: Sendable {
    case number(Number)
    case real(Double)
    /// Bytes: byte fields, protocols, slices.
    case bytes([UInt8])
    /// A string's UTF-8.
    case text([UInt8])
    case address(UInt64)
    case uuid(BluetoothUUID)
    /// Nanoseconds: since the epoch for absolute times, or an offset for relative ones.
    case time(Int64)
}

/// How a field occurrence is read into a `Value`, by the field's kind.
enum FieldRead: Sendable {
    case number, real, time, bytes, text, address, uuid
    /// Groups and expert notes: present, with no value.
    case none
}

/// How `string()` writes a value: integers in decimal, addresses as `aa:bb:cc:dd:ee:ff`.
enum StringConversion: Sendable {
    case decimal, address
}

/// An expression that yields a list of values for a frame: the general evaluator, used for the
/// constructs the specialised tests in `Program` do not cover (arithmetic, functions other than
/// `len` and `count` of a field, layers, references, slice lists). Literals were parsed at compile
/// time; evaluation does no parsing.
indirect enum ValueExpr: Sendable {
    /// Each occurrence of a field, in the given layers of its protocol (nil: all).
    case field(Operand, FieldRead, LayerFilter?)
    /// `len()` of a field: each occurrence's bytes, or its type's width for fields without bytes.
    case fieldLength(Operand, FieldRead, LayerFilter?, width: UInt8)
    /// `count()` of a field: one value, the number of occurrences (none when there are none).
    case count(Operand, LayerFilter?)
    case constant([Value])
    /// `${field}`: the field's values in the reference frame (`FrameView.references`).
    case reference(Int)
    /// Each value's bytes at the slices, joined; a value a slice does not fit yields nothing.
    case slice(ValueExpr, [SliceSpec])
    /// Every pair of values, as Wireshark combines lists.
    case arithmetic(ArithmeticOperator, ValueExpr, ValueExpr)
    case negate(ValueExpr)
    case abs(ValueExpr)
    case upper(ValueExpr)
    case lower(ValueExpr)
    case string(ValueExpr, StringConversion)
    /// `max()` (true) or `min()` over every value of every argument: one value.
    case extreme(max: Bool, [ValueExpr], BytesOrder)
}

/// What a field reference (`${field}`) reads from the reference frame.
struct ReferenceRead: Sendable {
    var operand: Operand
    var read: FieldRead
    var layers: LayerFilter?
}

/// `field#N`: which layers of the field's protocol count, and the protocol's layer field.
struct LayerFilter: Sendable {
    var layers: LayerSpec
    /// The protocol the field belongs to (`btatt` for `btatt.handle`), nil when it has none.
    var protocolField: FieldID?
}

/// A test in the general evaluator.
struct GeneralTest: Sendable {
    enum Relation: Sendable {
        /// The expression yields a value (a slice that fits, a field in the layer).
        case exists
        /// Some value is not zero (`field & mask` alone).
        case nonZero
        case compare(Comparison, ValueExpr)
        case contains(ValueExpr)
        case matches(RegexBox)
        case inSet([GeneralSetElement])
    }

    var lhs: ValueExpr
    var quantifier: Quantifier
    var relation: Relation
    /// How bytes order (`<`, `>`, ranges): length first for bytes, as text for strings.
    var order: BytesOrder
}

enum GeneralSetElement: Sendable {
    /// Values to be equal to (a literal, or a field's occurrences).
    case values(ValueExpr)
    case range(Value, Value)
}

// MARK: Evaluation

extension Number {
    var wide: Int128 { high < 0 ? Int128(Int64(bitPattern: low)) : Int128(low) }

    /// The number `value` is, when it fits in 64 bits of either sign.
    init?(wide value: Int128) {
        if value < 0 {
            guard value >= Int128(Int64.min) else { return nil }
            self.init(Int64(value))
        } else {
            guard value <= Int128(UInt64.max) else { return nil }
            self.init(UInt64(value))
        }
    }
}

extension Value {
    /// Negative, zero or positive as `a` orders before, with or after `b`; nil when they do not
    /// compare (a NaN, or values of other kinds).
    static func order(_ a: Value, _ b: Value, _ mode: BytesOrder) -> Int? {
        switch (a, b) {
        case (.number(let x), .number(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.real(let x), .real(let y)):
            if x.isNaN || y.isNaN { return nil }
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.real(let x), .number(let y)): return Number.order(x, y)
        case (.number(let x), .real(let y)): return Number.order(y, x).map { -$0 }
        case (.bytes(let x), .bytes(let y)), (.text(let x), .text(let y)), (.bytes(let x), .text(let y)),
            (.text(let x), .bytes(let y)):
            return x.withUnsafeBufferPointer { p in y.withUnsafeBufferPointer { q in ByteOps.order(p, q, mode) } }
        case (.address(let x), .address(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.uuid(let x), .uuid(let y)): return x == y ? 0 : 1
        case (.time(let x), .time(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        default: return nil
        }
    }

    /// The bytes slices and `contains` see.
    var byteView: [UInt8]? {
        switch self {
        case .bytes(let b), .text(let b): b
        case .address(let a): (0..<6).map { UInt8(truncatingIfNeeded: a >> (40 - 8 * UInt64($0))) }
        default: nil
        }
    }
}

extension FrameView {
    /// The layer of the protocol that node `i` belongs to: how many times the protocol has been
    /// opened up to that node (1 for the first).
    func layer(of i: Int, _ filter: LayerFilter) -> Int {
        guard let p = filter.protocolField else { return 1 }
        var n = 0
        var j = 0
        while j <= i {
            if nodes[j].field == p { n &+= 1 }
            j &+= 1
        }
        return max(1, n)
    }

    /// Calls `body` with the node index of each occurrence of `o`'s field in the layers asked for.
    @inline(__always)
    func forEach(_ o: Operand, _ layers: LayerFilter?, _ body: (Int) -> Void) {
        let first = Int(marks[2 &* o.slot])
        guard first >= 0 else { return }
        let last = Int(marks[2 &* o.slot &+ 1])
        var i = first
        while i <= last {
            if nodes[i].field == o.field, layers.map({ $0.layers.contains(layer(of: i, $0)) }) ?? true {
                body(i)
            }
            i &+= 1
        }
    }

    func value(_ i: Int, _ read: FieldRead) -> Value? {
        switch read {
        case .number: return number(i, .value).map(Value.number)
        case .real: return real(i).map(Value.real)
        case .time:
            switch nodes[i].value {
            case .signed(let s): return .time(s)
            case .unsigned(let u): return .time(Int64(truncatingIfNeeded: u))
            default: return nil
            }
        case .bytes: return withBytes(i, .range, nil) { Value.bytes(Array($0)) }
        case .text: return withBytes(i, .string, nil) { Value.text(Array($0)) }
        case .address: return address(i).map(Value.address)
        case .uuid: return uuid(i).map(Value.uuid)
        case .none: return nil
        }
    }
}

extension ValueExpr {
    /// The values the expression yields for the frame.
    func values(_ f: FrameView) -> [Value] {
        switch self {
        case .field(let o, let read, let layers):
            var out: [Value] = []
            f.forEach(o, layers) { i in if let v = f.value(i, read) { out.append(v) } }
            return out
        case .fieldLength(let o, let read, let layers, let width):
            var out: [Value] = []
            f.forEach(o, layers) { i in
                let n: Int? =
                    switch read {
                    case .text: f.withBytes(i, .string, nil) { $0.count }
                    case .bytes: f.withBytes(i, .range, nil) { $0.count }
                    case .address: 6
                    default: Int(width)
                    }
                if let n { out.append(.number(Number(UInt64(max(0, n))))) }
            }
            return out
        case .count(let o, let layers):
            var n: UInt64 = 0
            f.forEach(o, layers) { _ in n &+= 1 }
            return n == 0 ? [] : [.number(Number(n))]
        case .constant(let values):
            return values
        case .reference(let k):
            return k < f.references.count ? f.references[k] : []
        case .slice(let base, let specs):
            return base.values(f).compactMap { v in
                guard let bytes = v.byteView else { return nil }
                var out: [UInt8] = []
                for spec in specs {
                    guard let r = spec.resolve(count: bytes.count) else { return nil }
                    out += bytes[r]
                }
                return .bytes(out)
            }
        case .arithmetic(let op, let a, let b):
            let left = a.values(f)
            guard !left.isEmpty else { return [] }
            let right = b.values(f)
            var out: [Value] = []
            for x in left {
                for y in right {
                    if let v = Self.apply(op, x, y) { out.append(v) }
                }
            }
            return out
        case .negate(let inner):
            return inner.values(f).compactMap { v in
                switch v {
                case .number(let n): Number(wide: -n.wide).map(Value.number)
                case .real(let d): .real(-d)
                case .time(let t): t == Int64.min ? nil : .time(-t)
                default: nil
                }
            }
        case .abs(let inner):
            return inner.values(f).compactMap { v in
                switch v {
                case .number(let n): Number(wide: n.wide < 0 ? -n.wide : n.wide).map(Value.number)
                case .real(let d): .real(Swift.abs(d))
                case .time(let t): t == Int64.min ? nil : .time(Swift.abs(t))
                default: nil
                }
            }
        case .upper(let inner), .lower(let inner):
            let up: Bool
            if case .upper = self { up = true } else { up = false }
            return inner.values(f).compactMap { v in
                guard case .text(let bytes) = v else { return nil }
                // ASCII letters only, byte for byte, as Wireshark's g_ascii_strup/strdown.
                return .text(
                    bytes.map { b in
                        if up, b >= 0x61, b <= 0x7A { return b - 0x20 }
                        if !up, b >= 0x41, b <= 0x5A { return b + 0x20 }
                        return b
                    }
                )
            }
        case .string(let inner, let conversion):
            return inner.values(f).compactMap { v in
                switch (v, conversion) {
                case (.number(let n), .decimal):
                    let text = n.high < 0 ? String(Int64(bitPattern: n.low)) : String(n.low)
                    return .text(Array(text.utf8))
                case (.address, .address):
                    guard let bytes = v.byteView else { return nil }
                    return .text(Array(HexText.bytes(bytes, separator: ":").lowercased().utf8))
                default:
                    return nil
                }
            }
        case .extreme(let isMax, let arguments, let mode):
            var best: Value? = nil
            for argument in arguments {
                for v in argument.values(f) {
                    guard let current = best else {
                        best = v
                        continue
                    }
                    if let o = Value.order(v, current, mode), isMax ? o > 0 : o < 0 { best = v }
                }
            }
            return best.map { [$0] } ?? []
        }
    }

    /// `x op y`; nil where the result has no value (division by zero, a result beyond 64 bits).
    static func apply(_ op: ArithmeticOperator, _ x: Value, _ y: Value) -> Value? {
        switch (x, y) {
        case (.number(let a), .number(let b)):
            let p = a.wide
            let q = b.wide
            let r: Int128
            switch op {
            case .add: r = p + q
            case .subtract: r = p - q
            case .multiply:
                let (m, overflow) = p.multipliedReportingOverflow(by: q)
                guard !overflow else { return nil }
                r = m
            case .divide:
                guard q != 0 else { return nil }
                r = p / q
            case .modulo:
                guard q != 0 else { return nil }
                r = p % q
            case .bitwiseAnd: return .number(Number(a.low & b.low))
            }
            return Number(wide: r).map(Value.number)
        case (.real(let a), .real(let b)):
            return Self.real(op, a, b)
        case (.real(let a), .number(let b)):
            return Self.real(op, a, b.high < 0 ? Double(Int64(bitPattern: b.low)) : Double(b.low))
        case (.number(let a), .real(let b)):
            return Self.real(op, a.high < 0 ? Double(Int64(bitPattern: a.low)) : Double(a.low), b)
        case (.time(let a), .time(let b)):
            switch op {
            case .add:
                let (s, o) = a.addingReportingOverflow(b)
                return o ? nil : .time(s)
            case .subtract:
                let (s, o) = a.subtractingReportingOverflow(b)
                return o ? nil : .time(s)
            default: return nil
            }
        case (.bytes(let a), .bytes(let b)) where op == .bitwiseAnd:
            return .bytes(zip(a, b).map { $0 & $1 })
        default:
            return nil
        }
    }

    private static func real(_ op: ArithmeticOperator, _ a: Double, _ b: Double) -> Value? {
        switch op {
        case .add: .real(a + b)
        case .subtract: .real(a - b)
        case .multiply: .real(a * b)
        case .divide: .real(a / b)
        case .modulo: .real(a.truncatingRemainder(dividingBy: b))
        case .bitwiseAnd: nil
        }
    }
}

extension GeneralTest {
    func evaluate(_ f: FrameView) -> Bool {
        let left = lhs.values(f)
        guard !left.isEmpty else { return false }
        switch relation {
        case .exists:
            return true
        case .nonZero:
            return quantified(left) { v in
                switch v {
                case .number(let n): !n.isZero
                case .bytes(let b): b.contains { $0 != 0 }
                default: false
                }
            }
        case .compare(let c, let rhs):
            let right = rhs.values(f)
            guard !right.isEmpty else { return false }
            let mode = order
            return quantified(left) { a in
                quantified(right) { b in
                    guard let o = Value.order(a, b, mode) else { return c == .notEqual }
                    return c.holds(order: o)
                }
            }
        case .contains(let rhs):
            let right = rhs.values(f)
            guard !right.isEmpty else { return false }
            return quantified(left) { a in
                quantified(right) { b in
                    guard let hay = a.byteView, let needle = b.byteView else { return false }
                    return hay.withUnsafeBufferPointer { h in
                        needle.withUnsafeBufferPointer { n in ByteOps.contains(h, n) }
                    }
                }
            }
        case .matches(let box):
            return quantified(left) { a in
                guard let bytes = a.byteView else { return false }
                return bytes.withUnsafeBufferPointer { ByteOps.text($0).contains(box.regex) }
            }
        case .inSet(let elements):
            let mode = order
            var resolved: [[Value]] = []
            for e in elements {
                if case .values(let expr) = e { resolved.append(expr.values(f)) } else { resolved.append([]) }
            }
            return quantified(left) { a in
                for (k, e) in elements.enumerated() {
                    switch e {
                    case .values:
                        for b in resolved[k] where Value.order(a, b, mode) == 0 { return true }
                    case .range(let low, let high):
                        if let l = Value.order(a, low, mode), l >= 0, let h = Value.order(a, high, mode), h <= 0 {
                            return true
                        }
                    }
                }
                return false
            }
        }
    }

    @inline(__always)
    private func quantified(_ values: [Value], _ body: (Value) -> Bool) -> Bool {
        switch quantifier {
        case .any:
            for v in values where body(v) { return true }
            return false
        case .all:
            for v in values where !body(v) { return false }
            return true
        }
    }
}
