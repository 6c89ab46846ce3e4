public import BLECapture
public import BLEInspectCore

/// What to print for each frame.
public enum OutputMode: Sendable {
    /// One line per frame (`verbose` false) or the full tree (`verbose` true); `hexDump` adds the
    /// bytes.
    case text(verbose: Bool, hexDump: Bool)
    /// NDJSON: one object per frame.
    case json
    /// tshark-style `-T fields`: the named fields, tab-separated, repeated values joined by commas.
    case fields([String])
}

/// Renders dissected frames to an output sink in every `OutputMode`: the output formats of
/// `read` and `live`. Generic over field descriptors: no protocol code. A new format is a case of
/// `OutputMode`, its writer here, and its `reads` (the switch in `init` makes it say).
///
/// Every mode writes bytes into one reused buffer (`TextBuffer`), handed to the sink in one
/// append per frame: names come from a byte pool made once (`RenderTables`), numbers and hex are
/// formatted in place, and untrusted text is escaped as it is copied. No String is made per node.
public struct FrameRenderer: FrameRendering {
    public let registry: DissectorRegistry
    public let mode: OutputMode
    public let reads: TreeNeeds
    public let style: ANSIStyle
    public let timeFormat: TimeFormat
    let formatter: FieldFormatter
    let fieldIDs: [[FieldID]]
    let tables: RenderTables
    /// For `-T fields`: the field of each column, `UInt32.max` for an unknown name.
    let columnFields: [UInt32]
    /// Reused from frame to frame by JSON output.
    let json: JSONScratch?
    /// The frame's text, reused from frame to frame.
    let scratch = RenderScratch()

    /// Unknown names in a `fields` list, for a usage error.
    public static func unknownFields(_ names: [String], registry: DissectorRegistry) -> [String] {
        names.filter { registry.field(named: $0) == nil }
    }

    public init(registry: DissectorRegistry, mode: OutputMode, style: ANSIStyle, timeFormat: TimeFormat) {
        self.registry = registry
        self.mode = mode
        self.style = style
        self.timeFormat = timeFormat
        self.formatter = FieldFormatter(registry: registry)
        let tables = RenderTables(registry: registry)
        self.tables = tables
        if case .fields(let names) = mode {
            fieldIDs = names.map { name in registry.field(named: name).map { [$0] } ?? [] }
        } else {
            fieldIDs = []
        }
        columnFields = fieldIDs.map { $0.first?.rawValue ?? UInt32.max }
        switch mode {
        case .text(verbose: false, hexDump: _): reads = .summary
        case .text(verbose: true, hexDump: _), .json: reads = .everything
        case .fields: reads = .fields(Set(fieldIDs.joined()))
        }
        if case .json = mode {
            json = JSONScratch(keyCount: tables.keyCount)
        } else {
            json = nil
        }
    }

    /// Whether the renderer uses the one-line summary.
    public var wantsInfo: Bool {
        if case .text = mode { return true }
        return false
    }

    /// Renders one frame and hands its bytes, valid only during the call, to `emit`.
    public func render(
        _ frame: CapturedFrame,
        _ tree: borrowing ProtocolTree,
        first: Timestamp,
        previous: Timestamp,
        emit: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        let texts = tree.texts
        let derivedStart = tree.derivedStart
        let sourceNames = tree.sourceNames
        let sources = tree.sources
        tree.withInfoBytes { info in
            FrameView.with(frameBytes: frame.bytes, tree: tree, sources: sources) { view in
                write(
                    frame,
                    view,
                    texts: texts,
                    info: info,
                    derivedStart: derivedStart,
                    sources: sources,
                    sourceNames: sourceNames,
                    first: first,
                    previous: previous,
                    scratch: &scratch.state,
                    emit: emit
                )
            }
        }
    }

