import BLEAssignedNumbers
import BLEInspectCore

/// What the renderers need to know of a field's descriptor, as plain bits.
struct FieldFacts: BitwiseCopyable {
    enum Kind: UInt8 {
        /// `time` shows epoch seconds, `localTime` a local date (`DisplayBase.localTime`),
        /// `relativeTime` seconds of a span.
        case layer, unsigned, signed, real, boolean, bytes, string, address, uuid, group, time, localTime
        case relativeTime, expert
    }

    enum Base: UInt8 {
        case decimal, hex, decimalAndHex
    }

    var kind: Kind
    var base: Base
    /// The width hex values are padded to (`FieldFormatter.bits(of:)`).
    var bits: UInt8
    /// The field has a unit (`FieldDescriptor.unit`) and is a number that shows one: an integer
    /// or real field. Only then is the unit's text looked up (`RenderTables.Entry.unit`).
    var hasUnit: Bool

    init(kind: Kind, base: Base, bits: UInt8, hasUnit: Bool = false) {
        self.kind = kind
        self.base = base
        self.bits = bits
        self.hasUnit = hasUnit
    }

    init(_ d: FieldDescriptor) {
        switch d.kind {
        case .layer: kind = .layer
        case .unsigned: kind = .unsigned
        case .signed: kind = .signed
        case .real: kind = .real
        case .boolean: kind = .boolean
        case .bytes: kind = .bytes
        case .string: kind = .string
        case .address: kind = .address
        case .uuid: kind = .uuid
        case .group: kind = .group
        case .time: kind = d.base == .localTime ? .localTime : .time
        case .relativeTime: kind = .relativeTime
        case .expert: kind = .expert
        }
        switch d.base {
        case .decimal, .localTime: base = .decimal
        case .hex: base = .hex
        case .decimalAndHex: base = .decimalAndHex
        }
        bits = UInt8(clamping: FieldFormatter.bits(of: d))
        hasUnit =
            !d.unit.isEmpty && (kind == .unsigned || kind == .signed || kind == .real || kind == .relativeTime)
    }

    /// A time or a span of time, stored as nanoseconds.
    var isTime: Bool { kind == .time || kind == .localTime || kind == .relativeTime }
}

/// A field's value names (`ValueNames.lookup`), kept in a struct so that taking it out of an
/// array needs no reabstraction thunk.
struct ValueNameLookup {
    let names: @Sendable (UInt64) -> String?
}

/// Writes field values as bytes: the tree's labels, `-T fields` values and JSON scalars. These are
/// the single definition of how a value is shown; `FieldFormatter`'s String functions wrap them.
enum FieldText {
    /// The string `ref` refers to in a tree's `texts`.
    @inline(__always)
    static func text(_ ref: TextRef, _ texts: [String]) -> String {
        Int(ref.index) < texts.count ? texts[Int(ref.index)] : ""
    }

    /// Appends the escaped text `ref` refers to.
    @inline(__always)
    static func appendEscapedText(_ ref: TextRef, _ texts: [String], to out: inout TextBuffer) {
        guard Int(ref.index) < texts.count else { return }
        TerminalSafeText.appendEscaped(texts[Int(ref.index)], to: &out)
    }

    /// Appends a time value (`FieldFacts.isTime`, nanoseconds): a local date, or seconds.
    @inline(__always)
    static func appendTime(_ nanos: Int64, _ f: FieldFacts, to out: inout TextBuffer) {
        if f.kind == .localTime {
            TimeFormat.appendLocalDate(nanoseconds: nanos, to: &out)
        } else {
            out.appendSeconds(nanoseconds: nanos)
        }
    }

    /// Appends contiguous lower-case hex of a byte range.
    @inline(__always)
    static func appendHex(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout TextBuffer) {
        out.appendHexString(bytes)
    }

    /// The bytes part of a label: hex, or `<empty>`.
    @inline(__always)
    static func appendBytesLabel(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout TextBuffer) {
        if bytes.isEmpty {
            out.appendLiteral("<empty>")
        } else {
            out.appendHexString(bytes)
        }
    }

    /// Whether showing `value` reads the node's bytes.
    @inline(__always)
    static func needsBytes(_ value: FieldValue, _ f: FieldFacts) -> Bool {
        switch value {
        case .bytes: return true
        case .none: return f.kind == .bytes
        default: return false
        }
    }

    /// The label shown in the tree: `Name: value (names)` or `Name: value unit`
    /// (`FieldFormatter.label`). `unit` is the field's unit, already escaped.
    static func appendLabel(
        _ value: FieldValue,
        _ f: FieldFacts,
        name: UnsafeBufferPointer<UInt8>,
        valueName: UnsafeBufferPointer<UInt8>?,
        unit: UnsafeBufferPointer<UInt8> = UnsafeBufferPointer(start: nil, count: 0),
        texts: [String],
        bytes: UnsafeBufferPointer<UInt8>,
        to out: inout TextBuffer
    ) {
        switch f.kind {
        case .layer, .group:
            appendGroupLabel(value, name: name, texts: texts, to: &out)
        case .expert:
            appendExpertLabel(value, name: name, texts: texts, to: &out)
        default:
            out.append(contentsOf: name)
            out.append(0x3A, 0x20)
            appendValueText(value, f, valueName: valueName, texts: texts, bytes: bytes, to: &out)
            if f.hasUnit { appendUnit(value, valueName: valueName, unit: unit, to: &out) }
        }
    }

