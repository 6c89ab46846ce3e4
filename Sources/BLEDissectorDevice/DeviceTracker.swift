import BLEInspectCore

/// Where a node is: its data source and byte range (the device nodes point at the bytes that tied
/// the frame to the device).
struct NodeSpan {
    var source: UInt16 = 0
    var start: Int32 = 0
    var length: Int32 = 0

    init() {}

    init(_ node: FieldNode) {
        source = node.source
        start = node.start
        length = node.length
    }

    var range: Range<Int> { Int(start)..<(Int(start) + Int(length)) }
}

/// One advertising report of the frame (an HCI `bthci_evt.report` group).
struct ReportFacts {
    var span: NodeSpan
    var depth: UInt16
    var address: BDAddr?
    /// The HCI LE address type as the report gives it (0xFF: anonymous or absent).
    var hciType: UInt8 = 0xFF
    /// The best name in the report's AD data (a text of the frame's tree).
    var name: TextRef?
    var nameRank: UInt8 = NameRank.none
}

/// An address named in the frame outside advertising reports.
struct AddressFacts {
    var address: BDAddr
    var span: NodeSpan
}

/// A connection handle named in the frame.
struct HandleFacts {
    var handle: UInt16
    var span: NodeSpan
}

/// What one pass over a frame's nodes found. Plain bits (names are texts of the frame's tree), so
/// that emptying it each frame is a few stores.
struct FrameFacts {
    var layer: FieldRole = .none
    var cmdOpcode: UInt16?
    var evtCode: UInt8?
    var subevent: UInt8?
    var status: UInt8?
    var completedOpcode: UInt16?
    var address: BDAddr?
    var addressSpan = NodeSpan()
    var hciType: UInt8 = 0xFF
    var peerRPA: BDAddr?
    var remoteName: TextRef?
    var syncHandle: UInt16?
    var syncSpan = NodeSpan()
    var eirName: TextRef?
    var eirRank: UInt8 = NameRank.none
    var lastADType: UInt64 = 0
    var attOpcode: UInt8?
    var attName: TextRef?
    var smpOpcode: UInt8?
    var smpAddress: BDAddr?
    var smpType: UInt8 = 0xFF
    /// SMP Identity Information's IRK (16 bytes, least significant first).
    var smpKeySpan = NodeSpan()
}

/// A device the frame belongs to, before its nodes are added.
struct DeviceRef {
    var address: BDAddr
    var slot: Int32
    var handle: UInt16?
    var span: NodeSpan
    var identity: TypedAddress?
}

/// A connection from its connection-complete event to its Disconnection Complete.
struct ConnectionEntry {
    var address: BDAddr
    var addressType: UInt8
    var identity: TypedAddress?
    var openedInFrame: Int
}

/// A periodic advertising train the controller is synchronised to.
struct SyncEntry {
    var address: BDAddr
    var addressType: UInt8
    var openedInFrame: Int
}

/// A sync handle on a controller.
struct SyncKey: Hashable {
    let controller: UInt16
    let handle: UInt16
}

/// The device tracker's state for one capture (a class, as `CaptureState` wants). Everything is
/// in one struct so that a frame's work is one access to it, not one per property.
final class DeviceState {
    static let defaultMaximumDevices = 65_536
    static let maximumConnections = 4096
    static let maximumSyncs = 4096
    /// The most devices one frame is marked with (a Number Of Completed Packets event may name
    /// many handles).
    static let maximumRefsPerFrame = 64

    var core: TrackerCore

    init(maximumDevices: Int = DeviceState.defaultMaximumDevices) {
        core = TrackerCore(maximumDevices: maximumDevices)
    }

    static func of(_ ctx: DissectionContext) -> DeviceState {
        ctx.state.module(DeviceState.self) { DeviceState() }
    }
}

/// The post-dissector: reads the frame's finished tree and adds one `device` node for each
/// remote device the frame belongs to.
struct DeviceTracker: Dissector {
    let f: Fields<DeviceField>

    func dissect(_ reader: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        DeviceState.of(ctx).core.process(f, &ctx, reader)
    }
}

