import BLEInspectCore

/// An integer of either sign, ordered as a mathematical integer (field values are `UInt64` or
/// `Int64`; literals may be either).
struct Number: Comparable, Hashable, Sendable {
    /// -1 for negative values, 0 otherwise.
    var high: Int8
    var low: UInt64

    @inline(__always) init(_ value: UInt64) {
        high = 0
        low = value
    }

    @inline(__always) init(_ value: Int64) {
        high = value < 0 ? -1 : 0
        low = UInt64(bitPattern: value)
    }

    @inline(__always) static func < (a: Number, b: Number) -> Bool {
        a.high != b.high ? a.high < b.high : a.low < b.low
    }

    var isZero: Bool { high == 0 && low == 0 }
}

/// The test applied to one value once the quantifier has picked it.
enum Comparison: Sendable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual

    @inline(__always) func holds<T: Comparable>(_ a: T, _ b: T) -> Bool {
        switch self {
        case .equal: a == b
        case .notEqual: a != b
        case .less: a < b
        case .lessOrEqual: a <= b
        case .greater: a > b
        case .greaterOrEqual: a >= b
        }
    }

    /// Whether the comparison holds given `order` (negative, zero or positive, like memcmp).
    @inline(__always) func holds(order: Int) -> Bool {
        switch self {
        case .equal: order == 0
        case .notEqual: order != 0
        case .less: order < 0
        case .lessOrEqual: order <= 0
        case .greater: order > 0
        case .greaterOrEqual: order >= 0
        }
    }
}

extension Comparison {
    /// Whether the comparison holds between a real and an integer, compared exactly (the
    /// integer is not rounded to a double). A NaN is unordered: only `notEqual` holds.
    @inline(__always) func holds(_ a: Double, _ b: Number) -> Bool {
        guard let order = Number.order(a, b) else { return self == .notEqual }
        return holds(order: order)
    }
}

extension Number {
    /// -1, 0 or 1 as `a` is below, equal to or above `n`, exactly; nil when `a` is NaN.
    static func order(_ a: Double, _ n: Number) -> Int? {
        if a.isNaN { return nil }
        if n.high == 0 {
            let u = n.low
            if a < 0 { return -1 }
            if a >= 18_446_744_073_709_551_616.0 { return 1 }
            let whole = a.rounded(.down)
            let w = UInt64(whole)
            if w != u { return w < u ? -1 : 1 }
            return a > whole ? 1 : 0
        }
        let s = Int64(bitPattern: n.low)
        if a >= 0 { return 1 }
        if a < -9_223_372_036_854_775_808.0 { return -1 }
        let whole = a.rounded(.down)
        let w = Int64(whole)
        if w != s { return w < s ? -1 : 1 }
        return a > whole ? 1 : 0
    }
}

/// Over which occurrences of a field a test must hold. Both need the field to occur at least
/// once; occurrences that yield no value (a slice past the end) are skipped.
enum Quantifier: Sendable {
    /// Some occurrence satisfies the test.
    case any
    /// Every occurrence satisfies the test.
    case all
}

extension ComparisonOperator {
    /// Wireshark 4.x semantics: `==` any equal, `!=` all not equal, `===` all equal, `!==`/`~=`
    /// any not equal; orderings are "any".
    var semantics: (Quantifier, Comparison) {
        switch self {
        case .anyEqual: (.any, .equal)
        case .allNotEqual: (.all, .notEqual)
        case .allEqual: (.all, .equal)
        case .anyNotEqual: (.any, .notEqual)
        case .less: (.any, .less)
        case .lessOrEqual: (.any, .lessOrEqual)
        case .greater: (.any, .greater)
        case .greaterOrEqual: (.any, .greaterOrEqual)
        }
    }
}

/// How a node is seen as bytes.
enum ByteView: Sendable {
    /// The node's byte range in its data source (byte fields, protocols).
    case range
    /// The UTF-8 of a string value.
    case string
    /// The 6 bytes of an address, most significant first (as it is written).
    case address
}

