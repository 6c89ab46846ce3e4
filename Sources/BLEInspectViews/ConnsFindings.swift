import BLEInspectCore

/// A PSM value sent on a connection: the L2CAP PSM characteristic read, notified or indicated.
struct ConnsPSMPublication {
    var moment: ConnsMoment
    var psm: UInt64
    /// `gatt.l2cap_psm.encoding`, and its name from the ATT module's value names.
    var encoding: UInt64?
    var encodingName: String?
    /// True when the capturing host sent it (its GATT server published the PSM).
    var byLocal: Bool
    var via: PublishedPSMs.Via
}

/// What `conns` keeps across connections: the channels opened on published PSMs and the
/// dual-role pairs (from the L2CAP layer's fields), and the peers' connections. Bounded.
final class ConnsCaptureLinks {
    /// A channel with the connection it is on.
    struct ChannelRef {
        let channel: ConnsChannel
        let connection: Int
        let handle: UInt16
        let localIsCentral: Bool?
    }

    /// One peer device and its connections, by identity address, else by address.
    struct Peer {
        let address: BDAddr
        let identity: Bool
        var connections: [Int]
    }

    static let limit = 4096

    private(set) var byNumber: [UInt64: ChannelRef] = [:]
    /// The channels opened on the PSM each frame published.
    private(set) var byPublication: [Int: [ChannelRef]] = [:]
    private(set) var peers: [Peer] = []
    private var peerIndex: [BDAddr: Int] = [:]
    private(set) var peersDropped = 0

    /// Keeps a channel that names where its PSM was published or its dual-role counterpart.
    func opened(_ c: ConnsChannel, on r: ConnsRecord) {
        guard byNumber[c.number] == nil, byNumber.count < Self.limit else { return }
        let ref = ChannelRef(channel: c, connection: r.number, handle: r.handle, localIsCentral: r.localIsCentral)
        byNumber[c.number] = ref
        if let frame = c.psmPublishedIn { byPublication[frame, default: []].append(ref) }
    }

    /// Files a finished connection under its peer.
    func ended(_ r: ConnsRecord) {
        guard let address = r.peerIdentity ?? r.peerAddress else { return }
        if let i = peerIndex[address] {
            peers[i].connections.append(r.number)
        } else if peers.count < Self.limit {
            peerIndex[address] = peers.count
            peers.append(Peer(address: address, identity: r.peerIdentity != nil, connections: [r.number]))
        } else {
            peersDropped &+= 1
        }
    }

    /// The dual-role pairs, each once, in order of their first channel. The later channel of a
    /// pair names the earlier one.
    var dualRolePairs: [(ChannelRef, ChannelRef)] {
        var pairs: [(ChannelRef, ChannelRef)] = []
        for b in byNumber.values {
            guard let n = b.channel.dualRoleWith, let a = byNumber[n] else { continue }
            pairs.append(a.channel.number < b.channel.number ? (a, b) : (b, a))
        }
        return pairs.sorted { $0.0.channel.number < $1.0.channel.number }
    }
}

/// The findings' text and JSON.
enum ConnsFindings {
    /// What one channel of a dual-role pair carried.
    /// Who sent on a channel.
    enum Sender: String {
        case local, peer, both

        var text: String {
            switch self {
            case .local: "local host"
            case .peer: "peer"
            case .both: "both sides"
            }
        }
    }

    struct Flow {
        let ref: ConnsChannelRefText
        /// Who sent on it; nil: nobody.
        let sender: Sender?
        /// The sender that ran out of credits and never got more, with where that began.
        let stopped: (at: ConnsChannelSide.ZeroCredits, sender: Sender)?
    }

    /// A dual-role pair's two channels, and what their traffic says.
    struct DualRole {
        let flows: [Flow]
        /// Each channel carries data one way, and the two ways differ.
        var oneWayEach: Bool {
            flows.allSatisfy { $0.sender == .local || $0.sender == .peer } && flows[0].sender != flows[1].sender
        }
        var unused: [Flow] { flows.filter { $0.sender == nil } }

        init(_ a: ConnsCaptureLinks.ChannelRef, _ b: ConnsCaptureLinks.ChannelRef) {
            flows = [ConnsFindings.flow(a), ConnsFindings.flow(b)]
        }
    }

    static func flow(_ ref: ConnsCaptureLinks.ChannelRef) -> Flow {
        let c = ref.channel
        let sender: Sender? =
            switch (c.sent(0), c.sent(1)) {
            case (true, true): .both
            case (true, false): .local
            case (false, true): .peer
            case (false, false): nil
            }
        var stopped: (ConnsChannelSide.ZeroCredits, Sender)? = nil
        for (k, side) in c.sides.enumerated() {
            if let last = side.stalls.items.last, last.isStall, last.creditsGranted == nil, side.stalls.dropped == 0 {
                stopped = (last, k == 0 ? .local : .peer)
            }
        }
        return Flow(ref: ConnsChannelRefText(ref), sender: sender, stopped: stopped)
    }

