import BLEInspectCore

/// A plugin file read and checked: its fields, the names it gives UUIDs, and its bindings, ready
/// to be registered. Independent of any registry, so one compiled plugin serves every engine.
public struct CompiledPlugin: Sendable {
    /// The namespace: every field's name starts with it (`envsense.temperature`).
    public let namespace: String
    /// The display name (the layer's name in trees).
    public let title: String
    public let summary: String
    /// The file it was read from.
    public let file: String
    /// The layer descriptor and the fields, in registration order (ids relative to the first).
    public let layer: FieldDescriptor
    public let fields: [FieldDescriptor]
    public let bindings: [PluginBinding]
    /// UUIDs named by the plugin (services, characteristics, descriptors).
    public let names: [PluginName]
    let slotCount: Int
    let special: SpecialFields
    /// The JSON values of the layouts, by their `.custom` index.
    let json: [JSONValue]
    /// The sequence counters of the layouts, by their `.custom` index without
    /// `SequenceCounter.tag`.
    let counters: [SequenceCounter]
}

/// The fields every plugin has, where it needs them (indexes into `CompiledPlugin.fields`).
struct SpecialFields: Sendable {
    /// Bytes left over after a layout.
    var undecoded = -1
    /// A matched manufacturer- or service-data prefix.
    var prefix = -1
    /// A message cut from a channel's stream (a group holding its fields).
    var message = -1
    /// Bytes waiting for the rest of a message.
    var buffered = -1
}

/// A UUID the plugin names.
public struct PluginName: Sendable {
    public enum Kind: String, Sendable { case service, characteristic, descriptor }
    public let kind: Kind
    public let uuid: BluetoothUUID
    public let name: String
    public let line: Int
    public let column: Int
}

/// What one binding of a plugin decodes.
public struct PluginBinding: Sendable {
    public enum Target: Sendable, Hashable {
        /// A GATT characteristic's or descriptor's value, by UUID.
        case attribute(BluetoothUUID)
        /// Manufacturer-specific advertising data by company identifier.
        case manufacturer(UInt16)
        /// Advertising service data by service UUID.
        case serviceData(BluetoothUUID)
        /// The SDUs of an LE credit-based channel by PSM.
        case psm(UInt16)
    }

    public let target: Target
    /// Bytes the data must start with (advertising only); they are shown, then the layout
    /// decodes what follows.
    public let prefix: [UInt8]
    public let name: String
    public let line: Int
    public let column: Int
    /// The plugin says it means to replace a built-in decoder (no warning then).
    public let overrides: Bool
    let layout: Layout
    let framing: Framing?

    /// The dispatch table and key this binding goes into.
    public var table: TableID {
        switch target {
        case .attribute: StandardTables.gattUUID.id
        case .manufacturer: StandardTables.companyID.id
        case .serviceData: StandardTables.serviceData.id
        case .psm: StandardTables.l2capPSM.id
        }
    }

    public var key: DissectorKey {
        switch target {
        case .attribute(let u), .serviceData(let u): DissectorKey(u)
        case .manufacturer(let c): DissectorKey(c)
        case .psm(let p): DissectorKey(p)
        }
    }

    /// `btl2cap.psm 0x0081`, `bluetooth.uuid 5A1C0001-…`, with the prefix if there is one.
    public var keyDescription: String {
        let prefixText = prefix.isEmpty ? "" : " prefix " + HexText.bytes(prefix)
        let keyText: String
        switch target {
        case .attribute(let u), .serviceData(let u): keyText = u.description
        case .manufacturer(let c): keyText = HexText.prefixed(UInt64(c), digits: 4)
        case .psm(let p): keyText = HexText.prefixed(UInt64(p), digits: 4)
        }
        return "\(table) \(keyText)\(prefixText)"
    }

    /// `delimiter "EOF", chunks of 1024 padded with 0x20` for a framed channel.
    public var framingDescription: String? {
        guard let framing else { return nil }
        var parts: [String] = []
        switch framing.mode {
        case .delimiter(let d): parts.append("delimiter " + HexText.bytes(d))
        case .lengthPrefix(let size, let big, let adjust):
            parts.append(
                "\(size)-byte \(big ? "big" : "little")-endian length"
                    + (adjust == 0 ? "" : " \(adjust > 0 ? "+" : "")\(adjust)")
            )
        case .chunks: parts.append("fixed chunks")
        }
        if let chunk = framing.chunk {
            parts.append("chunks of \(chunk)" + (framing.padding.map { " padded with " + HexText.bytes([$0]) } ?? ""))
        }
        parts.append("messages up to \(framing.maximumMessage) bytes")
        return parts.joined(separator: ", ")
    }

    /// Whether two bindings would both claim some data: same table and key, and one prefix
    /// starts the other.
    func overlaps(_ other: PluginBinding) -> Bool {
        guard target == other.target else { return false }
        let n = min(prefix.count, other.prefix.count)
        return prefix.prefix(n) == other.prefix.prefix(n)
    }
}