/// The devices, the open connections and periodic syncs, and scratch space reused from frame to
/// frame (no per-frame allocation once warm).
struct TrackerCore {
    var table: DeviceTable
    var connections: [ConnectionKey: ConnectionEntry] = [:]
    var lastConnection: (key: ConnectionKey, entry: ConnectionEntry)?
    var syncs: [SyncKey: SyncEntry] = [:]
    /// Each field's role by `FieldID.rawValue` (`FieldRoles.byField`), built the first time
    /// frames reach the tracker; empty before.
    var roles: [FieldRole] = []

    var facts = FrameFacts()
    var reports = ScratchList<ReportFacts>()
    var handles = ScratchList<HandleFacts>()
    var addresses = ScratchList<AddressFacts>()
    var refs = ScratchList<DeviceRef>()
    var notedDeviceEviction = false
    /// The IRKs known (`IdentityResolver`), set from the configuration with `roles`.
    var resolver = IdentityResolver()
    /// The IRK of SMP Identity Information from a connection's peer, until its Identity Address
    /// Information.
    var pendingIRKs: [ConnectionKey: PendingIRK] = [:]
    /// Set while a resolved address is linked: the identity address is not resolved in turn.
    var resolving = false

    init(maximumDevices: Int) {
        table = DeviceTable(capacity: maximumDevices)
    }

    /// Reads the frame's tree (and `frame`, its bytes, for an IRK), updates what is known, and
    /// adds the frame's device nodes.
    mutating func process(_ f: Fields<DeviceField>, _ ctx: inout DissectionContext, _ frame: ByteReader) {
        if roles.isEmpty {
            roles = FieldRoles(ctx.registry).byField(count: ctx.registry.fields.count)
            resolver = IdentityResolver(given: ctx.registry.configuration[DeviceModule.identityKeys])
        }
        ctx.tree.withNodes { Self.scan($0, roles, &facts, &reports, &handles, &addresses) }
        guard facts.layer != .none else { return }
        refs.removeAll()
        var closeHandle: UInt16? = nil
        var lostSync: SyncKey? = nil
        switch facts.layer {
        case .evtLayer:
            event(&ctx, closeHandle: &closeHandle, lostSync: &lostSync)
        case .cmdLayer:
            command(&ctx)
        case .aclLayer, .scoLayer:
            data(&ctx, frame)
        default:
            break
        }
        emit(f, &ctx)
        if let h = closeHandle {
            let key = ConnectionKey(controller: ctx.controller, handle: h)
            setConnection(key, nil)
            if !pendingIRKs.isEmpty { pendingIRKs[key] = nil }
        }
        if let s = lostSync { syncs[s] = nil }
    }

    // MARK: - One pass over the nodes