    static func dualRoleText(_ a: ConnsCaptureLinks.ChannelRef, _ b: ConnsCaptureLinks.ChannelRef) -> [String] {
        let pair = DualRole(a, b)
        var lines = [
            "dual-role channels: " + pair.flows.map(\.ref.name).joined(separator: " and ")
                + " join this host and one peer app both ways: each was opened by one side on the PSM the other side published"
        ]
        for f in pair.flows {
            var text = "  " + f.ref.name + f.ref.detail + ": "
            text += f.sender.map { "\($0.text) sent" + ($0 == .both ? "" : " only") } ?? "no data either way"
            if let (z, who) = f.stopped {
                let receiver: Sender = who == .peer ? .local : .peer
                text +=
                    "; the \(receiver.text) stopped returning credits: the \(who.text) has been at 0 credits since frame \(z.start.frame) with SDU \(z.sdu ?? 0) unfinished, until the connection ended"
            }
            lines.append(text)
        }
        if pair.oneWayEach {
            lines.append(
                "  each side sends only on the channel the other opened: the CoreBluetooth trap where each app writes only where it is the peripheral; use one channel both ways"
            )
        } else if let idle = pair.unused.first, pair.unused.count == 1 {
            lines.append("  both channels are open, but only one is used: " + idle.ref.name + " is idle")
        }
        return lines
    }

    static func dualRoleJSON(_ a: ConnsCaptureLinks.ChannelRef, _ b: ConnsCaptureLinks.ChannelRef) -> JSONValue {
        let pair = DualRole(a, b)
        return .object([
            ("kind", .string("dual_role_channels")),
            ("severity", .string("warning")),
            ("one_way_each", .bool(pair.oneWayEach)),
            ("only_one_used", .bool(pair.unused.count == 1)),
            (
                "channels",
                .array(
                    pair.flows.map { f in
                        let c = f.ref.ref.channel
                        return .object([
                            ("connection", .int(f.ref.ref.connection)), ("handle", .int(f.ref.ref.handle)),
                            ("local_role", .optional(f.ref.ref.localIsCentral.map { $0 ? "central" : "peripheral" })),
                            ("channel", .int(c.number)), ("psm", .optional(c.psm)),
                            ("opened_by", .optional(c.openedByLocal.map { $0 ? "local" : "peer" })),
                            ("opened_frame", .optional(c.opened?.frame)),
                            ("psm_published_in_frame", .optional(c.psmPublishedIn)),
                            ("sender", .optional(f.sender?.rawValue)),
                            ("sdus_sent_by_local", .int(c.sides[0].sdus)), ("sdus_sent_by_peer", .int(c.sides[1].sdus)),
                            (
                                "credits_stopped",
                                f.stopped.map { z in
                                    .object([
                                        ("starved", .string(z.sender.rawValue)),
                                        ("since_frame", .int(z.at.start.frame)), ("sdu", .optional(z.at.sdu)),
                                    ])
                                } ?? .null
                            ),
                        ])
                    }
                )
            ),
            ("text", .string(dualRoleText(a, b).joined(separator: "\n"))),
        ])
    }
}

/// How findings name a channel: `channel 1 (connection 1, handle 0x0001)` and its details.
struct ConnsChannelRefText {
    let ref: ConnsCaptureLinks.ChannelRef

    init(_ ref: ConnsCaptureLinks.ChannelRef) { self.ref = ref }

    var name: String { "channel \(ref.channel.number) on connection \(ref.connection)" }

    var detail: String {
        let c = ref.channel
        var parts: [String] = ["handle " + ViewText.handle(ref.handle)]
        if let central = ref.localIsCentral { parts.append("local host " + (central ? "central" : "peripheral")) }
        var opened = "opened by the " + (c.openedByLocal == true ? "local host" : "peer")
        if let psm = c.psm { opened += " on PSM " + HexText.prefixed(psm, digits: 4) }
        if let frame = c.opened?.frame { opened += " in frame \(frame)" }
        if let published = c.psmPublishedIn { opened += ", PSM published in frame \(published)" }
        parts.append(opened)
        return " (" + parts.joined(separator: "; ") + ")"
    }
}

extension ConnsPSMPublication {
    /// `coc.psm_published_via` as a word.
    static func viaText(_ v: UInt64?) -> String {
        v.flatMap { UInt8(exactly: $0) }.flatMap(PublishedPSMs.Via.init(rawValue:))?.text ?? "published"
    }
}

