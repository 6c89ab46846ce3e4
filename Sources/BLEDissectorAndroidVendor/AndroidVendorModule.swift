public import BLEInspectCore

/// Android's vendor-specific HCI events: the event code 0xFF of `StandardTables.hciEvent`, whose
/// first parameter is a sub-event code. It decodes the Bluetooth Quality Report (sub-event 0x58);
/// the others stay vendor data.
public enum AndroidVendorModule: DissectorModule {
    public static let name = "android-vendor"

    public static func register(_ registry: inout RegistryBuilder) {
        let f = registry.register(BQRField.self)
        registry.bind(BQRDissector(f: f), to: StandardTables.hciEvent, key: 0xFF, label: "Vendor-Specific (Android)")
    }
}
