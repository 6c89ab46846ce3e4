import BLEInspectCore

/// What a frame's `device` node says about the remote device.
struct DeviceNode {
    /// The first `device.addr`: the address seen over the air. (A second one, when a private
    /// address was linked to an identity, is that identity: `identity` has it.)
    var address: BDAddr?
    var addressType: UInt64?
    var identity: BDAddr?
    var name: String?
    var connection: UInt16?
}

/// Reads the first `device` node of a frame, for every view that keys on devices.
struct DeviceNodeFields {
    enum Field: String, CaseIterable {
        case device, address = "device.addr", addressType = "device.addr_type"
        case identity = "device.identity_addr", name = "device.name", connection = "device.connection"
    }

    private let f: FieldLookup<Field>
    var missing: [String] { f.missing }

    init(_ registry: DissectorRegistry) { f = FieldLookup(registry) }

    /// The frame's first device node, nil when it has none; `at` names it when the caller has
    /// already found it.
    func read(_ walk: TreeWalk, at node: Int? = nil) -> DeviceNode? {
        guard let d = node ?? walk.first(f[.device]) else { return nil }
        var out = DeviceNode()
        for i in (d + 1)..<walk.end(of: d) {
            switch f.role(of: walk.nodes[i].field) {
            case .address: if out.address == nil { out.address = walk.address(i) }
            case .addressType: if out.addressType == nil { out.addressType = walk.unsigned(i) }
            case .identity: out.identity = walk.address(i)
            case .name: out.name = walk.text(i)
            case .connection: out.connection = walk.uint16(i)
            case .device, nil: break
            }
        }
        return out
    }
}

/// Recognises a successful LE Connection Complete, LE Enhanced Connection Complete (v1 or v2):
/// the event that starts a connection, for every view that counts connections.
struct ConnectionCompleteFields {
    enum Field: String, CaseIterable {
        case subevent = "bthci_evt.le_meta_subevent", status = "bthci_evt.status"
    }

    private let f: FieldLookup<Field>
    /// The subevents HCI declares as connection-complete (`KeyRole.connectionComplete`).
    private let subevents: Set<UInt64>
    var missing: [String] { f.missing }

    init(_ registry: DissectorRegistry) {
        f = FieldLookup(registry)
        subevents = registry.keys(in: StandardTables.leMetaSubevent, playing: .connectionComplete)
    }

    func succeeded(_ walk: TreeWalk) -> Bool {
        guard let e = walk.first(f[.subevent]), let code = walk.unsigned(e), subevents.contains(code)
        else { return false }
        return walk.first(f[.status]).flatMap(walk.unsigned) == 0
    }
}