/// How bytes are ordered by `<` and `>`.
enum BytesOrder: Sendable {
    /// Wireshark's order for byte fields: the shorter is smaller; equal lengths compare bytewise.
    case lengthFirst
    /// Text order: bytewise, a prefix before its extensions.
    case lexicographic
}

/// How an integer is read from a node.
enum NumberSource: Sendable {
    case value
    /// `field & mask`.
    case masked(UInt64)
    /// `len(field)`: the number of bytes.
    case length(ByteView)
    /// `len(field)` of a field with no bytes to see (an integer): its type's width.
    case width(UInt8)
}

/// A compiled regular expression (Wireshark's `matches` is case-insensitive unless the pattern
/// says `(?-i)`). `Regex<AnyRegexOutput>` is not declared Sendable only because its output type is
/// not; the regex itself is immutable once built (its lowered program is installed atomically, and
/// the filter compiles it before sharing), and every match runs on its own state. A class: a
/// resilient `Regex` held inline would give every enum that carries one (`Program`,
/// `BytesPredicate`, `GeneralTest`) a layout known only at run time, and every evaluation would
/// look up their type metadata.
final class RegexBox: @unchecked Sendable {
    let regex: Regex<AnyRegexOutput>

    init(regex: Regex<AnyRegexOutput>) { self.regex = regex }
}

enum NumberPredicate: Sendable {
    case compare(Comparison, Number)
    /// In one of the ranges (or, when `outside`, in none of them).
    case ranges([ClosedRange<Number>], outside: Bool)
    case nonZero

    @inline(__always) func holds(_ v: Number) -> Bool {
        switch self {
        case .compare(let c, let literal): return c.holds(v, literal)
        case .ranges(let ranges, let outside): return ranges.contains { $0.contains(v) } != outside
        case .nonZero: return !v.isZero
        }
    }
}

/// A test on a real field (`FieldKind.real`). Literals are `Double`s; comparisons are IEEE ones,
/// as in Wireshark: `==` is exact equality, and a NaN value satisfies only `!=`.
enum RealPredicate: Sendable {
    case compare(Comparison, Double)
    /// In one of the ranges (or, when `outside`, in none of them). No bound is NaN.
    case ranges([ClosedRange<Double>], outside: Bool)

    @inline(__always) func holds(_ v: Double) -> Bool {
        switch self {
        case .compare(let c, let literal): return c.holds(v, literal)
        case .ranges(let ranges, let outside): return ranges.contains { $0.contains(v) } != outside
        }
    }
}

struct BytesRange: Sendable {
    var low: [UInt8]
    /// Nil for a single value.
    var high: [UInt8]?
}

enum BytesPredicate: Sendable {
    case compare(Comparison, [UInt8], BytesOrder)
    case set([BytesRange], BytesOrder)
    case contains([UInt8])
    case matches(RegexBox)
}

enum AddressPredicate: Sendable {
    case compare(Comparison, UInt64)
    case ranges([ClosedRange<UInt64>])
}

enum UUIDPredicate: Sendable {
    case compare(equal: Bool, BluetoothUUID)
    case set([BluetoothUUID])
}

/// Where a field's occurrences are found: its slot in the per-frame scan.
struct Operand: Sendable {
    var slot: Int
    var field: FieldID
}

/// How a field-to-field comparison reads each side.
enum FieldReader: Sendable {
    case number(NumberSource)
    /// A real field's value.
    case real
    case bytes(ByteView, SliceSpec?)
    case uuid
}

struct FieldComparison: Sendable {
    var lhs: Operand
    var lhsReader: FieldReader
    var rhs: Operand
    var rhsReader: FieldReader
    var quantifier: Quantifier
    var comparison: Comparison
    var order: BytesOrder
}

