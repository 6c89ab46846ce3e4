import BLEInspectCore

/// Parsing of literals by the type of the field they are compared with.
enum Literals {
    enum IntegerParse {
        case value(Number)
        case tooBig
        case invalid
    }

    /// Integers as Wireshark reads them: `0x` hex, `0b` binary, a leading `0` octal (not `0o`,
    /// which Wireshark refuses), decimal otherwise, with an optional `-` or `+`.
    static func integer(_ text: String) -> IntegerParse {
        var digits = Substring(text)
        var negative = false
        if digits.first == "-" {
            negative = true
            digits = digits.dropFirst()
        } else if digits.first == "+" {
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            return .invalid
        }
        let lower = digits.lowercased()
        var radix = 10
        var body = Substring(lower)
        if lower.hasPrefix("0x") {
            radix = 16
            body = body.dropFirst(2)
        } else if lower.hasPrefix("0b") {
            radix = 2
            body = body.dropFirst(2)
        } else if lower.count > 1, lower.hasPrefix("0") {
            radix = 8
            body = body.dropFirst(1)
        }
        guard !body.isEmpty, body.allSatisfy({ ($0.hexDigitValue ?? 99) < radix }) else { return .invalid }
        guard let magnitude = UInt64(body, radix: radix) else { return .tooBig }
        if !negative { return .value(Number(magnitude)) }
        if magnitude == 0 { return .value(Number(UInt64(0))) }
        guard magnitude <= UInt64(Int64.max) + 1 else { return .tooBig }
        return .value(Number(Int64(bitPattern: 0 &- magnitude)))
    }

