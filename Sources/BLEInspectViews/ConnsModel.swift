import BLEInspectCore

/// A moment in a capture: the frame and its time in microseconds since the Unix epoch (nil when
/// the capture's time does not fit).
struct ConnsMoment {
    var frame: Int
    var time: Int64?

    init(_ frame: CapturedFrame) {
        self.frame = frame.number
        time = frame.timestamp.unixMicroseconds
    }

    init(frame: Int, time: Int64?) {
        self.frame = frame
        self.time = time
    }

    /// Microseconds from `earlier` to this moment, nil when a time is missing or it overflows.
    func since(_ earlier: ConnsMoment?) -> Int64? {
        guard let earlier, let a = time, let b = earlier.time else { return nil }
        let (d, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? nil : d
    }
}

/// A list that keeps its first `limit` items and counts the rest, so that a hostile capture
/// cannot grow a connection's record without bound.
struct CappedList<Element> {
    private(set) var items: [Element] = []
    private(set) var dropped = 0
    let limit: Int

    init(limit: Int) { self.limit = limit }

    mutating func append(_ item: Element) {
        if items.count < limit { items.append(item) } else { dropped &+= 1 }
    }

    var last: Element? { items.last }
    var isEmpty: Bool { items.isEmpty }
}

/// Request→response times of one connection: exact while there are at most `capacity`, then a
/// uniform sample of that many (reservoir sampling with a fixed seed, so runs agree), with
/// the minimum and maximum always exact.
struct LatencySamples {
    static let capacity = 2048

    private(set) var samples: [Int64] = []
    private(set) var count = 0
    private(set) var minimum: Int64?
    private(set) var maximum: Int64?
    private var random: UInt64 = 0x9E37_79B9_7F4A_7C15

    mutating func add(_ us: Int64) {
        count &+= 1
        minimum = Swift.min(minimum ?? us, us)
        maximum = Swift.max(maximum ?? us, us)
        if samples.count < Self.capacity {
            samples.append(us)
            return
        }
        // xorshift64*: a slot in 0..<count; the sample replaces one when it falls in the reservoir.
        random ^= random >> 12
        random ^= random << 25
        random ^= random >> 27
        let slot = Int((random &* 0x2545_F491_4F6C_DD1D) % UInt64(max(count, 1)))
        if slot < samples.count { samples[slot] = us }
    }

    /// True while every time is kept, so the median is exact.
    var exact: Bool { count == samples.count }

    /// The median: the middle value, or the mean of the two middle values.
    var median: Int64? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let mid = sorted.count / 2
        if sorted.count % 2 == 1 { return sorted[mid] }
        // The two middle values' mean, without overflow.
        return sorted[mid - 1] / 2 + sorted[mid] / 2 + (sorted[mid - 1] % 2 + sorted[mid] % 2) / 2
    }
}

/// One side of a connection's ATT traffic, by kind of PDU.
struct ATTCounts {
    var requests = 0
    var responses = 0
    var errors = 0
    var commands = 0
    var notifications = 0
    var indications = 0
    var confirmations = 0
    var other = 0

    var total: Int {
        requests &+ responses &+ errors &+ commands &+ notifications &+ indications &+ confirmations &+ other
    }

    /// Counts an ATT PDU with `opcode`.
    mutating func add(_ opcode: UInt8) {
        switch ATTKind(opcode) {
        case .request: requests &+= 1
        case .response: responses &+= 1
        case .error: errors &+= 1
        case .command: commands &+= 1
        case .notification: notifications &+= 1
        case .indication: indications &+= 1
        case .confirmation: confirmations &+= 1
        case .other: other &+= 1
        }
    }
}

/// What an ATT opcode is (Core Specification Vol 3 Part F 3.4.8).
enum ATTKind {
    case request, response, error, command, notification, indication, confirmation, other

    init(_ opcode: UInt8) {
        switch opcode {
        case 0x01: self = .error
        case 0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20: self = .request
        case 0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x17, 0x19, 0x21: self = .response
        case 0x52, 0xD2: self = .command
        case 0x1B, 0x23: self = .notification
        case 0x1D: self = .indication
        case 0x1E: self = .confirmation
        default: self = .other
        }
    }
}

/// One credit-based channel of a connection, as its K-frames and credit packets showed it.
final class ConnsChannel {
    /// The channel's number in the capture (`coc.channel`).
    let number: UInt64
    var psm: UInt64?
    /// `coc.mode`: 1 LE credit based, 2 enhanced credit based, 3 BR/EDR connection-oriented.
    var mode: UInt64?
    var localCID: UInt16?
    var peerCID: UInt16?
    /// True when the capturing host sent the connection request.
    var openedByLocal: Bool?
    var opened: ConnsMoment?
    /// [0]: what the local host sent; [1]: what the peer sent.
    var sides = [ConnsChannelSide(), ConnsChannelSide()]
    /// Where the other side published the PSM (`coc.psm_published_in`), and how.
    var psmPublishedIn: Int?
    var psmPublishedVia: UInt64?
    /// The other channel of a dual-role pair (`coc.dual_role_with`).
    var dualRoleWith: UInt64?