    /// Fills `facts`, `reports`, `handles` and `addresses` from the frame's nodes. Static, so that
    /// the roles are read in place while the facts are written.
    static func scan(
        _ nodes: UnsafeBufferPointer<FieldNode>,
        _ roles: [FieldRole],
        _ facts: inout FrameFacts,
        _ reports: inout ScratchList<ReportFacts>,
        _ handles: inout ScratchList<HandleFacts>,
        _ addresses: inout ScratchList<AddressFacts>
    ) {
        facts = FrameFacts()
        reports.removeAll()
        handles.removeAll()
        addresses.removeAll()
        // Nodes below this index are inside the last advertising report (its subtree, found when
        // the report's node is met): the many frames without reports pay nothing for it.
        var reportEnd = 0
        // Through the buffer in place: the many nodes this tracker ignores are not copied, and
        // cost a load and two tests each.
        for i in nodes.indices {
            let raw = Int(nodes[i].field.rawValue)
            guard raw < roles.count else { continue }
            let role = roles[raw]
            if role == .none { continue }
            let inReport = i < reportEnd
            let node = nodes[i]
            switch role {
            case .cmdLayer, .evtLayer, .aclLayer, .scoLayer:
                if facts.layer == .none { facts.layer = role }
            case .cmdOpcode:
                if facts.cmdOpcode == nil {
                    facts.cmdOpcode = node.value.unsignedValue.map(UInt16.init(truncatingIfNeeded:))
                }
            case .evtCode:
                if facts.evtCode == nil {
                    facts.evtCode = node.value.unsignedValue.map(UInt8.init(truncatingIfNeeded:))
                }
            case .evtSubevent:
                if facts.subevent == nil {
                    facts.subevent = node.value.unsignedValue.map(UInt8.init(truncatingIfNeeded:))
                }
            case .evtStatus:
                if !inReport && facts.status == nil {
                    facts.status = node.value.unsignedValue.map(UInt8.init(truncatingIfNeeded:))
                }
            case .evtOpcode:
                if facts.completedOpcode == nil {
                    facts.completedOpcode = node.value.unsignedValue.map(UInt16.init(truncatingIfNeeded:))
                }
            case .cmdHandle, .evtHandle, .aclHandle, .scoHandle:
                if let v = node.value.unsignedValue, handles.count < 256 {
                    handles.append(HandleFacts(handle: UInt16(truncatingIfNeeded: v), span: NodeSpan(node)))
                }
            case .cmdAddr, .evtAddr:
                guard case .address(let a) = node.value else { break }
                if inReport, let last = reports.indices.last {
                    if reports[last].address == nil { reports[last].address = a }
                } else {
                    if facts.address == nil {
                        facts.address = a
                        facts.addressSpan = NodeSpan(node)
                    }
                    if addresses.count < DeviceState.maximumRefsPerFrame {
                        addresses.append(AddressFacts(address: a, span: NodeSpan(node)))
                    }
                }
            case .cmdAddrType, .evtAddrType:
                let v = UInt8(truncatingIfNeeded: node.value.unsignedValue ?? 0xFF)
                if inReport, let last = reports.indices.last {
                    reports[last].hciType = v
                } else if facts.hciType == 0xFF {
                    facts.hciType = v
                }
            case .evtPeerRPA:
                if case .address(let a) = node.value { facts.peerRPA = a }
            case .evtRemoteName:
                if case .string(let ref) = node.value { facts.remoteName = ref }
            case .evtSyncHandle:
                if facts.syncHandle == nil, let v = node.value.unsignedValue {
                    facts.syncHandle = UInt16(truncatingIfNeeded: v)
                    facts.syncSpan = NodeSpan(node)
                }
            case .evtReport:
                reports.append(ReportFacts(span: NodeSpan(node), depth: node.depth))
                reportEnd = i + 1
                while reportEnd < nodes.count && nodes[reportEnd].depth > node.depth { reportEnd += 1 }
            case .adType:
                facts.lastADType = node.value.unsignedValue ?? 0
            case .adName:
                guard case .string(let ref) = node.value else { break }
                let rank: UInt8
                switch facts.lastADType {
                case 0x09: rank = NameRank.complete
                case 0x08: rank = NameRank.shortened
                default: continue
                }
                if inReport, let last = reports.indices.last {
                    if rank > reports[last].nameRank {
                        reports[last].name = ref
                        reports[last].nameRank = rank
                    }
                } else if rank > facts.eirRank {
                    facts.eirName = ref
                    facts.eirRank = rank
                }
            case .attOpcode:
                if facts.attOpcode == nil {
                    facts.attOpcode = node.value.unsignedValue.map(UInt8.init(truncatingIfNeeded:))
                }
            case .attDeviceName:
                if facts.attName == nil, case .string(let ref) = node.value { facts.attName = ref }
            case .smpOpcode:
                if facts.smpOpcode == nil {
                    facts.smpOpcode = node.value.unsignedValue.map(UInt8.init(truncatingIfNeeded:))
                }
            case .smpAddr:
                if case .address(let a) = node.value { facts.smpAddress = a }
            case .smpAddrType:
                facts.smpType = UInt8(truncatingIfNeeded: node.value.unsignedValue ?? 0xFF)
            case .smpIRK:
                facts.smpKeySpan = NodeSpan(node)
            case .none:
                break
            }
        }
    }

    // MARK: - What the frame says

