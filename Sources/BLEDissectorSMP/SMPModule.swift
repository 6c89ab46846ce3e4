public import BLEInspectCore

/// The Security Manager Protocol on L2CAP fixed channels 6 (LE) and 7 (BR/EDR): the opcode, then
/// one decoder per opcode in `StandardTables.smpOpcode`. Per connection (a
/// `ConnectionScopedState`), the Pairing Request is kept until its Pairing Response, which then
/// shows the pairing method, Secure Connections and the key size the two select.
public enum SMPModule: DissectorModule {
    public static let name = "smp"

    public static func register(_ registry: inout RegistryBuilder) {
        let f = registry.register(SMPField.self)
        let smp = SMPDissector(f: f)
        registry.bind(smp, to: StandardTables.l2capCID, key: DissectorKey(0x0006), label: "SMP")
        registry.bind(smp, to: StandardTables.l2capCID, key: DissectorKey(0x0007), label: "SMP (BR/EDR)")
        registry.declareOpcodes(SMPOpcodes.table.facts)
        for dissector in SMPOpcodes.dissectors(f) {
            registry.bind(
                dissector,
                to: StandardTables.smpOpcode,
                key: DissectorKey(dissector.opcode),
                label: dissector.name
            )
        }
    }
}
