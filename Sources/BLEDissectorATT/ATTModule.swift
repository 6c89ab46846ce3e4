public import BLEInspectCore

/// Placeholder: registers nothing yet.
public enum ATTModule: DissectorModule {
    public static let name = "att"
    public static func register(_ registry: inout RegistryBuilder) {}
}
