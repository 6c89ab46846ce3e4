public import BLEInspectCore

/// The Attribute Protocol and GATT.
///
/// - ATT PDUs from L2CAP fixed channel 4, from BR/EDR channels on PSM 0x001F, and from EATT SDUs
///   (PSM 0x0027): the opcode byte, then
///   one decoder per opcode in `StandardTables.attOpcode` (plugins may add opcodes).
/// - Per connection (a `ConnectionScopedState`, dropped at disconnection): the ATT MTU, the
///   requests waiting for responses (each response names its request and the response time), and
///   the handle → attribute map learned from discovery (Read By Group Type, Read By Type on
///   0x2803 and 0x2802, Find Information, Find By Type Value), at most 4096 handles.
///   The enhanced bearers (EATT) of a connection share one set of pending requests and the
///   connection's one GATT database; see `BearerKey`.
/// - Per controller, for the whole capture: Wireshark's record of the handles (`HandleRecord`, at
///   most 4096 handles), which gives the `btatt.*uuid*` fields under each handle as tshark 4.0
///   shows them.
/// - Attribute values of well-known characteristics and descriptors, decoded by the decoders
///   bound in `StandardTables.gattUUID` to their UUID (plugins may add UUIDs).
public enum ATTModule: DissectorModule {
    public static let name = "att"

    public static func register(_ registry: inout RegistryBuilder) {
        registry.declare(StandardTables.attOpcode, "ATT PDUs by opcode")
        registry.declare(StandardTables.gattUUID, "GATT attribute values by characteristic or descriptor UUID")
        let f = registry.register(ATTField.self)
        // ATT on fixed channel 4, on EATT SDUs, and over a BR/EDR basic-mode channel (the
        // unenhanced bearer of a BR/EDR link). The header uses the bearer's state (its MTU).
        for (table, key, label) in [
            (StandardTables.l2capCID, UInt16(0x0004), "ATT"), (StandardTables.l2capPSM, 0x0027, "EATT"),
            (StandardTables.l2capPSM, 0x001F, "ATT over BR/EDR"),
        ] {
            registry.bind(to: table, key: key, label: label) { s in
                s.usesCaptureState()
                return ATTDissector(f: f, next: s.handoff(into: StandardTables.attOpcode))
            }
        }
        registry.declareOpcodes(ATTOpcodes.table.facts)
        for (opcode, name, dissector) in ATTOpcodes.dissectors(f) {
            registry.bind(to: StandardTables.attOpcode, key: UInt8(truncatingIfNeeded: opcode), label: name) { s in
                s.usesCaptureState()  // requests, responses and the GATT database
                // Attribute values are decoded by the decoders bound to their UUID.
                return dissector(s.handoff(into: StandardTables.gattUUID))
            }
        }
        for (uuid, decoder) in GATTValueDissector.all(f) {
            registry.bind(to: StandardTables.gattUUID, key: uuid, label: GATTNames.display(uuid)) { s in
                s.usesCaptureState()  // values read with the request that asked for them
                return decoder
            }
        }
    }
}