    /// The raw text of a literal term: a word's text, a string's decoded bytes as text.
    private static func literalText(_ term: Term) -> String? {
        switch term {
        case .word(let t): t.text
        case .string(_, let bytes): String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }

    private static func notAValue(_ term: Term, _ lhs: CompiledOperand, compiler: Compiler) -> FilterError {
        switch term {
        case .word, .string, .character:
            FilterError(
                .value,
                "\(compiler.text(term.range)) is not a value \(lhs.text) can be compared with",
                at: term.range
            )
        default:
            FilterError(.value, "expected a value to compare \(lhs.text) with", at: term.range)
        }
    }

    // MARK: Integers, booleans, times

    static func numbers(_ term: Term, for lhs: CompiledOperand, compiler: Compiler) throws(FilterError) -> [Number] {
        switch lhs.type {
        case .integer(let signed, let bits, let names):
            return try integers(term, signed: signed, bits: bits, names: names, lhs: lhs, compiler: compiler)
        case .boolean(let names):
            return [try boolean(term, names: names, lhs: lhs, compiler: compiler)]
        case .time:
            return [try time(term, lhs: lhs, compiler: compiler)]
        case .absoluteTime:
            return [Number(try absoluteTime(term, for: lhs, compiler: compiler))]
        default:
            throw notAValue(term, lhs, compiler: compiler)
        }
    }

    private static func integers(
        _ term: Term,
        signed: Bool,
        bits: UInt8,
        names: ValueNames?,
        lhs: CompiledOperand,
        compiler: Compiler
    ) throws(FilterError) -> [Number] {
        let written = compiler.text(term.range)
        switch term {
        case .character(_, let byte):
            return [
                try inRange(Number(UInt64(byte)), signed: signed, bits: bits, written: written, lhs: lhs, term: term)
            ]
        case .word(let t):
            switch integer(t.text) {
            case .value(let n):
                return [try inRange(n, signed: signed, bits: bits, written: written, lhs: lhs, term: term)]
            case .tooBig:
                throw FilterError(.value, "\(written) is too big for \(lhs.text) (\(lhs.typeName))", at: term.range)
            case .invalid:
                break
            }
        case .string(_, let bytes):
            // A value name first; a number in quotes when there are no names (or none matches).
            if names == nil, case .value(let n) = integer(String(decoding: bytes, as: UTF8.self)) {
                return [try inRange(n, signed: signed, bits: bits, written: written, lhs: lhs, term: term)]
            }
        default:
            throw notAValue(term, lhs, compiler: compiler)
        }
        guard let text = literalText(term) else { throw notAValue(term, lhs, compiler: compiler) }
        guard let names else {
            throw FilterError(
                .value,
                "\(written) is not a number; \(lhs.text) (\(lhs.typeName)) takes decimal, 0x hex, 0 octal or 0b binary numbers",
                at: term.range
            )
        }
        let candidates = nameTable(names, bits: bits)
        let lower = text.lowercased()
        var values: [Number] = []
        for (v, n) in candidates where n.lowercased() == lower {
            let number = signed ? Number(Int64(bitPattern: v)) : Number(v)
            if !values.contains(number) { values.append(number) }
        }
        if !values.isEmpty { return values }
        // A number in quotes.
        if case .string = term, case .value(let n) = integer(text) {
            return [try inRange(n, signed: signed, bits: bits, written: written, lhs: lhs, term: term)]
        }
        let nearest = Suggestions.nearest(text, among: candidates.map(\.1), count: 4)
        var message = "\(written) is not a value of \(lhs.text) (\(lhs.typeName)); use a number"
        if !nearest.isEmpty {
            message += " or a value name such as " + nearest.map { "\"\($0)\"" }.joined(separator: ", ")
        }
        throw FilterError(.value, message, at: term.range)
    }

    // MARK: Reals

    /// A literal for a real field: a decimal number as `Double(String)` (C's `strtod`, which
    /// Wireshark uses too) reads it (`23.45`, `-3`, `1e3`, `1e-3`, `1e+3`, `.5`, `0x10`, `0x1p-2`,
    /// `inf`; `010` is ten, not octal), an integer in the other integer forms (`0b101`, `0o17`), or
    /// either in quotes; a character constant is its byte. NaN is refused: it equals nothing,
    /// so no test with it could hold. So are numbers too large for a double (they are not
    /// infinity) and numbers so small that they would be read as 0.
    static func real(_ term: Term, for lhs: CompiledOperand, compiler: Compiler) throws(FilterError) -> Double {
        let written = compiler.text(term.range)
        let text: String
        switch term {
        case .character(_, let byte): return Double(byte)
        case .word(let t): text = t.text
        case .string(_, let bytes): text = String(decoding: bytes, as: UTF8.self)
        default: throw notAValue(term, lhs, compiler: compiler)
        }
        if let v = Double(text) {
            let spelled = text.lowercased().filter { $0 != "-" && $0 != "+" }
            if v.isNaN {
                throw FilterError(
                    .value,
                    "\(written) is not a number any value of \(lhs.text) (\(lhs.typeName)) can equal; NaN equals nothing, not even NaN",
                    at: term.range
                )
            }
            if v.isInfinite && spelled != "inf" && spelled != "infinity" {
                throw FilterError(
                    .value,
                    "\(written) is too big for \(lhs.text) (\(lhs.typeName): at most about 1.8e308); write inf for infinity",
                    at: term.range
                )
            }
            let hex = spelled.hasPrefix("0x")
            let mantissa = (hex ? spelled.dropFirst(2) : Substring(spelled)).prefix { $0 != (hex ? "p" : "e") }
            if v == 0 && mantissa.contains(where: { $0 != "0" && $0 != "." }) {
                throw FilterError(
                    .value,
                    "\(written) is too small for \(lhs.text) (\(lhs.typeName)): it would be read as 0",
                    at: term.range
                )
            }
            return v
        }
        if case .value(let n) = integer(text) {
            return n.high == 0 ? Double(n.low) : Double(Int64(bitPattern: n.low))
        }
        throw FilterError(
            .value,
            "\(written) is not a number; \(lhs.text) (\(lhs.typeName)) takes decimal numbers such as 23.45, -3 or 1e3",
            at: term.range
        )
    }

    /// Every (value, name) pair of a field: the listed ones, or for lookup-only tables of fields up
    /// to 16 bits, every value that has a name.
    static func nameTable(_ names: ValueNames, bits: UInt8) -> [(UInt64, String)] {
        if !names.all.isEmpty { return names.all }
        guard bits <= 16 else { return [] }
        var out: [(UInt64, String)] = []
        for v in 0..<(UInt64(1) << UInt64(bits)) {
            if let n = names.lookup(v) { out.append((v, n)) }
        }
        return out
    }

    private static func inRange(
        _ n: Number,
        signed: Bool,
        bits: UInt8,
        written: String,
        lhs: CompiledOperand,
        term: Term
    ) throws(FilterError) -> Number {
        let width = UInt64(max(1, min(64, bits)))
        if !signed {
            guard n.high == 0 else {
                throw FilterError(
                    .value,
                    "\(written) is negative, but \(lhs.text) (\(lhs.typeName)) is unsigned",
                    at: term.range
                )
            }
            let maximum = width == 64 ? UInt64.max : (UInt64(1) << width) - 1
            guard n.low <= maximum else {
                throw FilterError(
                    .value,
                    "\(written) is too big for \(lhs.text) (\(lhs.typeName): at most \(maximum))",
                    at: term.range
                )
            }
            return n
        }
        let maximum = width == 64 ? Int64.max : (Int64(1) << (width - 1)) - 1
        // Wireshark reads `-128` as minus 128, and 128 must fit the field: an int8 takes -127.
        let minimum = -maximum
        if n.high == 0 {
            guard n.low <= UInt64(maximum) else {
                throw FilterError(
                    .value,
                    "\(written) is too big for \(lhs.text) (\(lhs.typeName): at most \(maximum))",
                    at: term.range
                )
            }
        } else if Int64(bitPattern: n.low) < minimum {
            throw FilterError(
                .value,
                "\(written) is too small for \(lhs.text) (\(lhs.typeName): at least \(minimum))",
                at: term.range
            )
        }
        return n
    }

    private static func boolean(_ term: Term, names: ValueNames?, lhs: CompiledOperand, compiler: Compiler)
        throws(FilterError) -> Number
    {
        let one = Number(UInt64(1))
        let zero = Number(UInt64(0))
        if case .character(_, let byte) = term { return byte == 0 ? zero : one }
        guard let text = literalText(term) else { throw notAValue(term, lhs, compiler: compiler) }
        if text.hasPrefix("-") {
            throw FilterError(
                .value,
                "\(compiler.text(term.range)) is not a boolean; \(lhs.text) takes 1, 0, True or False, without a sign",
                at: term.range
            )
        }
        switch text.lowercased() {
        case "true": return one
        case "false": return zero
        default: break
        }
        if case .value(let n) = integer(text) { return n.isZero ? zero : one }
        if let names {
            for (v, n) in nameTable(names, bits: 1) where n.lowercased() == text.lowercased() {
                return v == 0 ? zero : one
            }
        }
        throw FilterError(
            .value,
            "\(compiler.text(term.range)) is not a boolean; \(lhs.text) takes 1, 0, True or False",
            at: term.range
        )
    }

    /// Seconds since the epoch, with up to nine decimals, as nanoseconds.
    private static func time(_ term: Term, lhs: CompiledOperand, compiler: Compiler) throws(FilterError) -> Number {
        let bad = FilterError(
            .value,
            "\(compiler.text(term.range)) is not a time; \(lhs.text) takes seconds, such as 1.5 (since 1970 for frame.time_epoch)",
            at: term.range
        )
        // Seconds are a number, not a string, as in Wireshark.
        guard case .word(let t) = term else { throw bad }
        let text = t.text
        var body = Substring(text)
        var negative = false
        if body.first == "-" {
            negative = true
            body = body.dropFirst()
        }
        // tshark 4.0 reads `5.22971e-1` as 5.22971 seconds, leaving out the exponent: rather than
        // give other frames, or the same wrong ones, an exponent is refused (docs/FILTERS.md).
        if let first = body.first, first.isASCII, first.isNumber || first == ".",
            body.contains(where: { $0 == "e" || $0 == "E" })
        {
            throw FilterError(
                .value,
                "\(compiler.text(term.range)) has an exponent; write times as seconds with up to nine decimals, such as 0.522971 (tshark would read this one without its exponent)",
                at: term.range
            )
        }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy({ $0.isASCII && $0.isNumber }),
            let seconds = Int64(whole)
        else { throw bad }
        var fraction: Int64 = 0
        if parts.count == 2 {
            let f = parts[1]
            guard f.count <= 9, f.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw bad }
            fraction = (Int64(f) ?? 0) * Int64(pow10(9 - f.count))
        }
        let (scaled, o1) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (nanos, o2) = scaled.addingReportingOverflow(fraction)
        guard !o1, !o2 else { throw bad }
        return Number(negative ? -nanos : nanos)
    }

