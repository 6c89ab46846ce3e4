import BLEInspectCore

/// One thing `follow` shows: a reassembled SDU or an attribute value, with where it came from.
/// Its bytes are valid only during the call that hands it on.
struct FollowItem {
    enum Payload {
        /// An SDU of credit-based channel `channel` (numbered by the L2CAP dissector), sent to
        /// `cid`; `index` counts the channel's SDUs in this direction.
        case sdu(channel: UInt64?, psm: UInt64?, cid: UInt16?, index: UInt64?)
        /// A value of the attribute at `handle`; `offset` is a Read Blob's.
        case value(handle: UInt16, uuid: BluetoothUUID?, via: GATTAttribute.Via, offset: UInt64)
    }

    enum Role: String {
        case central, peripheral
    }

    var frame: CapturedFrame
    /// True when the capturing host sent it, false when the peer did, nil when the capture
    /// does not say.
    var sentByLocal: Bool?
    /// The capturing host's role on the connection, when its connection complete was seen.
    var localRole: Role?
    var connection: UInt16?
    var payload: Payload
    var bytes: ArraySlice<UInt8>
    /// For an SDU's message cut by a plugin's framing: which message it is.
    var message: FollowMessage? = nil
    /// A sequence counter's issue on the item.
    var sequence: FollowSequence? = nil
}

/// Finds `follow`'s items in dissected frames. It reads only fields, as `-T json` shows them:
/// `coc.sdu` and its channel fields for SDUs, `btatt.*` and `gatt.uuid` for values, and the
/// connection complete events for the local role; with plugins, their messages and sequence
/// counters' issues (`FollowPlugins`).
final class FollowMatcher {
    /// The fields `follow` reads; each case's raw value is the field's name.
    enum Field: String, CaseIterable {
        case l2cap = "btl2cap", l2capCID = "btl2cap.cid", psm = "btl2cap.psm", chandle = "bthci_acl.chandle"
        case coc, channel = "coc.channel", sender = "coc.sender", sdu = "coc.sdu", sduIndex = "coc.sdu_index"
        case localCID = "coc.local_cid", peerCID = "coc.peer_cid"
        case att = "btatt", opcode = "btatt.opcode", handle = "btatt.handle", value = "btatt.value"
        case attributeData = "btatt.attribute_data", offset = "btatt.offset", attributeType = "gatt.uuid"
        case connectionHandle = "bthci_evt.connection_handle", role = "bthci_evt.role"
    }

    /// At most this many channels are remembered as selected by `--l2cap`, and this many
    /// connections' roles.
    static let maximumChannels = 65_536
    static let maximumConnections = 4096

    let selector: FollowSelector
    /// Whether SDUs of a channel a plugin frames are shown as the plugin's messages.
    let showsMessages: Bool
    private let f: FieldLookup<Field>
    private let plugins: FollowPlugins
    private let connections: ConnectionCompleteFields
    /// `--l2cap`: the channels (by `coc.channel`) with the CID as an endpoint, learned from
    /// the `coc` group of their connection response, or from a K-frame sent to the CID.
    private var channels = Set<UInt64>()
    /// The capturing host's role per controller and connection handle.
    private var roles: [UInt32: FollowItem.Role] = [:]

    init(registry: DissectorRegistry, selector: FollowSelector, showsMessages: Bool = true) {
        self.selector = selector
        self.showsMessages = showsMessages
        plugins = FollowPlugins(registry: registry)
        f = FieldLookup(registry)
        connections = ConnectionCompleteFields(registry)
    }

    /// Field names the registry lacks (empty unless a dissector was renamed).
    var missingFields: [String] { f.missing + connections.missing }

