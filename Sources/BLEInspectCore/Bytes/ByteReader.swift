/// A checked cursor over bytes: every read is bounds-checked and throws `DecodeError` instead of
/// trapping; a failed read does not move the cursor. Bluetooth is little-endian, so that is the
/// default.
///
/// The reader shares its storage (no copy) and remembers which data source it reads (0 for the
/// frame's own bytes, others for reassembled PDUs), so that every field can point back at the
/// bytes it came from.
///
/// Copying a reader counts no reference when it reads a frame the engine is decoding: the engine
/// lends the frame's bytes for the decoding (`init(borrowing:)`), and the many readers each layer
/// makes of them (`readSlice`, `readRest`) are then plain values. A reader made from an array
/// (`init(_:source:)`) keeps a copy of its own.
public struct ByteReader: @unchecked Sendable {
    /// The first byte. Valid while `owner` lives, or, with no owner, as long as the buffer
    /// lent to `init(borrowing:)` (a reader of a frame lives only while the frame is decoded).
    /// Every read is checked against `end` first; `end` never exceeds the bytes there.
    @usableFromInline let base: UnsafePointer<UInt8>
    /// The storage of a reader made from an array; nil for borrowed bytes.
    @usableFromInline let owner: ByteStorage?
    /// Index of the next byte from `base`.
    @usableFromInline var index: Int
    /// One past the last readable index from `base`.
    @usableFromInline let end: Int
    /// The data source this reader reads: 0 for the frame, n for `tree.sources[n - 1]`.
    public let source: Int

    /// A reader of a copy of `bytes`.
    public init(_ bytes: [UInt8], source: Int = 0) {
        let copy = bytes.withUnsafeBufferPointer { ByteStorage.copy($0) }
        owner = copy?.storage
        base = copy?.bytes ?? ByteStorage.none
        index = 0
        end = bytes.count
        self.source = source
    }

    @usableFromInline
    init(base: UnsafePointer<UInt8>, owner: ByteStorage?, index: Int, end: Int, source: Int) {
        self.base = base
        self.owner = owner
        self.index = index
        self.end = end
        self.source = source
    }

    /// A reader of `buffer` that makes no copy and counts no reference: for the engine, which
    /// lends a frame's bytes this way while it decodes the frame. The reader, and every reader
    /// made from it, is valid only as long as `buffer` is.
    init(borrowing buffer: UnsafeBufferPointer<UInt8>, source: Int = 0) {
        self.init(base: buffer.baseAddress ?? ByteStorage.none, owner: nil, index: 0, end: buffer.count, source: source)
    }

    /// Offset of the next byte within its data source.
    @inlinable public var offset: Int { index }
    /// Bytes left.
    @inlinable public var remaining: Int { end - index }
    @inlinable public var isAtEnd: Bool { index >= end }

    /// Checks that `n` bytes are left. Inlined into every read (the hot readers are small once
    /// the throwing path is out of line, in `fail`).
    @inlinable @inline(__always)
    func need(_ n: Int) throws(DecodeError) {
        guard n >= 0, end &- index >= n else { try Self.fail(at: index, need: n, have: end &- index) }
    }

    /// The throwing path of `need`, out of line so that the reads stay small.
    @usableFromInline @inline(never)
    static func fail(at offset: Int, need: Int, have: Int) throws(DecodeError) -> Never {
        throw DecodeError.truncated(at: offset, need: need, have: have)
    }

    /// The byte `at` places ahead, without moving; nil past the end.
    @inlinable
    public func peekUInt8(at ahead: Int = 0) -> UInt8? {
        ahead >= 0 && ahead < end - index ? base[index + ahead] : nil
    }

    @inlinable @inline(__always)
    public mutating func readUInt8() throws(DecodeError) -> UInt8 {
        try need(1)
        defer { index += 1 }
        return base[index]
    }

    @inlinable
    public mutating func readInt8() throws(DecodeError) -> Int8 {
        Int8(bitPattern: try readUInt8())
    }

