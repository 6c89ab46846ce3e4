import BLEDissectorHCI
import BLEInspect
import BLEInspectCore
import BLEInspectTestSupport

/// Fields of a stand-in for the L2CAP and AD dissectors: what the HCI module handed them.
enum ProbeField: UInt16, FieldSet {
    case l2capHandle, l2capLength, l2capSource, adLength

    static let layer = FieldDescriptor("probe", "Probe", .layer, short: "PROBE")

    var descriptor: FieldDescriptor {
        switch self {
        case .l2capHandle:
            FieldDescriptor("probe.l2cap_handle", "Connection handle given to L2CAP", .unsigned(bits: 16))
        case .l2capLength: FieldDescriptor("probe.l2cap_length", "PDU length given to L2CAP", .unsigned(bits: 32))
        case .l2capSource: FieldDescriptor("probe.l2cap_source", "Data source of the PDU", .unsigned(bits: 16))
        case .adLength: FieldDescriptor("probe.ad_length", "Advertising data length", .unsigned(bits: 16))
        }
    }
}

/// Records the PDU it is given (and consumes it).
struct ProbeL2CAP: Dissector {
    let f: Fields<ProbeField>
    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let range = r.offset..<(r.offset + r.remaining)
        ctx.tree.add(
            f[.l2capHandle],
            .unsigned(UInt64(ctx.packet.connection?.handle ?? 0xFFFF)),
            range,
            source: r.source
        )
        ctx.tree.add(f[.l2capLength], .unsigned(UInt64(r.remaining)), range, source: r.source)
        ctx.tree.add(f[.l2capSource], .unsigned(UInt64(r.source)), range, source: r.source)
        _ = r.readRest()
    }
}

struct ProbeAD: Dissector {
    let f: Fields<ProbeField>
    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        ctx.tree.add(
            f[.adLength],
            .unsigned(UInt64(r.remaining)),
            r.offset..<(r.offset + r.remaining),
            source: r.source
        )
        _ = r.readRest()
    }
}

enum ProbeModule: DissectorModule {
    static let name = "probe"
    static func register(_ registry: inout RegistryBuilder) {
        let f = registry.register(ProbeField.self)
        registry.bind(ProbeL2CAP(f: f), to: StandardTables.l2cap, key: DissectorKey(0))
        registry.bind(ProbeAD(f: f), to: StandardTables.advertisingData, key: DissectorKey(0))
    }
}

/// Runs frames through a registry of the HCI module and the probe only, so that the HCI tests do
/// not depend on the upper layers.
enum HCIHarness {
    static let registry: DissectorRegistry = {
        do {
            return try RegistryBuilder.build(modules: [HCIModule.self, ProbeModule.self])
        } catch {
            fatalError("HCI + probe registry does not build: \(error)")
        }
    }()

    /// Dissects `frames` in order with one capture state.
    static func run(_ frames: [CapturedFrame]) -> [Snapshot] {
        var engine = DissectionEngine(registry: registry)
        return frames.map { frame in
            engine.dissect(frame, wantsInfo: true) { tree in
                Snapshot(frame: frame, nodes: tree.nodes, sources: tree.sources, info: tree.info, registry: registry)
            }
        }
    }

    static func one(_ frame: CapturedFrame) -> Snapshot { run([frame])[0] }

    static func cmd(_ hex: String, number: Int = 1) -> CapturedFrame { Dissect.hci(.hciCommand, hex, number: number) }
    static func evt(_ hex: String, number: Int = 1) -> CapturedFrame { Dissect.hci(.hciEvent, hex, number: number) }
    static func acl(_ hex: String, number: Int = 1, direction: Direction = .controllerToHost) -> CapturedFrame {
        Dissect.hci(.aclData, hex, direction: direction, number: number)
    }

    /// Numbers frames 1, 2, 3… in order.
    static func numbered(_ frames: [CapturedFrame]) -> [CapturedFrame] {
        frames.enumerated().map { i, f in
            var f = f
            f.number = i + 1
            return f
        }
    }
}

/// A dissected frame kept for assertions (the test-support snapshot cannot be made outside
/// its module, and these tests use a registry of their own).
struct Snapshot {
    let frame: CapturedFrame
    let nodes: [FieldNode]
    let sources: [[UInt8]]
    let info: String
    let registry: DissectorRegistry

    func values(_ name: String) -> [FieldValue] {
        guard let id = registry.field(named: name) else { return [] }
        return nodes.filter { $0.field == id }.map(\.value)
    }

    func uints(_ name: String) -> [UInt64] { values(name).compactMap(\.unsignedValue) }

    func strings(_ name: String) -> [String] {
        values(name).compactMap { if case .string(let s) = $0 { s } else { nil } }
    }

    func bytes(_ name: String) -> [[UInt8]] {
        guard let id = registry.field(named: name) else { return [] }
        return nodes.filter { $0.field == id }.map { node in
            let data = node.source == 0 ? frame.bytes : sources[Int(node.source) - 1]
            return Array(data[node.range.clamped(to: 0..<data.count)])
        }
    }

    func has(_ name: String) -> Bool { !values(name).isEmpty }

    var isMalformed: Bool { has("_ws.malformed") }

    var expertMessages: [String] { strings("_ws.expert.message") }

    /// Signed values of the field named `name`.
    func ints(_ name: String) -> [Int64] {
        values(name).compactMap { if case .signed(let v) = $0 { v } else { nil } }
    }

    /// Address values of the field named `name`, as text.
    func addresses(_ name: String) -> [String] {
        values(name).compactMap { if case .address(let a) = $0 { a.description } else { nil } }
    }

    /// Depth of the first node of the field named `name`.
    func depth(_ name: String) -> Int? {
        guard let id = registry.field(named: name) else { return nil }
        return nodes.first { $0.field == id }.map { Int($0.depth) }
    }
}
