/// A string kept beside a frame's tree (`ProtocolTree.text(_:)`), so that `FieldValue` and
/// `FieldNode` stay plain bits: adding, copying and clearing nodes never retains or releases.
public struct TextRef: Hashable, Sendable, BitwiseCopyable {
    public let index: UInt32
    @inlinable
    public init(index: UInt32) { self.index = index }
}

/// A decoded value, stored raw: names and labels are made only when something is shown.
/// Plain bits (no references): strings live in the tree's text table.
///
/// Equality and hashing are the synthesized ones, so `.real` compares as `Double` does: `-0.0`
/// equals `0.0`, and a NaN equals nothing, not even itself (as in the display filter).
public enum FieldValue: Sendable, Hashable, BitwiseCopyable {
    case none
    case unsigned(UInt64)
    case signed(Int64)
    /// A real number, for fields of kind `.real` (a raw value with a scale applied, say).
    case real(Double)
    case boolean(Bool)
    /// The field's bytes are its range in its data source.
    case bytes
    /// Text that is not a byte range of the data (a name, a note); see `ProtocolTree.text(_:)`.
    case string(TextRef)
    case address(BDAddr)
    case uuid(BluetoothUUID)
    /// Expert note: severity and text.
    case expert(ExpertSeverity, TextRef)

    public var unsignedValue: UInt64? {
        switch self {
        case .unsigned(let v): v
        case .signed(let v): UInt64(bitPattern: v)
        case .boolean(let b): b ? 1 : 0
        default: nil
        }
    }
}

/// How serious an expert note is.
public enum ExpertSeverity: UInt8, Sendable, Hashable, Comparable, CustomStringConvertible, BitwiseCopyable {
    case comment, note, warning, error

    public static func < (a: ExpertSeverity, b: ExpertSeverity) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .comment: "comment"
        case .note: "note"
        case .warning: "warning"
        case .error: "error"
        }
    }
}
