public import BLEInspectCore

/// The Security Manager Protocol on L2CAP fixed channels 6 (LE) and 7 (BR/EDR): the opcode, then
/// one decoder per opcode in `StandardTables.smpOpcode`. Per connection (a
/// `ConnectionScopedState`), the Pairing Request is kept until its Pairing Response, which then
/// shows the pairing method, Secure Connections and the key size the two select.
public enum SMPModule: DissectorModule {
    public static let name = "smp"

    public static func register(_ registry: inout RegistryBuilder) {
        registry.declare(StandardTables.smpOpcode, "SMP PDUs by opcode")
        let f = registry.register(SMPField.self)
        for (cid, label) in [(UInt16(0x0006), "SMP"), (0x0007, "SMP (BR/EDR)")] {
            registry.bind(to: StandardTables.l2capCID, key: cid, label: label) { s in
                SMPDissector(
                    f: f,
                    next: s.handoff(into: StandardTables.smpOpcode, keyAt: KeyPosition(offset: 0, payload: 1))
                )
            }
        }
        registry.declareOpcodes(SMPOpcodes.table.facts)
        for dissector in SMPOpcodes.dissectors(f) {
            registry.bind(
                to: StandardTables.smpOpcode,
                key: UInt8(truncatingIfNeeded: dissector.opcode),
                label: dissector.name
            ) { s in
                s.usesCaptureState()  // the pairing request, kept until its response
                return dissector
            }
        }
    }
}
