public import BLECapture
import BLEInspectCore
import BLEInspectFilter
import BLEInspectRender
import BLEInspectSession

/// Writes `follow`'s items as they come: nothing is kept from one item to the next but counts.
final class FollowWriter {
    static let schema = "bleinspect.follow/1"

    let format: FollowFormat
    let sink: OutputSink
    /// How the headings name attribute types.
    let uuids: UUIDText
    private(set) var items = 0

    init(format: FollowFormat, sink: OutputSink, uuids: UUIDText) {
        self.format = format
        self.sink = sink
        self.uuids = uuids
    }

    func write(_ item: FollowItem) {
        items += 1
        switch format {
        case .raw:
            sink.append(contentsOf: item.bytes)
        case .hexDump:
            sink.append(heading(item))
            sink.append(HexDump.lines(Array(item.bytes), indent: "    "))
            sink.append("\n")
        case .text:
            sink.append(heading(item))
            sink.append("    " + Self.trimmedText(item.bytes) + "\n\n")
        case .json:
            sink.append(Self.json(item))
        }
        sink.flushIfFull()
    }

    // MARK: Text

    /// `#59  2025-01-01 00:00:00.286256  sent, central → peripheral  connection 0x0001  …`.
    func heading(_ item: FollowItem) -> String {
        let time = item.frame.timestamp
        var parts = ["#\(item.frame.number)", TimeFormat.absolute.format(time, first: time, previous: time)]
        var direction = Self.direction(item.frame.direction, unknown: "direction unknown")
        if let (from, to) = Self.ends(item) { direction += ", \(from) → \(to)" }
        parts.append(direction)
        if let c = item.connection { parts.append("connection " + ViewText.handle(c)) }
        switch item.payload {
        case .sdu(let channel, let psm, let cid, let index):
            if let channel { parts.append("channel \(channel)") }
            if let psm { parts.append("PSM " + HexText.prefixed(psm, digits: 4)) }
            if let cid { parts.append("CID " + ViewText.handle(cid)) }
            if let index { parts.append("SDU \(index)") }
            if let m = item.message { parts.append(Self.describe(m)) }
        case .value(let handle, let uuid, let via, let offset):
            parts.append(via.rawValue + (offset > 0 ? " at offset \(offset)" : ""))
            parts.append(
                "handle " + ViewText.handle(handle) + (uuid.map { " (" + uuids.withName($0) + ")" } ?? "")
            )
        }
        if let q = item.sequence { parts.append(q.text) }
        parts.append(item.bytes.count == 1 ? "1 byte" : "\(item.bytes.count) bytes")
        return parts.joined(separator: "  ") + "\n"
    }

    /// `Chat message 1 (plugin chat), SDUs 2–3, frames #173–#235` (the spans when more than one).
    static func describe(_ m: FollowMessage) -> String {
        var text = "\(TerminalSafeText.escape(m.binding)) message \(m.number) (plugin \(m.plugin))"
        // A message within one SDU has it in the heading already.
        if let first = m.firstSDU, let last = m.lastSDU, first != last { text += ", SDUs \(first)–\(last)" }
        if let first = m.firstFrame, first != m.lastFrame { text += ", frames #\(first)–#\(m.lastFrame)" }
        return text
    }

    /// The bytes as escaped text, without the spaces and NULs that end them, saying how many
    /// were trimmed: `hello … (+1,019 bytes of padding trimmed)`.
    static func trimmedText(_ bytes: ArraySlice<UInt8>) -> String {
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[end - 1] == 0x20 || bytes[end - 1] == 0 { end -= 1 }
        let trimmed = bytes.endIndex - end
        let text = TerminalSafeText.escape(bytes[bytes.startIndex..<end])
        guard trimmed > 0 else { return text }
        return text + " … (+\(grouped(trimmed)) byte\(trimmed == 1 ? "" : "s") of padding trimmed)"
    }

    /// 1019 as `1,019`.
    static func grouped(_ n: Int) -> String {
        var digits = String(n)
        var i = digits.count - 3
        while i > 0 {
            digits.insert(",", at: digits.index(digits.startIndex, offsetBy: i))
            i -= 3
        }
        return digits
    }

    /// Who sent the item and who received it: central and peripheral when the connection's
    /// roles are known, else local (the capturing host) and peer.
    static func ends(_ item: FollowItem) -> (String, String)? {
        guard let local = item.sentByLocal else { return nil }
        switch (item.localRole, local) {
        case (.central, true), (.peripheral, false): return ("central", "peripheral")
        case (.central, false), (.peripheral, true): return ("peripheral", "central")
        case (nil, true): return ("local", "peer")
        case (nil, false): return ("peer", "local")
        }
    }

    // MARK: JSON