    private func write(
        _ frame: CapturedFrame,
        _ view: FrameView,
        texts: [String],
        info: UnsafeBufferPointer<UInt8>,
        derivedStart: Int,
        sources: [[UInt8]],
        sourceNames: [String],
        first: Timestamp,
        previous: Timestamp,
        scratch: inout RenderScratch.State,
        emit: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        scratch.text.removeAll()
        switch mode {
        case .text(let verbose, let hexDump):
            summaryLine(
                frame,
                lineFacts(view.nodes, derivedStart: derivedStart),
                info: info,
                first: first,
                previous: previous,
                to: &scratch.text
            )
            if verbose {
                renderTree(
                    view,
                    texts: texts,
                    names: &scratch.names,
                    plans: &scratch.treePlans,
                    to: &scratch.text
                )
            }
            if hexDump { renderHex(frame, sources: sources, sourceNames: sourceNames, to: &scratch.text) }
            if verbose || hexDump { scratch.text.append(0x0A) }
        case .json:
            json?.render(view, texts: texts, tables: tables, to: &scratch.text)
            scratch.text.append(0x0A)
        case .fields:
            renderFields(view, texts: texts, to: &scratch.text)
        }
        emit(scratch.text.bytes)
    }

    /// Whether the output is the summary line alone, which reads of the tree only its
    /// `LineFacts` and its summary text (`renderLine`).
    public var rendersLineOnly: Bool {
        if case .text(verbose: false, hexDump: false) = mode { return true }
        return false
    }

    /// What the summary line reads of `tree` besides its summary text.
    public func lineFacts(_ tree: borrowing ProtocolTree) -> LineFacts {
        let derivedStart = tree.derivedStart
        return tree.withNodes { lineFacts($0, derivedStart: derivedStart) }
    }

    /// The innermost layer before the derived nodes (searched from the end), and, in colour,
    /// whether the frame is malformed.
    private func lineFacts(_ nodes: UnsafeBufferPointer<FieldNode>, derivedStart: Int) -> LineFacts {
        var facts = LineFacts()
        let core = tables.coreLayer
        var i = min(derivedStart, nodes.count)
        while i > 0 {
            i -= 1
            let field = nodes[i].field
            if field == core { continue }
            if tables.entry(field).facts.kind == .layer {
                facts.layer = field.rawValue
                break
            }
        }
        if style.enabled {
            let malformed = tables.malformed
            facts.malformed = nodes.contains { $0.field == malformed }
        }
        return facts
    }

    /// Renders the summary line of a frame whose tree another thread reduced to `facts` and its
    /// summary text `info`; the same bytes as `render` for that tree. Only for `rendersLineOnly`.
    public func renderLine(
        _ frame: CapturedFrame,
        _ facts: LineFacts,
        info: UnsafeBufferPointer<UInt8>,
        first: Timestamp,
        previous: Timestamp,
        emit: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        scratch.state.text.removeAll()
        summaryLine(frame, facts, info: info, first: first, previous: previous, to: &scratch.state.text)
        emit(scratch.state.text.bytes)
    }

    /// Appends the innermost layer's short name, the protocol column, and returns its length;
    /// writes nothing and returns 0 when the frame has no layer but the frame's own.
    private func appendProtocolName(_ facts: LineFacts, to out: inout TextBuffer) -> Int {
        guard facts.layer != LineFacts.noLayer else { return 0 }
        let name = tables.entry(FieldID(facts.layer)).short
        guard name.count > 0 else { return 0 }
        out.append(contentsOf: tables.bytes(name))
        return Int(name.count)
    }

    func summaryLine(
        _ frame: CapturedFrame,
        _ facts: LineFacts,
        info: UnsafeBufferPointer<UInt8>,
        first: Timestamp,
        previous: Timestamp,
        to out: inout TextBuffer
    ) {
        out.appendDecimal(Int64(frame.number), width: 7)
        out.append(0x20)
        let digits = Int(frame.timestamp.precision.rawValue)
        switch timeFormat {
        case .absolute:
            let start = out.count
            timeFormat.append(frame.timestamp, first: first, previous: previous, to: &out)
            let width = out.count - start
            if width < 12 { out.insertSpaces(12 - width, at: start) }
        case .relative, .delta, .epoch:
            let (seconds, nanos): (Int64, UInt32)
            switch timeFormat {
            case .relative: (seconds, nanos) = frame.timestamp.difference(from: first)
            case .delta: (seconds, nanos) = frame.timestamp.difference(from: previous)
            default: (seconds, nanos) = (frame.timestamp.seconds, frame.timestamp.nanoseconds)
            }
            out.appendDecimal(seconds, width: 12 - digits - 1)
            out.append(0x2E)
            out.appendZeroPadded(digits == 9 ? nanos : nanos / 1000, digits: digits)
        }
        out.append(0x20)
        switch frame.direction {
        case .unknown: out.append(0x3F)
        case .hostToController: out.append(0x3C)
        case .controllerToHost: out.append(0x3E)
        }
        out.append(0x20)
        if let c = frame.controllerIndex {
            out.appendLiteral("hci")
            out.appendDecimal(UInt64(c))
            out.appendSpaces(2 - (c < 10 ? 1 : c < 100 ? 2 : 3))
        } else {
            out.appendLiteral("-    ")
        }
        out.append(0x20)
        style.append(.bold, to: &out)
        var protoWidth = appendProtocolName(facts, to: &out)
        if protoWidth == 0 {
            if frame.kind.isText {
                out.appendLiteral("NOTE")
                protoWidth = 4
            } else if frame.kind.isHCI {
                out.appendLiteral("HCI")
                protoWidth = 3
            } else {
                out.appendLiteral("DATA")
                protoWidth = 4
            }
        }
        style.append(.reset, to: &out)
        out.appendSpaces(max(1, 9 - protoWidth))
        let malformed = facts.malformed
        if malformed { style.append(.red, to: &out) }
        if info.isEmpty {
            FrameSummary.append(of: frame, to: &out)
        } else {
            out.append(contentsOf: info)
        }
        if malformed { style.append(.reset, to: &out) }
        out.append(0x0A)
    }

