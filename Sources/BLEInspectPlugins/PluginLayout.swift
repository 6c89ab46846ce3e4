import BLEInspectCore

// A plugin's layouts are Core `FieldLayout`s (run by `LayoutRun`), their field ids relative to the
// plugin's first field. The names below are the plugin compiler's words for them.
typealias Layout = FieldLayout
typealias Extent = LayoutExtent
/// Where a referenced integer value is kept while a PDU is decoded.
typealias Slot = Int

/// A JSON text field: its extent and the members shown as fields (a layout's `.custom` value,
/// by index into `CompiledPlugin.json`).
struct JSONValue: Sendable {
    let extent: Extent
    let members: [JSONMember]
}

struct JSONMember: Sendable {
    enum Kind: Sendable { case string, integer, number, boolean }
    let id: Int
    let key: String
    let kind: Kind
    /// An integer member marked as a sequence counter: its index in `CompiledPlugin.counters`.
    var counter: Int? = nil
}

/// How a channel's byte stream is cut into messages before they are decoded.
struct Framing: Sendable {
    enum Mode: Sendable {
        /// Each message ends with `delimiter` (not part of the message).
        case delimiter([UInt8])
        /// Each message starts with its length: `size` bytes, plus `adjust` (for lengths that
        /// count the header or something else).
        case lengthPrefix(size: Int, bigEndian: Bool, adjust: Int)
        /// Each chunk is a message (with its padding dropped).
        case chunks
    }
    let mode: Mode
    /// Fixed-size chunks: after a message, `padding` bytes run to the next multiple of `chunk`.
    let chunk: Int?
    let padding: UInt8?
    let maximumMessage: Int
}
