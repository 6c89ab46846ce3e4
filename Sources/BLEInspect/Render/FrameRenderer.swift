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

/// Renders dissected frames to an output sink. Generic over field descriptors: no protocol code.
public struct FrameRenderer {
    public let registry: DissectorRegistry
    public let mode: OutputMode
    public let style: ANSIStyle
    public let timeFormat: TimeFormat
    let formatter: FieldFormatter
    let fieldIDs: [[FieldID]]

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
        if case .fields(let names) = mode {
            fieldIDs = names.map { name in registry.field(named: name).map { [$0] } ?? [] }
        } else {
            fieldIDs = []
        }
    }

    /// Whether the renderer uses the one-line summary.
    public var wantsInfo: Bool {
        if case .text = mode { return true }
        return false
    }

    /// Writes one frame.
    public func render(
        _ frame: CapturedFrame,
        _ tree: borrowing ProtocolTree,
        first: Timestamp,
        previous: Timestamp,
        to out: OutputSink
    ) {
        switch mode {
        case .text(let verbose, let hexDump):
            summaryLine(frame, tree, first: first, previous: previous, to: out)
            if verbose { renderTree(frame, tree, to: out) }
            if hexDump { renderHex(frame, tree, to: out) }
            if verbose || hexDump { out.append("\n") }
        case .json:
            out.append(JSONFrame.render(frame, tree, registry: registry, formatter: formatter))
            out.append("\n")
        case .fields:
            renderFields(frame, tree, to: out)
        }
    }

    /// The innermost layer's short name: the protocol column.
    func protocolName(_ tree: borrowing ProtocolTree) -> String {
        var last: FieldID? = nil
        let core = registry.core.layer
        for node in tree.nodes.prefix(tree.derivedStart)
        where registry.isLayer[Int(node.field.rawValue)] && node.field != core {
            last = node.field
        }
        return last.map { registry.shortNames[Int($0.rawValue)] } ?? ""
    }

    func summaryLine(
        _ frame: CapturedFrame,
        _ tree: borrowing ProtocolTree,
        first: Timestamp,
        previous: Timestamp,
        to out: OutputSink
    ) {
        out.appendDecimal(Int64(frame.number), width: 7)
        out.append(0x20)
        let digits = Int(frame.timestamp.precision.rawValue)
        switch timeFormat {
        case .absolute:
            let time = timeFormat.format(frame.timestamp, first: first, previous: previous)
            out.appendSpaces(12 - time.utf8.count)
            out.append(time)
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
        out.append(UInt8(ascii: frame.direction.mark.unicodeScalars.first ?? "?"))
        out.append(0x20)
        if let c = frame.controllerIndex {
            out.append("hci")
            out.appendDecimal(Int64(c))
            out.appendSpaces(2 - (c < 10 ? 1 : c < 100 ? 2 : 3))
        } else {
            out.append("-    ")
        }
        out.append(0x20)
        var proto = protocolName(tree)
        if proto.isEmpty { proto = frame.kind.isText ? "NOTE" : frame.kind.isHCI ? "HCI" : "DATA" }
        if style.enabled { out.append(style.bold) }
        out.append(proto)
        if style.enabled { out.append(style.reset) }
        out.appendSpaces(max(1, 9 - proto.utf8.count))
        let malformed = tree.nodes.contains { $0.field == registry.core[.malformed] }
        if malformed && style.enabled { out.append(style.red) }
        if tree.info.isEmpty {
            out.append(FrameSummary.summary(of: frame))
        } else {
            out.append(tree.info)
        }
        if malformed && style.enabled { out.append(style.reset) }
        out.append(0x0A)
    }

    func renderTree(_ frame: CapturedFrame, _ tree: borrowing ProtocolTree, to out: OutputSink) {
        for node in tree.nodes {
            let d = registry.descriptor(node.field)
            let indent = String(repeating: " ", count: 4 + 2 * Int(node.depth))
            let label = formatter.label(node, d, texts: tree.texts) { FieldFormatter.bytes(of: node, frame: frame, tree: tree) }
            switch d.kind {
            case .layer:
                out.append(indent + style.bold + style.blue + label + style.reset + "\n")
            case .expert:
                let color: String
                if case .expert(let severity, _) = node.value, severity < .warning {
                    color = style.cyan
                } else {
                    color = node.field == registry.core[.malformed] ? style.red : style.yellow
                }
                out.append(indent + color + label + style.reset + "\n")
            default:
                out.append(indent + label + "\n")
            }
        }
    }

    func renderHex(_ frame: CapturedFrame, _ tree: borrowing ProtocolTree, to out: OutputSink) {
        out.append(HexDump.lines(frame.bytes, indent: "    "))
        for (i, source) in tree.sources.enumerated() {
            out.append("    \(tree.sourceNames[i]) (\(source.count) bytes):\n")
            out.append(HexDump.lines(source, indent: "    "))
        }
    }

    func renderFields(_ frame: CapturedFrame, _ tree: borrowing ProtocolTree, to out: OutputSink) {
        var columns = [[String]](repeating: [], count: fieldIDs.count)
        for node in tree.nodes {
            for (i, ids) in fieldIDs.enumerated() where ids.contains(node.field) {
                let d = registry.descriptor(node.field)
                columns[i].append(
                    formatter.fieldText(node, d, texts: tree.texts) { FieldFormatter.bytes(of: node, frame: frame, tree: tree) }
                )
            }
        }
        out.append(columns.map { $0.joined(separator: ",") }.joined(separator: "\t"))
        out.append("\n")
    }
}

/// Hex dumps: 16 bytes a line, offset, hex, and printable ASCII.
public enum HexDump {
    public static func lines(_ bytes: [UInt8], indent: String) -> String {
        var out = ""
        var offset = 0
        let hex: [Character] = Array("0123456789abcdef")
        while offset < bytes.count {
            let row = bytes[offset..<min(offset + 16, bytes.count)]
            var line = indent
            let o = String(offset, radix: 16)
            line += String(repeating: "0", count: max(0, 4 - o.count)) + o + "  "
            for (i, b) in row.enumerated() {
                line.append(hex[Int(b >> 4)])
                line.append(hex[Int(b & 0xF)])
                line += i == 7 ? "  " : " "
            }
            line += String(repeating: " ", count: (16 - row.count) * 3 + (row.count <= 8 ? 1 : 0))
            line += " "
            for b in row { line.append(b >= 0x20 && b < 0x7F ? Character(Unicode.Scalar(b)) : ".") }
            out += line + "\n"
            offset += 16
        }
        return out
    }
}
