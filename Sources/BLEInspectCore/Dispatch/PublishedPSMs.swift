/// The PSMs a capture has shown being published, and the credit-based channels opened on them:
/// what the attribute layer (the L2CAP PSM characteristic, a plugin's PSM field) tells the L2CAP
/// layer, which never import each other. One per capture, in `CaptureState`; bounded.
///
/// A publication is a PSM value sent by one side: read from its GATT server, notified, or
/// advertised. A channel opened later on that PSM by the other side names it, and two channels
/// opened by opposite sides, each on the PSM the other published, are one app's two roles (the
/// dual-role pattern, `dualRoleCounterpart`).
public final class PublishedPSMs: ConnectionScopedState {
    /// How a PSM value reached the other side.
    public enum Via: UInt8, Sendable {
        case read = 1, notification, indication, advert

        public var text: String {
            switch self {
            case .read: "read"
            case .notification: "notified"
            case .indication: "indicated"
            case .advert: "advertised"
            }
        }
    }

    public struct Publication: Sendable {
        public let psm: UInt16
        public let frame: Int
        public let time: Timestamp
        /// The link it was sent on; nil for an advert.
        public let connection: ConnectionKey?
        /// Whether the capturing host sent it (HCI direction); nil when the capture does not say.
        public let byLocal: Bool?
        public let via: Via

        public init(psm: UInt16, frame: Int, time: Timestamp, connection: ConnectionKey?, byLocal: Bool?, via: Via) {
            (self.psm, self.frame, self.time, self.connection) = (psm, frame, time, connection)
            (self.byLocal, self.via) = (byLocal, via)
        }
    }

    /// A credit-based channel, as its request was seen.
    public struct OpenedChannel: Sendable {
        /// The channel's number in the capture (`coc.channel`).
        public let channel: UInt32
        public let psm: UInt16
        /// The frame of the connection request.
        public let frame: Int
        public let time: Timestamp
        public let connection: ConnectionKey
        /// Whether the capturing host asked for it; nil when the capture does not say.
        public let byLocal: Bool?
        /// Where its PSM was published by the other side, if that was seen.
        public let publication: Publication?

        public init(
            channel: UInt32,
            psm: UInt16,
            frame: Int,
            time: Timestamp,
            connection: ConnectionKey,
            byLocal: Bool?,
            publication: Publication?
        ) {
            (self.channel, self.psm, self.frame, self.time) = (channel, psm, frame, time)
            (self.connection, self.byLocal, self.publication) = (connection, byLocal, publication)
        }
    }

    /// Publications and channels kept; the oldest go first.
    public static let maximumKept = 256
    /// How close in time two channels must be opened to count as one app's two roles.
    public static let dualRoleWindowNanoseconds: Int64 = 10_000_000_000

    private var publications: [Publication] = []
    private var channels: [OpenedChannel] = []

    public init() {}

    /// A closed link's publications and channels go: its handle may be given to another link,
    /// and the dual-role pattern needs both channels open at once.
    public func connectionClosed(_ key: ConnectionKey) {
        publications.removeAll { $0.connection == key }
        channels.removeAll { $0.connection == key }
    }

    public func publish(_ p: Publication) {
        if publications.count >= Self.maximumKept { publications.removeFirst() }
        publications.append(p)
    }

    /// The latest publication of `psm` that the other side of a requester (`byLocal`) sent on
    /// the requester's connection, or in an advert. A value read on one link says nothing to
    /// the other end of another link. Unknown directions match any requester.
    public func publication(of psm: UInt16, requestedByLocal: Bool?, on connection: ConnectionKey) -> Publication? {
        for p in publications.reversed() where p.psm == psm && (p.connection == connection || p.connection == nil) {
            if let by = p.byLocal, let requester = requestedByLocal, by == requester { continue }
            return p
        }
        return nil
    }

    /// Records a channel request, and returns the channel that makes it one side of the
    /// dual-role pattern, if there is one: a channel opened by the other side within
    /// `dualRoleWindowNanoseconds`, on the same link or another, where each channel's PSM was
    /// published by the side that did not open it. A channel is paired at most once.
    public func opened(_ c: OpenedChannel) -> OpenedChannel? {
        var counterpart: OpenedChannel? = nil
        if let mine = c.byLocal, c.publication != nil {
            for (i, other) in channels.enumerated().reversed() {
                guard let theirs = other.byLocal, theirs != mine, other.publication != nil else { continue }
                guard c.time.nanoseconds(since: other.time) <= Self.dualRoleWindowNanoseconds else { break }
                counterpart = other
                channels.remove(at: i)
                break
            }
        }
        if counterpart == nil {
            if channels.count >= Self.maximumKept { channels.removeFirst() }
            channels.append(c)
        }
        return counterpart
    }
}

extension PublishedPSMs {
    /// How an ATT PDU with `opcode` publishes the attribute value it carries; nil for a write or
    /// no PDU: a value written to the other side's attribute is not published by its writer.
    public static func via(attOpcode opcode: UInt8?) -> Via? {
        switch opcode {
        case 0x1B, 0x23: .notification
        case 0x1D: .indication
        case 0x09, 0x0B, 0x0D, 0x0F, 0x21: .read
        default: nil
        }
    }

    /// Records that the frame `context` is dissecting published `psm` (sent by the side its
    /// direction says), on `connection` (nil for an advert).
    public static func publish(
        _ psm: UInt16,
        via: Via,
        connection: ConnectionKey?,
        _ context: inout DissectionContext
    ) {
        let publication = Publication(
            psm: psm,
            frame: context.frameNumber,
            time: context.timestamp,
            connection: connection,
            byLocal: context.direction.sentByLocal,
            via: via
        )
        context.state.module(PublishedPSMs.self) { PublishedPSMs() }.publish(publication)
    }
}

extension PublishedPSMs {
    /// The warning for a published PSM outside the LE dynamic range 0x0080–0x00FF (Core Vol 3
    /// Part A 4.22), where apps' PSMs belong; nil inside it.
    public static func rangeWarning(_ psm: UInt16) -> String? {
        guard !(0x0080...0x00FF).contains(psm) else { return nil }
        return "PSM " + HexText.prefixed(UInt64(psm), digits: 4, upperCase: false)
            + " is outside the LE dynamic range 0x0080..0x00ff"
    }

    /// `, channel requested in #50`: the requests of the channels opened on the PSM the current
    /// frame publishes, known with two passes (`ForwardLinks`); empty in one pass.
    public static func channelsNote(_ context: DissectionContext) -> String {
        guard let links = context.forward?.later(.channelOnPSM, of: context.frameNumber), !links.isEmpty else {
            return ""
        }
        return ", channel requested in " + links.map { "#\($0)" }.joined(separator: ", ")
    }
}
