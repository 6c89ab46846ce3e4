/// The type of a field's value.
public enum FieldKind: Sendable, Hashable {
    /// A protocol layer (`btatt`): no value; it holds the layer's fields.
    case layer
    /// An unsigned integer of `bits` bits.
    case unsigned(bits: UInt8)
    /// A signed integer of `bits` bits.
    case signed(bits: UInt8)
    /// A real number (`FieldValue.real`), Wireshark's FT_DOUBLE: a scaled sensor reading such as
    /// a temperature. Shown with up to 15 significant digits, like tshark.
    case real
    /// True or false, usually one bit of a flags field (see `FieldDescriptor.bitmask`).
    case boolean
    /// A run of bytes.
    case bytes
    /// Text (already decoded; untrusted text is escaped by renderers).
    case string
    /// A Bluetooth device address.
    case address
    /// A Bluetooth UUID.
    case uuid
    /// A node that only groups other fields (for example "Report 1").
    case group
    /// A point in time, stored as nanoseconds since the Unix epoch (`FieldValue.signed`). Shown
    /// as epoch seconds, or with `DisplayBase.localTime` as a local date and time.
    case time
    /// A span of time (Wireshark's FT_RELATIVE_TIME), stored as signed nanoseconds
    /// (`FieldValue.signed`): `frame.time_delta`. Shown as seconds with nine decimals.
    case relativeTime
    /// A note about the packet: malformed, a warning, a protocol observation.
    case expert

    public var typeName: String {
        switch self {
        case .layer: "protocol"
        case .unsigned(let bits): "uint\(bits)"
        case .signed(let bits): "int\(bits)"
        case .real: "double"
        case .boolean: "boolean"
        case .bytes: "bytes"
        case .string: "string"
        case .address: "bdaddr"
        case .uuid: "uuid"
        case .group: "none"
        case .time: "time"
        case .relativeTime: "reltime"
        case .expert: "expert"
        }
    }
}

/// How an integer field is shown; for a `.time` field, `.localTime` shows the date and time of
/// day in the local time zone (Wireshark's ABSOLUTE_TIME_LOCAL) and any other base epoch seconds.
public enum DisplayBase: Sendable, Hashable {
    case decimal, hex, decimalAndHex, localTime
}

/// Names for integer values, looked up only when a value is shown or a filter names one.
public struct ValueNames: Sendable {
    public let lookup: @Sendable (UInt64) -> String?
    /// Every (value, name) pair when the set is finite and small enough to list, for filters and `fields`.
    public let all: [(UInt64, String)]

    public init(_ pairs: [(UInt64, String)]) {
        self.init(pairs, filterAliases: [])
    }

    /// `filterAliases` are other names a filter may use for the same values (Wireshark's, where
    /// they differ, so that filters carry over); they are never shown.
    public init(_ pairs: [(UInt64, String)], filterAliases: [(UInt64, String)]) {
        var table: [UInt64: String] = [:]
        for (v, n) in pairs where table[v] == nil { table[v] = n }
        let frozen = table
        lookup = { frozen[$0] }
        all = pairs + filterAliases
    }

    /// Names from a function, for large generated tables (companies, UUIDs).
    public init(lookup: @escaping @Sendable (UInt64) -> String?) {
        self.lookup = lookup
        all = []
    }
}

/// Everything the program knows about one field: its filter name, display name, type, display
/// base, value names and description. Renderers and the filter work only from these.
public struct FieldDescriptor: Sendable {
    /// The filter name, Wireshark's abbreviation where Wireshark has the field: `btatt.opcode`.
    public let abbrev: String
    /// The display name: `Opcode`.
    public let name: String
    public let kind: FieldKind
    public let base: DisplayBase
    public let valueNames: ValueNames?
    /// For flag bits: the bit(s) of the parent value this field shows.
    public let bitmask: UInt64
    public let help: String
    /// The unit shown after the value in the tree (`°C`, `%`, `hPa`, `ms`), empty for none. Shown
    /// for integer and real fields, not in `-T fields` or JSON. May come from a user's plugin:
    /// renderers treat it as untrusted text and escape it.
    public let unit: String
    /// For layers: the short protocol name shown in one-line output (`ATT`, `HCI_EVT`).
    public let short: String

    public init(
        _ abbrev: String,
        _ name: String,
        _ kind: FieldKind,
        base: DisplayBase = .decimal,
        names: ValueNames? = nil,
        bitmask: UInt64 = 0,
        help: String = "",
        unit: String = "",
        short: String = ""
    ) {
        self.short = short
        self.unit = unit
        self.abbrev = abbrev
        self.name = name
        self.kind = kind
        self.base = base
        self.valueNames = names
        self.bitmask = bitmask
        self.help = help
    }
}

/// A registered field's identity: its index in the registry's field catalog.
public struct FieldID: Hashable, Sendable, Comparable, BitwiseCopyable {
    public let rawValue: UInt32
    @inlinable public init(_ raw: UInt32) { rawValue = raw }
    public static func < (a: FieldID, b: FieldID) -> Bool { a.rawValue < b.rawValue }
}

/// One protocol's fields, declared as an enum: each case is a field.
///
/// ```swift
/// enum ATTField: UInt16, FieldSet {
///     case opcode, handle
///     static let layer = FieldDescriptor("btatt", "Bluetooth Attribute Protocol", .layer)
///     var descriptor: FieldDescriptor { switch self { case .opcode: …; case .handle: … } }
/// }
/// ```
public protocol FieldSet: CaseIterable, Hashable, Sendable, RawRepresentable where RawValue == UInt16 {
    /// The layer's own descriptor (kind `.layer`); its abbreviation prefixes every field's.
    static var layer: FieldDescriptor { get }
    var descriptor: FieldDescriptor { get }
}

/// The registry's handle on a registered `FieldSet`: turns cases into field ids.
public struct Fields<F: FieldSet>: Sendable {
    /// The id of the layer node itself.
    public let layer: FieldID
    @usableFromInline let base: UInt32

    public init(layer: FieldID, base: UInt32) {
        self.layer = layer
        self.base = base
    }

    @inlinable
    public subscript(_ field: F) -> FieldID { FieldID(base + UInt32(field.rawValue)) }
}
