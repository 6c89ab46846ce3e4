public import BLEInspectCore

/// A dissected frame kept for assertions: its nodes, summary and data sources.
public struct FrameSnapshot: Sendable {
    public let frame: CapturedFrame
    public let nodes: [FieldNode]
    public let sources: [[UInt8]]
    /// The strings `.string` and `.expert` values refer to.
    public let texts: [String]
    public let info: String
    public let registry: DissectorRegistry
    /// The L2CAP channel a test stand-in for the lower layers (`MiniStack`, `PDUFeeder`) handed the
    /// PDU on, when it knows one; nil for frames the real stack dissected (read `btl2cap.cid` there).
    public var cid: UInt16?
    /// How many nodes the tree still had open after the frame (0 unless a dissector failed to
    /// close what it opened).
    public var openDepth: Int

    public init(
        frame: CapturedFrame,
        nodes: [FieldNode],
        sources: [[UInt8]],
        texts: [String] = [],
        info: String,
        registry: DissectorRegistry,
        cid: UInt16? = nil,
        openDepth: Int = 0
    ) {
        self.frame = frame
        self.nodes = nodes
        self.sources = sources
        self.texts = texts
        self.info = info
        self.registry = registry
        self.cid = cid
        self.openDepth = openDepth
    }

    /// A snapshot of `tree`, the engine's tree for `frame`.
    public init(frame: CapturedFrame, tree: borrowing ProtocolTree, registry: DissectorRegistry) {
        self.init(
            frame: frame,
            nodes: tree.nodes,
            sources: tree.sources,
            texts: tree.texts,
            info: tree.info,
            registry: registry,
            openDepth: tree.depth
        )
    }

    /// Values of every node of the field (or alias) named `name`, in tree order.
    public func values(_ name: String) -> [FieldValue] {
        guard let id = registry.field(named: name) else { return [] }
        return nodes.filter { $0.field == id }.map(\.value)
    }

    /// Integer values of the field named `name`.
    public func uints(_ name: String) -> [UInt64] { values(name).compactMap(\.unsignedValue) }

    /// Signed values of the field named `name`.
    public func ints(_ name: String) -> [Int64] {
        values(name).compactMap { if case .signed(let v) = $0 { v } else { nil } }
    }

    /// Boolean values of the field named `name`.
    public func bools(_ name: String) -> [Bool] {
        values(name).compactMap { if case .boolean(let b) = $0 { b } else { nil } }
    }

    /// String values of the field named `name`.
    public func strings(_ name: String) -> [String] {
        values(name).compactMap { if case .string(let r) = $0 { text(r) } else { nil } }
    }

    /// The string a `.string` or `.expert` value refers to.
    public func text(_ ref: TextRef) -> String { Int(ref.index) < texts.count ? texts[Int(ref.index)] : "" }

    /// Address values of the field named `name`, as text ("11:22:33:44:55:66").
    public func addresses(_ name: String) -> [String] {
        values(name).compactMap { if case .address(let a) = $0 { a.description } else { nil } }
    }

    /// UUID values of the field named `name`.
    public func uuids(_ name: String) -> [BluetoothUUID] {
        values(name).compactMap { if case .uuid(let u) = $0 { u } else { nil } }
    }

    /// Bytes of every node of the field named `name`.
    public func bytes(_ name: String) -> [[UInt8]] {
        guard let id = registry.field(named: name) else { return [] }
        return nodes.filter { $0.field == id }.map { node in
            let data = node.source == 0 ? frame.bytes : sources[Int(node.source) - 1]
            let r = node.range.clamped(to: 0..<data.count)
            return Array(data[r])
        }
    }

    /// The bytes of each node of the field named `name`, as lower-case hex ("0a1b").
    public func hex(_ name: String) -> [String] {
        bytes(name).map { $0.map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined() }
    }

    /// Integer values of the field named `name` as tshark prints hex fields: "0x" and at least
    /// `digits` lower-case digits (0x%04x, or 0x%02x for bytes).
    public func hex(_ name: String, digits: Int) -> [String] {
        uints(name).map { v in
            let s = String(v, radix: 16)
            return "0x" + String(repeating: "0", count: max(0, digits - s.count)) + s
        }
    }

    /// Values of the field named `name` as tshark's `-T fields` prints them, joined with commas:
    /// hex fields as 0x and as many digits as the field's width, others in decimal.
    public func tsharkText(_ name: String) -> String {
        guard let id = registry.field(named: name) else { return "" }
        let d = registry.descriptor(id)
        return nodes.filter { $0.field == id }.compactMap { node -> String? in
            guard let v = node.value.unsignedValue else { return nil }
            if d.base == .hex {
                let bits: Int = if case .unsigned(let b) = d.kind { Int(b) } else { 8 }
                let s = String(v, radix: 16)
                return "0x" + String(repeating: "0", count: max(0, bits / 4 - s.count)) + s
            }
            return String(v)
        }.joined(separator: ",")
    }

    /// True when the frame has a node of the field named `name`.
    public func has(_ name: String) -> Bool { !values(name).isEmpty }

    /// Depth of the first node of the field named `name`.
    public func depth(_ name: String) -> Int? {
        guard let id = registry.field(named: name) else { return nil }
        return nodes.first { $0.field == id }.map { Int($0.depth) }
    }

    /// True when some layer was marked malformed.
    public var isMalformed: Bool { has("_ws.malformed") }

    /// Messages of expert notes (including malformed ones).
    public var expertMessages: [String] { strings("_ws.expert.message") }

    /// Messages of expert notes of warning severity or worse (malformed notes included).
    public var warnings: [String] {
        nodes.compactMap { node -> String? in
            if case .expert(let severity, let r) = node.value, severity >= .warning { return text(r) }
            return nil
        }
    }
}