extension ConnsText {
    /// `0x0081 (JSON), read from the peer in frame 25 → channel 1 on connection 1 (frame 27)`.
    static func psmPublication(_ p: ConnsPSMPublication, _ links: ConnsCaptureLinks) -> String {
        var text = HexText.prefixed(p.psm, digits: 4)
        if let e = p.encodingName, p.encoding != 1 { text += " (\(e))" }
        text += ", " + p.via.text + (p.byLocal ? " by the peer from the local host" : " from the peer")
        text += " in frame \(p.moment.frame)"
        let opened = links.byPublication[p.moment.frame] ?? []
        if opened.isEmpty { return text + "; no channel opened on it" }
        return text + " → "
            + opened.map {
                "channel \($0.channel.number) on connection \($0.connection)"
                    + ($0.channel.opened.map { " (frame \($0.frame))" } ?? "")
            }.joined(separator: ", ")
    }

    /// The peers with more than one connection, and the findings; empty when there are none.
    static func links(_ links: ConnsCaptureLinks) -> String {
        var lines: [String] = []
        let repeated = links.peers.filter { $0.connections.count > 1 }
        if !repeated.isEmpty {
            lines.append("Peers with more than one connection:")
            for p in repeated {
                lines.append(
                    "  " + ViewText.address(p.address, upperCase: true) + (p.identity ? " (identity)" : "")
                        + ": connections " + p.connections.map(String.init).joined(separator: ", ")
                )
            }
        }
        let pairs = links.dualRolePairs
        if !pairs.isEmpty {
            lines.append("Findings:")
            for (a, b) in pairs { lines += ConnsFindings.dualRoleText(a, b).map { "  " + $0 } }
        }
        return lines.isEmpty ? "" : "\n" + lines.joined(separator: "\n") + "\n"
    }
}

extension ConnsJSON {
    static func psmPublication(_ p: ConnsPSMPublication, _ links: ConnsCaptureLinks) -> JSONValue {
        .object([
            ("frame", .int(p.moment.frame)), ("time_us", .optional(p.moment.time)), ("psm", .int(p.psm)),
            ("encoding", .optional(p.encodingName)), ("via", .string(p.via.text)),
            ("published_by", .string(p.byLocal ? "local" : "peer")),
            (
                "channels",
                .array(
                    (links.byPublication[p.moment.frame] ?? []).map {
                        .object([
                            ("connection", .int($0.connection)), ("channel", .int($0.channel.number)),
                            ("opened_frame", .optional($0.channel.opened?.frame)),
                        ])
                    }
                )
            ),
        ])
    }

    /// The tail's `peers` and `findings`.
    static func links(_ links: ConnsCaptureLinks) -> [(String, JSONValue)] {
        [
            (
                "peers",
                .array(
                    links.peers.map { p in
                        .object([
                            ("address", .string(ViewText.address(p.address, upperCase: false))),
                            ("identity", .bool(p.identity)),
                            ("connections", .array(p.connections.map { .int($0) })),
                        ])
                    }
                )
            ),
            ("findings", .array(links.dualRolePairs.map { ConnsFindings.dualRoleJSON($0.0, $0.1) })),
        ]
    }
}

/// A connection's sequence-counter issues (`sequence.issue`: 1 gap, 2 repeat, 3 step back).
struct ConnsSequenceIssues {
    struct Issue {
        var moment: ConnsMoment
        var kind: UInt64
        var expected: UInt64?
    }

    var gaps = 0
    var repeats = 0
    var stepsBack = 0
    var listed = CappedList<Issue>(limit: 256)

    var total: Int { gaps &+ repeats &+ stepsBack }

    mutating func add(_ kind: UInt64, expected: UInt64?, at moment: ConnsMoment) {
        switch kind {
        case 1: gaps &+= 1
        case 2: repeats &+= 1
        case 3: stepsBack &+= 1
        default: return
        }
        listed.append(Issue(moment: moment, kind: kind, expected: expected))
    }

    static func name(_ kind: UInt64) -> String { kind == 1 ? "gap" : kind == 2 ? "repeat" : "step back" }

    /// `1 gap, 0 repeats, 0 steps back: frame 82 gap (expected 5)`.
    var text: String {
        var text =
            "\(gaps) gap" + (gaps == 1 ? "" : "s") + ", \(repeats) repeat" + (repeats == 1 ? "" : "s")
            + ", \(stepsBack) step" + (stepsBack == 1 ? "" : "s") + " back"
        let shown = listed.items.prefix(5).map { i in
            "frame \(i.moment.frame) " + Self.name(i.kind) + (i.expected.map { " (expected \($0))" } ?? "")
        }
        text += ": " + shown.joined(separator: ", ")
        if total > shown.count { text += ", … (--json lists up to 256)" }
        return text
    }

    var json: JSONValue {
        .object([
            ("gaps", .int(gaps)), ("repeats", .int(repeats)), ("steps_back", .int(stepsBack)),
            (
                "issues",
                .array(
                    listed.items.map { i in
                        .object([
                            ("frame", .int(i.moment.frame)), ("issue", .string(Self.name(i.kind))),
                            ("expected", .optional(i.expected)),
                        ])
                    }
                )
            ),
        ])
    }
}
