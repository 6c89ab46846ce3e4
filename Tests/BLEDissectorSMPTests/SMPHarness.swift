import BLECapture
import BLEInspect
import BLEInspectCore
import BLEInspectTestSupport
import Foundation

/// Feeds PDUs straight into the registry's L2CAP tables, as the L2CAP layer would, keeping one
/// capture state across calls.
final class Harness {
    let registry: DissectorRegistry
    let state = CaptureState()
    private(set) var number = 0

    init(registry: DissectorRegistry = Dissect.registry()) {
        self.registry = registry
    }

    /// Dissects one SMP PDU (hex) on `connection`, LE (channel 6) or BR/EDR (channel 7).
    @discardableResult
    func smp(
        _ hex: String,
        _ direction: Direction = .hostToController,
        connection: UInt16 = 0x0040,
        cid: UInt16 = 6
    ) -> Snap {
        run(Hex.bytes(hex), direction, connection: connection, cid: cid, psm: nil)
    }

    func run(
        _ bytes: [UInt8],
        _ direction: Direction,
        connection: UInt16,
        cid: UInt16,
        psm: UInt16?
    ) -> Snap {
        number += 1
        let frame = CapturedFrame(
            number: number,
            timestamp: Timestamp(seconds: Int64(number), nanoseconds: 0, precision: .microseconds),
            direction: direction,
            controllerIndex: 0,
            kind: .aclData,
            bytes: bytes,
            originalLength: bytes.count,
            sourceOffset: 0
        )
        var ctx = DissectionContext(
            registry: registry,
            state: state,
            tree: ProtocolTree(),
            frame: frame,
            wantsInfo: true
        )
        ctx.packet.connection = ConnectionKey(controller: 0, handle: connection)
        ctx.packet.cid = cid
        ctx.packet.psm = psm
        var reader = ByteReader(bytes)
        if let psm {
            ctx.dispatch(StandardTables.l2capPSM, DissectorKey(psm), &reader)
        } else {
            ctx.dispatch(StandardTables.l2capCID, DissectorKey(cid), &reader)
        }
        return Snap(
            frame: frame,
            nodes: ctx.tree.nodes,
            sources: ctx.tree.sources,
            info: ctx.tree.info,
            registry: registry
        )
    }

    func close(_ connection: UInt16) {
        state.closeConnection(ConnectionKey(controller: 0, handle: connection))
    }
}

/// A stand-in for the HCI and L2CAP layers, for tests on whole captures: it reassembles ACL
/// fragments into L2CAP PDUs and hands those on fixed channels 4, 6 and 7 to the registry's
/// `btl2cap.cid` table and those on BR/EDR channels of PSM 0x001F to `btl2cap.psm`, and closes
/// connections at Disconnection Complete. Frames without such a PDU give an empty snapshot.
enum MiniStack {
    struct Key: Hashable {
        let controller: UInt16
        let handle: UInt16
        let direction: Direction
    }

    struct Link: Hashable {
        let controller: UInt16
        let handle: UInt16
    }

    struct ChannelKey: Hashable {
        let link: Link
        let cid: UInt16
    }