/// The checked, typed filter: literals are parsed, fields resolved to slots.
indirect enum Program: Sendable {
    case not(Program)
    case and([Program])
    case or([Program])
    /// The field occurs.
    case exists(Operand)
    /// Some occurrence has bytes for the slice.
    case sliceExists(Operand, ByteView, SliceSpec)
    case number(Operand, NumberSource, Quantifier, NumberPredicate)
    /// A real field's values.
    case real(Operand, Quantifier, RealPredicate)
    /// `count(field)`: the number of occurrences (false when there are none, as in Wireshark).
    case count(Operand, NumberPredicate)
    case bytes(Operand, ByteView, SliceSpec?, Quantifier, BytesPredicate)
    case address(Operand, Quantifier, AddressPredicate)
    case uuid(Operand, Quantifier, UUIDPredicate)
    /// `matches` on a string field: the regex runs on the string itself.
    case stringMatches(Operand, Quantifier, RegexBox)
    case fields(FieldComparison)
    /// Arithmetic, functions, layers, references, slice lists: the general evaluator.
    case general(GeneralTest)
}

/// One frame as the evaluator sees it: the nodes and, per slot, the first and last node index of
/// the slot's field (or -1), found by one scan of the nodes.
struct FrameView {
    let nodes: UnsafeBufferPointer<FieldNode>
    let marks: UnsafeMutableBufferPointer<Int32>
    let sources: [[UInt8]]
    let texts: [String]
    let frameBytes: [UInt8]
    /// The values of each field reference (`${field}`) in the reference frame; empty without one.
    /// Valid during the evaluation only (`DisplayFilter.withFrame`), like `nodes`.
    let references: UnsafeBufferPointer<[Value]>

    /// The text of a `.string` node, nil for other values.
    @inline(__always) func text(_ i: Int) -> String? {
        guard case .string(let ref) = nodes[i].value, Int(ref.index) < texts.count else { return nil }
        return texts[Int(ref.index)]
    }

    @inline(__always) func present(_ o: Operand) -> Bool { marks[2 &* o.slot] >= 0 }

    /// Applies `body` to the node index of each occurrence of `o`'s field. `body` returns nil for an
    /// occurrence that has no value to test (skipped). False when the field does not occur.
    @inline(__always)
    func test(_ o: Operand, _ q: Quantifier, _ body: (Int) -> Bool?) -> Bool {
        let first = Int(marks[2 &* o.slot])
        guard first >= 0 else { return false }
        let last = Int(marks[2 &* o.slot &+ 1])
        var i = first
        switch q {
        case .any:
            while i <= last {
                if nodes[i].field == o.field, body(i) == true { return true }
                i &+= 1
            }
            return false
        case .all:
            while i <= last {
                if nodes[i].field == o.field, body(i) == false { return false }
                i &+= 1
            }
            return true
        }
    }

    /// The value of a real field's node (an integer value counts as its real number).
    @inline(__always)
    func real(_ i: Int) -> Double? {
        switch nodes[i].value {
        case .real(let d): d
        case .unsigned(let u): Double(u)
        case .signed(let s): Double(s)
        default: nil
        }
    }

    @inline(__always)
    func number(_ i: Int, _ source: NumberSource) -> Number? {
        switch source {
        case .value:
            switch nodes[i].value {
            case .unsigned(let u): return Number(u)
            case .signed(let s): return Number(s)
            case .boolean(let b): return Number(UInt64(b ? 1 : 0))
            default: return nil
            }
        case .masked(let mask):
            switch nodes[i].value {
            case .unsigned(let u): return Number(u & mask)
            case .signed(let s): return Number(UInt64(bitPattern: s) & mask)
            case .boolean(let b): return Number(UInt64(b ? 1 : 0) & mask)
            default: return nil
            }
        case .length(let view):
            return withBytes(i, view, nil) { Number(UInt64($0.count)) }
        case .width(let w):
            return Number(UInt64(w))
        }
    }

