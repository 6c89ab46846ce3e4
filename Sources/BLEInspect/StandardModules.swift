import BLEDissectorATT
import BLEDissectorAdvertising
import BLEDissectorDevice
import BLEDissectorHCI
import BLEDissectorL2CAP
import BLEDissectorSMP
public import BLEInspectCore
public import BLEInspectPlugins

/// The dissector modules built into bleinspect, in registration order (order does not matter:
/// bindings are resolved after every module has registered).
public enum StandardModules {
    /// Computed, not stored: a stored array of metatypes is global state that Swift 6 cannot prove
    /// safe to share between threads.
    public static var all: [any DissectorModule.Type] {
        [HCIModule.self, AdvertisingModule.self, L2CAPModule.self, ATTModule.self, SMPModule.self, DeviceModule.self]
    }

    /// The registry of the standard modules and `plugins` (which take precedence over the
    /// modules' bindings). Fails only on a programming error (a duplicate key or field), which
    /// the tests catch: plugins are checked against each other when they are loaded.
    public static func registry(plugins: PluginCatalog = .empty) throws(RegistryError) -> DissectorRegistry {
        try registered.build(plugins: plugins.registration.map { [$0] } ?? [])
    }

    /// The modules registered once per process (registering them is most of the cost of a
    /// registry); each registry adds its plugins to a copy.
    static let registered = RegistryBuilder.registering(modules: all)

    /// The protocol names the built-in fields and tables use (`btatt`, `frame`, …), which plugins
    /// may not take as their namespace.
    static func reservedNamespaces(_ builder: RegistryBuilder) -> Set<String> {
        var names = Set(builder.fieldNames.compactMap { $0.split(separator: ".").first.map(String.init) })
        names.formUnion(builder.tableNames.compactMap { $0.name.split(separator: ".").first.map(String.init) })
        names.formUnion(["frame", "data", "_ws", "bleinspect", "plugins"])
        return names
    }

    /// Loads the plugins `search` finds, checked against the built-in modules, with a notice for
    /// each binding that replaces a built-in decoder without saying so (`override: true`).
    public static func loadPlugins(_ search: PluginSearch) -> (catalog: PluginCatalog, notices: [String]) {
        guard !search.explicit.isEmpty || !search.implicit.isEmpty else { return (.empty, []) }
        let base = registered
        let catalog = PluginLoader.load(search, reservedNamespaces: reservedNamespaces(base))
        var notices: [String] = []
        for plugin in catalog.plugins {
            for b in plugin.bindings where !b.overrides {
                guard let builtIn = base.binding(b.table, b.key) else { continue }
                let what = builtIn.label.isEmpty ? builtIn.owner : "\(builtIn.owner): \(builtIn.label)"
                let rest =
                    b.prefix.isEmpty ? "" : "; data without the prefix still goes to the built-in decoder"
                notices.append(
                    "\(plugin.file):\(b.line):\(b.column): note: plugin '\(plugin.namespace)' replaces the built-in decoder of \(b.keyDescription) (\(what))\(rest); add 'override: true' to say this is meant"
                )
            }
        }
        return (catalog, notices)
    }
}
