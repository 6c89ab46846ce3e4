import BLEInspectCore

/// Which end of the link sent a frame. The capture is one host's HCI traffic: host to controller
/// is the local host, controller to host is the peer.
enum Side: UInt8 {
    case unknown = 0
    case local = 1
    case peer = 2

    init(_ direction: Direction) {
        switch direction {
        case .hostToController: self = .local
        case .controllerToHost: self = .peer
        case .unknown: self = .unknown
        }
    }

    var other: Side {
        switch self {
        case .local: .peer
        case .peer: .local
        case .unknown: .unknown
        }
    }

    var label: String {
        switch self {
        case .local: "the local host"
        case .peer: "the peer"
        case .unknown: "the sender"
        }
    }
}

/// How a dynamic channel was opened, which says how its frames are laid out.
enum ChannelMode: UInt8 {
    /// LE Credit Based Connection (0x14/0x15): K-frames.
    case leCredit = 1
    /// Enhanced Credit Based Connection (0x17/0x18): K-frames.
    case enhancedCredit = 2
    /// BR/EDR Connection Request (0x02/0x03): B-frames in basic mode, I/S-frames otherwise.
    case bredr = 3

    var isCreditBased: Bool { self != .bredr }
}

/// One end of a channel seen as a receiver: the CID it receives on, its receive limits, the
/// credits the other end holds for sending to it, and the SDU it is receiving.
struct Endpoint {
    var cid: UInt16
    var mtu: UInt16
    var mps: UInt16
    /// K-frames the other end may still send to this endpoint.
    var credits: Int
    /// SDUs started towards this endpoint.
    var sduCount: UInt32 = 0
    /// Reassembly of the SDU in progress.
    var sduActive = false
    var sduExpected = 0
    var sduReceived = 0
    var sduSegments: UInt32 = 0
    var sduStartFrame = 0
    /// Payload bytes of the SDU's first K-frame (SDU length included), to estimate the part count.
    var sduFirstSize = 0
    /// False when the SDU is followed but its bytes are not kept (reassembly budget spent).
    var sduCollecting = false
    var sdu: [UInt8] = []
    /// When the sender towards this endpoint last ran out of credits.
    var outOfCreditsFrame = 0
    var outOfCreditsTime: Timestamp?

    init(cid: UInt16, mtu: UInt16, mps: UInt16, credits: Int) {
        self.cid = cid
        self.mtu = mtu
        self.mps = mps
        self.credits = credits
    }

    /// Estimated number of K-frames of the SDU in progress: senders usually fill every K-frame
    /// as the first one. At least `segment`.
    func estimatedParts(_ segment: UInt32) -> UInt32 {
        guard sduFirstSize > 2 else { return segment }
        let rest = max(0, sduExpected - (sduFirstSize - 2))
        let more = (rest + sduFirstSize - 1) / sduFirstSize
        return max(segment, UInt32(clamping: 1 + more))
    }
}

/// A dynamic channel learned from signalling. A class so that reassembly buffers are changed in
/// place, never copied.
final class Channel {
    /// The channel's number in its table, from 1, given when the table adds it.
    fileprivate(set) var number: UInt32 = 0
    let connection: ConnectionKey
    let psm: UInt16
    let mode: ChannelMode
    let connectFrame: Int
    /// Who asked for the channel.
    let initiator: Side
    /// BR/EDR retransmission mode from configuration (0 basic).
    var bredrMode: UInt8 = 0
    /// Where the other side published the PSM, if that was seen.
    var publication: PublishedPSMs.Publication? = nil
    /// The other channel of a dual-role pair (`PublishedPSMs.opened`).
    var dualRoleWith: UInt32? = nil
    /// The local (capturing) host's endpoint.
    var local: Endpoint
    /// The peer's endpoint.
    var peer: Endpoint

    init(
        connection: ConnectionKey,
        psm: UInt16,
        mode: ChannelMode,
        connectFrame: Int,
        initiator: Side,
        local: Endpoint,
        peer: Endpoint
    ) {
        self.connection = connection
        self.psm = psm
        self.mode = mode
        self.connectFrame = connectFrame
        self.initiator = initiator
        self.local = local
        self.peer = peer
    }
}