    /// Calls `emit` with each item of the frame, in order.
    func take(_ frame: CapturedFrame, _ tree: borrowing ProtocolTree, _ emit: (FollowItem) -> Void) {
        TreeWalk.with(frame, tree) { walk in
            if frame.kind == .hciEvent {
                noteConnection(frame, walk)
                return
            }
            let connection = walk.first(f[.chandle]).flatMap(walk.uint16)
            var item = FollowItem(
                frame: frame,
                sentByLocal: frame.direction.sentByLocal,
                localRole: connection.flatMap { roles[Self.key(frame, $0)] },
                connection: connection,
                payload: .sdu(channel: nil, psm: nil, cid: nil, index: nil),
                bytes: []
            )
            switch selector {
            case .l2cap, .psm: sdus(walk, item, emit)
            case .attHandle, .attUUID: values(walk, &item, emit)
            }
        }
    }

    private static func key(_ frame: CapturedFrame, _ handle: UInt16) -> UInt32 {
        UInt32(frame.controllerIndex ?? 0xFFFF) << 16 | UInt32(handle)
    }

    /// An LE (Enhanced) Connection Complete that succeeded gives the capturing host's role.
    private func noteConnection(_ frame: CapturedFrame, _ walk: TreeWalk) {
        guard connections.succeeded(walk),
            let handle = walk.first(f[.connectionHandle]).flatMap(walk.uint16),
            let role = walk.first(f[.role]).flatMap(walk.unsigned)
        else { return }
        let key = Self.key(frame, handle)
        if roles[key] == nil && roles.count >= Self.maximumConnections { roles.removeAll() }
        roles[key] = role == 0 ? .central : .peripheral
    }

    // MARK: SDUs

    private func sdus(_ walk: TreeWalk, _ item: FollowItem, _ emit: (FollowItem) -> Void) {
        let layers = walk.all(f[.l2cap], in: 0..<walk.nodes.count)
        for (n, l) in layers.enumerated() {
            let layer = l..<walk.end(of: l)
            // The layers the SDU was handed to follow the L2CAP layer, up to the next one.
            let above = l..<(n + 1 < layers.count ? layers[n + 1] : walk.nodes.count)
            let cid = walk.first(f[.l2capCID], in: layer).flatMap(walk.uint16)
            for c in walk.all(f[.coc], in: layer) {
                let group = c..<walk.end(of: c)
                let channel = walk.first(f[.channel], in: group).flatMap(walk.unsigned)
                learnEndpoints(group, channel: channel, connection: item.connection, walk)
                guard let s = walk.first(f[.sdu], in: group) else { continue }
                // The K-frame's PSM is a field of the L2CAP layer, beside the `coc` group.
                let psm = walk.first(f[.psm], in: layer).flatMap(walk.unsigned)
                guard selects(channel: channel, psm: psm, cid: cid, connection: item.connection) else { continue }
                var sdu = item
                if let sender = walk.first(f[.sender], in: group).flatMap(walk.unsigned), sender == 1 || sender == 2 {
                    sdu.sentByLocal = sender == 1
                }
                let index = walk.first(f[.sduIndex], in: group).flatMap(walk.unsigned)
                sdu.payload = .sdu(channel: channel, psm: psm, cid: cid, index: index)
                if showsMessages, let psm, let framed = plugins.framed(psm: psm) {
                    let stream = FollowPlugins.Stream(
                        connection: item.connection,
                        channel: channel,
                        psm: psm,
                        sentByLocal: sdu.sentByLocal
                    )
                    if let messages = plugins.messages(framed, in: above, stream: stream, index: index, walk) {
                        for (node, message) in messages {
                            var m = sdu
                            m.message = message
                            m.bytes = walk.bytes(node)
                            m.sequence = plugins.sequence(in: node..<walk.end(of: node), walk)
                            emit(m)
                        }
                        continue
                    }
                }
                sdu.bytes = walk.bytes(s)
                sdu.sequence = plugins.sequence(in: above, walk)
                emit(sdu)
            }
        }
    }

