import BLEInspectCore

/// Small helpers that read a value and add it as a field in one step, with the bytes it came from.
/// Named `emit…` so that they never clash with helpers the core may add later.
extension DissectionContext {
    @discardableResult
    mutating func emitU8(_ id: FieldID, _ r: inout ByteReader) throws(DecodeError) -> UInt8 {
        let start = r.offset
        let v = try r.readUInt8()
        tree.add(id, .unsigned(UInt64(v)), start..<r.offset, source: r.source)
        return v
    }

    @discardableResult
    mutating func emitI8(_ id: FieldID, _ r: inout ByteReader) throws(DecodeError) -> Int8 {
        let start = r.offset
        let v = try r.readInt8()
        tree.add(id, .signed(Int64(v)), start..<r.offset, source: r.source)
        return v
    }

    @discardableResult
    mutating func emitU16(_ id: FieldID, _ r: inout ByteReader, bigEndian: Bool = false) throws(DecodeError) -> UInt16 {
        let start = r.offset
        let v = bigEndian ? try r.readUInt16BE() : try r.readUInt16()
        tree.add(id, .unsigned(UInt64(v)), start..<r.offset, source: r.source)
        return v
    }

    @discardableResult
    mutating func emitI16(_ id: FieldID, _ r: inout ByteReader, bigEndian: Bool = false) throws(DecodeError) -> Int16 {
        let start = r.offset
        let v = Int16(bitPattern: bigEndian ? try r.readUInt16BE() : try r.readUInt16())
        tree.add(id, .signed(Int64(v)), start..<r.offset, source: r.source)
        return v
    }

    @discardableResult
    mutating func emitU24(_ id: FieldID, _ r: inout ByteReader, bigEndian: Bool = false) throws(DecodeError) -> UInt32 {
        let start = r.offset
        let v = bigEndian ? try r.readUInt24BE() : try r.readUInt24()
        tree.add(id, .unsigned(UInt64(v)), start..<r.offset, source: r.source)
        return v
    }

    @discardableResult
    mutating func emitU32(_ id: FieldID, _ r: inout ByteReader, bigEndian: Bool = false) throws(DecodeError) -> UInt32 {
        let start = r.offset
        let v = bigEndian ? try r.readUInt32BE() : try r.readUInt32()
        tree.add(id, .unsigned(UInt64(v)), start..<r.offset, source: r.source)
        return v
    }

    @discardableResult
    mutating func emitI32(_ id: FieldID, _ r: inout ByteReader) throws(DecodeError) -> Int32 {
        let start = r.offset
        let v = Int32(bitPattern: try r.readUInt32())
        tree.add(id, .signed(Int64(v)), start..<r.offset, source: r.source)
        return v
    }

    /// Adds the next `count` bytes as a bytes field and returns their range.
    @discardableResult
    mutating func emitBytes(_ id: FieldID, _ r: inout ByteReader, _ count: Int) throws(DecodeError) -> Range<Int> {
        let start = r.offset
        try r.skip(count)
        tree.add(id, .bytes, start..<r.offset, source: r.source)
        return start..<r.offset
    }

    /// Adds everything left as a bytes field (nothing when nothing is left).
    mutating func emitRest(_ id: FieldID, _ r: inout ByteReader) {
        guard !r.isAtEnd else { return }
        let start = r.offset
        _ = r.readRest()
        tree.add(id, .bytes, start..<r.offset, source: r.source)
    }

    /// Adds the next `count` bytes as UTF-8 text (stored raw; renderers escape it). Trailing zero
    /// octets, which some devices pad names with, are left out of the value (not of the range);
    /// zero octets inside the text stay.
    @discardableResult
    mutating func emitString(_ id: FieldID, _ r: inout ByteReader, _ count: Int) throws(DecodeError) -> String {
        let start = r.offset
        let slice = try r.readSlice(count)
        var octets = slice.remainingSlice
        while let last = octets.last, last == 0 { octets = octets.dropLast() }
        let text = String(decoding: octets, as: UTF8.self)
        tree.add(id, .string(text), start..<r.offset, source: r.source)
        return text
    }

    @discardableResult
    mutating func emitAddress(_ id: FieldID, _ r: inout ByteReader) throws(DecodeError) -> BDAddr {
        let start = r.offset
        let a = try r.readAddress()
        tree.add(id, .address(a), start..<r.offset, source: r.source)
        return a
    }

    /// Adds the bits of `value` under `mask` (shifted down) as an unsigned field.
    mutating func emitBits(_ id: FieldID, _ value: UInt64, mask: UInt64, _ range: Range<Int>, source: Int) {
        tree.add(id, .unsigned((value & mask) >> UInt64(mask.trailingZeroBitCount)), range, source: source)
    }

    /// Adds whether any bit of `mask` is set in `value` as a boolean field.
    mutating func emitFlag(_ id: FieldID, _ value: UInt64, mask: UInt64, _ range: Range<Int>, source: Int) {
        tree.add(id, .boolean(value & mask != 0), range, source: source)
    }
}

extension ByteReader {
    /// Reads a big-endian 24-bit integer.
    mutating func readUInt24BE() throws(DecodeError) -> UInt32 {
        var copy = self
        let hi = try copy.readUInt16BE()
        let lo = try copy.readUInt8()
        self = copy
        return UInt32(hi) << 8 | UInt32(lo)
    }

    /// Reads a big-endian 32-bit integer.
    mutating func readUInt32BE() throws(DecodeError) -> UInt32 {
        var copy = self
        let hi = try copy.readUInt16BE()
        let lo = try copy.readUInt16BE()
        self = copy
        return UInt32(hi) << 16 | UInt32(lo)
    }

    /// Reads a 128-bit UUID stored most significant byte first (iBeacon, Mesh, RFC 4122 order).
    mutating func readUUIDBigEndian() throws(DecodeError) -> BluetoothUUID {
        var copy = self
        let a = try copy.readUInt32BE()
        let b = try copy.readUInt32BE()
        let c = try copy.readUInt32BE()
        let d = try copy.readUInt32BE()
        self = copy
        return BluetoothUUID(high: UInt64(a) << 32 | UInt64(b), low: UInt64(c) << 32 | UInt64(d), width: 16)
    }

    /// Reads a little-endian 40-bit integer.
    mutating func readUInt40() throws(DecodeError) -> UInt64 {
        try readUnsigned(bytes: 5)
    }
}