    init(number: UInt64) { self.number = number }

    /// Whether `side` (0 local host, 1 peer) sent anything on the channel.
    func sent(_ side: Int) -> Bool { sides[side].kFrames > 0 }
}

/// One direction of a credit-based channel.
struct ConnsChannelSide {
    /// An interval in which the sender held no credits. A stall is one in which it also had
    /// an SDU partly sent: the K-frame that took its last credit left the SDU unfinished.
    struct ZeroCredits {
        var start: ConnsMoment
        var end: ConnsMoment?
        /// The unfinished SDU's number, for a stall.
        var sdu: UInt64?
        /// The credits the packet that ended it gave.
        var creditsGranted: UInt64?
        var isStall: Bool { sdu != nil }
    }

    var sdus = 0
    var sduBytes: UInt64 = 0
    var kFrames = 0
    /// The sender's credits after the last frame of the channel.
    var credits: UInt64?
    /// The interval in progress, when the sender has no credits now.
    var current: ZeroCredits?
    var stalls = CappedList<ZeroCredits>(limit: 256)
    /// All time spent at zero credits, stalled or idle, in closed intervals (µs).
    var zeroCreditMicroseconds: Int64 = 0
    var stalledMicroseconds: Int64 = 0
    var zeroCreditIntervals = 0
    /// Every balance, when the builder keeps series (`ConnsSeries`).
    var creditSteps: ConnsCreditSeries?
    /// The bytes of its finished SDUs over time, when the builder keeps series.
    var sduRate: ReportRate?

    /// Takes the sender's balance after a frame of the channel. `sdu` is the unfinished SDU
    /// when this frame is a K-frame of this sender that leaves one.
    mutating func balance(_ value: UInt64, at moment: ConnsMoment, unfinishedSDU sdu: UInt64?, granted: UInt64?) {
        defer { credits = value }
        creditSteps?.add(ConnsCreditStep(moment: moment, credits: value))
        if value == 0 {
            if current == nil, credits != 0 || sdu != nil {
                current = ZeroCredits(start: moment, end: nil, sdu: sdu, creditsGranted: nil)
            }
            return
        }
        if current != nil { close(at: moment, granted: granted) }
    }

    /// Ends the interval in progress at `moment` (a credit packet, a disconnection, the end of
    /// the capture: `granted` is nil for the last two).
    mutating func close(at moment: ConnsMoment, granted: UInt64?) {
        guard var interval = current else { return }
        current = nil
        interval.end = moment
        interval.creditsGranted = granted
        let d = moment.since(interval.start) ?? 0
        zeroCreditIntervals &+= 1
        zeroCreditMicroseconds =
            zeroCreditMicroseconds.addingReportingOverflow(d).overflow ? .max : zeroCreditMicroseconds + d
        if interval.isStall {
            stalledMicroseconds =
                stalledMicroseconds.addingReportingOverflow(d).overflow ? .max : stalledMicroseconds + d
            stalls.append(interval)
        }
    }
}

/// How the pairing on a connection went, from its SMP PDUs.
struct ConnsPairing {
    var requested: ConnsMoment
    var initiatorIsLocal: Bool?
    var initiatorIO: UInt8?
    var responderIO: UInt8?
    var initiatorOOB: Bool = false
    var responderOOB: Bool = false
    var initiatorMITM = false
    var responderMITM = false
    var initiatorSC = false
    var responderSC = false
    var bonding = false
    var keySize: UInt8?
    var failed: (moment: ConnsMoment, reason: UInt8)?
    /// The first successful encryption after the pairing response.
    var encrypted: ConnsMoment?
    var responded = false

    /// Both sides set the Secure Connections flag.
    var secureConnections: Bool { initiatorSC && responderSC }

    /// The association model (Core Specification Vol 3 Part H 2.3.5.1), once both sides spoke.
    var method: String? {
        guard responded, let i = initiatorIO, let r = responderIO else { return nil }
        let sc = secureConnections
        if sc ? (initiatorOOB || responderOOB) : (initiatorOOB && responderOOB) { return "Out of Band" }
        if !initiatorMITM && !responderMITM { return "Just Works" }
        return Self.ioMethod(initiator: i, responder: r, secureConnections: sc)
    }

    /// The IO-capability table: 0 DisplayOnly, 1 DisplayYesNo, 2 KeyboardOnly,
    /// 3 NoInputNoOutput, 4 KeyboardDisplay.
    static func ioMethod(initiator i: UInt8, responder r: UInt8, secureConnections sc: Bool) -> String? {
        guard i <= 4, r <= 4 else { return nil }
        if i == 3 || r == 3 { return "Just Works" }
        // Both can show and confirm a number: Numeric Comparison (LE Secure Connections only).
        if (i == 1 || i == 4) && (r == 1 || r == 4) {
            if sc { return "Numeric Comparison" }
            return i == 1 && r == 1 ? "Just Works" : "Passkey Entry"
        }
        // One side has a keyboard: Passkey Entry.
        if i == 2 || r == 2 || i == 4 || r == 4 { return "Passkey Entry" }
        // DisplayOnly or DisplayYesNo on both sides: nobody can type.
        return "Just Works"
    }

}

