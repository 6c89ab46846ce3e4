public import BLEInspectCore

/// The HCI layer: H4 packet types 1–5 (commands, ACL, SCO, events, ISO), command and event
/// parameters by opcode / event code / LE subevent, Command Complete return parameters, ACL
/// reassembly into L2CAP PDUs, and the connection table. Also the Linux monitor channel's index
/// records (`StandardTables.monitorOpcode`), which describe the controllers.
///
/// Plugins add decoders for more commands or events by binding into
/// `StandardTables.hciCommand`, `.hciCommandComplete`, `.hciEvent` and `.leMetaSubevent`; they
/// get the parameters (for Command Complete, the bytes after the status).
public enum HCIModule: DissectorModule {
    public static let name = "hci"

    public static func register(_ registry: inout RegistryBuilder) {
        let f = HCIFieldIDs(
            h4: registry.register(H4Field.self),
            cmd: registry.register(HCICommandField.self),
            evt: registry.register(HCIEventField.self),
            acl: registry.register(HCIACLField.self),
            sco: registry.register(HCISCOField.self),
            iso: registry.register(HCIISOField.self),
            isoData: registry.register(HCIISODataField.self)
        )

        registry.bind(
            HCICommandPacket(f: f),
            to: StandardTables.hciPacketType,
            key: DissectorKey(1),
            label: "HCI Command"
        )
        registry.bind(HCIACLPacket(f: f), to: StandardTables.hciPacketType, key: DissectorKey(2), label: "ACL Data")
        registry.bind(HCISCOPacket(f: f), to: StandardTables.hciPacketType, key: DissectorKey(3), label: "SCO Data")
        registry.bind(HCIEventPacket(f: f), to: StandardTables.hciPacketType, key: DissectorKey(4), label: "HCI Event")
        registry.bind(HCIISOPacket(f: f), to: StandardTables.hciPacketType, key: DissectorKey(5), label: "ISO Data")

        for (opcode, d) in HCICommandDecoders.bindings(f) {
            registry.bind(
                d,
                to: StandardTables.hciCommand,
                key: DissectorKey(opcode),
                label: HCICommandNames.name(opcode)
            )
        }
        for (opcode, d) in HCIReturnDecoders.bindings(f) {
            registry.bind(
                d,
                to: StandardTables.hciCommandComplete,
                key: DissectorKey(opcode),
                label: HCICommandNames.name(opcode)
            )
        }
        for (code, d) in HCIEventDecoders.bindings(f) {
            registry.bind(
                d,
                to: StandardTables.hciEvent,
                key: DissectorKey(code),
                label: HCIEventNames.name(code),
                keepsNoState: HCIEventPacket.stateless.contains(code)
            )
        }
        for (code, d) in HCILEEventDecoders.bindings(f) {
            let reports = HCIEventPacket.statelessSubevents.contains(code)
            registry.bind(
                d,
                to: StandardTables.leMetaSubevent,
                key: DissectorKey(code),
                label: HCIEventNames.subeventName(code),
                keepsNoState: reports,
                dispatchesInto: reports ? [StandardTables.advertisingData] : []
            )
        }

        // What views follow across frames: advertising commands, connection and report events.
        HCIRoles.register(&registry)

        // Linux monitor index records (New, Delete, Open, Close Index, Index Info).
        HCIMonitor.register(&registry)

        // Short names for the fields of advertising reports.
        registry.alias("adv.addr", for: "bthci_evt.bd_addr")
        registry.alias("adv.rssi", for: "bthci_evt.rssi")
    }
}
