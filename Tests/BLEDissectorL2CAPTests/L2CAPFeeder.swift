import BLEDissectorL2CAP
import BLEInspect
import BLEInspectCore
import BLEInspectTestSupport
import Foundation

/// The standard registry, built once for these tests.
let l2capRegistry = Dissect.registry()

/// Feeds complete L2CAP PDUs to the L2CAP dissector as the HCI module does: a reader over the
/// PDU, `packet.connection` set, the frame's direction. One capture state across calls.
final class L2CAPFeeder {
    let registry = l2capRegistry
    let state = CaptureState()
    private var number = 0

    /// Dissects one PDU. The frame's bytes are the PDU itself, so ranges of source 0 are PDU offsets.
    @discardableResult
    func pdu(
        _ bytes: [UInt8],
        _ direction: Direction,
        handle: UInt16 = 0x0040,
        controller: UInt16 = 0,
        number n: Int? = nil,
        time: Timestamp? = nil
    ) -> Snap {
        number += 1
        let frame = CapturedFrame(
            number: n ?? number,
            timestamp: time ?? Timestamp(seconds: Int64(number), nanoseconds: 0, precision: .microseconds),
            direction: direction,
            controllerIndex: controller,
            kind: .aclData,
            bytes: bytes,
            originalLength: bytes.count,
            sourceOffset: 0
        )
        var context = DissectionContext(
            registry: registry,
            state: state,
            tree: ProtocolTree(),
            frame: frame,
            wantsInfo: true
        )
        context.packet.connection = ConnectionKey(controller: controller, handle: handle)
        var reader = ByteReader(bytes)
        context.dispatch(StandardTables.l2cap, DissectorKey(0), &reader)
        return Snap(
            frame: frame,
            nodes: context.tree.nodes,
            sources: context.tree.sources,
            info: context.tree.info,
            registry: registry
        )
    }

    @discardableResult
    func pdu(_ hex: String, _ direction: Direction, handle: UInt16 = 0x0040) -> Snap {
        pdu(Hex.bytes(hex), direction, handle: handle)
    }

    /// Replays PDUs reassembled from a capture; returns the snapshots by frame number.
    func replay(_ events: [ACLReplay.Event]) -> [Int: Snap] {
        var out: [Int: Snap] = [:]
        for event in events {
            switch event {
            case .pdu(let frame, let handle, let bytes):
                out[frame.number] = pdu(
                    bytes,
                    frame.direction,
                    handle: handle,
                    controller: frame.controllerIndex ?? 0,
                    number: frame.number,
                    time: frame.timestamp
                )
            case .closed(let controller, let handle):
                state.closeConnection(ConnectionKey(controller: controller, handle: handle))
            }
        }
        return out
    }
}

/// L2CAP PDU builders.
enum PDU {
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }

    /// A basic L2CAP frame.
    static func frame(cid: Int, _ payload: [UInt8]) -> [UInt8] { le16(payload.count) + le16(cid) + payload }

    /// A signalling command.
    static func command(_ code: UInt8, _ ident: UInt8, _ data: [UInt8]) -> [UInt8] {
        [code, ident] + le16(data.count) + data
    }

    /// An LE signalling PDU with one command.
    static func le(_ code: UInt8, _ ident: UInt8, _ values: [Int]) -> [UInt8] {
        frame(cid: 5, command(code, ident, values.flatMap(le16)))
    }

    /// A K-frame: with `sduLength`, the first of an SDU.
    static func kframe(cid: Int, sduLength: Int? = nil, _ data: [UInt8]) -> [UInt8] {
        frame(cid: cid, (sduLength.map(le16) ?? []) + data)
    }
}

/// A minimal ACL reassembler over a capture's frames, standing in for the HCI module: complete
/// L2CAP PDUs per (handle, direction), and connection closings.
enum ACLReplay {
    enum Event {
        case pdu(CapturedFrame, handle: UInt16, bytes: [UInt8])
        case closed(controller: UInt16, handle: UInt16)
    }

    struct Key: Hashable {
        var controller: UInt16
        var handle: UInt16
        var direction: Direction
    }

