import BLECaptureIO
import BLEInspectCore
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectViews
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The renderers write bytes straight into their output. These tests hold the byte-level code to
/// the String formatting it replaced, kept here as the reference, on generated inputs.
@Suite("byte-level rendering matches the String formatting")
struct ByteRenderingTests {
    /// A small deterministic generator (SplitMix64).
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    /// Bytes that exercise every escaping rule: plain ASCII runs, controls, DEL, backslash,
    /// quotes, C1 controls, bidi controls, valid and invalid multi-byte sequences.
    static func interestingBytes(_ g: inout Generator) -> [UInt8] {
        let pieces: [[UInt8]] = [
            Array("plain ascii text".utf8), Array("ab".utf8), [0x00], [0x07], [0x09], [0x0A], [0x0D], [0x1B],
            [0x1F], [0x20], [0x22], [0x5C], [0x7E], [0x7F], [0xC2, 0x80], [0xC2, 0x85], [0xC2, 0x9F],
            [0xC2, 0xA0], [0xC3, 0xA9], [0xD8, 0x9C], [0xD8, 0x9D], [0xE2, 0x80, 0x8E], [0xE2, 0x80, 0x8F],
            [0xE2, 0x80, 0xAA], [0xE2, 0x80, 0xAE], [0xE2, 0x80, 0xAF], [0xE2, 0x81, 0xA6], [0xE2, 0x81, 0xA9],
            [0xE2, 0x81, 0xAA], [0xE2, 0x80, 0xA8], [0xEF, 0xBB, 0xBF], [0xF0, 0x9F, 0x98, 0x80],
            [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xE0, 0x80, 0xAF],
            [0xC0, 0xAF], [0xC1], [0xF5], [0xFF], [0xFE], [0x80], [0xBF], [0xE2, 0x80], [0xE2], [0xF0, 0x9F],
        ]
        var out: [UInt8] = []
        for _ in 0..<g.below(12) {
            if g.below(4) == 0 {
                out.append(UInt8(truncatingIfNeeded: g.next()))
            } else {
                out += pieces[g.below(pieces.count)]
            }
        }
        return out
    }

    @Test("TerminalSafeText.escape of bytes and of strings")
    func terminalEscaping() {
        var g = Generator(state: 1)
        for _ in 0..<20_000 {
            let bytes = Self.interestingBytes(&g)
            #expect(TerminalSafeText.escape(bytes) == Reference.escape(bytes), "\(bytes)")
            #expect(TerminalSafeText.escape(bytes[...]) == Reference.escape(bytes))
            let string = String(decoding: bytes, as: UTF8.self)
            #expect(TerminalSafeText.escape(string) == Reference.escape(Array(string.utf8)))
            var appended: [UInt8] = [0x41]
            TerminalSafeText.appendEscaped(string, to: &appended)
            #expect(appended == [0x41] + Array(Reference.escape(Array(string.utf8)).utf8))
        }
    }

    @Test("JSONFrame.quote")
    func jsonQuoting() {
        var g = Generator(state: 2)
        for _ in 0..<20_000 {
            let string = String(decoding: Self.interestingBytes(&g), as: UTF8.self)
            #expect(JSONFrame.quote(string) == Reference.quote(string), "\(Array(string.utf8))")
        }
    }

    @Test("hex, padded hex and epoch times")
    func numbers() {
        var g = Generator(state: 3)
        for _ in 0..<5_000 {
            let v = g.next() >> UInt64(g.below(64))
            let bits = g.below(70)
            #expect(Hex.padded(v, bits: bits) == Reference.padded(v, bits: bits))
            let bytes = (0..<g.below(20)).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            #expect(Hex.string(bytes) == Reference.hex(bytes))
        }
    }

    @Test("HexText: 0x numbers in both cases, padded, never cut")
    func hexText() {
        var g = Generator(state: 10)
        for _ in 0..<5_000 {
            let v = g.next() >> UInt64(g.below(64))
            let digits = g.below(17)
            for upper in [true, false] {
                let s = String(v, radix: 16, uppercase: upper)
                let expected = "0x" + String(repeating: "0", count: max(0, digits - s.count)) + s
                #expect(HexText.prefixed(v, digits: digits, upperCase: upper) == expected)
            }
        }
        #expect(HexText.prefixed(0, digits: 0) == "0x0")
    }