    private mutating func event(
        _ ctx: inout DissectionContext,
        closeHandle: inout UInt16?,
        lostSync: inout SyncKey?
    ) {
        guard let code = facts.evtCode else { return }
        let frame = ctx.frameNumber
        var useHandles = true
        switch code {
        case 0x3E:
            switch facts.subevent {
            case 0x02, 0x0B, 0x0D:
                // Advertising reports: each belongs to its advertiser; the anonymous ones (type
                // 0xFF in extended reports) to nobody.
                for i in reports.indices {
                    let report = reports[i]
                    guard let a = report.address, a.rawValue != 0, report.hciType != 0xFF else { continue }
                    let type = AddressType.fromHCI(report.hciType)
                    guard let slot = addRef(&ctx, a, type: type, span: report.span) else { continue }
                    // Types 2 and 3: the controller resolved the address, so it is an identity address.
                    if report.hciType == 2 || report.hciType == 3, table[slot].identity?.address != a {
                        link(&ctx, slot: slot, identity: TypedAddress(address: a, type: type), span: report.span)
                    }
                    if let name = report.name { learn(name: ctx.tree.text(name), rank: report.nameRank, slot: slot) }
                }
            case 0x01, 0x0A, 0x29:
                // LE (Enhanced) Connection Complete.
                useHandles = facts.status == 0
                if facts.status == 0, let h = handles.first?.handle, let peer = facts.address {
                    var overAir = peer
                    var type = AddressType.fromHCI(facts.hciType)
                    var identity: TypedAddress? = nil
                    if let rpa = facts.peerRPA, rpa.rawValue != 0, rpa != peer {
                        // The controller resolved the peer's private address: Peer_Address is
                        // the identity address, Peer_RPA the address used over the air.
                        overAir = rpa
                        type = AddressType.random
                        identity = TypedAddress(address: peer, type: AddressType.fromHCI(facts.hciType))
                    } else if facts.hciType == 2 || facts.hciType == 3 {
                        identity = TypedAddress(address: peer, type: type)
                    }
                    openConnection(
                        &ctx,
                        handle: h,
                        ConnectionEntry(
                            address: overAir,
                            addressType: type,
                            identity: identity,
                            openedInFrame: frame
                        )
                    )
                }
            case 0x0E, 0x24:
                // Periodic Advertising Sync Established: the sync handle stands for the advertiser.
                if facts.status == 0, let s = facts.syncHandle, let a = facts.address, a.rawValue != 0 {
                    let key = SyncKey(controller: ctx.controller, handle: s)
                    if syncs[key] == nil && syncs.count >= DeviceState.maximumSyncs,
                        let oldest = syncs.min(by: { $0.value.openedInFrame < $1.value.openedInFrame })?.key
                    {
                        syncs[oldest] = nil
                        ctx.expert(
                            .note,
                            "Periodic advertising sync table full (\(DeviceState.maximumSyncs)): the oldest sync is forgotten",
                            facts.syncSpan.range,
                            source: Int(facts.syncSpan.source)
                        )
                    }
                    let type = AddressType.fromHCI(facts.hciType)
                    syncs[key] = SyncEntry(address: a, addressType: type, openedInFrame: frame)
                    addRef(&ctx, a, type: type, span: facts.addressSpan)
                }
            case 0x0F, 0x25, 0x10:
                // Periodic Advertising Report (v1, v2) and Sync Lost: through the sync handle.
                if let s = facts.syncHandle {
                    let key = SyncKey(controller: ctx.controller, handle: s)
                    if let entry = syncs[key] {
                        addRef(&ctx, entry.address, type: entry.addressType, span: facts.syncSpan)
                        if facts.subevent == 0x10 { lostSync = key }
                    }
                }
            case 0x13:
                // Scan Request Received: the scanner.
                if let a = facts.address, a.rawValue != 0 {
                    addRef(&ctx, a, type: AddressType.fromHCI(facts.hciType), span: facts.addressSpan)
                }
            default:
                break
            }
        case 0x03:
            // Connection Complete (BR/EDR): ACL and SCO links.
            useHandles = facts.status == 0
            if facts.status == 0, let h = handles.first?.handle, let peer = facts.address {
                openConnection(
                    &ctx,
                    handle: h,
                    ConnectionEntry(
                        address: peer,
                        addressType: AddressType.public,
                        identity: nil,
                        openedInFrame: frame
                    )
                )
            }
        case 0x05:
            // Disconnection Complete: still the connection's, then closed.
            if facts.status == 0 { closeHandle = handles.first?.handle }
        case 0x07:
            // Remote Name Request Complete.
            if let a = facts.address, a.rawValue != 0 {
                let slot = addRef(&ctx, a, type: AddressType.public, span: facts.addressSpan)
                if facts.status == 0, let slot, let name = facts.remoteName {
                    learn(name: ctx.tree.text(name), rank: NameRank.fromDevice, slot: slot)
                }
            }
        case 0x0E:
            // Command Complete: return parameters of Link Control commands name the remote
            // device; others (Read BD_ADDR) may name the local one.
            if let a = facts.address, a.rawValue != 0, let op = facts.completedOpcode, op >> 10 == 0x01 {
                addRef(&ctx, a, type: AddressType.public, span: facts.addressSpan)
            }
        case 0x0F:
            useHandles = false
        case 0x2F:
            // Extended Inquiry Result: a BR/EDR device and its EIR data.
            if let a = facts.address, a.rawValue != 0 {
                let slot = addRef(&ctx, a, type: AddressType.public, span: facts.addressSpan)
                if let slot, let name = facts.eirName {
                    learn(name: ctx.tree.text(name), rank: facts.eirRank, slot: slot)
                }
            }
        default:
            // Other events that name a remote device by address (Connection Request, Role Change,
            // the Secure Simple Pairing events…): BR/EDR, so public addresses.
            for i in addresses.indices where addresses[i].address.rawValue != 0 {
                addRef(&ctx, addresses[i].address, type: AddressType.public, span: addresses[i].span)
            }
        }
        if useHandles { connectionRefs(&ctx) }
    }

