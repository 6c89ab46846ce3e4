public import BLEInspectCore

/// Placeholder: registers nothing yet.
public enum L2CAPModule: DissectorModule {
    public static let name = "l2cap"
    public static func register(_ registry: inout RegistryBuilder) {}
}