    /// A `coc` group that names both endpoints (on the signalling that opened the channel):
    /// `--l2cap` selects the channel when the CID is one of them.
    private func learnEndpoints(_ group: Range<Int>, channel: UInt64?, connection: UInt16?, _ walk: TreeWalk) {
        guard case .l2cap(let handle, let cid) = selector, connection == handle, let channel,
            let local = walk.first(f[.localCID], in: group).flatMap(walk.uint16),
            let peer = walk.first(f[.peerCID], in: group).flatMap(walk.uint16),
            local == cid || peer == cid
        else { return }
        remember(channel)
    }

    private func remember(_ channel: UInt64) {
        if channels.count < Self.maximumChannels { channels.insert(channel) }
    }

    private func selects(channel: UInt64?, psm: UInt64?, cid: UInt16?, connection: UInt16?) -> Bool {
        switch selector {
        case .psm(let wanted):
            return psm == UInt64(wanted)
        case .l2cap(let handle, let wanted):
            guard connection == handle else { return false }
            if let channel, channels.contains(channel) { return true }
            // The channel's opening was not among the frames taken in: a K-frame carries the
            // CID of its receiver's endpoint. Once seen, its channel is followed both ways.
            guard cid == wanted else { return false }
            if let channel { remember(channel) }
            return true
        case .attHandle, .attUUID:
            return false
        }
    }

    // MARK: Attribute values

    private func values(_ walk: TreeWalk, _ item: inout FollowItem, _ emit: (FollowItem) -> Void) {
        for a in walk.all(f[.att], in: 0..<walk.nodes.count) {
            let layer = a..<walk.end(of: a)
            guard let op = walk.first(f[.opcode], in: layer).flatMap(walk.unsigned) else { continue }
            let via: GATTAttribute.Via
            var perItem = false
            switch op {
            case 0x0B, 0x0D: via = .read  // Read Response, Read Blob Response
            case 0x09, 0x21:  // Read By Type Response (values by UUID), Read Multiple Variable Response
                via = .read
                perItem = true
            case 0x12, 0x52, 0xD2: via = .write  // Write Request, Write Command, Signed Write Command
            case 0x1B: via = .notification
            case 0x23:  // Multiple Handle Value Notification
                via = .notification
                perItem = true
            case 0x1D: via = .indication
            default: continue
            }
            let offset = walk.first(f[.offset], in: layer).flatMap(walk.unsigned) ?? 0
            if perItem {
                // Each attribute-data item with a handle and a value (discovery items have none).
                for d in walk.all(f[.attributeData], in: layer) {
                    let range = d..<walk.end(of: d)
                    guard let v = walk.first(f[.value], in: range) else { continue }
                    value(range, v, via: via, offset: 0, walk, &item, emit)
                }
            } else {
                value(layer, walk.first(f[.value], in: layer), via: via, offset: offset, walk, &item, emit)
            }
        }
    }

    /// The value `v` (nil: empty) of the first handle in `range`, when it is the one followed.
    private func value(
        _ range: Range<Int>,
        _ v: Int?,
        via: GATTAttribute.Via,
        offset: UInt64,
        _ walk: TreeWalk,
        _ item: inout FollowItem,
        _ emit: (FollowItem) -> Void
    ) {
        guard let h = walk.first(f[.handle], in: range), let handle = walk.uint16(h) else { return }
        // The attribute type the ATT dissector learned from discovery, annotated on the handle.
        let type = walk.first(f[.attributeType], in: h..<walk.end(of: h)).flatMap(walk.uuid)
        switch selector {
        case .attHandle(let wanted): guard handle == wanted else { return }
        case .attUUID(let wanted): guard type == wanted else { return }
        case .l2cap, .psm: return
        }
        item.payload = .value(handle: handle, uuid: type, via: via, offset: offset)
        item.bytes = v.map(walk.bytes) ?? []
        item.sequence = plugins.sequence(in: range, walk)
        emit(item)
    }
}