    /// Appends ` unit` after a number shown without a value name (`Interval: 500 ms`,
    /// `Temperature: 23.45 °C`); a value shown by its name (`Enabled (1)`) gets no unit. `unit` is
    /// the field's unit, already escaped (`RenderTables`). Called only when `FieldFacts.hasUnit`,
    /// so fields without a unit never look one up.
    @inline(__always)
    static func appendUnit(
        _ value: FieldValue,
        valueName: UnsafeBufferPointer<UInt8>?,
        unit: UnsafeBufferPointer<UInt8>,
        to out: inout TextBuffer
    ) {
        guard valueName == nil, !unit.isEmpty else { return }
        switch value {
        case .unsigned, .signed, .real:
            out.append(0x20)
            out.append(contentsOf: unit)
        default:
            return
        }
    }

    /// The label of a layer or group: its name, and its text or number if it has one.
    @inline(__always)
    static func appendGroupLabel(
        _ value: FieldValue,
        name: UnsafeBufferPointer<UInt8>,
        texts: [String],
        to out: inout TextBuffer
    ) {
        out.append(contentsOf: name)
        switch value {
        case .string(let ref):
            out.append(0x3A, 0x20)
            appendEscapedText(ref, texts, to: &out)
        case .unsigned(let v):
            out.append(0x20)
            out.appendDecimal(v)
        default: break
        }
    }

    /// The label of an expert note: `[Severity] message`, or the field's name.
    static func appendExpertLabel(
        _ value: FieldValue,
        name: UnsafeBufferPointer<UInt8>,
        texts: [String],
        to out: inout TextBuffer
    ) {
        if case .expert(let severity, let ref) = value {
            switch severity {
            case .comment: out.appendLiteral("[Comment] ")
            case .note: out.appendLiteral("[Note] ")
            case .warning: out.appendLiteral("[Warning] ")
            case .error: out.appendLiteral("[Error] ")
            }
            appendEscapedText(ref, texts, to: &out)
        } else {
            out.append(contentsOf: name)
        }
    }

    /// The key a value's name is looked up by: the value itself (signed values as their bit
    /// pattern), nil when the value is not shown with a name (booleans, times, non-integers).
    @inline(__always)
    static func nameKey(_ value: FieldValue, _ f: FieldFacts) -> UInt64? {
        switch value {
        case .unsigned(let v): return f.kind == .boolean || f.isTime ? nil : v
        case .signed(let v): return f.isTime ? nil : UInt64(bitPattern: v)
        default: return nil
        }
    }

    /// A named integer: `Name (value)`, the value in decimal or in hex padded to `bits`.
    @inline(__always)
    static func appendNamed(
        _ v: UInt64,
        name: UnsafeBufferPointer<UInt8>,
        hex: Bool,
        bits: UInt8,
        to out: inout TextBuffer
    ) {
        out.append(contentsOf: name)
        out.append(0x20, 0x28)
        if hex {
            out.appendPaddedHex(v, bits: Int(bits))
        } else {
            out.appendDecimal(v)
        }
        out.append(0x29)
    }

    /// The value part of a label (`FieldFormatter.valueText`). `valueName` is the name of an
    /// integer value (looked up by `nameKey`), or of a UUID value (`FieldFormatter.uuidName`).
    static func appendValueText(
        _ value: FieldValue,
        _ f: FieldFacts,
        valueName: UnsafeBufferPointer<UInt8>?,
        texts: [String],
        bytes: UnsafeBufferPointer<UInt8>,
        to out: inout TextBuffer
    ) {
        switch value {
        case .none:
            if f.kind == .bytes { appendBytesLabel(bytes, to: &out) }
        case .unsigned(let v):
            if f.kind == .boolean {
                if v != 0 { out.appendLiteral("True") } else { out.appendLiteral("False") }
                return
            }
            if f.isTime {
                appendTime(Int64(bitPattern: v), f, to: &out)
                return
            }
            if let name = valueName {
                appendNamed(v, name: name, hex: f.base != .decimal, bits: f.bits, to: &out)
                return
            }
            switch f.base {
            case .hex: out.appendPaddedHex(v, bits: Int(f.bits))
            case .decimal: out.appendDecimal(v)
            case .decimalAndHex:
                out.appendDecimal(v)
                out.append(0x20)
                out.append(0x28)
                out.appendPaddedHex(v, bits: Int(f.bits))
                out.append(0x29)
            }
        case .signed(let v):
            if f.isTime {
                appendTime(v, f, to: &out)
                return
            }
            if let name = valueName {
                out.append(contentsOf: name)
                out.append(0x20, 0x28)
                out.appendDecimal(v)
                out.append(0x29)
                return
            }
            out.appendDecimal(v)
        case .real(let v): out.appendReal(v)
        case .boolean(let b):
            if b { out.appendLiteral("True") } else { out.appendLiteral("False") }
        case .bytes: appendBytesLabel(bytes, to: &out)
        case .string(let ref):
            out.append(0x22)
            appendEscapedText(ref, texts, to: &out)
            out.append(0x22)
        case .address(let a): out.appendAddress(a, upperCase: true)
        case .uuid(let u):
            out.appendUUID(u, upperCase: true)
            if let name = valueName {
                out.append(0x20, 0x28)
                out.append(contentsOf: name)
                out.append(0x29)
            }
        case .expert(_, let ref): appendEscapedText(ref, texts, to: &out)
        }
    }