/// A signalling request waiting for its response.
struct PendingRequest {
    enum Kind { case leCredit, enhancedCredit, bredr, reconfigure }
    var connection: ConnectionKey
    var ident: UInt8
    var kind: Kind
    var side: Side
    var psm: UInt16
    /// The requester's CIDs (source CIDs; for a reconfiguration, the channels reconfigured).
    var cids: [UInt16]
    var mtu: UInt16
    var mps: UInt16
    var credits: UInt16
    var frame: Int
}

extension PendingRequest {
    /// The requester's endpoint `cid`, with the receive limits and credits the request gave
    /// (zeros for a BR/EDR request).
    func endpoint(_ cid: UInt16) -> Endpoint { Endpoint(cid: cid, mtu: mtu, mps: mps, credits: Int(credits)) }
}

/// Key of one endpoint in the channel table.
struct EndpointKey: Hashable {
    var controller: UInt16
    var handle: UInt16
    var cid: UInt16
    var side: Side
}

/// The L2CAP module's state for one capture: dynamic channels by endpoint, pending requests,
/// and the reassembly budget. Channels of a connection are dropped when it closes.
final class L2CAPState: ConnectionScopedState {
    /// The most channels tracked at once; past it new channels are not followed (with a note).
    static let maximumChannels = 512
    /// The most signalling requests waiting for a response; past it the oldest is dropped.
    static let maximumPending = 64
    /// The most bytes held in SDUs being reassembled, over all channels: an SDU counts its
    /// stated length from its first K-frame on, so the budget holds however the rest arrives.
    static let reassemblyBudget = 4 << 20
    /// The most bytes held in SDUs being reassembled on one connection.
    static let reassemblyBudgetPerConnection = 1 << 20

    private(set) var endpoints: [EndpointKey: Channel] = [:]
    private(set) var channelCount = 0
    private var nextNumber: UInt32 = 1
    private(set) var pending: [PendingRequest] = []
    /// Bytes reserved for the SDUs being collected (their stated lengths), in all and per
    /// connection.
    private(set) var bufferedBytes = 0
    private(set) var bufferedByConnection: [ConnectionKey: Int] = [:]

    init() {}

    func connectionClosed(_ key: ConnectionKey) {
        var dropped: [Channel] = []
        for (k, c) in endpoints where k.controller == key.controller && k.handle == key.handle && k.side == .local {
            dropped.append(c)
        }
        for c in dropped { remove(c) }
        pending.removeAll { $0.connection == key }
        bufferedByConnection[key] = nil
    }

    /// Which budget refused an SDU.
    enum BudgetRefusal {
        case total, connection
    }

    /// Reserves `length` bytes for an SDU on `connection`; nil when done, else the budget that
    /// has no room.
    func reserve(_ length: Int, on connection: ConnectionKey) -> BudgetRefusal? {
        let used = bufferedByConnection[connection] ?? 0
        guard bufferedBytes + length <= Self.reassemblyBudget else { return .total }
        guard used + length <= Self.reassemblyBudgetPerConnection else { return .connection }
        bufferedBytes += length
        bufferedByConnection[connection] = used + length
        return nil
    }

    /// The channel whose endpoint on `side` receives on `cid`.
    func channel(_ connection: ConnectionKey, cid: UInt16, receiver side: Side) -> Channel? {
        endpoints[EndpointKey(controller: connection.controller, handle: connection.handle, cid: cid, side: side)]
    }

    /// The channel that `cid` names on this connection, on either side (for frames whose
    /// direction is unknown). The local side wins when both match.
    func channel(_ connection: ConnectionKey, anySide cid: UInt16) -> (Channel, Side)? {
        if let c = channel(connection, cid: cid, receiver: .local) { return (c, .local) }
        if let c = channel(connection, cid: cid, receiver: .peer) { return (c, .peer) }
        return nil
    }

    /// Finds the receiving endpoint of a frame with `cid` sent by `sender`.
    func receiving(_ connection: ConnectionKey, cid: UInt16, sender: Side) -> (Channel, Side)? {
        switch sender {
        case .local: channel(connection, cid: cid, receiver: .peer).map { ($0, .peer) }
        case .peer: channel(connection, cid: cid, receiver: .local).map { ($0, .local) }
        case .unknown: channel(connection, anySide: cid)
        }
    }

