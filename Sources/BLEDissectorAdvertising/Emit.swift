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
        var octets = slice.remainingSlice
        while let last = octets.last, last == 0 { octets = octets.dropLast() }
        let text = String(decoding: octets, as: UTF8.self)
        tree.add(id, text: text, start..<r.offset, source: r.source)
        return text
    }
}