    /// Writes the tree by the plan kept for the frame's shape (`ShapePlans`), made first when
    /// the shape is new: the lines' indents, names and units are its literal text; integers
    /// without value names are written in place, other values and labels by `appendLine`.
    func renderTree(
        _ view: FrameView,
        texts: [String],
        names: inout NameCache,
        plans: inout ShapePlans<TreeOp>,
        to out: inout TextBuffer
    ) {
        let (hash, kept) = plans.find(view.nodes)
        let plan = kept ?? makeTreePlan(view.nodes, hash: hash, plans: &plans)
        plan.write(to: &out) { op, out in
            let node = view.nodes[Int(op.node)]
            switch (op.kind, node.value) {
            case (.decimal, .unsigned(let v)): out.appendDecimal(v)
            case (.hex, .unsigned(let v)): out.appendPaddedHex(v, bits: Int(op.bits))
            case (.decimal, .signed(let v)): out.appendDecimal(v)
            case (.seconds, .unsigned(let v)): out.appendSeconds(nanoseconds: Int64(bitPattern: v))
            case (.seconds, .signed(let v)): out.appendSeconds(nanoseconds: v)
            case (.localDate, .unsigned(let v)): TimeFormat.appendLocalDate(nanoseconds: Int64(bitPattern: v), to: &out)
            case (.localDate, .signed(let v)): TimeFormat.appendLocalDate(nanoseconds: v, to: &out)
            case (.namedDecimal, .unsigned(let v)), (.namedHex, .unsigned(let v)):
                appendNamed(v, node.field, op, names: &names, to: &out)
            default: appendLine(node, view, texts: texts, names: &names, to: &out)
            }
        }
    }

    /// Makes and keeps the tree's plan for the shape of `nodes`.
    private func makeTreePlan(
        _ nodes: UnsafeBufferPointer<FieldNode>,
        hash: UInt64,
        plans: inout ShapePlans<TreeOp>
    ) -> ShapePlans<TreeOp>.Plan {
        plans.newLiterals.removeAll()
        for i in 0..<nodes.count {
            let node = nodes[i]
            let e = tables.entry(node.field)
            let f = e.facts
            let indent = 4 + 2 * Int(node.depth)
            var kind = TreeOp.Kind.line
            switch f.kind {
            case .layer, .group, .expert: plans.newLiterals.appendSpaces(indent)
            default:
                if let prefix = tables.linePrefix(e, indent: indent) {
                    plans.newLiterals.append(contentsOf: prefix)
                } else {
                    plans.newLiterals.appendSpaces(indent)
                    plans.newLiterals.append(contentsOf: tables.bytes(e.name))
                    plans.newLiterals.append(0x3A, 0x20)
                }
                kind = Self.treeOpKind(node.value, f, hasValueNames: e.hasValueNames)
            }
            plans.newOps[i] = TreeOp(
                literalEnd: UInt32(truncatingIfNeeded: plans.newLiterals.count),
                node: UInt32(i),
                kind: kind,
                bits: f.bits,
                hasUnit: f.hasUnit
            )
            if kind != .line && kind != .namedDecimal && kind != .namedHex && f.hasUnit {
                // `FieldText.appendUnit` with no value name.
                let unit = tables.bytes(e.unit)
                if !unit.isEmpty {
                    plans.newLiterals.append(0x20)
                    plans.newLiterals.append(contentsOf: unit)
                }
            }
            plans.newLiterals.append(0x0A)
        }
        return plans.keep(opCount: nodes.count, hash: hash, nodeCount: nodes.count)
    }

