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
        registry.declare(StandardTables.hciCommand, "HCI command parameters by opcode")
        registry.declare(StandardTables.hciCommandComplete, "HCI return parameters by command opcode")
        registry.declare(StandardTables.hciEvent, "HCI event parameters by event code")
        registry.declare(StandardTables.leMetaSubevent, "LE Meta event parameters by subevent code")
        let f = HCIFieldIDs(
            h4: registry.register(H4Field.self),
            cmd: registry.register(HCICommandField.self),
            evt: registry.register(HCIEventField.self),
            acl: registry.register(HCIACLField.self),
            sco: registry.register(HCISCOField.self),
            iso: registry.register(HCIISOField.self),
            isoData: registry.register(HCIISODataField.self),
            next: HCIHandoffs(&registry)
        )

        // Commands: the opcode (2 bytes) and length, then the parameters.
        registry.bind(to: StandardTables.hciPacketType, key: 1, label: "HCI Command") { s in
            _ = s.handoff(into: StandardTables.hciCommand, keyAt: KeyPosition(offset: 0, width: 2, payload: 3))
            return HCICommandPacket(f: f)
        }
        registry.bind(to: StandardTables.hciPacketType, key: 2, label: "ACL Data") { s in
            s.usesCaptureState()  // reassembly buffers, the connection table
            _ = s.handoff(into: StandardTables.l2cap)
            return HCIACLPacket(f: f)
        }
        registry.bind(HCISCOPacket(f: f), to: StandardTables.hciPacketType, key: 3, label: "SCO Data")
        // Events: the code and length, then the parameters.
        registry.bind(to: StandardTables.hciPacketType, key: 4, label: "HCI Event") { s in
            _ = s.handoff(into: StandardTables.hciEvent, keyAt: KeyPosition(offset: 0, payload: 2))
            return HCIEventPacket(f: f)
        }
        registry.bind(HCIISOPacket(f: f), to: StandardTables.hciPacketType, key: 5, label: "ISO Data")

        // Command parameters, return parameters and events other than those named stateless
        // below are bound as using capture state: the connection table, or (conservatively) the
        // order of the capture. Their handoffs into advertising data (Set Advertising Data, the
        // EIR commands and events) are not recorded: a binding that uses state is never skipped
        // or decoded apart, so no question the layer graph answers depends on them.
        for (opcode, d) in HCICommandDecoders.bindings(f) {
            registry.bind(to: StandardTables.hciCommand, key: opcode, label: HCICommandNames.name(opcode)) { s in
                s.usesCaptureState()
                return d
            }
        }
        for (opcode, d) in HCIReturnDecoders.bindings(f) {
            registry.bind(to: StandardTables.hciCommandComplete, key: opcode, label: HCICommandNames.name(opcode)) {
                s in
                s.usesCaptureState()
                return d
            }
        }
        for (code, d) in HCIEventDecoders.bindings(f) {
            registry.bind(to: StandardTables.hciEvent, key: code, label: HCIEventNames.name(code)) { s in
                switch code {
                case HCIEventPacket.leMeta:
                    // The subevent code, then its parameters.
                    _ = s.handoff(into: StandardTables.leMetaSubevent, keyAt: KeyPosition(offset: 0, payload: 1))
                case _ where HCIEventPacket.stateless.contains(code): break
                case 0x0E:  // Command Complete: the return parameters by opcode
                    s.usesCaptureState()
                    _ = s.handoff(into: StandardTables.hciCommandComplete)
                default:
                    s.usesCaptureState()
                }
                return d
            }
        }
        for (code, d) in HCILEEventDecoders.bindings(f) {
            registry.bind(to: StandardTables.leMetaSubevent, key: code, label: HCIEventNames.subeventName(code)) { s in
                if HCIEventPacket.statelessSubevents.contains(code) {
                    _ = s.handoff(into: StandardTables.advertisingData)  // the reports' AD
                } else {
                    s.usesCaptureState()
                }
                return d
            }
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

/// The tables HCI hands payloads to, shared by its decoders through `HCIFieldIDs`. Each binding
/// records the ones its decoder uses in its scope.
struct HCIHandoffs: Sendable {
    let command: Handoff<UInt16>
    let commandComplete: Handoff<UInt16>
    let event: Handoff<UInt8>
    let subevent: Handoff<UInt8>
    let l2cap: Handoff<UInt8>
    let advertisingData: Handoff<UInt8>

    init(_ registry: inout RegistryBuilder) {
        command = registry.handoff(into: StandardTables.hciCommand)
        commandComplete = registry.handoff(into: StandardTables.hciCommandComplete)
        event = registry.handoff(into: StandardTables.hciEvent)
        subevent = registry.handoff(into: StandardTables.leMetaSubevent)
        l2cap = registry.handoff(into: StandardTables.l2cap)
        advertisingData = registry.handoff(into: StandardTables.advertisingData)
    }
}
