public import BLEInspectCore

/// Placeholder: registers nothing yet.
public enum DeviceModule: DissectorModule {
    public static let name = "device"
    public static func register(_ registry: inout RegistryBuilder) {}
}