    /// How a plan writes a field's value (`FieldText.appendValueText`): integers and times as
    /// themselves, with the unit in the literal text, which holds while no value name shows;
    /// integers with value names by `appendNamed`; others by `appendLine`.
    private static func treeOpKind(_ value: FieldValue, _ f: FieldFacts, hasValueNames: Bool) -> TreeOp.Kind {
        switch value {
        case .unsigned, .signed:
            if f.isTime { return f.kind == .localTime ? .localDate : .seconds }
            if case .signed = value { return hasValueNames ? .line : .decimal }
            if f.kind == .boolean { return .line }
            switch f.base {
            case .decimal: return hasValueNames ? .namedDecimal : .decimal
            case .hex: return hasValueNames ? .namedHex : .hex
            case .decimalAndHex: return .line
            }
        default: return .line
        }
    }

    /// An unsigned value that may have a name: `Name (value)`, else the value and the unit.
    @inline(never)
    private func appendNamed(
        _ v: UInt64,
        _ field: FieldID,
        _ op: TreeOp,
        names: inout NameCache,
        to out: inout TextBuffer
    ) {
        if let name = names.valueName(field, v, tables: tables) {
            FieldText.appendNamed(v, name: name, hex: op.kind == .namedHex, bits: op.bits, to: &out)
            return
        }
        if op.kind == .namedDecimal {
            out.appendDecimal(v)
        } else {
            out.appendPaddedHex(v, bits: Int(op.bits))
        }
        if op.hasUnit {
            let unit = tables.bytes(tables.entry(field).unit)
            if !unit.isEmpty {
                out.append(0x20)
                out.append(contentsOf: unit)
            }
        }
    }

    /// A tree line's label, or for a field its value, value name and unit (what follows its
    /// `Name: `). Out of line: the plan's loop stays small.
    @inline(never)
    private func appendLine(
        _ node: FieldNode,
        _ view: FrameView,
        texts: [String],
        names: inout NameCache,
        to out: inout TextBuffer
    ) {
        let e = tables.entry(node.field)
        switch e.facts.kind {
        case .layer:
            style.append(.bold, to: &out)
            style.append(.blue, to: &out)
            FieldText.appendGroupLabel(node.value, name: tables.bytes(e.name), texts: texts, to: &out)
            style.append(.reset, to: &out)
        case .group:
            FieldText.appendGroupLabel(node.value, name: tables.bytes(e.name), texts: texts, to: &out)
        case .expert:
            if case .expert(let severity, _) = node.value, severity < .warning {
                style.append(.cyan, to: &out)
            } else {
                style.append(node.field == tables.malformed ? .red : .yellow, to: &out)
            }
            FieldText.appendExpertLabel(node.value, name: tables.bytes(e.name), texts: texts, to: &out)
            style.append(.reset, to: &out)
        default:
            var valueName: UnsafeBufferPointer<UInt8>? = nil
            if case .uuid(let u) = node.value {
                valueName = names.uuidName(u, tables: tables)
            } else if e.hasValueNames, let key = FieldText.nameKey(node.value, e.facts) {
                valueName = names.valueName(node.field, key, tables: tables)
            }
            FieldText.appendValueText(
                node.value,
                e.facts,
                valueName: valueName,
                texts: texts,
                bytes: view.bytes(of: node, shownAs: e.facts),
                to: &out
            )
            if e.facts.hasUnit {
                FieldText.appendUnit(node.value, valueName: valueName, unit: tables.bytes(e.unit), to: &out)
            }
        }
    }

