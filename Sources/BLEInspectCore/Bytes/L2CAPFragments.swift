/// One L2CAP PDU being put together from fragments: HCI ACL packets (a start, then
/// continuations) or LE link-layer data PDUs (LLID 2, then LLID 1). The basic L2CAP header's
/// length says when it is whole. Shared by the HCI and link-layer modules, which keep their own
/// tables of these and their own limits.
public struct L2CAPFragments: Sendable {
    /// The largest L2CAP PDU: a 65,535-byte payload and the 4-byte header.
    public static let maximumPDU = 65_535 + 4

    public private(set) var bytes: [UInt8]
    /// The whole PDU's length, header included, once its length field has arrived.
    public private(set) var expected: Int?
    /// The frame of the start fragment.
    public let startFrame: Int
    public private(set) var fragments = 1

    /// The whole PDU's length (header included) from its first bytes, when the length field is
    /// there.
    public static func expectedLength(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= 2 else { return nil }
        return length(low: bytes[bytes.startIndex], high: bytes[bytes.startIndex + 1])
    }

    /// The whole PDU's length from the bytes `reader` has left, without moving it.
    @inlinable
    public static func expectedLength(_ reader: ByteReader) -> Int? {
        guard let low = reader.peekUInt8(), let high = reader.peekUInt8(at: 1) else { return nil }
        return length(low: low, high: high)
    }

    /// The basic header's length field, plus the header.
    @usableFromInline
    static func length(low: UInt8, high: UInt8) -> Int { (Int(high) << 8 | Int(low)) + 4 }

    /// A PDU begun by the start fragment `start`, seen in frame `frame`.
    public init(start: ArraySlice<UInt8>, frame: Int) {
        expected = Self.expectedLength(start)
        // Only the bytes that came: a start fragment's length field is untrusted, and room for
        // 64 KiB per partial PDU would cost memory no table limit counts.
        bytes = Array(start)
        startFrame = frame
    }

    /// Adds a continuation fragment.
    public mutating func append(_ more: ArraySlice<UInt8>) {
        bytes.append(contentsOf: more)
        fragments += 1
        if expected == nil { expected = Self.expectedLength(bytes[...]) }
    }

    /// Whether the bytes reach the length the header gives.
    public var isComplete: Bool { expected.map { bytes.count >= $0 } ?? false }

    /// "27 of 69 bytes", "1 of ? bytes".
    public var progress: String { "\(bytes.count) of \(expected.map(String.init) ?? "?") bytes" }
}