    @inlinable @inline(__always)
    public mutating func readUInt16() throws(DecodeError) -> UInt16 {
        try need(2)
        defer { index += 2 }
        return UInt16(base[index]) | UInt16(base[index + 1]) << 8
    }

    @inlinable @inline(__always)
    public mutating func readUInt16BE() throws(DecodeError) -> UInt16 {
        try need(2)
        defer { index += 2 }
        return UInt16(base[index]) << 8 | UInt16(base[index + 1])
    }

    @inlinable
    public mutating func readUInt24BE() throws(DecodeError) -> UInt32 {
        try need(3)
        defer { index += 3 }
        return UInt32(base[index]) << 16 | UInt32(base[index + 1]) << 8 | UInt32(base[index + 2])
    }

    @inlinable
    public mutating func readUInt32BE() throws(DecodeError) -> UInt32 {
        try need(4)
        defer { index += 4 }
        return UInt32(base[index]) << 24 | UInt32(base[index + 1]) << 16 | UInt32(base[index + 2]) << 8
            | UInt32(base[index + 3])
    }

    /// Reads a 128-bit UUID stored most significant byte first (iBeacon, Mesh, RFC 4122 order).
    @inlinable
    public mutating func readUUIDBigEndian() throws(DecodeError) -> BluetoothUUID {
        try need(16)
        var hi: UInt64 = 0
        var lo: UInt64 = 0
        for k in 0..<8 { hi = hi << 8 | UInt64(base[index + k]) }
        for k in 8..<16 { lo = lo << 8 | UInt64(base[index + k]) }
        index += 16
        return BluetoothUUID(high: hi, low: lo, width: 16)
    }

    @inlinable @inline(__always)
    public mutating func readUInt24() throws(DecodeError) -> UInt32 {
        try need(3)
        defer { index += 3 }
        return UInt32(base[index]) | UInt32(base[index + 1]) << 8 | UInt32(base[index + 2]) << 16
    }

    @inlinable @inline(__always)
    public mutating func readUInt32() throws(DecodeError) -> UInt32 {
        try need(4)
        defer { index += 4 }
        return UInt32(base[index]) | UInt32(base[index + 1]) << 8 | UInt32(base[index + 2]) << 16
            | UInt32(base[index + 3]) << 24
    }

    @inlinable
    public mutating func readUInt64() throws(DecodeError) -> UInt64 {
        let lo = try readUInt32()
        let hi = try readUInt32()
        return UInt64(hi) << 32 | UInt64(lo)
    }

    /// Reads a little-endian unsigned integer of `count` bytes (1...8).
    @inlinable
    public mutating func readUnsigned(bytes count: Int) throws(DecodeError) -> UInt64 {
        // The common widths without the loop (a constant count folds to one read).
        switch count {
        case 1: return UInt64(try readUInt8())
        case 2: return UInt64(try readUInt16())
        case 4: return UInt64(try readUInt32())
        case 8: return try readUInt64()
        default: break
        }
        precondition(count >= 1 && count <= 8)
        try need(count)
        var v: UInt64 = 0
        for k in 0..<count { v |= UInt64(base[index + k]) << (8 * UInt64(k)) }
        index += count
        return v
    }

    /// Reads an unsigned integer of `count` bytes (1...8) in either byte order.
    @inlinable
    public mutating func readUnsigned(bytes count: Int, bigEndian: Bool) throws(DecodeError) -> UInt64 {
        guard bigEndian else { return try readUnsigned(bytes: count) }
        switch count {
        case 1: return UInt64(try readUInt8())
        case 2: return UInt64(try readUInt16BE())
        case 4: return UInt64(try readUInt32BE())
        default: break
        }
        precondition(count >= 1 && count <= 8)
        try need(count)
        var v: UInt64 = 0
        for k in 0..<count { v = v << 8 | UInt64(base[index + k]) }
        index += count
        return v
    }

    /// Reads a 6-byte Bluetooth device address (little-endian on the wire).
    @inlinable
    public mutating func readAddress() throws(DecodeError) -> BDAddr {
        BDAddr(rawValue: try readUnsigned(bytes: 6))
    }

