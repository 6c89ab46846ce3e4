import BLEInspectCore

/// An integer field a plugin watches: a sequence counter (`sequence: true`, or
/// `sequence: {wrap: N}`), whose each value is compared with the previous one of the same
/// stream, and/or a PSM the app publishes (`psm: true`, see `PluginHost.publishPSM`).
struct SequenceCounter: Sendable {
    /// The counter's field (relative to the plugin's first field).
    let id: Int
    /// For an integer field: its bytes and byte order (0 for a JSON member).
    let width: Int
    let bigEndian: Bool
    /// Where the field's value is kept for later references (-1: not kept).
    let slot: Int
    /// Values run 0 … wrap − 1, then start again at 0; 0 stands for 2^64 (a `uint64`, or a
    /// JSON member without `wrap:`). Nil: not a sequence counter.
    let wrap: UInt64?
    /// The value is an L2CAP PSM the sender publishes.
    var publishesPSM = false

    /// Whether any counter of `counters` is a sequence counter.
    static func anySequence(_ counters: [SequenceCounter]) -> Bool { counters.contains { $0.wrap != nil } }

    /// Set in a layout's `.custom` tag for a counter (the rest is its index); JSON values have
    /// it clear.
    static let tag: UInt32 = 1 << 31
}

/// What a counter's value says about its stream.
public enum SequenceIssue: UInt8, Sendable, Equatable {
    /// The value jumped forward by more than one: values are missing.
    case gap = 1
    /// The same value again.
    case repeated = 2
    /// The value went backwards (not a wrap).
    case stepBack = 3

    /// The names `sequence.issue` shows.
    static let names = ValueNames([(1, "Gap"), (2, "Repeat"), (3, "Step back")])
}

/// A value compared with the one before it in its stream.
public struct SequenceCheck: Sendable, Equatable {
    public let issue: SequenceIssue
    public let expected: UInt64
    /// For a gap: how many values are missing.
    public let missing: UInt64

    /// The check of `value` after `previous`, values wrapping after `wrap − 1` (0: after
    /// 2^64 − 1); nil when `value` is the next one. A jump forward by at most half the range is
    /// a gap (missing values, across a wrap too); further is a step back.
    public static func check(_ value: UInt64, after previous: UInt64, wrap: UInt64) -> SequenceCheck? {
        let expected = wrap != 0 && previous >= wrap - 1 ? 0 : previous &+ 1
        if value == expected { return nil }
        if value == previous { return SequenceCheck(issue: .repeated, expected: expected, missing: 0) }
        // The distance forward from `previous` to `value`, modulo `wrap`.
        let forward: UInt64
        if wrap == 0 {
            forward = value &- previous
        } else {
            forward = value >= previous ? value - previous : wrap - (previous - value)
        }
        let half = wrap == 0 ? UInt64(1) << 63 : wrap / 2
        if forward <= half { return SequenceCheck(issue: .gap, expected: expected, missing: forward - 1) }
        return SequenceCheck(issue: .stepBack, expected: expected, missing: 0)
    }

    /// The expert note: `Sequence gap: expected 5, got 7 (2 missing)`.
    public func message(got value: UInt64) -> String {
        switch issue {
        case .gap: "Sequence gap: expected \(expected), got \(value) (\(missing) missing)"
        case .repeated: "Sequence repeat: \(value) again (expected \(expected))"
        case .stepBack: "Sequence step back: expected \(expected), got \(value)"
        }
    }

    var severity: ExpertSeverity { issue == .repeated ? .note : .warning }
}

/// The `sequence.*` fields, registered once for all plugins when any declares a counter; their
/// names do not depend on a plugin's namespace, so views count them by name.
struct SequenceFields: Sendable {
    let expected: FieldID
    let issue: FieldID
    let missing: FieldID