    /// One line: `{"_schema":"bleinspect.follow/1","frame":59,…,"hex":"433e…"}`.
    static func json(_ item: FollowItem) -> String {
        let time = item.frame.timestamp
        let epoch = Timestamp(seconds: time.seconds, nanoseconds: time.nanoseconds, precision: .nanoseconds)
        let ends = item.localRole == nil ? nil : ends(item)
        var members: [(String, JSONValue)] = [
            ("_schema", .string(schema)),
            ("frame", .int(item.frame.number)),
            ("time_epoch", .string(TimeFormat.epoch.format(epoch, first: epoch, previous: epoch))),
            ("direction", .string(direction(item.frame.direction, unknown: "unknown"))),
            ("sender", .optional(item.sentByLocal.map { $0 ? "local" : "peer" })),
            ("from", .optional(ends?.0)),
            ("to", .optional(ends?.1)),
            ("connection", .optional(item.connection)),
        ]
        switch item.payload {
        case .sdu(let channel, let psm, let cid, let index):
            members += [
                ("kind", .string(item.message == nil ? "sdu" : "message")), ("channel", .optional(channel)),
                ("psm", .optional(psm)), ("cid", .optional(cid)), ("sdu", .optional(index)),
            ]
            if let m = item.message {
                members += [
                    ("plugin", .string(m.plugin)), ("binding", .string(m.binding)), ("message", .int(m.number)),
                    ("sdus", .array([.optional(m.firstSDU), .optional(m.lastSDU)])),
                    ("frames", .array([.optional(m.firstFrame), .int(m.lastFrame)])),
                ]
            }
        case .value(let handle, let uuid, let via, let offset):
            members += [
                ("kind", .string(via.rawValue)), ("handle", .int(handle)),
                ("uuid", .optional(uuid.map { ViewText.uuid($0, upperCase: false) })), ("offset", .int(offset)),
            ]
        }
        if let q = item.sequence {
            members.append(
                (
                    "sequence",
                    .object([
                        ("issue", .string(q.name)), ("expected", .optional(q.expected)), ("got", .optional(q.value)),
                        ("missing", .optional(q.missing)),
                    ])
                )
            )
        }
        members += [("length", .int(item.bytes.count)), ("hex", .string(Hex.string(item.bytes)))]
        return JSONValue.object(members).line
    }

    /// The frame's direction as the items name it.
    static func direction(_ d: Direction, unknown: String) -> String {
        switch d {
        case .hostToController: "sent"
        case .controllerToHost: "received"
        case .unknown: unknown
        }
    }
}

/// `bleinspect follow`: reads the captures and writes each item of the selection as it is found.
public enum FollowCommandRunner {
    public static func run(
        scan: CaptureScan,
        selector: FollowSelector,
        direction: FollowDirection,
        format: FollowFormat,
        output: OutputSink,
        errorOutput: (String) -> Void
    ) -> ExitStatus {
        var sink = output
        var built: FollowWriter? = nil
        let status = scan.runView("follow", errorOutput: errorOutput) { registry in
            if case .raw(let path) = format {
                do throws(CaptureError) {
                    sink = try OutputSink.create(path: path)
                } catch {
                    errorOutput("bleinspect: \(error)")
                    return .failure(.cannotCreateOutput)
                }
            }
            let showsMessages = if case .raw = format { false } else { true }
            let matcher = FollowMatcher(registry: registry, selector: selector, showsMessages: showsMessages)
            let writer = FollowWriter(format: format, sink: sink, uuids: UUIDText(names: registry.uuidNames))
            built = writer
            return .success(
                .init(missing: matcher.missingFields) { frame, tree in
                    // Every frame reaches the matcher, which learns roles and channels from both
                    // directions; only the items are chosen by direction.
                    matcher.take(frame, tree) { item in
                        if direction.includes(item.frame.direction) { writer.write(item) }
                    }
                }
            )
        }
        guard let writer = built, status != .software else { return status }
        if writer.items == 0 { noteNothing(selector, format: format, output: output, errorOutput) }
        sink.flush()
        output.flush()
        if sink.failure != nil || output.failure != nil {
            if case .raw(let path) = format, sink.failure != nil {
                errorOutput("bleinspect: cannot write \(TerminalSafeText.escape(path))")
            }
            return .cannotCreateOutput
        }
        return status
    }

    /// Says that nothing matched: a sentence on standard output for the text formats, and,
    /// when the handle asked for is also a known UUID, how to ask for the UUID instead.
    private static func noteNothing(
        _ selector: FollowSelector,
        format: FollowFormat,
        output: OutputSink,
        _ errorOutput: (String) -> Void
    ) {
        let what =
            switch selector {
            case .l2cap, .psm: "No SDUs"
            case .attHandle, .attUUID: "No values"
            }
        switch format {
        case .hexDump, .text: output.append("\(what) of \(selector.description) in the frames read.\n")
        case .json, .raw: break
        }
        if case .attHandle(let handle) = selector, let name = FieldFormatter.uuidName(BluetoothUUID(uuid16: handle)) {
            errorOutput(
                "bleinspect: note: \(ViewText.handle(handle)) was read as a handle; for the attributes of type "
                    + "\(name), write --att uuid:\(ViewText.handle(handle))"
            )
        }
    }
}
