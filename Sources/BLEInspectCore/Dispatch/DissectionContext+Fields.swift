/// Read-and-add helpers: each reads one value through the checked reader and adds it as a field
/// with the bytes it came from, returning the value. Shared by every dissector module.
extension DissectionContext {
    @discardableResult
    @inlinable
    @inline(__always)
    public mutating func addUInt8(_ id: FieldID, _ r: inout ByteReader) throws(DecodeError) -> UInt8 {
        try addUnsigned(id, &r, bigEndian: false)
    }

    @discardableResult
    @inlinable
    @inline(__always)
    public mutating func addUInt16(_ id: FieldID, _ r: inout ByteReader, bigEndian: Bool = false)
        throws(DecodeError) -> UInt16
    {
        try addUnsigned(id, &r, bigEndian: bigEndian)
    }

    @discardableResult
    @inlinable
    @inline(__always)
    public mutating func addUInt24(_ id: FieldID, _ r: inout ByteReader, bigEndian: Bool = false)
        throws(DecodeError) -> UInt32
    {
        try addUnsigned(id, &r, bytes: 3, bigEndian: bigEndian)
    }

    @discardableResult
    @inlinable
    @inline(__always)
    public mutating func addUInt32(_ id: FieldID, _ r: inout ByteReader, bigEndian: Bool = false)
        throws(DecodeError) -> UInt32
    {
        try addUnsigned(id, &r, bigEndian: bigEndian)
    }

    @discardableResult
    @inlinable
    @inline(__always)
    public mutating func addUInt64(_ id: FieldID, _ r: inout ByteReader) throws(DecodeError) -> UInt64 {
        try addUnsigned(id, &r, bigEndian: false)
    }

    /// The one body of `addUInt8` to `addUInt64`: reads an unsigned value of `bytes` bytes (the
    /// width of `T` unless given) in either byte order and adds it. Generic and inlined, so each
    /// caller gets the fixed-width read it names.
    @inlinable
    @inline(__always)
    mutating func addUnsigned<T: FixedWidthInteger & UnsignedInteger>(
        _ id: FieldID,
        _ r: inout ByteReader,
        bytes: Int = T.bitWidth / 8,
        bigEndian: Bool
    ) throws(DecodeError) -> T {
        let start = r.offset
        let v = try r.readUnsigned(bytes: bytes, bigEndian: bigEndian)
        tree.add(id, .unsigned(v), start..<r.offset, source: r.source)
        return T(truncatingIfNeeded: v)
    }

    @discardableResult
    public mutating func addInt8(_ id: FieldID, _ r: inout ByteReader) throws(DecodeError) -> Int8 {
        let start = r.offset
        let v = try r.readInt8()
        tree.add(id, .signed(Int64(v)), start..<r.offset, source: r.source)
        return v
    }

    @discardableResult
    public mutating func addInt16(_ id: FieldID, _ r: inout ByteReader, bigEndian: Bool = false)
        throws(DecodeError) -> Int16
    {
        let start = r.offset
        let v = Int16(bitPattern: bigEndian ? try r.readUInt16BE() : try r.readUInt16())
        tree.add(id, .signed(Int64(v)), start..<r.offset, source: r.source)
        return v
    }

    @discardableResult
    public mutating func addInt32(_ id: FieldID, _ r: inout ByteReader) throws(DecodeError) -> Int32 {
        let start = r.offset
        let v = Int32(bitPattern: try r.readUInt32())
        tree.add(id, .signed(Int64(v)), start..<r.offset, source: r.source)
        return v
    }

    @discardableResult
    public mutating func addAddress(_ id: FieldID, _ r: inout ByteReader) throws(DecodeError) -> BDAddr {
        let start = r.offset
        let v = try r.readAddress()
        tree.add(id, .address(v), start..<r.offset, source: r.source)
        return v
    }

    /// Adds the next `count` bytes as a bytes field and returns their range.
    @discardableResult
    public mutating func addBytes(_ id: FieldID, _ r: inout ByteReader, _ count: Int) throws(DecodeError) -> Range<Int>
    {
        let start = r.offset
        try r.skip(count)
        tree.add(id, .bytes, start..<r.offset, source: r.source)
        return start..<r.offset
    }

    /// Adds everything left as a bytes field (nothing when nothing is left).
    public mutating func addRest(_ id: FieldID, _ r: inout ByteReader) {
        guard !r.isAtEnd else { return }
        let start = r.offset
        _ = r.readRest()
        tree.add(id, .bytes, start..<r.offset, source: r.source)
    }

    /// Adds the bits of `value` under `mask`, shifted down, as an unsigned field.
    public mutating func addBits(_ id: FieldID, _ value: UInt64, mask: UInt64, _ range: Range<Int>, source: Int) {
        tree.add(id, .unsigned((value & mask) >> UInt64(mask.trailingZeroBitCount)), range, source: source)
    }

    /// Adds whether any bit of `mask` is set in `value` as a boolean field.
    @inlinable
    public mutating func addFlag(_ id: FieldID, _ value: UInt64, mask: UInt64, _ range: Range<Int>, source: Int) {
        tree.add(id, .boolean(value & mask != 0), range, source: source)
    }
}