    private mutating func command(_ ctx: inout DissectionContext) {
        connectionRefs(&ctx)
        guard !addresses.isEmpty, let op = facts.cmdOpcode else { return }
        let ogf = op >> 10
        // Vendor commands, LE Set Random Address and LE Set Advertising Set Random Address carry
        // the local address.
        guard ogf != 0x3F, op != 0x2005, op != 0x2035 else { return }
        var type = AddressType.fromHCI(facts.hciType)
        if type == AddressType.unknown && ogf != 0x08 { type = AddressType.public }
        for i in addresses.indices where addresses[i].address.rawValue != 0 {
            addRef(&ctx, addresses[i].address, type: type, span: addresses[i].span)
        }
    }

    private mutating func data(_ ctx: inout DissectionContext, _ frame: ByteReader) {
        connectionRefs(&ctx)
        // Names and identities are learned only from what the peer sent (controller to host): what
        // the local host sends is about the local device.
        guard ctx.direction == .controllerToHost, let ref = refs.first, ref.handle != nil else { return }
        if let name = facts.attName, let op = facts.attOpcode, op == 0x0B || op == 0x09 {
            learn(name: ctx.tree.text(name), rank: NameRank.fromDevice, slot: ref.slot)
        }
        if facts.smpOpcode == 0x08, let h = ref.handle {
            keepIRK(&ctx, ConnectionKey(controller: ctx.controller, handle: h), frame)
        }
        if facts.smpOpcode == 0x09, let identity = facts.smpAddress, let h = ref.handle {
            let typed = TypedAddress(address: identity, type: facts.smpType <= 1 ? facts.smpType : AddressType.unknown)
            let key = ConnectionKey(controller: ctx.controller, handle: h)
            if !pendingIRKs.isEmpty { learnIRK(key, identity: typed) }
            if var c = connection(key) {
                c.identity = typed
                setConnection(key, c)
            }
            link(&ctx, slot: ref.slot, identity: typed, span: ref.span)
            refs[0].identity = typed
        }
    }

    // MARK: - State changes

