public import BLEInspectCore
public import BLEInspectPlugins

/// The dissector modules one bleinspect process decodes with: the built-in ones plus those a
/// package that builds its own `bleinspect` adds (`BLEInspectTool.main(modules:)`). Built once at
/// start and handed to each command, which makes its `Session` from it; nothing is kept for the
/// whole process.
public struct Toolkit: Sendable {
    /// The names of the modules added to the built-in ones, in the order given.
    public let addedModules: [String]
    /// The modules' registrations, made once (registering them is most of the cost of a
    /// registry); each session adds its plugins and configuration to a copy. Kept instead of the
    /// module types, which Swift cannot send between threads.
    let registered: RegistryBuilder

    /// The built-in modules plus `added` (a module already built in, or given twice, counts once).
    public init(adding added: [any DissectorModule.Type] = []) {
        let modules = Self.modules(adding: added)
        addedModules = modules.dropFirst(StandardModules.builtIn.count).map { $0.name }
        registered = RegistryBuilder.registering(modules: modules)
    }

    /// The built-in modules, then those of `added` not among them, each once.
    public static func modules(adding added: [any DissectorModule.Type]) -> [any DissectorModule.Type] {
        var known = Set(StandardModules.builtIn.map { ObjectIdentifier($0) })
        return StandardModules.builtIn + added.filter { known.insert(ObjectIdentifier($0)).inserted }
    }

    /// The session of one run: the registry of these modules with `plugins` (which take precedence
    /// over the modules' bindings) and `configuration`. Fails only on a programming error (a
    /// duplicate key or field): plugins are checked against each other when they are loaded.
    public func session(
        plugins: PluginCatalog = .empty,
        configuration: RegistryConfiguration = RegistryConfiguration()
    ) throws(RegistryError) -> Session {
        try Session(builder: registered, plugins: plugins, configuration: configuration)
    }

    /// The session, or nil after reporting that the registry does not build (an internal error,
    /// exit status 70).
    public func session(
        plugins: PluginCatalog,
        configuration: RegistryConfiguration = RegistryConfiguration(),
        _ errorOutput: (String) -> Void
    ) -> Session? {
        do throws(RegistryError) {
            return try session(plugins: plugins, configuration: configuration)
        } catch {
            errorOutput("bleinspect: internal error: the dissector registry does not build:\n\(error)")
            return nil
        }
    }

    /// The registry of these modules with `plugins`.
    public func registry(plugins: PluginCatalog = .empty) throws(RegistryError) -> DissectorRegistry {
        try session(plugins: plugins).registry
    }

    /// The protocol names the modules' fields and tables use (`btatt`, `frame`, …), which plugins
    /// may not take as their namespace.
    public var reservedNamespaces: Set<String> {
        // The part before the first dot, found in the UTF-8 bytes (a name is ASCII).
        func namespace(_ name: String) -> String? {
            let end = name.utf8.firstIndex(of: UInt8(ascii: ".")) ?? name.utf8.endIndex
            return end == name.utf8.startIndex ? nil : String(name[..<end])
        }
        var names = Set(registered.fieldNames.compactMap(namespace))
        names.formUnion(registered.tableNames.compactMap { namespace($0.name) })
        names.formUnion(["frame", "data", "_ws", "bleinspect", "plugins", "sequence"])
        return names
    }

    /// Loads the plugins `search` finds, checked against the modules, with a notice for each
    /// binding that replaces a module's decoder without saying so (`override: true`).
    public func loadPlugins(_ search: PluginSearch) -> (catalog: PluginCatalog, notices: [String]) {
        guard !search.explicit.isEmpty || !search.implicit.isEmpty else { return (.empty, []) }
        let catalog = PluginLoader.load(search, reservedNamespaces: reservedNamespaces)
        var notices: [String] = []
        for plugin in catalog.plugins {
            for b in plugin.bindings where !b.overrides {
                guard let builtIn = registered.binding(b.table, b.key) else { continue }
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

/// What one run (a `read`, a `live`, a view) decodes with, built once before its first frame and
/// passed to its runner and views: the registry of the toolkit's modules with the run's plugins
/// and configuration, and the names it gives UUIDs.
public struct Session: Sendable {
    /// The registry of the run's first engine.
    public let registry: DissectorRegistry
    public let plugins: PluginCatalog
    public let configuration: RegistryConfiguration
    /// The registrations `registry` was frozen from, for `makeRegistry()`.
    private let builder: RegistryBuilder

    init(builder: RegistryBuilder, plugins: PluginCatalog, configuration: RegistryConfiguration) throws(RegistryError) {
        self.builder = builder
        self.plugins = plugins
        self.configuration = configuration
        registry = try Self.build(builder, plugins, configuration)
    }

    private static func build(
        _ builder: RegistryBuilder,
        _ plugins: PluginCatalog,
        _ configuration: RegistryConfiguration
    ) throws(RegistryError) -> DissectorRegistry {
        try builder.build(plugins: plugins.registration.map { [$0] } ?? [], configuration: configuration)
    }

    /// A registry of the same fields, bindings and configuration as `registry`, with objects of
    /// its own: for a worker thread, where objects two threads retain and release would cost more
    /// than they share. `registry` itself when it cannot be made (it always can once `registry`
    /// was).
    public func makeRegistry() -> DissectorRegistry {
        (try? Self.build(builder, plugins, configuration)) ?? registry
    }

    /// Names plugins and modules gave UUIDs (the registry's `uuidNames`).
    public var uuidNames: [BluetoothUUID: String] { registry.uuidNames }
}