    func renderHex(_ frame: CapturedFrame, sources: [[UInt8]], sourceNames: [String], to out: inout TextBuffer) {
        frame.bytes.withUnsafeBufferPointer { HexDump.append($0, indentWidth: 4, to: &out) }
        for (i, source) in sources.enumerated() {
            out.appendLiteral("    ")
            if i < sourceNames.count { out.appendUTF8(sourceNames[i]) }
            out.appendLiteral(" (")
            out.appendDecimal(UInt64(source.count))
            out.appendLiteral(" bytes):\n")
            source.withUnsafeBufferPointer { HexDump.append($0, indentWidth: 4, to: &out) }
        }
    }

    func renderFields(_ view: FrameView, texts: [String], to out: inout TextBuffer) {
        for (column, field) in columnFields.enumerated() {
            if column > 0 { out.append(0x09) }
            var first = true
            for node in view.nodes where node.field.rawValue == field {
                if !first { out.append(0x2C) }
                first = false
                let facts = tables.entry(node.field).facts
                FieldText.appendFieldText(
                    node.value,
                    facts,
                    texts: texts,
                    bytes: view.bytes(of: node, shownAs: facts),
                    to: &out
                )
            }
        }
        out.append(0x0A)
    }
}

/// Hex dumps: 16 bytes a line, offset, hex, and printable ASCII.
public enum HexDump {
    public static func lines(_ bytes: [UInt8], indent: String) -> String {
        var out = TextBuffer()
        let indentBytes = Array(indent.utf8)
        bytes.withUnsafeBufferPointer { bytes in
            indentBytes.withUnsafeBufferPointer { append(bytes, indent: $0, to: &out) }
        }
        return out.string
    }

    /// Appends the dump with `indentWidth` spaces before each line.
    static func append(_ bytes: UnsafeBufferPointer<UInt8>, indentWidth: Int, to out: inout TextBuffer) {
        let spaces: StaticString = "                "
        let indent = UnsafeBufferPointer(start: spaces.utf8Start, count: min(indentWidth, spaces.utf8CodeUnitCount))
        append(bytes, indent: indent, to: &out)
    }

    /// Appends the bytes of `lines(bytes, indent:)`.
    static func append(
        _ bytes: UnsafeBufferPointer<UInt8>,
        indent: UnsafeBufferPointer<UInt8>,
        to out: inout TextBuffer
    ) {
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + 16, bytes.count)
            let count = end - offset
            out.append(contentsOf: indent)
            out.appendHex(UInt64(offset), minimumDigits: 4)
            out.append(0x20, 0x20)
            for i in 0..<count {
                out.appendHexByte(bytes[offset + i])
                out.append(0x20)
                if i == 7 { out.append(0x20) }
            }
            out.appendSpaces((16 - count) * 3 + (count <= 8 ? 1 : 0) + 1)
            for i in offset..<end {
                let b = bytes[i]
                out.append(b >= 0x20 && b < 0x7F ? b : 0x2E)
            }
            out.append(0x0A)
            offset += 16
        }
    }
}

/// A renderer's working memory, reused from frame to frame.
final class RenderScratch {
    struct State: ~Copyable {
        /// The frame's text, handed to the sink whole.
        var text = TextBuffer(capacity: 1 << 14)
        /// Value and UUID names for the tree.
        var names = NameCache()
        /// The tree's text by the frame's shape.
        var treePlans = ShapePlans<TreeOp>()
    }

    /// Used through one exclusive access per frame.
    var state = State()
}

/// A line of the tree in a plan (`ShapePlans`): node `node`'s integer, in decimal or in hex
/// padded to `bits` (with its value's name when it has one: `named…`), its time, or its whole
/// `line` (`FrameRenderer.appendLine`).
struct TreeOp: PlanOp {
    enum Kind: UInt8 {
        case line, decimal, hex, seconds, localDate, namedDecimal, namedHex
    }

    var literalEnd: UInt32
    var node: UInt32
    var kind: Kind
    var bits: UInt8
    var hasUnit: Bool

    /// The kind and the unit in the literal text are chosen by the value's case.
    static var readsValueCase: Bool { true }
}

/// What the summary line reads of a frame's tree besides its summary text: the innermost layer,
/// whose short name is the protocol column, and whether the frame is malformed (read only in
/// colour). Plain bits, so that it crosses threads as it is.
public struct LineFacts: Sendable, BitwiseCopyable {
    static let noLayer = UInt32.max
    /// The layer's field id; `noLayer` when the frame has no layer but the frame's own.
    var layer = LineFacts.noLayer
    var malformed = false

    public init() {}
}