    /// The open connection `key`. ACL data comes in runs on one handle, so the last one looked up
    /// is kept aside: most frames need no hashing.
    private mutating func connection(_ key: ConnectionKey) -> ConnectionEntry? {
        if let last = lastConnection, last.key == key { return last.entry }
        guard let entry = connections[key] else { return nil }
        lastConnection = (key, entry)
        return entry
    }

    /// Opens, updates or (with nil) closes connection `key`.
    private mutating func setConnection(_ key: ConnectionKey, _ entry: ConnectionEntry?) {
        connections[key] = entry
        if let last = lastConnection, last.key == key { lastConnection = nil }
    }

    /// Adds a device reference for each handle of an open connection (once per device).
    private mutating func connectionRefs(_ ctx: inout DissectionContext) {
        for i in handles.indices {
            let h = handles[i]
            let key = ConnectionKey(controller: ctx.controller, handle: h.handle)
            guard let c = connection(key) else { continue }
            addRef(
                &ctx,
                c.address,
                type: c.addressType,
                span: h.span,
                handle: h.handle,
                identity: c.identity
            )
        }
    }

    /// Marks the frame as belonging to `address` (once per address) and returns the device's slot.
    @discardableResult
    private mutating func addRef(
        _ ctx: inout DissectionContext,
        _ address: BDAddr,
        type: UInt8,
        span: NodeSpan,
        handle: UInt16? = nil,
        identity: TypedAddress? = nil
    ) -> Int32? {
        for i in refs.indices where refs[i].address == address {
            if refs[i].handle == nil, let handle {
                refs[i].handle = handle
                refs[i].span = span
            }
            if refs[i].identity == nil, let identity { refs[i].identity = identity }
            return refs[i].slot
        }
        guard refs.count < DeviceState.maximumRefsPerFrame else {
            if refs.count == DeviceState.maximumRefsPerFrame {
                ctx.expert(
                    .note,
                    "More than \(DeviceState.maximumRefsPerFrame) devices in one frame: the others are not marked",
                    span.range,
                    source: Int(span.source)
                )
                // One note per frame: a sentinel past the cap.
                refs.append(
                    DeviceRef(
                        address: BDAddr(rawValue: 0),
                        slot: -1,
                        handle: nil,
                        span: span,
                        identity: nil
                    )
                )
            }
            return nil
        }
        let slot = touch(&ctx, address, type: type, span: span)
        refs.append(
            DeviceRef(
                address: address,
                slot: slot,
                handle: handle,
                span: span,
                identity: identity
            )
        )
        return slot
    }

    /// The device's slot, made if need be; notes the first time the table is full.
    private mutating func touch(
        _ ctx: inout DissectionContext,
        _ address: BDAddr,
        type: UInt8,
        span: NodeSpan
    ) -> Int32 {
        let (slot, evicted) = table.touch(address, type: type, frame: ctx.frameNumber)
        // Zero keys: one comparison. Otherwise each address is checked once against each key.
        if Int(table.records[Int(slot)].checkedKeys) < resolver.count { resolve(&ctx, slot: slot, span: span) }
        if evicted != nil && !notedDeviceEviction {
            notedDeviceEviction = true
            ctx.expert(
                .note,
                "Device table full (\(table.capacity) devices): from here on the least recently seen device "
                    + "is forgotten to make room for a new one (its name and first-seen frame are lost)",
                span.range,
                source: Int(span.source)
            )
        }
        return slot
    }

    /// Learns a name for the device in `slot` and for the identity address it is linked to.
    private mutating func learn(name: String, rank: UInt8, slot: Int32) {
        table.learn(name: name, rank: rank, slot: slot)
        let record = table[slot]
        if let id = record.identity?.address, id != record.address, let idSlot = table.slot(of: id) {
            table.learn(name: name, rank: rank, slot: idSlot)
        }
    }

