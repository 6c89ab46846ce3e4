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
        _ frame: CapturedFrame, _ tree: borrowing ProtocolTree, first: Timestamp, previous: Timestamp, to out: OutputSink
    ) {
        switch mode {
        case .text(let verbose, let hexDump):
            out.append(summaryLine(frame, tree, first: first, previous: previous))
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
        var name = ""
        for node in tree.nodes {
            let d = registry.descriptor(node.field)
            if d.kind == .layer, node.field != registry.core.layer {
                name = d.short.isEmpty ? d.abbrev.uppercased() : d.short
            }
        }
        return name
    }

    func summaryLine(
        _ frame: CapturedFrame, _ tree: borrowing ProtocolTree, first: Timestamp, previous: Timestamp
    ) -> String {
        let number = String(frame.number)
        let time = timeFormat.format(frame.timestamp, first: first, previous: previous)
        let controller = frame.controllerIndex.map { "hci\($0)" } ?? "-"
        var proto = protocolName(tree)
        if proto.isEmpty { proto = frame.kind.isText ? "NOTE" : frame.kind.isHCI ? "HCI" : "DATA" }
        let info = tree.info.isEmpty ? FrameSummary.summary(of: frame) : tree.info
        let malformed = tree.nodes.contains { $0.field == registry.core[.malformed] }
        var line = String(repeating: " ", count: max(0, 7 - number.count)) + number
        line += " " + String(repeating: " ", count: max(0, 12 - time.count)) + time
        line += " \(frame.direction.mark) "
        line += controller + String(repeating: " ", count: max(0, 5 - controller.count)) + " "
        line += style.bold + proto + style.reset + String(repeating: " ", count: max(1, 9 - proto.count))
        line += malformed ? style.red + info + style.reset : info
        line += "\n"
        return line
    }

    func renderTree(_ frame: CapturedFrame, _ tree: borrowing ProtocolTree, to out: OutputSink) {
        for node in tree.nodes {
            let d = registry.descriptor(node.field)
            let indent = String(repeating: " ", count: 4 + 2 * Int(node.depth))
            let label = formatter.label(node, d) { FieldFormatter.bytes(of: node, frame: frame, tree: tree) }
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
                columns[i].append(formatter.fieldText(node, d) { FieldFormatter.bytes(of: node, frame: frame, tree: tree) })
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
