public import BLEInspectCore

/// Placeholder: registers nothing yet.
public enum AdvertisingModule: DissectorModule {
    public static let name = "advertising"
    public static func register(_ registry: inout RegistryBuilder) {}
}