    /// A date and time, as nanoseconds since the epoch: ISO 8601 (`2020-07-04T12:34:56.5`, the `T`
    /// optional, the time or its seconds optional, then `Z`, `UTC` or an offset such as `+02:00`)
    /// or Wireshark's legacy form (`Jul 4, 2020 12:34:56.954975`, then optionally `UTC`). Without
    /// a zone it is local time (the `TZ` environment variable), as in Wireshark.
    static func absoluteTime(_ term: Term, for lhs: CompiledOperand, compiler: Compiler) throws(FilterError) -> Int64 {
        guard let text = literalText(term), let nanos = DateLiteral.parse(text) else {
            throw FilterError(
                .value,
                "\(compiler.text(term.range)) is not a date and time; \(lhs.text) takes \"2020-07-04 12:34:56\" or \"Jul 4, 2020 12:34:56.123\" (local time unless it ends in UTC, Z or an offset)",
                at: term.range
            )
        }
        return nanos
    }

    private static func pow10(_ n: Int) -> Int {
        var v = 1
        for _ in 0..<n { v *= 10 }
        return v
    }

    /// The value after `&`: an unsigned number that fits the field.
    static func unsignedMask(_ term: Term, bits: UInt8, compiler: Compiler) throws(FilterError) -> UInt64 {
        let written = compiler.text(term.range)
        var parsed: IntegerParse = .invalid
        switch term {
        case .word(let t): parsed = integer(t.text)
        case .character(_, let byte): parsed = .value(Number(UInt64(byte)))
        default: break
        }
        guard case .value(let n) = parsed, n.high == 0 else {
            throw FilterError(.value, "\(written) is not a bit mask; use a number such as 0x40", at: term.range)
        }
        let width = UInt64(max(1, min(64, bits)))
        let maximum = width == 64 ? UInt64.max : (UInt64(1) << width) - 1
        guard n.low <= maximum else {
            throw FilterError(.value, "the mask \(written) is wider than the field's \(bits) bits", at: term.range)
        }
        return n.low
    }