    /// Finds the channel whose endpoint on the sender's side is `cid` (credit packets and
    /// reconfigurations name the sender's own CID).
    func owning(_ connection: ConnectionKey, cid: UInt16, sender: Side) -> (Channel, Side)? {
        switch sender {
        case .local: channel(connection, cid: cid, receiver: .local).map { ($0, .local) }
        case .peer: channel(connection, cid: cid, receiver: .peer).map { ($0, .peer) }
        case .unknown: channel(connection, anySide: cid)
        }
    }

    /// Outcome of adding a channel.
    enum Added {
        case added(Channel, replaced: [Channel])
        case tableFull
    }

    /// Adds a channel and numbers it; endpoints already in use by older channels replace them.
    func add(_ c: Channel) -> Added {
        let connection = c.connection
        var replaced: [Channel] = []
        for (cid, side) in [(c.local.cid, Side.local), (c.peer.cid, Side.peer)] {
            if let old = channel(connection, cid: cid, receiver: side), !replaced.contains(where: { $0 === old }) {
                replaced.append(old)
            }
        }
        for old in replaced { remove(old) }
        guard channelCount < Self.maximumChannels else { return .tableFull }
        c.number = nextNumber
        nextNumber &+= 1
        channelCount += 1
        endpoints[
            EndpointKey(controller: connection.controller, handle: connection.handle, cid: c.local.cid, side: .local)
        ] = c
        endpoints[
            EndpointKey(controller: connection.controller, handle: connection.handle, cid: c.peer.cid, side: .peer)
        ] = c
        return .added(c, replaced: replaced)
    }

    /// Forgets a channel and releases its reassembly buffers.
    func remove(_ c: Channel) {
        let conn = c.connection
        let lk = EndpointKey(controller: conn.controller, handle: conn.handle, cid: c.local.cid, side: .local)
        let pk = EndpointKey(controller: conn.controller, handle: conn.handle, cid: c.peer.cid, side: .peer)
        var found = false
        if endpoints[lk] === c {
            endpoints[lk] = nil
            found = true
        }
        if endpoints[pk] === c {
            endpoints[pk] = nil
            found = true
        }
        if found { channelCount -= 1 }
        release(&c.local, of: conn)
        release(&c.peer, of: conn)
    }

    /// Ends the SDU in progress towards `e`, on `connection`, and returns its reservation to the
    /// budgets.
    func release(_ e: inout Endpoint, of connection: ConnectionKey) {
        if e.sduCollecting {
            bufferedBytes -= e.sduExpected
            if let used = bufferedByConnection[connection] {
                let left = used - e.sduExpected
                bufferedByConnection[connection] = left > 0 ? left : nil
            }
        }
        e.sdu = []
        e.sduActive = false
        e.sduCollecting = false
        e.sduReceived = 0
        e.sduExpected = 0
        e.sduSegments = 0
    }

    /// Records a request; returns the request dropped to make room, if any.
    func addPending(_ request: PendingRequest) -> PendingRequest? {
        // A new request with the same identifier on the same connection and side supersedes the old one.
        pending.removeAll {
            $0.connection == request.connection && $0.ident == request.ident && $0.side == request.side
        }
        var dropped: PendingRequest?
        if pending.count >= Self.maximumPending { dropped = pending.removeFirst() }
        pending.append(request)
        return dropped
    }

    /// Takes the request answered by a response with `ident` from `responder`.
    func takePending(
        _ connection: ConnectionKey,
        ident: UInt8,
        kind: PendingRequest.Kind,
        responder: Side,
        keep: Bool = false
    ) -> PendingRequest? {
        guard
            let i = pending.lastIndex(where: {
                $0.connection == connection && $0.ident == ident && $0.kind == kind
                    && (responder == .unknown || $0.side != responder || $0.side == .unknown)
            })
        else { return nil }
        let r = pending[i]
        if !keep { pending.remove(at: i) }
        return r
    }
}