    static let layer = FieldDescriptor(
        "sequence",
        "Sequence Counter",
        .layer,
        help: "What a plugin's sequence counter says about its stream",
        short: "SEQ"
    )
    static let descriptors = [
        FieldDescriptor(
            "sequence.expected",
            "Expected Value",
            .unsigned(bits: 64),
            help: "The value that would have followed the stream's previous one"
        ),
        FieldDescriptor(
            "sequence.issue",
            "Sequence Issue",
            .unsigned(bits: 8),
            names: SequenceIssue.names,
            help: "1 gap (values missing), 2 repeat (the same value again), 3 step back (the value went backwards)"
        ),
        FieldDescriptor(
            "sequence.missing",
            "Missing Values",
            .unsigned(bits: 64),
            help: "How many values a gap skipped"
        ),
    ]

    init(base: UInt32) {
        expected = FieldID(base)
        issue = FieldID(base &+ 1)
        missing = FieldID(base &+ 2)
    }
}

/// The last value of every counter stream: per counter, and per connection and attribute (by
/// its characteristic or descriptor UUID) and direction, per connection and channel and
/// direction, or per advertiser. Dropped when the connection closes; bounded in streams.
final class SequenceStreams: ConnectionScopedState {
    struct Key: Hashable {
        let counter: FieldID
        let connection: ConnectionKey?
        let advertiser: BDAddr?
        let target: PluginBinding.Target
        let cid: UInt16
        let direction: UInt8
    }

    enum Outcome: Equatable {
        /// The stream's first value, or the next one.
        case fine
        case issue(SequenceCheck)
        /// The value is outside the counter's range: not compared, not kept.
        case outOfRange
        /// Too many streams: this one is not followed.
        case full
    }

    private var last: [Key: UInt64] = [:]

    func connectionClosed(_ key: ConnectionKey) {
        last = last.filter { $0.key.connection != key }
    }

    func observe(_ value: UInt64, key: Key, wrap: UInt64) -> Outcome {
        if wrap != 0, value >= wrap { return .outOfRange }
        guard let previous = last[key] else {
            guard last.count < PluginLimits.maximumSequenceStreams else { return .full }
            last[key] = value
            return .fine
        }
        last[key] = value
        return SequenceCheck.check(value, after: previous, wrap: wrap).map(Outcome.issue) ?? .fine
    }
}

extension PluginHost {
    /// Compares a counter's value with its stream's last one and, for an issue, adds the
    /// `sequence.*` fields under the counter's node (open) and an expert note over its bytes.
    func checkSequence(
        _ value: UInt64,
        _ counter: SequenceCounter,
        _ range: Range<Int>,
        source: Int,
        _ c: inout DissectionContext
    ) {
        guard let fields = plugin.sequence, let wrap = counter.wrap else { return }
        let advertising: Bool
        switch target {
        case .manufacturer, .serviceData: advertising = true
        case .attribute, .psm: advertising = false
        }
        let key = SequenceStreams.Key(
            counter: plugin.id(counter.id),
            connection: advertising ? nil : c.packet.connection,
            advertiser: advertising ? c.packet.advertiser : nil,
            target: target,
            cid: advertising ? 0 : c.packet.cid ?? 0,
            direction: advertising ? 0 : c.direction.rawValue
        )
        let streams = c.state.module(SequenceStreams.self) { SequenceStreams() }
        switch streams.observe(value, key: key, wrap: wrap) {
        case .fine:
            return
        case .outOfRange:
            c.expert(
                .note,
                "Sequence value \(value) is outside 0…\(wrap &- 1): not compared",
                range,
                source: source
            )
        case .full:
            c.expert(
                .note,
                "more than \(PluginLimits.maximumSequenceStreams) sequence streams at once: this one is not checked",
                range,
                source: source
            )
        case .issue(let check):
            // Advertising data is sent many times over: the same value again is expected there.
            if advertising, check.issue == .repeated { return }
            c.tree.add(fields.issue, .unsigned(UInt64(check.issue.rawValue)), range, source: source)
            c.tree.add(fields.expected, .unsigned(check.expected), range, source: source)
            if check.issue == .gap { c.tree.add(fields.missing, .unsigned(check.missing), range, source: source) }
            c.expert(check.severity, check.message(got: value), range, source: source)
            c.appendInfo(check.message(got: value))
        }
    }
}