/// One connection, from its connection complete (or first frame) to its disconnection.
final class ConnsRecord {
    enum Ending: String {
        case disconnected = "disconnection"
        /// A new connection complete gave the handle to another connection first.
        case handleReused = "handle_reused"
        case captureEnded = "capture_end"
    }

    struct Parameters {
        var moment: ConnsMoment
        /// "connection", "update", "request (L2CAP)" or "request (LL)".
        var event: String
        var status: UInt8?
        var interval: UInt64?
        var intervalMax: UInt64?
        var latency: UInt64?
        var timeout: UInt64?
    }

    struct PHY {
        var moment: ConnsMoment
        var status: UInt8?
        var tx: UInt64?
        var rx: UInt64?
    }

    struct DataLength {
        var moment: ConnsMoment
        var maxTxOctets: UInt64?
        var maxTxTime: UInt64?
        var maxRxOctets: UInt64?
        var maxRxTime: UInt64?
    }

    struct Encryption {
        var moment: ConnsMoment
        var status: UInt8?
        /// 0 off, 1 on (AES-CCM for LE), as the event says; nil for a key refresh.
        var enabled: UInt64?
        var keySize: UInt64?
        var refresh: Bool
    }

    struct MTU {
        var moment: ConnsMoment
        var mtu: UInt64
    }

    static let listLimit = 256
    static let channelLimit = 256

    /// The connection's number in the capture, in order of its first frame.
    let number: Int
    let controller: UInt16?
    let handle: UInt16
    /// "LE" or "BR/EDR", from the connection complete.
    var transport: String?
    /// The connection complete, when the capture has it.
    var start: ConnsMoment?
    var first: ConnsMoment
    var last: ConnsMoment
    var end: ConnsMoment?
    /// What times are counted from: the connection complete, else the first frame seen.
    var origin: ConnsMoment { start ?? first }
    var ending: Ending?
    var reason: UInt8?
    /// The capturing host's role: true central, false peripheral.
    var localIsCentral: Bool?
    /// For a connection a sniffer followed over the air: the central's address (the peer is the
    /// peripheral, and the central stands in for the local side).
    var sniffed = false
    var centralAddress: BDAddr?
    var accessAddress: UInt32?
    var peerAddress: BDAddr?
    var peerAddressType: UInt64?
    var peerIdentity: BDAddr?
    var peerName: String?
    /// Every address the peer was seen with, for finding its advertisements.
    var peerAddresses: [BDAddr] = []
    var firstAdvertisement: ConnsMoment?
    var firstATTExchange: ConnsMoment?
    var parameters = CappedList<Parameters>(limit: listLimit)
    var mtu = CappedList<MTU>(limit: listLimit)
    var phy = CappedList<PHY>(limit: listLimit)
    var dataLength = CappedList<DataLength>(limit: listLimit)
    var encryption = CappedList<Encryption>(limit: listLimit)
    var pairing: ConnsPairing?
    var pairings = 0
    /// [0]: sent by the local host; [1]: by the peer.
    var att = [ATTCounts(), ATTCounts()]
    var latency = LatencySamples()
    /// Every request→response time at its moment, when the builder keeps series (`ConnsSeries`).
    var latencyPoints: ConnsLatencySeries?
    /// Gaps, repeats and steps back of plugin sequence counters (`sequence.issue`).
    var sequenceIssues = ConnsSequenceIssues()
    /// PSM values sent on the connection (`gatt.l2cap_psm`).
    var psmPublications = CappedList<ConnsPSMPublication>(limit: listLimit)
    private(set) var channels: [ConnsChannel] = []
    private var channelIndex: [UInt64: Int] = [:]
    var channelsDropped = 0

    init(number: Int, controller: UInt16?, handle: UInt16, first: ConnsMoment) {
        self.number = number
        self.controller = controller
        self.handle = handle
        self.first = first
        last = first
    }

    /// The channel numbered `n`, made on first sight; nil past the limit.
    func channel(_ n: UInt64) -> ConnsChannel? {
        if let i = channelIndex[n] { return channels[i] }
        guard channels.count < Self.channelLimit else {
            channelsDropped &+= 1
            return nil
        }
        let c = ConnsChannel(number: n)
        channelIndex[n] = channels.count
        channels.append(c)
        return c
    }

    /// Ends the connection at `moment`, closing its channels' zero-credit intervals.
    func finish(_ ending: Ending, at moment: ConnsMoment) {
        self.ending = ending
        end = moment
        for c in channels {
            for s in c.sides.indices { c.sides[s].close(at: moment, granted: nil) }
        }
    }

    func notePeer(address: BDAddr?) {
        guard let address, !peerAddresses.contains(address), peerAddresses.count < 8 else { return }
        peerAddresses.append(address)
    }
}
