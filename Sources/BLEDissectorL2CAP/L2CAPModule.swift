public import BLEInspectCore

/// L2CAP: the basic header, the signalling channels (LE 0x0005 and BR/EDR 0x0001), and dynamic
/// channels learned from signalling, with LE credit-based (LE CoC) and enhanced credit-based
/// channels followed K-frame by K-frame: credits per direction, SDU reassembly, and expert notes
/// that say why a channel stalls (a sender out of credits, an SDU over the MTU, a K-frame over the MPS).
///
/// Binds `StandardTables.l2cap` key 0 (complete PDUs from the HCI module) and
/// `StandardTables.l2capCID` keys 0x0001 and 0x0005. Hands fixed channels on through
/// `l2capCID` (ATT 0x0004, SMP 0x0006 and 0x0007 are other modules') and reassembled SDUs through
/// `l2capPSM` (EATT is PSM 0x0027).
public enum L2CAPModule: DissectorModule {
    public static let name = "l2cap"

    public static func register(_ registry: inout RegistryBuilder) {
        registry.declare(StandardTables.l2cap, "Complete L2CAP PDUs from ACL data")
        registry.declare(StandardTables.l2capCID, "L2CAP fixed channels by CID")
        registry.declare(StandardTables.l2capPSM, "L2CAP credit-based channel SDUs by PSM")
        let f = registry.register(L2CAPField.self)
        let coc = registry.register(CoCField.self)
        // Channels and credits live in the capture state, per connection.
        registry.bind(to: StandardTables.l2cap, key: 0, label: "L2CAP") { s in
            s.usesCaptureState()
            return L2CAPDissector(
                f: f,
                coc: coc,
                fixed: s.handoff(into: StandardTables.l2capCID),
                psm: s.handoff(into: StandardTables.l2capPSM)
            )
        }
        for (cid, le, label) in [(UInt16(0x0001), false, "L2CAP signalling"), (0x0005, true, "LE L2CAP signalling")] {
            registry.bind(to: StandardTables.l2capCID, key: cid, label: label) { s in
                s.usesCaptureState()
                return SignallingDissector(f: f, coc: coc, le: le)
            }
        }
        registry.declareOpcodes(SignallingCommands.table.facts)
        // Wireshark's names for the reassembly results, and a short name for the channel's PSM.
        registry.alias("btl2cap.le_sdu.reassembled.length", for: "coc.sdu_len")
        registry.alias("btl2cap.le_sdu.fragment.count", for: "coc.sdu_segments")
        registry.alias("coc.psm", for: "btl2cap.psm")
    }
}
