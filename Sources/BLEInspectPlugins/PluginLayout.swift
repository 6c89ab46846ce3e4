import BLEInspectCore

/// A compiled layout: the fields of a struct, in order. Field ids are relative to the plugin's
/// first field (`PluginDecoder.base` makes them real).
final class Layout: Sendable {
    let items: [LayoutItem]
    init(_ items: [LayoutItem]) { self.items = items }
}

enum LayoutItem: Sendable {
    case field(LayoutField)
    /// Layouts chosen by the value of an earlier integer field.
    case choice(LayoutChoice)
}

/// Where a referenced integer value is kept while a PDU is decoded.
typealias Slot = Int

struct LayoutCondition: Sendable {
    let slot: Slot
    /// Nil: the value must not be zero. Otherwise: the value must be one of these.
    let values: [UInt64]?

    func holds(_ slots: [UInt64]) -> Bool {
        let v = slot < slots.count ? slots[slot] : 0
        guard let values else { return v != 0 }
        return values.contains(v)
    }
}

struct LayoutChoice: Sendable {
    let slot: Slot
    let cases: [UInt64: Layout]
    let fallback: Layout?
}

struct LayoutBits: Sendable {
    let id: Int
    let mask: UInt64
    let slot: Slot?
    /// A single bit without value names: shown as true or false.
    let flag: Bool
}

/// A byte count: everything left, a fixed number, or the value of an earlier field.
enum Extent: Sendable {
    case rest
    case fixed(Int)
    case slot(Slot)
}

struct JSONMember: Sendable {
    enum Kind: Sendable { case string, integer, number, boolean }
    let id: Int
    let key: String
    let kind: Kind
}

indirect enum LayoutValue: Sendable {
    case integer(width: Int, signed: Bool, bigEndian: Bool)
    case scaled(width: Int, signed: Bool, bigEndian: Bool, scale: Scale)
    case float(width: Int, bigEndian: Bool)
    /// UTF-8 text: `terminated` reads up to a NUL (within the extent); fixed-size text drops its
    /// trailing NULs.
    case text(Extent, terminated: Bool)
    case bytes(Extent)
    case json(Extent, members: [JSONMember])
    case uuid(width: Int)
    case address
    case structure(Layout, Extent)
    /// Repeated `element`s, each added with the array field's id: `count` of them, or until the
    /// data (or the `length` bytes given to the array) ends; structs are grouped per element.
    case array(LayoutValue, count: Extent, length: Extent?)
}

struct LayoutField: Sendable {
    let id: Int
    let value: LayoutValue
    let condition: LayoutCondition?
    /// Where this field's integer value is kept for later references.
    let slot: Slot?
    let bits: [LayoutBits]
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

/// `raw × scale + offset`, worked out once per field. A scale of 1/N (0.01, 0.1) divides by N
/// instead, so that 2345 with scale 0.01 is exactly the double nearest 23.45, as a user's filter
/// `== 23.45` expects.
struct Scale: Sendable {
    let factor: Double
    let divisor: Double?
    let offset: Double

    init(scale: Double, offset: Double) {
        let whole = (1 / scale).rounded()
        let isInverse = abs(1 / scale - whole) < 1e-9 * max(1, abs(whole)) && abs(whole) > 1
        factor = scale
        divisor = isInverse ? whole : nil
        self.offset = offset
    }

    @inline(__always)
    func apply(_ number: Double) -> Double {
        let value = divisor.map { number / $0 } ?? number * factor
        return offset == 0 ? value : value + offset
    }
}
