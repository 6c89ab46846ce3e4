public import BLEInspectCore

/// The dissector modules built into bleinspect, in registration order (order does not matter:
/// bindings are resolved after every module has registered): those of `Package.swift`'s
/// `dissectors`, the one list of them, which the DissectorModules build plugin turns into `listed`.
public enum StandardModules {
    /// Computed, not stored: a stored array of metatypes is global state that Swift 6 cannot
    /// prove safe to share between threads.
    public static var builtIn: [any DissectorModule.Type] { listed }

    /// The registry of the built-in modules alone, with no plugins and no configuration (for tests
    /// and tools; a command decodes with its `Session`).
    public static func registry() throws(RegistryError) -> DissectorRegistry {
        try RegistryBuilder.build(modules: builtIn)
    }
}
