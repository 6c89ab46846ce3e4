import BLECapture
import BLEInspect
import BLEInspectCore

/// A dissected frame kept for assertions: its nodes, summary and data sources.
public struct FrameSnapshot: Sendable {
    public let frame: CapturedFrame
    public let nodes: [FieldNode]
    public let sources: [[UInt8]]
    public let info: String
    public let registry: DissectorRegistry

    public init(frame: CapturedFrame, nodes: [FieldNode], sources: [[UInt8]], info: String, registry: DissectorRegistry) {
        self.frame = frame
        self.nodes = nodes
        self.sources = sources
        self.info = info
        self.registry = registry
    }

    /// Values of every node of the field (or alias) named `name`, in tree order.
    public func values(_ name: String) -> [FieldValue] {
        guard let id = registry.field(named: name) else { return [] }
        return nodes.filter { $0.field == id }.map(\.value)
    }

    /// Integer values of the field named `name`.
    public func uints(_ name: String) -> [UInt64] { values(name).compactMap(\.unsignedValue) }

    /// String values of the field named `name`.
    public func strings(_ name: String) -> [String] {
        values(name).compactMap { if case .string(let s) = $0 { s } else { nil } }
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

    /// True when the frame has a node of the field named `name`.
    public func has(_ name: String) -> Bool { !values(name).isEmpty }

    /// True when some layer was marked malformed.
    public var isMalformed: Bool { has("_ws.malformed") }

    /// Messages of expert notes (including malformed ones).
    public var expertMessages: [String] { strings("_ws.expert.message") }
}

/// Runs the standard dissectors over frames or captures.
public enum Dissect {
    public static func registry() -> DissectorRegistry {
        do {
            return try StandardModules.registry()
        } catch {
            fatalError("the standard registry does not build: \(error)")
        }
    }

    /// Dissects `frames` in order with one capture state.
    public static func frames(_ frames: [CapturedFrame]) -> [FrameSnapshot] {
        let registry = registry()
        var engine = DissectionEngine(registry: registry)
        return frames.map { frame in
            engine.dissect(frame, wantsInfo: true) { tree in
                FrameSnapshot(frame: frame, nodes: tree.nodes, sources: tree.sources, info: tree.info, registry: registry)
            }
        }
    }

    /// Dissects every frame of the capture at `path`.
    public static func capture(_ path: String) -> [FrameSnapshot] {
        frames(CaptureFiles.readAll(path).frames)
    }

    /// An HCI frame from hex text such as "03 0C 00" (no H4 indicator; `kind` gives it).
    public static func hci(_ kind: FrameKind, _ hex: String, direction: Direction? = nil, number: Int = 1) -> CapturedFrame {
        let bytes = Hex.bytes(hex)
        let dir = direction ?? (kind == .hciEvent ? .controllerToHost : .hostToController)
        return CapturedFrame(
            number: number, timestamp: Timestamp(seconds: Int64(number), nanoseconds: 0, precision: .microseconds),
            direction: dir, controllerIndex: 0, kind: kind, bytes: bytes, originalLength: bytes.count, sourceOffset: 0)
    }
}

/// Hex helpers for test vectors.
public enum Hex {
    /// Bytes from hex text; spaces, colons and newlines are ignored.
    public static func bytes(_ text: String) -> [UInt8] {
        let digits = text.filter(\.isHexDigit)
        var out: [UInt8] = []
        var i = digits.startIndex
        while i < digits.endIndex {
            let j = digits.index(i, offsetBy: 2, limitedBy: digits.endIndex) ?? digits.endIndex
            if let b = UInt8(digits[i..<j], radix: 16) { out.append(b) }
            i = j
        }
        return out
    }
}
