import BLEInspectCore

/// Walks a whole advertising-data block (advertising data, scan response data, periodic
/// advertising data or EIR data): a sequence of AD structures `[length][type][data]`.
///
/// Each structure goes to `StandardTables.adType` under its AD type, inside its own error
/// boundary, so a bad structure is marked malformed and the walk carries on. A structure whose
/// length runs past the block is shown with what there is and ends the walk with a malformed
/// note; the structures before it stay decoded. A zero length octet ends the significant part:
/// the rest is padding, shown as `btcommon.eir_ad.unused`.
struct ADBlockDissector: Dissector {
    let f: Fields<ADField>
    /// This module's decoder (its `type` set per structure), called directly for the AD types in
    /// `decodes` (the ones it also binds in `StandardTables.adType`).
    let builtIn: ADTypeDissector
    /// Whether `builtIn` decodes each AD type, by type.
    let decodes: [Bool]
    /// The other AD types' decoders (plugins').
    let types: Handoff<UInt8>

    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        guard !reader.isAtEnd else { return }
        let source = reader.source
        let blockEnd = reader.offset + reader.remaining
        // Closed on the normal paths only: after an overrun the engine's malformed note then
        // lands inside this layer.
        context.tree.open(f.layer, .none, reader.offset..<blockEnd, source: source)

        while !reader.isAtEnd {
            let start = reader.offset
            let length = Int(try reader.readUInt8())
            if length == 0 {
                padding(from: start, to: blockEnd, &reader, &context)
                break
            }
            let available = reader.remaining
            guard length <= available else {
                overrun(start: start, length: length, &reader, &context)
                throw DecodeError(
                    .malformed,
                    offset: start,
                    "AD structure length \(length) runs past the end of the data (\(available) octets left)"
                )
            }
            var body = try reader.readSlice(length)
            let type = try body.readUInt8()
            context.tree.open(
                f[.entry],
                text: ADNames.adTypeByCode[Int(type)],
                start..<(start + 1 + length),
                source: source
            )
            context.tree.add(f[.length], .unsigned(UInt64(length)), start..<(start + 1), source: source)
            context.tree.add(f[.type], .unsigned(UInt64(type)), (start + 1)..<(start + 2), source: source)
            if decodes[Int(type)] {
                var decoder = builtIn
                decoder.type = type
                context.run(decoder, &body)
            } else if context.registry.isBound(types, type) {
                context.handOff(types, type, &body)
            } else {
                context.addRest(f[.data], &body)
            }
            context.tree.close()
        }
        context.tree.close()
    }

    /// The non-significant part: all of it is shown as padding; non-zero octets there are noted.
    private func padding(
        from start: Int,
        to end: Int,
        _ reader: inout ByteReader,
        _ context: inout DissectionContext
    ) {
        let rest = reader.readRest()
        context.tree.add(f[.unused], .bytes, start..<end, source: reader.source)
        if rest.withRemainingBytes({ $0.contains { $0 != 0 } }) {
            context.expert(
                .warning,
                "Non-zero octets after a zero AD length: the non-significant part should be all zero",
                start..<end,
                source: reader.source
            )
        }
    }

    /// An AD structure that runs past the block: shows its length, type and the octets there are.
    private func overrun(start: Int, length: Int, _ reader: inout ByteReader, _ context: inout DissectionContext) {
        let source = reader.source
        let end = reader.offset + reader.remaining
        let type = reader.peekUInt8()
        context.tree.open(
            f[.entry],
            text: type.map { ADNames.adTypeByCode[Int($0)] } ?? "Unknown",
            start..<end,
            source: source
        )
        context.tree.add(f[.length], .unsigned(UInt64(length)), start..<(start + 1), source: source)
        if let type {
            context.tree.add(f[.type], .unsigned(UInt64(type)), (start + 1)..<(start + 2), source: source)
            _ = try? reader.skip(1)
            context.addRest(f[.data], &reader)
        }
        context.tree.close()
    }
}
