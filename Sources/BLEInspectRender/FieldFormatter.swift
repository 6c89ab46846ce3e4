import BLEAssignedNumbers
public import BLEInspectCore

/// Turns raw field values into text: labels for the tree, tshark-style values for `-T fields`.
///
/// The String functions here are conveniences over `FieldText`, which the renderers use to write
/// the same bytes straight into their output.
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
        bytes: () -> ArraySlice<UInt8>
    ) -> String {
        let facts = FieldFacts(d)
        return Self.string(node.value, facts, bytes) { bytes, out in
            FieldText.appendFieldText(node.value, facts, texts: texts, bytes: bytes, to: &out)
        }
    }

    /// The label shown in the tree: `Name: value (names)`, or `Name: value unit` for a number
    /// shown without a name when the field has a unit (escaped).
    public func label(
        _ node: FieldNode,
        _ d: FieldDescriptor,
        texts: [String],
        bytes: () -> ArraySlice<UInt8>
    ) -> String {
        var name = d.name
        var unit = FieldFacts(d).hasUnit ? TerminalSafeText.escape(d.unit) : ""
        return Self.string(node, d, bytes) { facts, valueName, bytes, out in
            name.withUTF8 { name in
                unit.withUTF8 { unit in
                    FieldText.appendLabel(
                        node.value,
                        facts,
                        name: name,
                        valueName: valueName,
                        unit: unit,
                        texts: texts,
                        bytes: bytes,
                        to: &out
                    )
                }
            }
        }
    }

    /// The value part of a label.
    public func valueText(
        _ node: FieldNode,
        _ d: FieldDescriptor,
        texts: [String],
        bytes: () -> ArraySlice<UInt8>
    ) -> String {
        Self.string(node, d, bytes) { facts, valueName, bytes, out in
            FieldText.appendValueText(node.value, facts, valueName: valueName, texts: texts, bytes: bytes, to: &out)
        }
    }

    /// The name a label shows with a value: an integer's value name, a UUID's SIG name.
    private static func valueName(_ value: FieldValue, _ d: FieldDescriptor, _ facts: FieldFacts) -> String? {
        if case .uuid(let u) = value { return uuidName(u) }
        guard let key = FieldText.nameKey(value, facts) else { return nil }
        return d.valueNames?.lookup(key)
    }

    /// The text `body` writes for a node of field `d`, given the field's facts, the value's name
    /// (`valueName`, nil when it has none) and the node's bytes when showing the value reads them.
    private static func string(
        _ node: FieldNode,
        _ d: FieldDescriptor,
        _ bytes: () -> ArraySlice<UInt8>,
        _ body: (FieldFacts, UnsafeBufferPointer<UInt8>?, UnsafeBufferPointer<UInt8>, inout TextBuffer) -> Void
    ) -> String {
        let facts = FieldFacts(d)
        let valueName = Self.valueName(node.value, d, facts)
        return string(node.value, facts, bytes) { bytes, out in
            withUTF8(of: valueName) { body(facts, $0, bytes, &out) }
        }
    }

    private static func withUTF8(of string: String?, _ body: (UnsafeBufferPointer<UInt8>?) -> Void) {
        guard var string else { return body(nil) }
        string.withUTF8 { body($0) }
    }

    /// The text `body` writes, given the node's bytes when showing `value` reads them (else none).
    private static func string(
        _ value: FieldValue,
        _ facts: FieldFacts,
        _ bytes: () -> ArraySlice<UInt8>,
        _ body: (UnsafeBufferPointer<UInt8>, inout TextBuffer) -> Void
    ) -> String {
        let slice = FieldText.needsBytes(value, facts) ? bytes() : []
        return slice.withUnsafeBufferPointer { bytes in
            var out = TextBuffer()
            body(bytes, &out)
            return out.string
        }
    }

    /// The string `ref` refers to in a tree's `texts`.
    public static func text(_ ref: TextRef, _ texts: [String]) -> String {
        FieldText.text(ref, texts)
    }

    /// A UUID's name: the one in `names` (a registry's `uuidNames`: plugins', modules'), else the
    /// SIG's.
    public static func uuidName(_ u: BluetoothUUID, names: [BluetoothUUID: String]) -> String? {
        names.isEmpty ? uuidName(u) : names[u] ?? uuidName(u)
    }

    /// The SIG name of a UUID, if it has one.
    public static func uuidName(_ u: BluetoothUUID) -> String? {
        if let short = u.uuid16 { return AssignedNumbers.uuid16Name(short) }
        let bytes = [UInt8](unsafeUninitializedCapacity: 16) { p, count in
            for i in 0..<8 {
                p[i] = UInt8(truncatingIfNeeded: u.high >> UInt64(56 - 8 * i))
                p[8 + i] = UInt8(truncatingIfNeeded: u.low >> UInt64(56 - 8 * i))
            }
            count = 16
        }
        return AssignedNumbers.uuid128Name(bytes)
    }

    static func bits(of d: FieldDescriptor) -> Int {
        switch d.kind {
        case .unsigned(let bits), .signed(let bits): return Int(bits)
        default: return 8
        }
    }

    static func epoch(_ nanos: Int64) -> String {
        var out = TextBuffer()
        out.appendSeconds(nanoseconds: nanos)
        return out.string
    }
}

/// Hex text.
public enum Hex {
    /// Contiguous lower-case hex.
    public static func string<C: Collection<UInt8>>(_ bytes: C) -> String {
        var out = TextBuffer(capacity: bytes.count * 2)
        Array(bytes).withUnsafeBufferPointer { out.appendHexString($0) }
        return out.string
    }

    /// `0x` and lower-case hex, zero-padded to the width of a `bits`-bit field.
    public static func padded(_ v: UInt64, bits: Int) -> String {
        var out = TextBuffer()
        out.appendPaddedHex(v, bits: bits)
        return out.string
    }
}
