import BLEDissectorATT
import BLEDissectorAdvertising
import BLEDissectorDevice
import BLEDissectorHCI
import BLEDissectorL2CAP
import BLEDissectorLinkLayer
import BLEDissectorSMP
public import BLEInspectCore
public import BLEInspectPlugins
import Synchronization

/// The dissector modules of this bleinspect: the built-in ones and the extra ones a package that
/// builds its own `bleinspect` adds (`register(_:)`), in registration order (order does not
/// matter: bindings are resolved after every module has registered).
public enum StandardModules {
    /// The modules built into bleinspect. Computed, not stored: a stored array of metatypes is
    /// global state that Swift 6 cannot prove safe to share between threads.
    public static var builtIn: [any DissectorModule.Type] {
        [
            HCIModule.self, AdvertisingModule.self, L2CAPModule.self, ATTModule.self, SMPModule.self, DeviceModule.self,
            LinkLayerModule.self,
        ]
    }

    /// The built-in modules, then the extra ones: what every registry of the process is built from
    /// (read, live, the views, `fields`, plugin checks and the parallel reader's workers).
    public static var all: [any DissectorModule.Type] { builtIn + extras }

    /// The extra modules registered so far, in registration order.
    public static var extras: [any DissectorModule.Type] { extraModules.withLock { $0.modules } }

    /// Adds code dissector modules to every registry the process builds from now on. Call it once
    /// at start-up, before any command runs (`BLEInspectTool.main(modules:)` does): a registry
    /// built earlier does not change. A module already registered, or built in, is not added
    /// again. A module whose fields, tables or bindings clash with another's makes building the
    /// registry fail (`RegistryError`), which `BLEInspectTool` reports before running a command.
    public static func register(_ modules: [any DissectorModule.Type]) {
        extraModules.withLock { list in
            var known = Set((builtIn + list.modules).map { ObjectIdentifier($0) })
            for module in modules where known.insert(ObjectIdentifier(module)).inserted {
                list.modules.append(module)
                list.registered = nil
            }
        }
    }

    /// The extra modules, behind a lock: written at start-up, read by every registry build, on
    /// any thread.
    private static let extraModules = Mutex(ModuleList())

    /// The registry of the standard modules and `plugins` (which take precedence over the
    /// modules' bindings). Fails only on a programming error (a duplicate key or field), which
    /// the tests catch: plugins are checked against each other when they are loaded.
    public static func registry(plugins: PluginCatalog = .empty) throws(RegistryError) -> DissectorRegistry {
        try registered.build(plugins: plugins.registration.map { [$0] } ?? [])
    }

    /// The modules' registrations, made once per set of modules (registering them is most of the
    /// cost of a registry); each registry adds its plugins to a copy. Registering extra modules
    /// makes it again.
    static var registered: RegistryBuilder {
        extraModules.withLock { list in
            if let made = list.registered { return made }
            let made = RegistryBuilder.registering(modules: builtIn + list.modules)
            list.registered = made
            return made
        }
    }

    /// The protocol names the built-in fields and tables use (`btatt`, `frame`, …), which plugins
    /// may not take as their namespace.
    static func reservedNamespaces(_ builder: RegistryBuilder) -> Set<String> {
        var names = Set(builder.fieldNames.compactMap { $0.split(separator: ".").first.map(String.init) })
        names.formUnion(builder.tableNames.compactMap { $0.name.split(separator: ".").first.map(String.init) })
        names.formUnion(["frame", "data", "_ws", "bleinspect", "plugins"])
        return names
    }

    /// The protocol names plugins may not take as their namespace.
    public static var reservedNamespaceNames: Set<String> { reservedNamespaces(registered) }

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

/// The extra modules' list, as the `Mutex` keeps it. Swift 6 will not move metatypes of a
/// non-`Sendable` protocol into a `Mutex` (`register` fails to compile with a plain array: the
/// caller's modules "risk causing races"). They cannot: a module is a type with no stored state,
/// whose only members are its static `name` and `register(_:)`, and each registry build calls
/// `register` on a builder of its own. The list is set at start-up, before any command runs, and
/// only read and written under the lock.
struct ModuleList: @unchecked Sendable {
    var modules: [any DissectorModule.Type] = []
    /// `RegistryBuilder.registering(modules:)` of the built-in and these modules, once made.
    var registered: RegistryBuilder? = nil
}
