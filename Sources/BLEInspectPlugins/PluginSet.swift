import BLEInspectCore

/// Every accepted plugin, registered together: each plugin's layer and fields under its own name,
/// the UUID names, and one binding per table key (advertising entries of several plugins for one
/// company share it, told apart by their prefixes).
public struct PluginSet: DissectorPlugin {
    public let plugins: [CompiledPlugin]
    public var name: String { "plugins" }

    public init(_ plugins: [CompiledPlugin]) { self.plugins = plugins }

    public func register(_ registry: inout RegistryBuilder) {
        var grouped: [PluginBinding.Target: [BoundLayout]] = [:]
        var order: [PluginBinding.Target] = []
        // The `sequence.*` fields, once for every plugin, when any declares a counter.
        var sequence: SequenceFields? = nil
        if plugins.contains(where: { SequenceCounter.anySequence($0.counters) }) {
            registry.currentModule = "sequence"
            sequence = SequenceFields(
                base: registry.register(layer: SequenceFields.layer, fields: SequenceFields.descriptors).base
            )
        }
        for plugin in plugins {
            registry.currentModule = plugin.namespace
            let (layer, base) = registry.register(layer: plugin.layer, fields: plugin.fields)
            let registered = RegisteredPlugin(
                compiled: plugin,
                layer: layer,
                base: base,
                sequence: SequenceCounter.anySequence(plugin.counters) ? sequence : nil
            )
            for n in plugin.names { registry.name(n.uuid, n.name) }
            for b in plugin.bindings {
                if grouped[b.target] == nil { order.append(b.target) }
                grouped[b.target, default: []].append(BoundLayout(plugin: registered, binding: b))
            }
        }
        for target in order {
            guard let entries = grouped[target], let first = entries.first else { continue }
            registry.currentModule = first.plugin.compiled.namespace
            let b = first.binding
            let label = b.name.isEmpty ? first.plugin.compiled.title : b.name
            let dissector: any Dissector
            switch (target, b.framing) {
            case (.manufacturer, _), (.serviceData, _):
                let sorted = entries.sorted { $0.binding.prefix.count > $1.binding.prefix.count }
                dissector = PrefixDissector(table: b.table, key: b.key, entries: sorted)
            case (.psm, let framing?):
                dissector = FramedDissector(bound: first, framing: framing)
            case (.attribute, _), (.psm, nil):
                // A value, or an SDU without framing: one message, decoded alone.
                dissector = PlainLayoutDissector(bound: first)
            }
            // Only framing and sequence counters keep state. Other plugins sharing the key
            // (advertising prefixes) add their fields too.
            let others = Set(entries.map(\.plugin.compiled.namespace)).subtracting([first.plugin.compiled.namespace])
            let keepsState = dissector is FramedDissector || entries.contains { !$0.plugin.compiled.counters.isEmpty }
            registry.bind(to: b.table, key: b.key, label: label, coOwners: others.sorted()) { s in
                if keepsState { s.usesCaptureState() }  // each channel's stream, each counter's
                return dissector
            }
        }
    }
}
