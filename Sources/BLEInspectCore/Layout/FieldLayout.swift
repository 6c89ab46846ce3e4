/// A declarative field layout: the fields of a structure, in order, read by `LayoutRun`.
///
/// HCI command and event parameters, LL control PDUs and plugin layouts are all written as
/// layouts; each module keeps only its rows. Field ids in a layout are added to the run's `base`
/// (0 for a built-in module; a plugin's first field id for a plugin, whose layouts are compiled
/// before any registry gives it ids).
public final class FieldLayout: Sendable {
    public let items: [LayoutItem]
    /// `items` as the run reads them: plain bits, one per item, so that a plain integer field is
    /// read without copying its item (and retaining what the item holds).
    let steps: [LayoutStep]

    public init(_ items: [LayoutItem]) {
        self.items = items
        steps = items.map(LayoutStep.init)
    }
}

/// One layout item reduced to plain bits: an integer field with no condition and no bits, or
/// reserved bytes; every other item is `.other` and is read from the item itself.
struct LayoutStep: BitwiseCopyable {
    enum Kind: UInt8 {
        case integer
        case skip
        case other
    }

    var kind = Kind.other
    var width = 0
    var signed = false
    var bigEndian = false
    /// The bits shown (all for an unmasked integer).
    var mask = UInt64.max
    var id = FieldID(0)
    /// Where the value is kept for later references; -1: not kept.
    var slot = -1

    init(_ item: LayoutItem) {
        switch item {
        case .skip(let n):
            kind = .skip
            width = n
        case .field(let f) where f.condition == nil && f.bits.isEmpty:
            switch f.value {
            case .integer(let width, let signed, let bigEndian):
                (self.width, self.signed, self.bigEndian) = (width, signed, bigEndian)
            case .masked(let width, let mask):
                (self.width, self.mask) = (width, mask)
            default: return
            }
            kind = .integer
            id = f.id
            slot = f.slot ?? -1
        default: break
        }
    }
}

/// One entry of a layout.
public enum LayoutItem: Sendable {
    case field(LayoutField)
    /// Layouts chosen by the value of an earlier integer field.
    case choice(LayoutChoice)
    /// A layout repeated `count` times, its fields added flat (no group per repetition).
    case repeated(count: LayoutExtent, FieldLayout)
    /// Bytes skipped without a field (reserved bytes).
    case skip(Int)
    /// Bytes handed on as the handoff says.
    case dispatch(KeyedHandoff, LayoutExtent)
}

/// Where a layout finds an integer read earlier: a numbered slot the field stored its value in,
/// or the integer field read just before.
public enum LayoutReference: Sendable, Hashable {
    case slot(Int)
    case previous
}

/// Whether a field is there, from an earlier integer value.
public struct LayoutCondition: Sendable {
    public let reference: LayoutReference
    /// Nil: the value must not be zero. Otherwise: the value must be one of these.
    public let values: [UInt64]?

    public init(_ reference: LayoutReference, values: [UInt64]?) {
        self.reference = reference
        self.values = values
    }
}

public struct LayoutChoice: Sendable {
    public let reference: LayoutReference
    public let cases: [UInt64: FieldLayout]
    public let fallback: FieldLayout?

    public init(_ reference: LayoutReference, cases: [UInt64: FieldLayout], fallback: FieldLayout?) {
        self.reference = reference
        self.cases = cases
        self.fallback = fallback
    }
}

/// One field of an integer split into bits.
public struct LayoutBits: Sendable {
    public let id: FieldID
    public let mask: UInt64
    /// Where the bits' value is kept for later references.
    public let slot: Int?
    /// Shown as true or false (any bit of the mask set) rather than as the bits' value.
    public let flag: Bool
    /// The bytes of the integer the field is shown over; nil: all of them.
    public let bytes: Range<Int>?

    public init(_ id: FieldID, mask: UInt64, slot: Int? = nil, flag: Bool = false, bytes: Range<Int>? = nil) {
        self.id = id
        self.mask = mask
        self.slot = slot
        self.flag = flag
        self.bytes = bytes
    }
}

/// A byte count or element count.
public enum LayoutExtent: Sendable {
    /// Everything left (for a count: until the data ends).
    case rest
    case fixed(Int)
    /// Up to this many bytes: fewer when fewer are left.
    case atMost(Int)
    /// The value of an earlier integer field.
    case value(LayoutReference)
}

