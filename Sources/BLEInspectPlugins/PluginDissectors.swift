import BLEInspectCore

/// A compiled plugin with the field ids one registry gave it.
struct RegisteredPlugin: Sendable {
    let compiled: CompiledPlugin
    let layer: FieldID
    let base: UInt32
    /// The `sequence.*` fields, when the plugin declares counters.
    let sequence: SequenceFields?

    func id(_ relative: Int) -> FieldID { FieldID(base &+ UInt32(truncatingIfNeeded: relative)) }

    /// Opens the plugin's layer, labelled with the binding's name when it has one.
    func openLayer(_ binding: PluginBinding, _ range: Range<Int>, source: Int, _ c: inout DissectionContext) {
        if binding.name.isEmpty {
            c.tree.open(layer, .none, range, source: source)
        } else {
            c.tree.open(layer, text: binding.name, range, source: source)
        }
    }
}

/// One plugin binding's layout, as registered.
struct BoundLayout: Sendable {
    let plugin: RegisteredPlugin
    let binding: PluginBinding

    /// Opens the plugin's layer over what `r` has left, decodes the layout, closes the layer.
    func decodeInLayer(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        let range = r.offset..<(r.offset + r.remaining)
        plugin.openLayer(binding, range, source: r.source, &c)
        defer { c.tree.close() }
        var run = PluginRun(plugin, binding.target)
        if !binding.prefix.isEmpty, plugin.compiled.special.prefix >= 0 {
            try c.addBytes(plugin.id(plugin.compiled.special.prefix), &r, binding.prefix.count)
        }
        try run.decodeAll(binding.layout, &r, &c)
    }
}

/// A GATT characteristic's or descriptor's value, and an SDU of a channel without framing.
struct PlainLayoutDissector: Dissector {
    let bound: BoundLayout

    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        try bound.decodeInLayer(&reader, &context)
    }
}

/// Advertising data for one company or service UUID: the first plugin entry whose prefix the
/// data starts with decodes it (longest prefixes first); with none, the built-in decoder the
/// plugins replaced runs, if there was one.
struct PrefixDissector: Dissector {
    let table: TableID
    let key: DissectorKey
    let entries: [BoundLayout]

    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let data = reader.remainingSlice
        for entry in entries where data.starts(with: entry.binding.prefix) {
            try entry.decodeInLayer(&reader, &context)
            return
        }
        if let shadowed = context.registry.binding(table, key)?.shadowed {
            context.run(shadowed.dissector, &reader)
        }
    }
}

/// A channel's SDUs, cut into messages by the binding's framing, each message decoded.
struct FramedDissector: Dissector {
    let bound: BoundLayout
    let framing: Framing
    /// The name of the data source a message is decoded from.
    let sourceName: String

    init(bound: BoundLayout, framing: Framing) {
        self.bound = bound
        self.framing = framing
        sourceName = "\(bound.binding.name.isEmpty ? bound.plugin.compiled.title : bound.binding.name) message"
    }

    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        let plugin = bound.plugin
        let special = plugin.compiled.special
        let range = reader.offset..<(reader.offset + reader.remaining)
        let source = reader.source
        plugin.openLayer(bound.binding, range, source: source, &context)
        defer { context.tree.close() }
        let sdu = reader.readRest().remainingSlice
        let streams = context.state.module(PluginStreams.self) { PluginStreams() }
        let key = PluginStreams.Key(
            connection: context.packet.connection ?? ConnectionKey(controller: context.controller, handle: 0xFFFF),
            cid: context.packet.cid ?? 0,
            direction: context.direction.rawValue,
            psm: context.packet.psm ?? 0
        )
        let result = streams.feed(sdu, key: key, framing: framing)
        for note in result.notes {
            context.expert(note.severity, note.message, range, source: source)
        }
        // One run for the SDU: the per-PDU field limit covers all the messages it completes.
        var run = PluginRun(plugin, bound.binding.target)
        for (n, message) in result.messages.enumerated() {
            let messageSource = context.tree.addSource(message, name: sourceName)
            context.tree.open(
                plugin.id(special.message),
                .unsigned(UInt64(n + 1)),
                0..<message.count,
                source: messageSource
            )
            var r = ByteReader(message, source: messageSource)
            run.resetSlots()
            let depth = context.tree.depth
            do {
                try run.decodeAll(bound.binding.layout, &r, &context)
            } catch {
                context.tree.restoreDepth(depth)
                context.malformed(error, r)
            }
            context.tree.close()
        }
        if result.buffered > 0 {
            context.tree.add(plugin.id(special.buffered), .unsigned(UInt64(result.buffered)), range, source: source)
        }
        if !result.messages.isEmpty {
            context.appendInfo(
                "\(bound.binding.name.isEmpty ? plugin.compiled.title : bound.binding.name): \(result.messages.count) message\(result.messages.count == 1 ? "" : "s")"
            )
        }
    }
}