    /// The value as tshark's `-T fields` prints it (`FieldFormatter.fieldText`).
    static func appendFieldText(
        _ value: FieldValue,
        _ f: FieldFacts,
        texts: [String],
        bytes: UnsafeBufferPointer<UInt8>,
        to out: inout TextBuffer
    ) {
        switch value {
        case .none:
            // A group (Wireshark's FT_NONE) is "1" for each occurrence, as tshark shows it.
            if f.kind == .bytes { appendHex(bytes, to: &out) } else if f.kind == .group { out.append(0x31) }
        case .unsigned(let v):
            if f.kind == .boolean {
                out.append(v != 0 ? 0x31 : 0x30)
            } else if f.isTime {
                appendTime(Int64(bitPattern: v), f, to: &out)
            } else if f.base == .hex {
                out.appendPaddedHex(v, bits: Int(f.bits))
            } else {
                out.appendDecimal(v)
            }
        case .signed(let v):
            if f.isTime { appendTime(v, f, to: &out) } else { out.appendDecimal(v) }
        case .real(let v): out.appendReal(v)
        case .boolean(let b): out.append(b ? 0x31 : 0x30)
        case .bytes: appendHex(bytes, to: &out)
        case .string(let ref): appendEscapedText(ref, texts, to: &out)
        case .address(let a): out.appendAddress(a, upperCase: false)
        case .uuid(let u): out.appendUUID(u, upperCase: false)
        case .expert(_, let ref): appendEscapedText(ref, texts, to: &out)
        }
    }

    /// Whether a node has a JSON scalar (`JSONFrame.scalarValue` is not nil).
    @inline(__always)
    static func hasJSONScalar(_ value: FieldValue, _ f: FieldFacts) -> Bool {
        if case .none = value { return f.kind == .bytes }
        return true
    }

    /// A node's JSON scalar; writes nothing when `hasJSONScalar` is false.
    static func appendJSONScalar(
        _ value: FieldValue,
        _ f: FieldFacts,
        texts: [String],
        bytes: UnsafeBufferPointer<UInt8>,
        to out: inout TextBuffer
    ) {
        switch value {
        case .none:
            if f.kind == .bytes {
                out.append(0x22)
                appendHex(bytes, to: &out)
                out.append(0x22)
            }
        case .unsigned(let v):
            if f.kind == .boolean {
                if v != 0 { out.appendLiteral("true") } else { out.appendLiteral("false") }
            } else if f.isTime {
                out.append(0x22)
                appendTime(Int64(bitPattern: v), f, to: &out)
                out.append(0x22)
            } else {
                out.appendDecimal(v)
            }
        case .signed(let v):
            if f.isTime {
                out.append(0x22)
                appendTime(v, f, to: &out)
                out.append(0x22)
            } else {
                out.appendDecimal(v)
            }
        case .real(let v):
            // A JSON number; JSON has no NaN or infinities, so those are the strings the tree
            // shows ("NaN", "inf", "-inf"), which keep the value where null would lose it.
            if v.isFinite {
                out.appendReal(v)
            } else {
                out.append(0x22)
                out.appendReal(v)
                out.append(0x22)
            }
        case .boolean(let b):
            if b { out.appendLiteral("true") } else { out.appendLiteral("false") }
        case .bytes:
            out.append(0x22)
            appendHex(bytes, to: &out)
            out.append(0x22)
        case .string(let ref):
            JSONFrame.appendQuoted(ref, texts, to: &out)
        case .address(let a):
            out.append(0x22)
            out.appendAddress(a, upperCase: false)
            out.append(0x22)
        case .uuid(let u):
            out.append(0x22)
            out.appendUUID(u, upperCase: false)
            out.append(0x22)
        case .expert(let severity, let ref):
            switch severity {
            case .comment: out.appendLiteral("{\"severity\":\"comment\",\"message\":")
            case .note: out.appendLiteral("{\"severity\":\"note\",\"message\":")
            case .warning: out.appendLiteral("{\"severity\":\"warning\",\"message\":")
            case .error: out.appendLiteral("{\"severity\":\"error\",\"message\":")
            }
            JSONFrame.appendQuoted(ref, texts, to: &out)
            out.append(0x7D)
        }
    }
}
