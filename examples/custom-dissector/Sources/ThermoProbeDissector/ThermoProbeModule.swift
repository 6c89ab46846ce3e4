public import BLEInspectCore

/// A code dissector module outside bleinspect: it registers through the same `RegistryBuilder`
/// as the built-in modules, and a `bleinspect` built with it (`BLEInspectTool.main(modules:)`)
/// decodes, filters and lists its fields like any other.
///
/// It decodes the demo stream that bleinspect's LE credit-based channel recordings
/// (`captures/le-coc.btsnoop`, `captures/le-coc-stall.btsnoop`) carry on PSM 0x0085: the L2CAP
/// module reassembles each SDU and hands it to the dissector bound to its PSM in
/// `StandardTables.l2capPSM`. No built-in module binds that PSM (they bind only ATT's), so the
/// binding cannot clash with theirs.
public enum ThermoProbeModule: DissectorModule {
    /// The owner of the module's fields and bindings, in listings and error messages.
    public static let name = "cocdemo"

    /// The PSM of the demo stream's channel.
    public static let psm: UInt16 = 0x0085

    /// The custom GATT service whose L2CAP PSM characteristic gives the PSM.
    public static let service = BluetoothUUID(high: 0xB1E1_5EC7_0000_4000, low: 0x8000_0000_0000_C0C0, width: 16)

    public static func register(_ registry: inout RegistryBuilder) {
        let fields = registry.register(ThermoProbeField.self)
        // The stream's sequence numbers are followed across SDUs: capture state.
        registry.bind(to: StandardTables.l2capPSM, key: psm, label: "LE CoC demo stream") { scope in
            scope.usesCaptureState()
            return ThermoProbeSDUDissector(f: fields)
        }
        registry.name(service, "CoC Demo Service")
    }
}
