import BLEInspectCore

/// What a field of another module means to the device tracker.
enum FieldRole: UInt8 {
    case none = 0
    case cmdLayer, evtLayer, aclLayer, scoLayer
    case cmdOpcode, cmdHandle, cmdAddr, cmdAddrType
    case evtCode, evtSubevent, evtStatus, evtOpcode, evtHandle, evtAddr, evtAddrType, evtPeerRPA
    case evtRemoteName, evtSyncHandle, evtReport
    case aclHandle, scoHandle
    case adType, adName
    case attOpcode, attDeviceName
    case smpOpcode, smpAddr, smpAddrType, smpIRK
}

/// The role of every field of the registry, indexed by `FieldID.rawValue` (`FieldLookup`): one
/// array lookup per node instead of comparisons with a dozen field ids. Built from field names the
/// first time a capture's frames reach the tracker (modules may register after this one, so names
/// cannot be looked up at registration).
typealias FieldRoles = FieldLookup<FieldRole>

extension FieldLookup<FieldRole> {
    /// The names this module reads, with their roles. A name no module registers is skipped: the
    /// tracker then does without that source.
    static let names: [(String, FieldRole)] = [
        ("bthci_cmd", .cmdLayer),
        ("bthci_evt", .evtLayer),
        ("bthci_acl", .aclLayer),
        ("bthci_sco", .scoLayer),
        ("bthci_cmd.opcode", .cmdOpcode),
        ("bthci_cmd.connection_handle", .cmdHandle),
        ("bthci_cmd.bd_addr", .cmdAddr),
        ("bthci_cmd.le_peer_address_type", .cmdAddrType),
        ("bthci_cmd.le_address_type", .cmdAddrType),
        ("bthci_cmd.le_peer_identity_address_type", .cmdAddrType),
        ("bthci_evt.code", .evtCode),
        ("bthci_evt.le_meta_subevent", .evtSubevent),
        ("bthci_evt.status", .evtStatus),
        ("bthci_evt.opcode", .evtOpcode),
        ("bthci_evt.connection_handle", .evtHandle),
        ("bthci_evt.bd_addr", .evtAddr),
        ("bthci_evt.le_peer_address_type", .evtAddrType),
        ("bthci_evt.le_peer_rpa", .evtPeerRPA),
        ("bthci_evt.remote_name", .evtRemoteName),
        ("bthci_evt.sync_handle", .evtSyncHandle),
        ("bthci_evt.report", .evtReport),
        ("bthci_acl.chandle", .aclHandle),
        ("bthci_sco.chandle", .scoHandle),
        ("btcommon.eir_ad.entry.type", .adType),
        ("btcommon.eir_ad.entry.device_name", .adName),
        ("btatt.opcode", .attOpcode),
        ("btatt.device_name", .attDeviceName),
        ("btsmp.opcode", .smpOpcode),
        ("btsmp.bd_addr", .smpAddr),
        ("btsmp.address_type", .smpAddrType),
        ("btsmp.id_resolving_key", .smpIRK),
    ]

    /// Aliases resolve to their target, so only the canonical name counts.
    init(_ registry: DissectorRegistry) { self.init(registry, names: Self.names, canonicalOnly: true) }

    /// Every field's role, by `FieldID.rawValue`: `.none` for the fields the tracker does not
    /// read. The tracker scans with this plain table.
    func byField(count: Int) -> [FieldRole] {
        (0..<count).map { role(of: FieldID(UInt32(truncatingIfNeeded: $0))) ?? FieldRole.none }
    }
}
