import BLEInspectCore

/// Reading helpers that read a value and add its field in one step.
extension DissectionContext {
    @inline(__always)
    mutating func l2capU8(_ reader: inout ByteReader, _ field: FieldID) throws(DecodeError) -> UInt8 {
        let start = reader.offset
        let v = try reader.readUInt8()
        tree.add(field, .unsigned(UInt64(v)), start..<reader.offset, source: reader.source)
        return v
    }

    @inline(__always)
    mutating func l2capU16(_ reader: inout ByteReader, _ field: FieldID) throws(DecodeError) -> UInt16 {
        let start = reader.offset
        let v = try reader.readUInt16()
        tree.add(field, .unsigned(UInt64(v)), start..<reader.offset, source: reader.source)
        return v
    }

    @inline(__always)
    mutating func l2capU32(_ reader: inout ByteReader, _ field: FieldID) throws(DecodeError) -> UInt32 {
        let start = reader.offset
        let v = try reader.readUInt32()
        tree.add(field, .unsigned(UInt64(v)), start..<reader.offset, source: reader.source)
        return v
    }

    /// Adds the rest of `reader` as a bytes field (nothing when empty).
    @inline(__always)
    mutating func l2capRest(_ reader: inout ByteReader, _ field: FieldID) {
        guard !reader.isAtEnd else { return }
        let start = reader.offset
        let rest = reader.readRest()
        tree.add(field, .bytes, start..<(start + rest.remaining), source: reader.source)
    }
}