    // MARK: Bytes, strings, addresses, UUIDs

    /// `01:02:03`, `01-02-03`, `01.02.03`, `0102.03`, `010203`, `1`, `0x41`.
    static func byteString(_ text: String) -> [UInt8]? {
        let lower = text.lowercased()
        if lower.hasPrefix("0x") {
            let body = Array(lower.dropFirst(2))
            guard body.count == 2, let hi = body[0].hexDigitValue, let lo = body[1].hexDigitValue else { return nil }
            return [UInt8(hi * 16 + lo)]
        }
        let parts = lower.split(omittingEmptySubsequences: false) { $0 == ":" || $0 == "-" || $0 == "." }
        var out: [UInt8] = []
        for part in parts {
            let digits = Array(part)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
            if digits.count == 1, let v = digits[0].hexDigitValue {
                out.append(UInt8(v))
                continue
            }
            guard digits.count % 2 == 0 else { return nil }
            var i = 0
            while i < digits.count {
                guard let hi = digits[i].hexDigitValue, let lo = digits[i + 1].hexDigitValue else { return nil }
                out.append(UInt8(hi * 16 + lo))
                i += 2
            }
        }
        return out.isEmpty ? nil : out
    }

    static func bytes(_ term: Term, for lhs: CompiledOperand, compiler: Compiler) throws(FilterError) -> [UInt8] {
        switch term {
        case .string(_, let bytes): return bytes
        case .character(_, let byte): return [byte]
        case .word(let t):
            if case .string = lhs.type { return Array(t.text.utf8) }
            if let b = byteString(t.text) { return b }
            throw FilterError(
                .value,
                "\(t.text) is not a byte string; write bytes as 01:02:03, 01-02-03, 01.02.03 or 010203, or text in quotes",
                at: t.range
            )
        default:
            throw notAValue(term, lhs, compiler: compiler)
        }
    }

