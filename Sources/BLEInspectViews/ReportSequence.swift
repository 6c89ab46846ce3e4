import BLEInspectCore

/// One message over a connection for the sequence chart: ATT, L2CAP signalling, SMP, a link
/// layer control PDU (sniffed captures), or a K-frame of a credit-based channel.
struct ReportMessage {
    enum Kind: String {
        case att, signalling, smp, control, kFrame = "k-frame"
    }

    var kind: Kind
    /// Sent by the local host (for a sniffer, the central), as `conns` counts sent.
    var local: Bool
    /// The opcode or command code; the channel's number for a K-frame.
    var code: UInt64
    var moment: ConnsMoment

    /// Whether a run of these folds into one arrow: notifications, write commands and K-frames.
    var folds: Bool { kind == .kFrame || (kind == .att && (code == 0x1B || code == 0x52)) }

    /// Whether `other` continues a run of this one: the same kind, code and direction.
    func continued(by other: ReportMessage) -> Bool {
        folds && other.kind == kind && other.code == code && other.local == local
    }
}

/// The fields a frame's message is read from, found once per registry.
struct ReportMessageFields {
    /// The kinds in the order a frame's message is chosen, and the field of each.
    private static let kinds: [(String, ReportMessage.Kind)] = [
        ("btatt.opcode", .att), ("btsmp.opcode", .smp), ("btl2cap.cmd_code", .signalling),
        ("btle.control_opcode", .control), ("coc.channel", .kFrame),
    ]
    private let fields: [FieldID?]

    init(_ registry: DissectorRegistry) {
        fields = Self.kinds.map { registry.field(named: $0.0) }
    }

    /// The frame's message, if it holds one: the first of ATT, SMP, signalling, LL control, in
    /// that order; a frame with only a credit-based channel's node is a K-frame.
    func read(_ walk: TreeWalk, _ frame: CapturedFrame) -> ReportMessage? {
        var found = [UInt64?](repeating: nil, count: fields.count)
        for i in walk.nodes.indices {
            let field = walk.nodes[i].field
            for k in fields.indices where fields[k] == field && found[k] == nil { found[k] = walk.unsigned(i) ?? 0 }
        }
        guard let k = found.firstIndex(where: { $0 != nil }), let code = found[k] else { return nil }
        return ReportMessage(
            kind: Self.kinds[k].1,
            local: frame.direction == .hostToController,
            code: code,
            moment: ConnsMoment(frame)
        )
    }
}

/// A connection's messages as the chart's rows: each row one message, or a run of messages that
/// fold (`ReportMessage.folds`) with its count and its first few members. Bounded: at most
/// `rowLimit` rows, `memberLimit` members a run, and what the capture's budget allows
/// (`ReportCapture.messageBudget`); the rest are counted.
final class ReportSequence {
    static let rowLimit = 100
    static let memberLimit = 8

    struct Row {
        var first: ReportMessage
        var last: ReportMessage
        var count: Int
        /// The first members, `first` among them.
        var members: [ReportMessage]
    }

    private(set) var rows: [Row] = []
    /// Messages seen in all, and those past the limits (not drawn).
    private(set) var total = 0
    private(set) var dropped = 0

    /// Takes the next message; returns the messages it stored (0 or 1), for the capture's budget.
    func add(_ m: ReportMessage, budgetLeft: Bool) -> Int {
        total &+= 1
        if let k = rows.indices.last, rows[k].last.continued(by: m) {
            rows[k].last = m
            rows[k].count &+= 1
            guard rows[k].members.count < Self.memberLimit, budgetLeft else { return 0 }
            rows[k].members.append(m)
            return 1
        }
        guard rows.count < Self.rowLimit, budgetLeft else {
            dropped &+= 1
            return 0
        }
        rows.append(Row(first: m, last: m, count: 1, members: [m]))
        return 1
    }

    /// The frames whose one-line summaries the chart shows.
    var shownFrames: [Int] { rows.flatMap { r in r.members.map(\.moment.frame) + [r.last.moment.frame] } }
}
