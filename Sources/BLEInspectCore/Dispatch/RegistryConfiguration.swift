/// Settings a run gives its registry when it builds it (the command line's `--overflow-uuid`, for
/// example), which dissectors read from `DissectionContext.registry` while they decode. A module
/// declares its own keys; a value not set reads as the key's default.
///
/// ```swift
/// var configuration = RegistryConfiguration()
/// configuration[AdvertisingModule.overflowUUIDs] = [.init(uuid: service, name: "My service")]
/// let registry = try RegistryBuilder.registering(modules: modules).build(configuration: configuration)
/// ```
public struct RegistryConfiguration: Sendable {
    /// A setting: its unique name (the module's name first, `advertising.overflow_uuids`) and the
    /// value it has when not set.
    public struct Key<Value: Sendable>: Sendable {
        public let name: String
        public let defaultValue: Value

        public init(_ name: String, default defaultValue: Value) {
            self.name = name
            self.defaultValue = defaultValue
        }
    }

    private var values: [String: any Sendable] = [:]

    public init() {}

    /// The value set for `key`, else its default.
    public subscript<Value: Sendable>(key: Key<Value>) -> Value {
        get { values[key.name] as? Value ?? key.defaultValue }
        set { values[key.name] = newValue }
    }
}
