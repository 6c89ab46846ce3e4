import BLEInspectCore

/// A message a plugin's framing cut from a channel's byte stream, as `follow` shows it.
struct FollowMessage {
    /// The plugin's namespace and the binding's name (`chat`, `Chat`).
    var plugin: String
    var binding: String
    /// The message's number in its channel and direction, from 1.
    var number: UInt64
    /// The SDUs (by number in their channel and direction) and the frames it spans, when known:
    /// the first is where the bytes after the stream's previous message arrived.
    var firstSDU: UInt64?
    var lastSDU: UInt64?
    var firstFrame: Int?
    var lastFrame: Int
}

/// A sequence counter's issue on an item (the `sequence.*` fields).
struct FollowSequence {
    var issue: UInt64
    var expected: UInt64?
    var missing: UInt64?
    /// The counter's value.
    var value: Int64?

    var name: String {
        switch issue {
        case 1: "gap"
        case 2: "repeat"
        case 3: "step back"
        default: "issue \(issue)"
        }
    }

    /// `sequence gap: expected 5, got 7 (2 missing)`.
    var text: String {
        var parts: [String] = []
        if let expected { parts.append("expected \(expected)") }
        if let value { parts.append("got \(value)") }
        return "sequence \(name)" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
            + (missing.map { " (\($0) missing)" } ?? "")
    }
}

/// What `follow` reads of plugins: the messages of a framed channel (`NS.message` groups, whose
/// data source is the reassembled message; `NS.buffered`) and sequence counters' issues
/// (`sequence.*`). Fields only, looked up by name in the registry: the view does no framing.
final class FollowPlugins {
    /// The fields of the plugin bound to a PSM, when it frames messages.
    struct Framed {
        let layer: FieldID
        let message: FieldID
        let buffered: FieldID?
        let plugin: String
        let binding: String
    }

    /// A channel's direction: where the bytes after its last message started.
    struct Stream: Hashable {
        let connection: UInt16?
        let channel: UInt64?
        let psm: UInt64
        let sentByLocal: Bool?
    }

    private let registry: DissectorRegistry
    private let issue: FieldID?
    private let expected: FieldID?
    private let missing: FieldID?
    private var framedByPSM: [UInt64: Framed?] = [:]
    private var pending: [Stream: (frame: Int, sdu: UInt64?)] = [:]
    /// The messages shown so far in each stream.
    private var counts: [Stream: UInt64] = [:]

    init(registry: DissectorRegistry) {
        self.registry = registry
        issue = registry.field(named: "sequence.issue")
        expected = registry.field(named: "sequence.expected")
        missing = registry.field(named: "sequence.missing")
    }

    /// The framing plugin bound to `psm`, if any.
    func framed(psm: UInt64) -> Framed? {
        if let known = framedByPSM[psm] { return known }
        var found: Framed? = nil
        if psm <= 0xFFFF, let binding = registry.binding(StandardTables.l2capPSM, DissectorKey(UInt16(psm))),
            binding.fromPlugin, let layer = registry.field(named: binding.owner),
            let message = registry.field(named: binding.owner + ".message")
        {
            found = Framed(
                layer: layer,
                message: message,
                buffered: registry.field(named: binding.owner + ".buffered"),
                plugin: binding.owner,
                binding: binding.label
            )
        }
        if framedByPSM.count < FollowMatcher.maximumChannels { framedByPSM[psm] = found }
        return found
    }

    /// The messages the plugin layer in `range` holds, each with its node, for the SDU `index`
    /// of `stream`; nil when the layer decoded the SDU without framing (it is then shown as it
    /// is). A framed SDU that completes no message gives none.
    func messages(
        _ framed: Framed,
        in range: Range<Int>,
        stream: Stream,
        index: UInt64?,
        _ walk: TreeWalk
    ) -> [(node: Int, message: FollowMessage)]? {
        guard let layer = walk.first(framed.layer, in: range) else { return nil }
        let inside = layer..<walk.end(of: layer)
        let nodes = walk.all(framed.message, in: inside)
        let buffered = framed.buffered.flatMap { walk.first($0, in: inside) }.flatMap(walk.unsigned) ?? 0
        if nodes.isEmpty && buffered == 0 {
            // Without framing, the layout's fields sit right under the layer.
            let expert = registry.core[.expert]
            if walk.children(of: layer).contains(where: { walk.nodes[$0].field != expert }) { return nil }
        }
        let frame = walk.frame.number
        let start = pending[stream] ?? (frame, index)
        var out: [(Int, FollowMessage)] = []
        for (k, node) in nodes.enumerated() {
            let first = k == 0 ? start : (frame, index)
            if counts[stream] == nil && counts.count >= FollowMatcher.maximumChannels { counts.removeAll() }
            let number = (counts[stream] ?? 0) &+ 1
            counts[stream] = number
            let message = FollowMessage(
                plugin: framed.plugin,
                binding: framed.binding,
                number: number,
                firstSDU: first.1,
                lastSDU: index,
                firstFrame: first.0,
                lastFrame: frame
            )
            out.append((node, message))
        }
        if buffered == 0 {
            pending[stream] = nil
        } else if !nodes.isEmpty || pending[stream] == nil {
            if pending[stream] == nil && pending.count >= FollowMatcher.maximumChannels { pending.removeAll() }
            pending[stream] = (frame, index)
        }
        return out
    }

    /// The first sequence counter issue in `range`.
    func sequence(in range: Range<Int>, _ walk: TreeWalk) -> FollowSequence? {
        guard let issue, let i = walk.first(issue, in: range), let kind = walk.unsigned(i) else { return nil }
        // The fields sit under the counter's node, beside each other.
        let counter = walk.parent(of: i)
        let siblings = counter.map { ($0 + 1)..<walk.end(of: $0) } ?? i..<(i + 1)
        var value: Int64? = nil
        if let counter {
            switch walk.nodes[counter].value {
            case .unsigned(let v): value = Int64(exactly: v)
            case .signed(let v): value = v
            default: break
            }
        }
        return FollowSequence(
            issue: kind,
            expected: expected.flatMap { walk.first($0, in: siblings) }.flatMap(walk.unsigned),
            missing: missing.flatMap { walk.first($0, in: siblings) }.flatMap(walk.unsigned),
            value: value
        )
    }
}
