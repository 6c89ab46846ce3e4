import BLEInspectCore

/// Small helpers that read a value and add it as a field in one step, with the bytes it came from.
/// Named `emit…` so that they never clash with helpers the core may add later.
extension DissectionContext {
    /// Adds the next `count` bytes as UTF-8 text (stored raw; renderers escape it). Trailing zero
    /// octets, which some devices pad names with, are left out of the value (not of the range);
    /// zero octets inside the text stay.
    @discardableResult
    mutating func emitString(_ id: FieldID, _ r: inout ByteReader, _ count: Int) throws(DecodeError) -> String {
        let start = r.offset
        let slice = try r.readSlice(count)
        let text = slice.withRemainingBytes { octets in
            var end = octets.count
            while end > 0, octets[end - 1] == 0 { end -= 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: octets[..<end]), as: UTF8.self)
        }
        tree.add(id, text: text, start..<r.offset, source: r.source)
        return text
    }
}

/// The bit fields of one value, in the order they are shown. Each field's mask, and whether it is
/// a flag (a `.boolean` field) or a number, is taken once from its descriptor, so that a mask is
/// written in one place only. Build one as a `static let`: never per frame.
struct BitFields<F: FieldSet>: Sendable {
    struct Part: Sendable {
        let field: F
        let mask: UInt64
        let flag: Bool
    }

    let parts: [Part]

    init(_ fields: [F]) {
        parts = fields.map { field in
            let d = field.descriptor
            return Part(field: field, mask: d.bitmask, flag: d.kind == .boolean)
        }
    }
}

extension DissectionContext {
    /// Reads an unsigned value of `bytes` octets and adds its bit fields over those octets: under
    /// a node `parent` that holds the whole value when one is given, else at the current level.
    /// Returns the value.
    @discardableResult
    mutating func emitBits<F: FieldSet>(
        _ bits: BitFields<F>,
        _ f: Fields<F>,
        _ r: inout ByteReader,
        bytes: Int = 1,
        bigEndian: Bool = false,
        under parent: F? = nil
    ) throws(DecodeError) -> UInt64 {
        let start = r.offset
        let v = try r.readUnsigned(bytes: bytes, bigEndian: bigEndian)
        let range = start..<r.offset
        if let parent { tree.open(f[parent], .unsigned(v), range, source: r.source) }
        for part in bits.parts {
            if part.flag {
                addFlag(f[part.field], v, mask: part.mask, range, source: r.source)
            } else {
                addBits(f[part.field], v, mask: part.mask, range, source: r.source)
            }
        }
        if parent != nil { tree.close() }
        return v
    }
}

extension DissectionContext {
    /// Opens the node of a layer that spans every byte left in `r`; the caller closes it.
    mutating func openLayer(_ layer: FieldID, over r: ByteReader) {
        tree.open(layer, .none, r.offset..<(r.offset + r.remaining), source: r.source)
    }
}