    /// Calls `body` with the bytes of node `i` seen through `view` and `slice`; nil when the node
    /// has no such bytes or the slice does not fit.
    @inline(__always)
    func withBytes<R>(
        _ i: Int,
        _ view: ByteView,
        _ slice: SliceSpec?,
        _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R? {
        switch view {
        case .range:
            let node = nodes[i]
            let source = Int(node.source)
            if source == 0 {
                return Self.bytes(frameBytes, node, slice, body)
            }
            guard source <= sources.count else { return nil }
            return Self.bytes(sources[source &- 1], node, slice, body)
        case .string:
            guard var text = text(i) else { return nil }
            return text.withUTF8 { Self.sliced($0, slice, body) }
        case .address:
            guard case .address(let address) = nodes[i].value else { return nil }
            return withUnsafeBytes(of: address.rawValue.bigEndian) { raw in
                let all = raw.assumingMemoryBound(to: UInt8.self)
                return Self.sliced(UnsafeBufferPointer(rebasing: all[2..<8]), slice, body)
            }
        }
    }

    @inline(__always)
    private static func bytes<R>(
        _ data: [UInt8],
        _ node: FieldNode,
        _ slice: SliceSpec?,
        _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R? {
        let lower = max(0, min(Int(node.start), data.count))
        let upper = max(lower, min(lower &+ max(0, Int(node.length)), data.count))
        return data.withUnsafeBufferPointer { all in
            sliced(UnsafeBufferPointer(rebasing: all[lower..<upper]), slice, body)
        }
    }

    @inline(__always)
    private static func sliced<R>(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ slice: SliceSpec?,
        _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R? {
        guard let slice else { return body(bytes) }
        guard let r = slice.resolve(count: bytes.count) else { return nil }
        return body(UnsafeBufferPointer(rebasing: bytes[r]))
    }

    @inline(__always)
    func uuid(_ i: Int) -> BluetoothUUID? {
        if case .uuid(let u) = nodes[i].value { return u }
        return nil
    }

    @inline(__always)
    func address(_ i: Int) -> UInt64? {
        if case .address(let a) = nodes[i].value { return a.rawValue }
        return nil
    }
}

enum ByteOps {
    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    @inline(__always)
    static func order(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, _ mode: BytesOrder) -> Int {
        if mode == .lengthFirst, a.count != b.count { return a.count < b.count ? -1 : 1 }
        let n = min(a.count, b.count)
        var i = 0
        while i < n {
            let x = a[i]
            let y = b[i]
            if x != y { return x < y ? -1 : 1 }
            i &+= 1
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    @inline(__always)
    static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = needle.count
        guard n > 0 else { return true }
        guard haystack.count >= n, let first = needle.first else { return false }
        var i = 0
        let end = haystack.count &- n
        while i <= end {
            if haystack[i] == first {
                var j = 1
                while j < n, haystack[i &+ j] == needle[j] { j &+= 1 }
                if j == n { return true }
            }
            i &+= 1
        }
        return false
    }

    /// The text a regex runs on for a byte field: its UTF-8 when valid, else one character per
    /// byte (Latin-1), so that `\xNN` in a pattern finds byte NN.
    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        var s = ""
        s.unicodeScalars.append(contentsOf: bytes.lazy.map { Unicode.Scalar($0) })
        return s
    }
}

extension BytesPredicate {
    @inline(__always)
    func holds(_ v: UnsafeBufferPointer<UInt8>) -> Bool {
        switch self {
        case .compare(let c, let literal, let mode):
            return literal.withUnsafeBufferPointer { c.holds(order: ByteOps.order(v, $0, mode)) }
        case .contains(let literal):
            return literal.withUnsafeBufferPointer { ByteOps.contains(v, $0) }
        case .set(let ranges, let mode):
            for r in ranges {
                let inside = r.low.withUnsafeBufferPointer { low -> Bool in
                    guard let high = r.high else { return ByteOps.order(v, low, mode) == 0 }
                    return ByteOps.order(v, low, mode) >= 0
                        && high.withUnsafeBufferPointer { ByteOps.order(v, $0, mode) <= 0 }
                }
                if inside { return true }
            }
            return false
        case .matches(let box):
            return ByteOps.text(v).contains(box.regex)
        }
    }
}

extension Program {
    func evaluate(_ f: FrameView) -> Bool {
        switch self {
        case .not(let inner):
            return !inner.evaluate(f)
        case .and(let terms):
            for t in terms where !t.evaluate(f) { return false }
            return true
        case .or(let terms):
            for t in terms where t.evaluate(f) { return true }
            return false
        case .exists(let o):
            return f.present(o)
        case .sliceExists(let o, let view, let slice):
            return f.test(o, .any) { i in f.withBytes(i, view, slice) { _ in true } }
        case .number(let o, let source, let q, let p):
            return f.test(o, q) { i in
                guard let v = f.number(i, source) else { return nil }
                return p.holds(v)
            }
        case .real(let o, let q, let p):
            return f.test(o, q) { i in
                guard let v = f.real(i) else { return nil }
                return p.holds(v)
            }
        case .count(let o, let p):
            let first = Int(f.marks[2 &* o.slot])
            guard first >= 0 else { return false }
            let last = Int(f.marks[2 &* o.slot &+ 1])
            var n: UInt64 = 0
            for i in first...last where f.nodes[i].field == o.field { n &+= 1 }
            return p.holds(Number(n))
        case .bytes(let o, let view, let slice, let q, let p):
            return f.test(o, q) { i in f.withBytes(i, view, slice) { p.holds($0) } }
        case .address(let o, let q, let p):
            return f.test(o, q) { i in
                guard let a = f.address(i) else { return nil }
                switch p {
                case .compare(let c, let literal): return c.holds(a, literal)
                case .ranges(let ranges):
                    for r in ranges where r.contains(a) { return true }
                    return false
                }
            }
        case .uuid(let o, let q, let p):
            return f.test(o, q) { i in
                guard let u = f.uuid(i) else { return nil }
                switch p {
                case .compare(let equal, let literal): return (u == literal) == equal
                case .set(let set):
                    for s in set where s == u { return true }
                    return false
                }
            }
        case .stringMatches(let o, let q, let box):
            return f.test(o, q) { i in
                guard let text = f.text(i) else { return nil }
                return text.contains(box.regex)
            }
        case .fields(let c):
            return c.evaluate(f)
        case .general(let test):
            return test.evaluate(f)
        }
    }
}

extension FieldComparison {
    func evaluate(_ f: FrameView) -> Bool {
        guard f.present(lhs), f.present(rhs) else { return false }
        let c = comparison
        switch (lhsReader, rhsReader) {
        case (.number(let ls), .number(let rs)):
            return f.test(lhs, quantifier) { i in
                guard let a = f.number(i, ls) else { return nil }
                return f.test(rhs, quantifier) { j in
                    guard let b = f.number(j, rs) else { return nil }
                    return c.holds(a, b)
                }
            }
        case (.real, .real):
            return f.test(lhs, quantifier) { i in
                guard let a = f.real(i) else { return nil }
                return f.test(rhs, quantifier) { j in
                    guard let b = f.real(j) else { return nil }
                    return c.holds(a, b)
                }
            }
        case (.real, .number(let rs)):
            return f.test(lhs, quantifier) { i in
                guard let a = f.real(i) else { return nil }
                return f.test(rhs, quantifier) { j in
                    guard let b = f.number(j, rs) else { return nil }
                    return c.holds(a, b)
                }
            }
        case (.number(let ls), .real):
            return f.test(lhs, quantifier) { i in
                guard let a = f.number(i, ls) else { return nil }
                return f.test(rhs, quantifier) { j in
                    guard let b = f.real(j) else { return nil }
                    guard let order = Number.order(b, a) else { return c == .notEqual }
                    return c.holds(order: -order)
                }
            }
        case (.bytes(let lv, let lslice), .bytes(let rv, let rslice)):
            let mode = order
            return f.test(lhs, quantifier) { i in
                f.withBytes(i, lv, lslice) { a in
                    f.test(rhs, quantifier) { j in
                        f.withBytes(j, rv, rslice) { b in c.holds(order: ByteOps.order(a, b, mode)) }
                    }
                }
            }
        case (.uuid, .uuid):
            return f.test(lhs, quantifier) { i in
                guard let a = f.uuid(i) else { return nil }
                return f.test(rhs, quantifier) { j in
                    guard let b = f.uuid(j) else { return nil }
                    return c == .equal ? a == b : a != b
                }
            }
        default:
            return false
        }
    }
}
