public import BLEInspectCore

/// Placeholder: registers nothing yet.
public enum HCIModule: DissectorModule {
    public static let name = "hci"
    public static func register(_ registry: inout RegistryBuilder) {}
}
