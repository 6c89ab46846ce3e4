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
        for plugin in plugins {
            registry.currentModule = plugin.namespace
            let (layer, base) = registry.register(layer: plugin.layer, fields: plugin.fields)
            let registered = RegisteredPlugin(compiled: plugin, layer: layer, base: base)
            for n in plugin.names { registry.name(n.uuid, n.name) }
            for b in plugin.bindings {
                if grouped[b.target] == nil { order.append(b.target) }
                grouped[b.target, default: []].append(BoundLayout(plugin: registered, binding: b))
            }
        }
        for target in order {
            guard let entries = grouped[target], let first = entries.first else { continue }
            registry.currentModule = first.plugin.compiled.namespace
            let owners = Set(entries.map(\.plugin.compiled.namespace))
            let b = first.binding
            let label = b.name.isEmpty ? first.plugin.compiled.title : b.name
            switch target {
            case .manufacturer, .serviceData:
                let sorted = entries.sorted { $0.binding.prefix.count > $1.binding.prefix.count }
                registry.bind(
                    PrefixDissector(table: b.table, key: b.key, entries: sorted),
                    to: b.table,
                    key: b.key,
                    label: label,
                    keepsNoState: owners.count == 1
                )
            case .psm where b.framing != nil:
                if let framing = b.framing {
                    registry.bind(
                        FramedDissector(bound: first, framing: framing),
                        to: b.table,
                        key: b.key,
                        label: label
                    )
                }
            case .attribute, .psm:
                // A value, or an SDU without framing: one message, decoded alone.
                registry.bind(
                    PlainLayoutDissector(bound: first),
                    to: b.table,
                    key: b.key,
                    label: label,
                    keepsNoState: true
                )
            }
        }
    }
}
