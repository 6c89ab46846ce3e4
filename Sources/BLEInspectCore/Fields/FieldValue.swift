/// A decoded value, stored raw: names and labels are made only when something is shown.
public enum FieldValue: Sendable, Hashable {
    case none
    case unsigned(UInt64)
    case signed(Int64)
    case boolean(Bool)
    /// The field's bytes are its range in its data source.
    case bytes
    case string(String)
    case address(BDAddr)
    case uuid(BluetoothUUID)
    /// Expert note: severity and text.
    case expert(ExpertSeverity, String)

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
public enum ExpertSeverity: UInt8, Sendable, Hashable, Comparable, CustomStringConvertible {
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
