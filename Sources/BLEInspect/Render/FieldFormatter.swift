import BLEAssignedNumbers
public import BLEInspectCore

/// Turns raw field values into text: labels for the tree, tshark-style values for `-T fields`.
public struct FieldFormatter: Sendable {
    public let registry: DissectorRegistry

    public init(registry: DissectorRegistry) {
        self.registry = registry
    }

    /// The bytes a node points at.
    public static func bytes(of node: FieldNode, frame: CapturedFrame, tree: borrowing ProtocolTree) -> ArraySlice<
        UInt8
    > {
        let data = node.source == 0 ? frame.bytes : tree.bytes(of: node.source, frameBytes: frame.bytes)
        let range = node.range.clamped(to: 0..<data.count)
        return data[range]
    }

    /// The value as tshark's `-T fields` prints it: hex integers as `0x…` padded to the field's
    /// width, booleans as 1/0, bytes as contiguous lower-case hex, addresses lower-case.
    public func fieldText(
        _ node: FieldNode,
        _ d: FieldDescriptor,
        texts: [String],
        bytes: () -> ArraySlice<UInt8>) -> String {
        switch node.value {
        case .none:
            return d.kind == .bytes ? Hex.string(bytes()) : ""
        case .unsigned(let v):
            if d.kind == .boolean { return v != 0 ? "1" : "0" }
            if case .time = d.kind { return Self.epoch(Int64(bitPattern: v)) }
            switch d.base {
            case .hex: return Hex.padded(v, bits: Self.bits(of: d))
            case .decimal, .decimalAndHex: return String(v)
            }
        case .signed(let v):
            if case .time = d.kind { return Self.epoch(v) }
            return String(v)
        case .boolean(let b): return b ? "1" : "0"
        case .bytes: return Hex.string(bytes())
        case .string(let ref): return TerminalSafeText.escape(Self.text(ref, texts))
        case .address(let a): return a.description.lowercased()
        case .uuid(let u): return u.description.lowercased()
        case .expert(_, let ref): return TerminalSafeText.escape(Self.text(ref, texts))
        }
    }

    /// The label shown in the tree: `Name: value (names)`.
    public func label(
        _ node: FieldNode,
        _ d: FieldDescriptor,
        texts: [String],
        bytes: () -> ArraySlice<UInt8>) -> String {
        switch d.kind {
        case .layer, .group:
            if case .string(let ref) = node.value { return "\(d.name): \(TerminalSafeText.escape(Self.text(ref, texts)))" }
            if case .unsigned(let v) = node.value { return "\(d.name) \(v)" }
            return d.name
        case .expert:
            if case .expert(let severity, let ref) = node.value {
                let message = Self.text(ref, texts)
                let word = severity.description
                return "[\(word.prefix(1).uppercased() + word.dropFirst())] \(TerminalSafeText.escape(message))"
            }
            return d.name
        default:
            return "\(d.name): \(valueText(node, d, texts: texts, bytes: bytes))"
        }
    }

    /// The value part of a label.
    public func valueText(
        _ node: FieldNode,
        _ d: FieldDescriptor,
        texts: [String],
        bytes: () -> ArraySlice<UInt8>) -> String {
        switch node.value {
        case .none:
            return d.kind == .bytes ? Self.bytesLabel(bytes()) : ""
        case .unsigned(let v):
            if d.kind == .boolean { return v != 0 ? "True" : "False" }
            if case .time = d.kind { return Self.epoch(Int64(bitPattern: v)) }
            let number: String
            switch d.base {
            case .hex: number = Hex.padded(v, bits: Self.bits(of: d))
            case .decimal: number = String(v)
            case .decimalAndHex: number = "\(v) (\(Hex.padded(v, bits: Self.bits(of: d))))"
            }
            if let name = d.valueNames?.lookup(v) {
                return d.base == .decimal ? "\(name) (\(v))" : "\(name) (\(Hex.padded(v, bits: Self.bits(of: d))))"
            }
            return number
        case .signed(let v):
            if case .time = d.kind { return Self.epoch(v) }
            if let name = d.valueNames?.lookup(UInt64(bitPattern: v)) { return "\(name) (\(v))" }
            return String(v)
        case .boolean(let b): return b ? "True" : "False"
        case .bytes: return Self.bytesLabel(bytes())
        case .string(let ref): return "\"\(TerminalSafeText.escape(Self.text(ref, texts)))\""
        case .address(let a): return a.description
        case .uuid(let u):
            if let name = Self.uuidName(u) { return "\(u.description) (\(name))" }
            return u.description
        case .expert(_, let ref): return TerminalSafeText.escape(Self.text(ref, texts))
        }
    }

    /// The string `ref` refers to in a tree's `texts`.
    public static func text(_ ref: TextRef, _ texts: [String]) -> String {
        Int(ref.index) < texts.count ? texts[Int(ref.index)] : ""
    }

    /// The SIG name of a UUID, if it has one.
    public static func uuidName(_ u: BluetoothUUID) -> String? {
        if let short = u.uuid16 { return AssignedNumbers.uuid16Name(short) }
        return AssignedNumbers.uuid128Name(u.bigEndianBytes)
    }

    static func bytesLabel(_ b: ArraySlice<UInt8>) -> String {
        b.isEmpty ? "<empty>" : Hex.string(b)
    }

    static func bits(of d: FieldDescriptor) -> Int {
        switch d.kind {
        case .unsigned(let bits), .signed(let bits): return Int(bits)
        default: return 8
        }
    }

    static func epoch(_ nanos: Int64) -> String {
        var s = nanos / 1_000_000_000
        var f = nanos % 1_000_000_000
        if f < 0 {
            f += 1_000_000_000
            s -= 1
        }
        let frac = String(f)
        return "\(s)." + String(repeating: "0", count: 9 - frac.count) + frac
    }
}

/// Hex text.
public enum Hex {
    static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Contiguous lower-case hex.
    public static func string<C: Collection<UInt8>>(_ bytes: C) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `0x` and lower-case hex, zero-padded to the width of a `bits`-bit field.
    public static func padded(_ v: UInt64, bits: Int) -> String {
        let digitsWanted = max(1, (bits + 3) / 4)
        let s = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, digitsWanted - s.count)) + s
    }
}