    /// Reads a 16-, 32- or 128-bit little-endian UUID.
    @inlinable
    public mutating func readUUID(bytes count: Int) throws(DecodeError) -> BluetoothUUID {
        switch count {
        case 2: return BluetoothUUID(uuid16: try readUInt16())
        case 4: return BluetoothUUID(uuid32: try readUInt32())
        case 16:
            let lo = try readUInt64()
            let hi = try readUInt64()
            return BluetoothUUID(high: hi, low: lo, width: 16)
        default:
            throw DecodeError(.malformed, offset: index, "a UUID is 2, 4 or 16 bytes, not \(count)")
        }
    }

    /// Copies the next `count` bytes.
    @inlinable
    public mutating func readBytes(_ count: Int) throws(DecodeError) -> [UInt8] {
        try need(count)
        defer { index += count }
        return Array(UnsafeBufferPointer(start: base + index, count: count))
    }

    /// A reader over the next `count` bytes (shares storage); this reader moves past them.
    @inlinable @inline(__always)
    public mutating func readSlice(_ count: Int) throws(DecodeError) -> ByteReader {
        try need(count)
        defer { index += count }
        return ByteReader(base: base, owner: owner, index: index, end: index + count, source: source)
    }

    /// A reader over everything left; this reader ends up at its end.
    @inlinable @inline(__always)
    public mutating func readRest() -> ByteReader {
        defer { index = end }
        return ByteReader(base: base, owner: owner, index: index, end: end, source: source)
    }

    @inlinable @inline(__always)
    public mutating func skip(_ count: Int) throws(DecodeError) {
        try need(count)
        index += count
    }

    /// The bytes left, copied, without moving.
    @inlinable
    public var remainingBytes: [UInt8] { Array(UnsafeBufferPointer(start: base + index, count: end - index)) }

    /// The bytes left, copied, without moving; the slice's indices are offsets in the data
    /// source, as `offset` is. (`withRemainingBytes` makes no copy.)
    @inlinable
    public var remainingSlice: ArraySlice<UInt8> { Array(UnsafeBufferPointer(start: base, count: end))[index..<end] }

    /// Runs `body` with the bytes left, without copying or moving; the buffer (indexed from 0) is
    /// valid only during the call.
    @inlinable
    public func withRemainingBytes<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try body(UnsafeBufferPointer(start: base + index, count: end - index))
    }

    /// The range `start ..< offset` (used to give a field the bytes read since `start`).
    @inlinable
    public func range(from start: Int) -> Range<Int> { start..<index }

    /// Throws `.malformed` when bytes are left over after a fixed-size PDU.
    @inlinable
    public func expectEnd(_ what: @autoclosure () -> String = "PDU") throws(DecodeError) {
        guard index == end else {
            throw DecodeError(
                .malformed,
                offset: index,
                "\(end - index) unexpected byte\(end - index == 1 ? "" : "s") after the \(what())"
            )
        }
    }
}

/// The bytes of a reader made from an array: a copy in memory of their own, in the same
/// allocation as the object (its tail), freed with the last reader that shares them.
@usableFromInline
final class ByteStorage: ManagedBuffer<Int, UInt8>, @unchecked Sendable {
    /// A copy of `source` and where its bytes start (valid while the storage lives: they are the
    /// object's own tail, which never moves); nil for no bytes.
    static func copy(_ source: UnsafeBufferPointer<UInt8>) -> (storage: ByteStorage, bytes: UnsafePointer<UInt8>)? {
        guard let from = source.baseAddress, !source.isEmpty else { return nil }
        let storage = unsafeDowncast(create(minimumCapacity: source.count) { _ in source.count }, to: ByteStorage.self)
        let bytes = storage.withUnsafeMutablePointerToElements { elements in
            elements.initialize(from: from, count: source.count)
            return UnsafePointer(elements)
        }
        return (storage, bytes)
    }

    /// Where a reader of no bytes points: it never reads there (every read is checked against its
    /// end, 0).
    nonisolated(unsafe) static let none: UnsafePointer<UInt8> = {
        let byte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        byte.initialize(to: 0)
        return UnsafePointer(byte)
    }()
}