    /// Links the address in `slot` to its identity address; the better name of the two is kept
    /// on the identity's record too, so that later addresses linked to it get it.
    mutating func link(
        _ ctx: inout DissectionContext,
        slot: Int32,
        identity: TypedAddress,
        span: NodeSpan
    ) {
        table[slot].identity = identity
        table[slot].resolvedBy = -1
        let record = table[slot]
        let recordName = table.name(slot)
        guard identity.address != record.address else { return }
        let idSlot = touch(&ctx, identity.address, type: identity.type, span: span)
        // The device was first seen under whichever address came first.
        table[idSlot].firstSeen = min(table[idSlot].firstSeen, record.firstSeen)
        if let name = recordName { table.learn(name: name, rank: record.nameRank, slot: idSlot) }
        let idRecord = table[idSlot]
        if let name = table.name(idSlot), table[slot].address == record.address {
            table.learn(name: name, rank: idRecord.nameRank, slot: slot)
        }
    }

    private mutating func openConnection(
        _ ctx: inout DissectionContext,
        handle: UInt16,
        _ entry: ConnectionEntry
    ) {
        let key = ConnectionKey(controller: ctx.controller, handle: handle)
        if connections[key] == nil && connections.count >= DeviceState.maximumConnections,
            let oldest = connections.min(by: { $0.value.openedInFrame < $1.value.openedInFrame })?.key
        {
            setConnection(oldest, nil)
            ctx.expert(
                .note,
                "Connection table full (\(DeviceState.maximumConnections)): the oldest connection is forgotten",
                0..<0
            )
        }
        // A handle reused without a Disconnection Complete: the new connection replaces the old.
        setConnection(key, entry)
        let slot = touch(&ctx, entry.address, type: entry.addressType, span: NodeSpan())
        if let identity = entry.identity {
            link(&ctx, slot: slot, identity: identity, span: NodeSpan())
        }
    }

    // MARK: - The nodes

    private mutating func emit(_ f: Fields<DeviceField>, _ ctx: inout DissectionContext) {
        for i in refs.indices where refs[i].slot >= 0 {
            let ref = refs[i]
            let range = ref.span.range
            let source = Int(ref.span.source)
            ctx.tree.open(f.layer, .none, range, source: source)
            ctx.tree.add(f[.addr], .address(ref.address), range, source: source)
            // The slot may have been reused if the table is tiny; then only the address is known.
            // Records are read field by field in place.
            let valid = Int(ref.slot) < table.records.count && table.records[Int(ref.slot)].address == ref.address
            var identity = ref.identity
            // The slot whose name the node gets (-1: none).
            var nameSlot: Int32 = -1
            var rank = NameRank.none
            var firstSeen = ctx.frameNumber
            if valid {
                let slot = Int(ref.slot)
                let addressType = table.records[slot].addressType
                if addressType != AddressType.unknown {
                    ctx.tree.add(f[.addrType], .unsigned(UInt64(addressType)), range, source: source)
                }
                if identity == nil { identity = table.records[slot].identity }
                nameSlot = ref.slot
                rank = table.records[slot].nameRank
                firstSeen = table.records[slot].firstSeen
            }
            if let id = identity {
                if id.address != ref.address {
                    ctx.tree.add(f[.addr], .address(id.address), range, source: source)
                    if id.type != AddressType.unknown {
                        ctx.tree.add(f[.addrType], .unsigned(UInt64(id.type)), range, source: source)
                    }
                    if let idSlot = table.slot(of: id.address) {
                        table.markUsed(idSlot)
                        if table.records[Int(idSlot)].nameRank > rank {
                            nameSlot = idSlot
                            rank = table.records[Int(idSlot)].nameRank
                        }
                        firstSeen = min(firstSeen, table.records[Int(idSlot)].firstSeen)
                    }
                }
                ctx.tree.add(f[.identityAddr], .address(id.address), range, source: source)
                if valid { addIRKSource(f, &ctx, slot: ref.slot, range, source: source) }
            }
            if nameSlot >= 0, let name = table.name(nameSlot) {
                ctx.tree.add(f[.name], text: name, range, source: source)
            }
            if let h = ref.handle { ctx.tree.add(f[.connection], .unsigned(UInt64(h)), range, source: source) }
            ctx.tree.add(f[.firstSeen], .unsigned(UInt64(max(0, firstSeen))), range, source: source)
            ctx.tree.close()
        }
    }
}