    @Test("UUID text: short forms and the 8-4-4-4-12 form")
    func uuidText() {
        var g = Generator(state: 9)
        for _ in 0..<5_000 {
            let high = g.next() >> UInt64(g.below(64))
            let low = g.next()
            let width = [UInt8(2), 4, 16][g.below(3)]
            let hex = Self.upper(high, 16) + Self.upper(low, 16)
            var canonical = ""
            for (i, c) in hex.enumerated() {
                if [8, 12, 16, 20].contains(i) { canonical += "-" }
                canonical.append(c)
            }
            let u = BluetoothUUID(high: high, low: low, width: width)
            #expect(u.canonical == canonical)
            #expect(u.description == canonical)
            // The renderers' writer (eight digits at a time) agrees, in both cases.
            let long = BluetoothUUID(high: high, low: low, width: 16)
            #expect(ValueText.uuid(long, upperCase: true) == canonical)
            #expect(ValueText.uuid(long, upperCase: false) == canonical.lowercased())
            let short = UInt32(truncatingIfNeeded: g.next())
            let s = BluetoothUUID(uuid32: short)
            #expect(s.description == "0x" + Self.upper(UInt64(short), 8))
            let s16 = BluetoothUUID(uuid16: UInt16(truncatingIfNeeded: short))
            #expect(s16.description == "0x" + Self.upper(UInt64(short & 0xFFFF), 4))
            #expect(s16.canonical == Self.upper(UInt64(short & 0xFFFF), 8) + "-0000-1000-8000-00805F9B34FB")
            // Width 2 with a value above 0xFFFF keeps every digit.
            let wide = BluetoothUUID(high: s.high, low: s.low, width: 2)
            #expect(wide.description == "0x" + Self.upper(UInt64(short), 4))
        }
    }

    /// `v` in upper-case hex, zero-padded to at least `digits` digits.
    static func upper(_ v: UInt64, _ digits: Int) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - s.count)) + s
    }

    @Test("time formats, both precisions, negative and far times")
    func times() {
        var g = Generator(state: 4)
        let seconds: [Int64] = [0, 1, -1, 59, 86_399, 1_700_000_000, -62_135_596_800, 253_402_300_799, 4_102_444_800]
        for _ in 0..<3_000 {
            func timestamp() -> Timestamp {
                let s = g.below(3) == 0 ? seconds[g.below(seconds.count)] : Int64(bitPattern: g.next()) >> 30
                let precision: Timestamp.Precision = g.below(2) == 0 ? .microseconds : .nanoseconds
                let nanos = UInt32(g.below(1_000_000_000))
                return Timestamp(
                    seconds: s,
                    nanoseconds: precision == .microseconds ? nanos / 1000 * 1000 : nanos,
                    precision: precision
                )
            }
            let (t, first, previous) = (timestamp(), timestamp(), timestamp())
            for format in TimeFormat.allCases {
                #expect(
                    format.format(t, first: first, previous: previous)
                        == Reference.format(format, t, first: first, previous: previous)
                )
            }
        }
    }

    @Test("field labels, values and -T fields text for every kind and base")
    func fieldText() throws {
        let registry = try StandardModules.registry()
        let formatter = FieldFormatter(registry: registry)
        let names = ValueNames([(0, "Zero"), (1, "One \u{1B}esc"), (0xFFFF_FFFF_FFFF_FFFF, "Minus one"), (300, "Big")])
        let kinds: [FieldKind] = [
            .layer, .unsigned(bits: 8), .unsigned(bits: 12), .unsigned(bits: 64), .signed(bits: 8),
            .signed(bits: 32), .real, .boolean, .bytes, .string, .address, .uuid, .group, .time, .relativeTime,
            .expert,
        ]
        let units = ["", "", "ms", "°C \u{1B}[0m"]
        let reals: [Double] = [0, -0.0, 23.45, -3, 1e-5, 1e15, 0.1 + 0.2, .nan, .infinity, -.infinity, 5e-324]
        let texts = ["a \"text\"\u{202E}\\", "", "\u{85}note\n"]
        var g = Generator(state: 5)
        for _ in 0..<4_000 {
            let kind = kinds[g.below(kinds.count)]
            let base: DisplayBase = [.decimal, .hex, .decimalAndHex, .localTime][g.below(4)]
            let d = FieldDescriptor(
                "test.field",
                "Test Field",
                kind,
                base: base,
                names: g.below(2) == 0 ? names : nil,
                unit: units[g.below(units.count)]
            )
            let value: FieldValue
            switch g.below(11) {
            case 0: value = .none
            case 9:
                value = .real(
                    g.below(2) == 0
                        ? reals[g.below(reals.count)]
                        : Double(bitPattern: g.next())
                )
            case 1: value = .unsigned([0, 1, 300, g.next(), UInt64.max][g.below(5)])
            case 2: value = .signed([0, -1, 1, Int64.min, Int64(bitPattern: g.next())][g.below(5)])
            case 3: value = .boolean(g.below(2) == 0)
            case 4: value = .bytes
            case 5: value = .string(TextRef(index: UInt32(g.below(4))))
            case 6: value = .address(BDAddr(rawValue: g.next()))
            case 7:
                let uuids = [
                    BluetoothUUID(uuid16: 0x180F), BluetoothUUID(uuid16: UInt16(truncatingIfNeeded: g.next())),
                    BluetoothUUID(uuid32: UInt32(truncatingIfNeeded: g.next())), BluetoothUUID(uuid32: 0x2A19),
                    BluetoothUUID(high: g.next(), low: g.next(), width: 16),
                    BluetoothUUID(high: 0x0000_180F_0000_1000, low: BluetoothUUID.baseLow, width: 16),
                    BluetoothUUID(high: g.next(), low: g.next(), width: 2),
                ]
                value = .uuid(uuids[g.below(uuids.count)])
            case 8:
                value = .expert(
                    ExpertSeverity(rawValue: UInt8(g.below(4))) ?? .note,
                    TextRef(index: UInt32(g.below(4)))
                )
            default: value = .unsigned(UInt64(g.below(400)))
            }
            var tree = ProtocolTree()
            tree.add(FieldID(0), value, 0..<0)
            let node = tree.nodes[0]
            let bytes: ArraySlice<UInt8> = [[], [0x00, 0xAB, 0xFF], [0x12]][g.below(3)][...]
            #expect(formatter.label(node, d, texts: texts) { bytes } == Reference.label(node, d, texts, bytes))
            #expect(formatter.valueText(node, d, texts: texts) { bytes } == Reference.valueText(node, d, texts, bytes))
            #expect(formatter.fieldText(node, d, texts: texts) { bytes } == Reference.fieldText(node, d, texts, bytes))
        }
    }

    @Test("one-line summaries of notes and short records")
    func summaries() {
        var g = Generator(state: 6)
        for _ in 0..<3_000 {
            var bytes: [UInt8] = []
            while bytes.count < [0, 5, 199, 200, 201, 400][g.below(6)] { bytes += Self.interestingBytes(&g) + [0x41] }
            let kinds: [FrameKind] = [.note, .log, .hciEvent, .aclData, .unknown(99), .linkLayer(linkType: 251)]
            let frame = CapturedFrame(
                number: 1,
                timestamp: .zero,
                direction: .unknown,
                controllerIndex: nil,
                kind: kinds[g.below(kinds.count)],
                bytes: bytes,
                originalLength: bytes.count + [0, 0, 1, 1000][g.below(4)],
                sourceOffset: 0
            )
            #expect(FrameSummary.summary(of: frame) == Reference.summary(of: frame))
        }
    }
}