    static func address(_ term: Term, for lhs: CompiledOperand, compiler: Compiler) throws(FilterError) -> UInt64 {
        if case .string = term {
            throw FilterError(
                .value,
                "\(compiler.text(term.range)) is a string; write the address without quotes, as 11:22:33:44:55:66",
                at: term.range
            )
        }
        guard let text = literalText(term) else { throw notAValue(term, lhs, compiler: compiler) }
        guard let bytes = byteString(text), bytes.count == 6 else {
            throw FilterError(
                .value,
                "\(compiler.text(term.range)) is not a Bluetooth address; write it as 11:22:33:44:55:66 or 11-22-33-44-55-66",
                at: term.range
            )
        }
        return bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// `0x180f`, `180f`, `0000180f`, `0000180f-0000-1000-8000-00805f9b34fb` (dashes optional), or a
    /// UUID's name when the field has names.
    static func uuid(_ term: Term, for lhs: CompiledOperand, compiler: Compiler) throws(FilterError) -> BluetoothUUID {
        guard let text = literalText(term) else { throw notAValue(term, lhs, compiler: compiler) }
        if let u = parseUUID(text) { return u }
        if case .uuid(let names?) = lhs.type {
            for (v, n) in nameTable(names, bits: 16) where n.lowercased() == text.lowercased() {
                return v <= 0xFFFF
                    ? BluetoothUUID(uuid16: UInt16(v)) : BluetoothUUID(uuid32: UInt32(truncatingIfNeeded: v))
            }
        }
        throw FilterError(
            .value,
            "\(compiler.text(term.range)) is not a UUID; write 0x180f, 180f, 0000180f or 0000180f-0000-1000-8000-00805f9b34fb",
            at: term.range
        )
    }

    static func parseUUID(_ text: String) -> BluetoothUUID? {
        var t = Substring(text.lowercased())
        if t.hasPrefix("0x") { t = t.dropFirst(2) }
        if t.contains("-") {
            let groups = t.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
            guard groups == [8, 4, 4, 4, 12] else { return nil }
            t = Substring(t.filter { $0 != "-" })
        }
        guard !t.isEmpty, t.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
        switch t.count {
        case 1...4:
            guard let v = UInt16(t, radix: 16) else { return nil }
            return BluetoothUUID(uuid16: v)
        case 5...8:
            guard let v = UInt32(t, radix: 16) else { return nil }
            return BluetoothUUID(uuid32: v)
        case 32:
            guard let hi = UInt64(t.prefix(16), radix: 16), let lo = UInt64(t.suffix(16), radix: 16) else { return nil }
            return BluetoothUUID(high: hi, low: lo, width: 16)
        default:
            return nil
        }
    }

    /// Wireshark's `matches`: a Perl-style regular expression, case-insensitive unless the
    /// pattern turns that off with `(?-i)`, found anywhere in the value.
    static func regex(_ pattern: String, range: Range<Int>) throws(FilterError) -> RegexBox {
        do {
            let r = try Regex(pattern).ignoresCase(DisplayFilter.regexIgnoresCaseByDefault)
                .matchingSemantics(.unicodeScalar)
            // Compile it now, not on the first frame.
            _ = "".contains(r)
            return RegexBox(regex: r)
        } catch {
            throw FilterError(.value, "invalid regular expression: \(error)", at: range)
        }
    }
}