    static func events(_ frames: [CapturedFrame], skipHandles: Set<UInt16> = [0x0EDC], drop: Set<Int> = []) -> [Event] {
        var buffers: [Key: [UInt8]] = [:]
        var out: [Event] = []
        for frame in frames where !drop.contains(frame.number) {
            let b = frame.bytes
            if frame.kind == .hciEvent, b.count >= 6, b[0] == 0x05, b[2] == 0 {
                out.append(
                    .closed(controller: frame.controllerIndex ?? 0, handle: (UInt16(b[3]) | UInt16(b[4]) << 8) & 0x0FFF)
                )
                continue
            }
            guard frame.kind == .aclData, b.count >= 4 else { continue }
            let hf = UInt16(b[0]) | UInt16(b[1]) << 8
            let handle = hf & 0x0FFF
            let pb = (hf >> 12) & 3
            guard !skipHandles.contains(handle) else { continue }
            let key = Key(controller: frame.controllerIndex ?? 0, handle: handle, direction: frame.direction)
            let data = Array(b.dropFirst(4))
            if pb == 1 {
                guard buffers[key] != nil else { continue }
                buffers[key, default: []] += data
            } else {
                buffers[key] = data
            }
            guard let buf = buffers[key], buf.count >= 4 else { continue }
            let length = Int(buf[0]) | Int(buf[1]) << 8
            if buf.count >= length + 4 {
                out.append(.pdu(frame, handle: handle, bytes: buf))
                buffers[key] = nil
            }
        }
        return out
    }
}

/// A dissected frame for assertions (like the support module's `FrameSnapshot`, whose
/// initializer is not public).
struct Snap {
    let frame: CapturedFrame
    let nodes: [FieldNode]
    let sources: [[UInt8]]
    let info: String
    let registry: DissectorRegistry

    init(frame: CapturedFrame, nodes: [FieldNode], sources: [[UInt8]], info: String, registry: DissectorRegistry) {
        self.frame = frame
        self.nodes = nodes
        self.sources = sources
        self.info = info
        self.registry = registry
    }

    init(_ s: FrameSnapshot) {
        self.init(frame: s.frame, nodes: s.nodes, sources: s.sources, info: s.info, registry: s.registry)
    }

    func values(_ name: String) -> [FieldValue] {
        guard let id = registry.field(named: name) else { return [] }
        return nodes.filter { $0.field == id }.map(\.value)
    }

    func uints(_ name: String) -> [UInt64] { values(name).compactMap(\.unsignedValue) }

    func bytes(_ name: String) -> [[UInt8]] {
        guard let id = registry.field(named: name) else { return [] }
        return nodes.filter { $0.field == id }.map { node in
            let data = node.source == 0 ? frame.bytes : sources[Int(node.source) - 1]
            return Array(data[node.range.clamped(to: 0..<data.count)])
        }
    }

    func has(_ name: String) -> Bool { !values(name).isEmpty }

    var isMalformed: Bool { has("_ws.malformed") }

    var expertMessages: [String] {
        values("_ws.expert.message").compactMap { if case .string(let s) = $0 { s } else { nil } }
    }

    /// Expert notes of warning severity or worse (malformed notes included).
    var warnings: [String] {
        nodes.compactMap { node -> String? in
            if case .expert(let severity, let message) = node.value, severity >= .warning { return message }
            return nil
        }
    }

    /// Values of a field as tshark's -T fields prints them, joined with commas.
    func tsharkText(_ name: String) -> String {
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
}

enum CaptureData {
    static func path(_ name: String) -> String { TestPaths.projectCaptures.appendingPathComponent(name).path }

    /// The SDUs of le-coc.sdus.json: (direction, bytes).
    static func cocSDUs() throws -> [(String, [UInt8])] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path("le-coc.sdus.json")))
        let list = try JSONSerialization.jsonObject(with: data) as? [[String: String]] ?? []
        return list.map { ($0["direction"] ?? "", Hex.bytes($0["hex"] ?? "")) }
    }
}