    static func dissect(_ path: String, registry: DissectorRegistry = Dissect.registry()) -> [Snap] {
        let frames = CaptureFiles.readAll(path).frames
        let state = CaptureState()
        var partial: [Key: [UInt8]] = [:]
        // BR/EDR channels on PSM 0x001F (ATT), learned from Connection Request/Response.
        var requested: [Link: [UInt8: UInt16]] = [:]
        var attChannels: Set<ChannelKey> = []
        var out: [Snap] = []
        for frame in frames {
            var ctx = DissectionContext(
                registry: registry,
                state: state,
                tree: ProtocolTree(),
                frame: frame,
                wantsInfo: true
            )
            var cidSeen: UInt16? = nil
            let controller = frame.controllerIndex ?? 0
            let b = frame.bytes
            if frame.kind == .hciEvent, b.count >= 6, b[0] == 0x05, b[2] == 0x00 {
                let handle = UInt16(b[3]) | UInt16(b[4] & 0x0F) << 8
                state.closeConnection(ConnectionKey(controller: controller, handle: handle))
                attChannels = attChannels.filter { $0.link != Link(controller: controller, handle: handle) }
            }
            // Handle 0x0EDC carries Qualcomm debug data, not L2CAP (shared captures README).
            let handle = b.count >= 2 ? UInt16(b[0]) | UInt16(b[1] & 0x0F) << 8 : 0
            if frame.kind == .aclData, b.count >= 4, handle != 0x0EDC {
                let link = Link(controller: controller, handle: handle)
                let key = Key(controller: controller, handle: handle, direction: frame.direction)
                let data = Array(b.dropFirst(4))
                var pdu: [UInt8]? = data
                if (b[1] >> 4) & 0x03 == 0x01 { pdu = partial[key].map { $0 + data } }
                partial[key] = nil
                if let pdu {
                    let length = pdu.count >= 2 ? Int(pdu[0]) | Int(pdu[1]) << 8 : Int.max
                    if pdu.count >= 4, pdu.count - 4 >= length {
                        let cid = UInt16(pdu[2]) | UInt16(pdu[3]) << 8
                        let payload = Array(pdu[4..<(4 + length)])
                        if cid == 0x0001 {
                            learnChannels(payload, link, &requested, &attChannels)
                        }
                        let fixed = [0x0004, 0x0006, 0x0007].contains(cid)
                        let att = attChannels.contains(ChannelKey(link: link, cid: cid))
                        if fixed || att {
                            let source = ctx.tree.addSource(payload, name: "L2CAP")
                            var reader = ByteReader(payload, source: source)
                            ctx.packet.connection = ConnectionKey(controller: controller, handle: handle)
                            ctx.packet.cid = cid
                            cidSeen = cid
                            if att {
                                ctx.packet.psm = 0x001F
                                ctx.dispatch(StandardTables.l2capPSM, DissectorKey(0x001F), &reader)
                            } else {
                                ctx.dispatch(StandardTables.l2capCID, DissectorKey(cid), &reader)
                            }
                        }
                    } else if pdu.count < 70_000 {
                        partial[key] = pdu
                    }
                }
            }
            var snap = Snap(
                frame: frame,
                nodes: ctx.tree.nodes,
                sources: ctx.tree.sources,
                info: ctx.tree.info,
                registry: registry
            )
            snap.cid = cidSeen
            out.append(snap)
        }
        return out
    }

    /// Learns BR/EDR channels on PSM 0x001F from signalling commands.
    static func learnChannels(
        _ commands: [UInt8],
        _ link: Link,
        _ requested: inout [Link: [UInt8: UInt16]],
        _ channels: inout Set<ChannelKey>
    ) {
        var i = 0
        while i + 4 <= commands.count {
            let code = commands[i]
            let id = commands[i + 1]
            let length = Int(commands[i + 2]) | Int(commands[i + 3]) << 8
            let body = Array(commands[(i + 4)..<min(commands.count, i + 4 + length)])
            if code == 0x02, body.count >= 4, UInt16(body[0]) | UInt16(body[1]) << 8 == 0x001F {
                requested[link, default: [:]][id] = UInt16(body[2]) | UInt16(body[3]) << 8
            }
            if code == 0x03, body.count >= 6, body[4] == 0, body[5] == 0, let scid = requested[link]?[id] {
                channels.insert(ChannelKey(link: link, cid: scid))
                channels.insert(ChannelKey(link: link, cid: UInt16(body[0]) | UInt16(body[1]) << 8))
            }
            i += 4 + length
        }
    }
}

extension Snap {
    /// Unsigned values of a field, as tshark prints hex fields: 0x%04x (or 0x%02x for bytes).
    func hex(_ name: String, digits: Int) -> [String] {
        uints(name).map { v in
            let s = String(v, radix: 16)
            return "0x" + String(repeating: "0", count: max(0, digits - s.count)) + s
        }
    }

    /// The UUIDs of a field.
    func uuids(_ name: String) -> [BluetoothUUID] {
        values(name).compactMap { if case .uuid(let u) = $0 { u } else { nil } }
    }
}

enum Paths {
    static func capture(_ name: String) -> String {
        TestPaths.projectCaptures.appendingPathComponent(name).path
    }

    /// Whether the real HCI and L2CAP modules hand ACL data up to the fixed-channel table.
    static var lowerLayersPresent: Bool {
        let registry = Dissect.registry()
        return registry.binding(StandardTables.hciPacketType, DissectorKey(2)) != nil
            && registry.binding(StandardTables.l2cap, DissectorKey(0)) != nil
    }

    static var tsharkAvailable: Bool { Run.tshark != nil }
}

/// A dissected frame for assertions (the test support's `FrameSnapshot` has no public initializer).
struct Snap {
    let frame: CapturedFrame
    let nodes: [FieldNode]
    let sources: [[UInt8]]
    let info: String
    let registry: DissectorRegistry
    /// The L2CAP channel of the PDU the test's ACL stand-in handed on.
    var cid: UInt16? = nil

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
}