/// How an integer field with bits is shown above its bits.
public enum LayoutParent: Sendable {
    /// As its value.
    case value
    /// As bytes.
    case bytes
    /// Not at all: only the bits are added.
    case hidden
}

public indirect enum LayoutValue: Sendable {
    /// An integer of 1 to 8 bytes.
    case integer(width: Int, signed: Bool, bigEndian: Bool)
    /// An unsigned little-endian integer of `width` bytes, shown with only the bits of `mask`
    /// (a connection handle's 12 bits).
    case masked(width: Int, mask: UInt64)
    /// An integer shown as `raw × scale + offset`.
    case scaled(width: Int, signed: Bool, bigEndian: Bool, scale: LayoutScale)
    /// An IEEE 754 float of 4 or 8 bytes.
    case float(width: Int, bigEndian: Bool)
    /// UTF-8 text: `terminated` reads up to a NUL (within the extent); fixed-size text drops its
    /// trailing NULs.
    case text(LayoutExtent, terminated: Bool)
    case bytes(LayoutExtent)
    case uuid(width: Int)
    case address
    /// A group of fields, over `extent` bytes (`.rest`: in place, ending where its last field
    /// does), its node showing `label`.
    case structure(FieldLayout, LayoutExtent, label: LayoutLabel)
    /// Repeated `element`s, each added with the array field's id: `count` of them, or until the
    /// data (or the `length` bytes given to the array) ends; structures are grouped per element,
    /// each labelled with its 1-based index.
    case array(LayoutValue, count: LayoutExtent, length: LayoutExtent?)
    /// A value the run's `LayoutHost` decodes (a plugin's JSON text, an LL channel map).
    case custom(UInt32)
}

/// What a structure's node shows.
public enum LayoutLabel: Sendable {
    case none
    case bytes
}

public struct LayoutField: Sendable {
    public let id: FieldID
    public let value: LayoutValue
    public let condition: LayoutCondition?
    /// Where this field's integer value is kept for later references.
    public let slot: Int?
    public let bits: [LayoutBits]
    /// For an integer with bits: how the integer itself is shown.
    public let parent: LayoutParent

    public init(
        _ id: FieldID,
        _ value: LayoutValue,
        condition: LayoutCondition? = nil,
        slot: Int? = nil,
        bits: [LayoutBits] = [],
        parent: LayoutParent = .value
    ) {
        self.id = id
        self.value = value
        self.condition = condition
        self.slot = slot
        self.bits = bits
        self.parent = parent
    }
}

/// `raw × scale + offset`, worked out once per field. A scale of 1/N (0.01, 0.1) divides by N
/// instead, so that 2345 with scale 0.01 is exactly the double nearest 23.45, as a user's filter
/// `== 23.45` expects.
public struct LayoutScale: Sendable {
    public let factor: Double
    public let divisor: Double?
    public let offset: Double

    public init(scale: Double, offset: Double) {
        let whole = (1 / scale).rounded()
        let isInverse = abs(1 / scale - whole) < 1e-9 * max(1, abs(whole)) && abs(whole) > 1
        factor = scale
        divisor = isInverse ? whole : nil
        self.offset = offset
    }

    @inline(__always)
    public func apply(_ number: Double) -> Double {
        let value = divisor.map { number / $0 } ?? number * factor
        return offset == 0 ? value : value + offset
    }
}

/// Bounds on one run, for layouts that come from outside (plugins): the most nodes it adds, the
/// most elements one array decodes, and the deepest nesting, with what the errors say.
public struct LayoutLimits: Sendable {
    public var nodes = Int.max
    public var nodesMessage = ""
    public var elements = Int.max
    /// Ends the error of an array over the limit: "array declares 2000 elements; " + this.
    public var elementsMessage = ""
    public var depth = Int.max
    public var depthMessage = ""

    public init() {}

    /// No bounds: for the built-in modules' layouts, which are finite and not nested deeply.
    public static let none = LayoutLimits()
}

/// Decodes the `.custom` values of a layout.
public protocol LayoutHost {
    mutating func decode(
        custom tag: UInt32,
        _ id: FieldID,
        _ run: inout LayoutRun,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError)
}

extension LayoutHost {
    /// No custom values: a layout that has one is malformed.
    public func decode(
        custom tag: UInt32,
        _ id: FieldID,
        _ run: inout LayoutRun,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        throw DecodeError(.malformed, offset: r.offset, "a layout value no decoder knows")
    }
}

/// The host of layouts without custom values.
public struct PlainLayout: LayoutHost {
    public init() {}
}