/// The String formatting the renderers used before they wrote bytes.
enum Reference {
    static func escape(_ b: [UInt8]) -> String {
        var out = ""
        var i = 0
        while i < b.count {
            if let (scalar, length) = decodeScalar(b, at: i) {
                let v = scalar.value
                if scalar == "\\" {
                    out += "\\\\"
                } else if !TerminalSafeText.isUnsafe(scalar) {
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
                    out += hexByte(UInt8(v))
                } else {
                    out += "\\u{" + String(v, radix: 16, uppercase: true) + "}"
                }
                i += length
            } else {
                out += hexByte(b[i])
                i += 1
            }
        }
        return out
    }

    static func hexByte(_ b: UInt8) -> String {
        let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
        return "\\x" + String(digits[Int(b >> 4)]) + String(digits[Int(b & 0x0F)])
    }

    /// One scalar at `i` by the standard library's UTF-8 parser, which rejects overlong forms,
    /// surrogates and values past U+10FFFF: an oracle independent of TerminalSafeText's decoder.
    static func decodeScalar(_ b: [UInt8], at i: Int) -> (Unicode.Scalar, Int)? {
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = b[i...].makeIterator()
        guard case .valid(let encoded) = parser.parseScalar(from: &bytes) else { return nil }
        return (Unicode.UTF8.decode(encoded), encoded.count)
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if TerminalSafeText.isUnsafe(scalar) {
                    let h = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: max(0, 4 - h.count)) + h
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func hex(_ bytes: some Collection<UInt8>) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    static func padded(_ v: UInt64, bits: Int) -> String {
        let digitsWanted = max(1, (bits + 3) / 4)
        let s = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, digitsWanted - s.count)) + s
    }

    static func text(_ ref: TextRef, _ texts: [String]) -> String {
        Int(ref.index) < texts.count ? texts[Int(ref.index)] : ""
    }

    static func bits(of d: FieldDescriptor) -> Int {
        switch d.kind {
        case .unsigned(let bits), .signed(let bits): return Int(bits)
        default: return 8
        }
    }

    /// Seconds with nine decimals, sign and magnitude: `-0.300000000`.
    static func epoch(_ nanos: Int64) -> String {
        let frac = String(nanos.magnitude % 1_000_000_000)
        return (nanos < 0 ? "-" : "") + "\(nanos.magnitude / 1_000_000_000)."
            + String(repeating: "0", count: 9 - frac.count) + frac
    }

    /// Whether the field's value is a time or a span, in nanoseconds.
    static func isTime(_ d: FieldDescriptor) -> Bool {
        switch d.kind {
        case .time, .relativeTime: true
        default: false
        }
    }

    /// A time value as shown: a local date (C's strftime) for `DisplayBase.localTime`, else seconds.
    static func time(_ nanos: Int64, _ d: FieldDescriptor) -> String {
        guard case .time = d.kind, d.base == .localTime else { return epoch(nanos) }
        var t = time_t(nanos / 1_000_000_000)
        var fraction = nanos % 1_000_000_000
        if fraction < 0 {
            fraction += 1_000_000_000
            t -= 1
        }
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return epoch(nanos) }
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, 64, "%b %e, %Y %H:%M:%S", &parts)
        let frac = String(fraction)
        var zone = [CChar](repeating: 0, count: 64)
        let z = strftime(&zone, 64, "%Z", &parts)
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self) + "."
            + String(repeating: "0", count: 9 - frac.count) + frac + " "
            + String(decoding: zone.prefix(z).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func bytesLabel(_ b: ArraySlice<UInt8>) -> String { b.isEmpty ? "<empty>" : hex(b) }

    static func fieldText(_ node: FieldNode, _ d: FieldDescriptor, _ texts: [String], _ bytes: ArraySlice<UInt8>)
        -> String
    {
        switch node.value {
        case .none:
            // A group occurs as "1", as tshark shows Wireshark's FT_NONE fields.
            if d.kind == .group { return "1" }
            return d.kind == .bytes ? hex(bytes) : ""
        case .unsigned(let v):
            if d.kind == .boolean { return v != 0 ? "1" : "0" }
            if isTime(d) { return time(Int64(bitPattern: v), d) }
            switch d.base {
            case .hex: return padded(v, bits: bits(of: d))
            case .decimal, .decimalAndHex, .localTime: return String(v)
            }
        case .signed(let v):
            if isTime(d) { return time(v, d) }
            return String(v)
        case .real(let v): return real(v)
        case .boolean(let b): return b ? "1" : "0"
        case .bytes: return hex(bytes)
        case .string(let ref): return escape(Array(text(ref, texts).utf8))
        case .address(let a): return a.description.lowercased()
        case .uuid(let u): return u.description.lowercased()
        case .expert(_, let ref): return escape(Array(text(ref, texts).utf8))
        }
    }

    static func label(_ node: FieldNode, _ d: FieldDescriptor, _ texts: [String], _ bytes: ArraySlice<UInt8>) -> String
    {
        switch d.kind {
        case .layer, .group:
            if case .string(let ref) = node.value { return "\(d.name): \(escape(Array(text(ref, texts).utf8)))" }
            if case .unsigned(let v) = node.value { return "\(d.name) \(v)" }
            return d.name
        case .expert:
            if case .expert(let severity, let ref) = node.value {
                let word = severity.description
                return "[\(word.prefix(1).uppercased() + word.dropFirst())] \(escape(Array(text(ref, texts).utf8)))"
            }
            return d.name
        default:
            return "\(d.name): \(valueText(node, d, texts, bytes))\(unit(node, d))"
        }
    }

    /// ` unit` after a number shown without a value name, for integer and real fields.
    static func unit(_ node: FieldNode, _ d: FieldDescriptor) -> String {
        switch d.kind {
        case .unsigned, .signed, .real, .relativeTime: break
        default: return ""
        }
        guard !d.unit.isEmpty else { return "" }
        // A time is never shown by a value name: its unit always follows.
        if case .relativeTime = d.kind, case .unsigned = node.value { return " " + escape(Array(d.unit.utf8)) }
        if case .relativeTime = d.kind, case .signed = node.value { return " " + escape(Array(d.unit.utf8)) }
        switch node.value {
        case .unsigned(let v) where d.valueNames?.lookup(v) == nil: break
        case .signed(let v) where d.valueNames?.lookup(UInt64(bitPattern: v)) == nil: break
        case .real: break
        default: return ""
        }
        return " " + escape(Array(d.unit.utf8))
    }

    /// C's `%.15g`, as tshark shows doubles; NaN and the infinities by name.
    static func real(_ v: Double) -> String {
        if v.isNaN { return "NaN" }
        if v.isInfinite { return v < 0 ? "-inf" : "inf" }
        var buffer = [CChar](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBufferPointer { b in
            withVaList([v]) { vsnprintf(b.baseAddress, 64, "%.15g", $0) }
        }
        return String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func valueText(_ node: FieldNode, _ d: FieldDescriptor, _ texts: [String], _ bytes: ArraySlice<UInt8>)
        -> String
    {
        switch node.value {
        case .none: return d.kind == .bytes ? bytesLabel(bytes) : ""
        case .unsigned(let v):
            if d.kind == .boolean { return v != 0 ? "True" : "False" }
            if isTime(d) { return time(Int64(bitPattern: v), d) }
            let number: String
            switch d.base {
            case .hex: number = padded(v, bits: bits(of: d))
            case .decimal, .localTime: number = String(v)
            case .decimalAndHex: number = "\(v) (\(padded(v, bits: bits(of: d))))"
            }
            if let name = d.valueNames?.lookup(v) {
                return d.base == .decimal || d.base == .localTime
                    ? "\(name) (\(v))" : "\(name) (\(padded(v, bits: bits(of: d))))"
            }
            return number
        case .signed(let v):
            if isTime(d) { return time(v, d) }
            if let name = d.valueNames?.lookup(UInt64(bitPattern: v)) { return "\(name) (\(v))" }
            return String(v)
        case .real(let v): return real(v)
        case .boolean(let b): return b ? "True" : "False"
        case .bytes: return bytesLabel(bytes)
        case .string(let ref): return "\"\(escape(Array(text(ref, texts).utf8)))\""
        case .address(let a): return a.description
        case .uuid(let u):
            if let name = FieldFormatter.uuidName(u) { return "\(u.description) (\(name))" }
            return u.description
        case .expert(_, let ref): return escape(Array(text(ref, texts).utf8))
        }
    }

    static func format(_ format: TimeFormat, _ time: Timestamp, first: Timestamp, previous: Timestamp) -> String {
        switch format {
        case .relative: return seconds(time.difference(from: first), digits: time.precision)
        case .delta: return seconds(time.difference(from: previous), digits: time.precision)
        case .epoch: return seconds((time.seconds, time.nanoseconds), digits: time.precision)
        case .absolute:
            var t = time_t(clamping: time.seconds)
            var parts = tm()
            guard gmtime_r(&t, &parts) != nil else {
                return seconds((time.seconds, time.nanoseconds), digits: time.precision)
            }
            func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
            let date = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
            let clock = "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
            return "\(date) \(clock).\(fraction(time.nanoseconds, digits: time.precision))"
        }
    }

    /// Sign and magnitude: -0.3 s is `-0.300000`.
    static func seconds(_ value: (seconds: Int64, nanoseconds: UInt32), digits: Timestamp.Precision) -> String {
        guard value.seconds < 0 else { return "\(value.seconds).\(fraction(value.nanoseconds, digits: digits))" }
        if value.nanoseconds == 0 { return "-\(value.seconds.magnitude).\(fraction(0, digits: digits))" }
        return "-\(value.seconds.magnitude - 1).\(fraction(1_000_000_000 - value.nanoseconds, digits: digits))"
    }

    static func fraction(_ nanoseconds: UInt32, digits: Timestamp.Precision) -> String {
        let value = digits == .nanoseconds ? nanoseconds : nanoseconds / 1000
        let text = String(value)
        let width = Int(digits.rawValue)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    static func summary(of frame: CapturedFrame) -> String {
        if frame.kind.isText {
            let text = frame.bytes.prefix(FrameSummary.maximumTextBytes).prefix { $0 != 0 }
            let more = frame.bytes.count > FrameSummary.maximumTextBytes ? "…" : ""
            return "\(frame.kind.name): \(escape(Array(text)))\(more)"
        }
        var line = "\(frame.kind.name), \(frame.bytes.count) byte\(frame.bytes.count == 1 ? "" : "s")"
        if frame.isTruncated {
            line += " of \(frame.originalLength) (truncated by snaplen)"
        }
        return line
    }
}
