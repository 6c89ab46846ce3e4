public import BLEInspectCore

/// Placeholder: registers nothing yet.
public enum SMPModule: DissectorModule {
    public static let name = "smp"
    public static func register(_ registry: inout RegistryBuilder) {}
}
