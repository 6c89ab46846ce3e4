import BLEDissectorAdvertising
import BLEInspect
import BLEInspectCore
import BLEInspectTestSupport
import Testing

/// Feeds advertising-data blocks straight into `StandardTables.advertisingData`, as the HCI module
/// does with the data of a report or a Set Data command.
enum AD {
    static let registry = Dissect.registry()

    /// Dissects one AD block (hex). The frame's bytes are the block, so ranges index it.
    static func block(_ hex: String, state: CaptureState = CaptureState()) -> ADSnapshot {
        block(Hex.bytes(hex), state: state)
    }

    static func block(_ bytes: [UInt8], state: CaptureState = CaptureState()) -> ADSnapshot {
        let frame = CapturedFrame(
            number: 1,
            timestamp: Timestamp(seconds: 1, nanoseconds: 0, precision: .microseconds),
            direction: .controllerToHost,
            controllerIndex: 0,
            kind: .hciEvent,
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
        var reader = ByteReader(bytes)
        ctx.dispatch(StandardTables.advertisingData, DissectorKey(0), &reader)
        return ADSnapshot(
            frame: frame,
            nodes: ctx.tree.nodes,
            sources: ctx.tree.sources,
            info: ctx.tree.info,
            registry: registry
        )
    }

    /// The field id of a filter name (fails the test when unknown).
    static func id(_ name: String) -> FieldID? { registry.field(named: name) }

    /// The value name the descriptor of `field` gives `value`.
    static func name(_ field: String, _ value: UInt64) -> String? {
        guard let id = registry.field(named: field) else { return nil }
        return registry.descriptor(id).valueNames?.lookup(value)
    }

    /// The offsets at which the AD structures of a well-formed block start, and its end.
    static func boundaries(_ bytes: [UInt8]) -> [Int] {
        var out = [0]
        var i = 0
        while i < bytes.count {
            let length = Int(bytes[i])
            if length == 0 { break }
            i += 1 + length
            out.append(min(i, bytes.count))
        }
        return out
    }
}

/// A dissected block kept for assertions (the test support's snapshot has no public initializer).
struct ADSnapshot: Snapshot {
    let frame: CapturedFrame
    let nodes: [FieldNode]
    let sources: [[UInt8]]
    let info: String
    let registry: DissectorRegistry

    func values(_ name: String) -> [FieldValue] {
        guard let id = registry.field(named: name) else { return [] }
        return nodes.filter { $0.field == id }.map(\.value)
    }

    func bytes(_ name: String) -> [[UInt8]] {
        guard let id = registry.field(named: name) else { return [] }
        return nodes.filter { $0.field == id }.map { node in
            let data = node.source == 0 ? frame.bytes : sources[Int(node.source) - 1]
            return Array(data[node.range.clamped(to: 0..<data.count)])
        }
    }
}

/// What the assertions read from a dissected frame.
protocol Snapshot {
    func values(_ name: String) -> [FieldValue]
    func bytes(_ name: String) -> [[UInt8]]
}

extension FrameSnapshot: Snapshot {}

extension Snapshot {
    func uints(_ name: String) -> [UInt64] { values(name).compactMap(\.unsignedValue) }

    func strings(_ name: String) -> [String] {
        values(name).compactMap { if case .string(let s) = $0 { s } else { nil } }
    }

    func has(_ name: String) -> Bool { !values(name).isEmpty }

    var isMalformed: Bool { has("_ws.malformed") }

    var expertMessages: [String] { strings("_ws.expert.message") }

    /// UUID values of the field named `name`.
    func uuids(_ name: String) -> [BluetoothUUID] {
        values(name).compactMap { if case .uuid(let u) = $0 { u } else { nil } }
    }

    /// Signed values of the field named `name`.
    func ints(_ name: String) -> [Int64] {
        values(name).compactMap { if case .signed(let v) = $0 { v } else { nil } }
    }

    /// Boolean values of the field named `name`.
    func bools(_ name: String) -> [Bool] {
        values(name).compactMap { if case .boolean(let b) = $0 { b } else { nil } }
    }

    /// Address values of the field named `name`.
    func addresses(_ name: String) -> [BDAddr] {
        values(name).compactMap { if case .address(let a) = $0 { a } else { nil } }
    }

    /// The hex of each node of the field named `name`.
    func hex(_ name: String) -> [String] {
        bytes(name).map { $0.map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined() }
    }
}

/// A UUID from text, for expectations.
func uuid(_ text: String) -> BluetoothUUID {
    guard let u = BluetoothUUID(text) else {
        Issue.record("bad UUID literal \(text)")
        return BluetoothUUID(uuid16: 0)
    }
    return u
}
