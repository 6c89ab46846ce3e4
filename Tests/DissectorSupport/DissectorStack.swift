public import BLEInspectCore

/// The dissector modules a test target feeds, as one type: the target names them once,
///
/// ```swift
/// enum Dissect: DissectorStack {
///     static var modules: [any DissectorModule.Type] { [HCIModule.self, L2CAPModule.self, ATTModule.self] }
/// }
/// ```
///
/// and decodes with `Dissect.frames(_:)`, `Dissect.registry()`, `PDUFeeder(registry:)`.
public protocol DissectorStack {
    static var modules: [any DissectorModule.Type] { get }
}

extension DissectorStack {
    /// The registry of `modules`.
    public static func registry() -> DissectorRegistry {
        do {
            return try RegistryBuilder.build(modules: modules)
        } catch {
            fatalError("the test registry does not build: \(error)")
        }
    }

    /// Whether the real HCI and L2CAP modules hand ACL data up to the fixed-channel table.
    public static var lowerLayersPresent: Bool {
        let registry = registry()
        return registry.binding(StandardTables.hciPacketType, DissectorKey(2)) != nil
            && registry.binding(StandardTables.l2cap, DissectorKey(0)) != nil
    }

    /// Dissects `frames` in order with one capture state, with `registry()` or `registry`.
    public static func frames(_ frames: [CapturedFrame], registry: DissectorRegistry? = nil) -> [FrameSnapshot] {
        let registry = registry ?? self.registry()
        var engine = DissectionEngine(registry: registry)
        return frames.map { frame in
            engine.dissect(frame, wantsInfo: true) { tree in
                FrameSnapshot(frame: frame, tree: tree, registry: registry)
            }
        }
    }

    /// An HCI frame from hex text such as "03 0C 00" (no H4 indicator; `kind` gives it).
    public static func hci(_ kind: FrameKind, _ hex: String, direction: Direction? = nil, number: Int = 1)
        -> CapturedFrame
    {
        let bytes = Hex.bytes(hex)
        let dir = direction ?? (kind == .hciEvent ? .controllerToHost : .hostToController)
        return CapturedFrame(
            number: number,
            timestamp: Timestamp(seconds: Int64(number), nanoseconds: 0, precision: .microseconds),
            direction: dir,
            controllerIndex: 0,
            kind: kind,
            bytes: bytes,
            originalLength: bytes.count,
            sourceOffset: 0
        )
    }
}

extension DissectorStack {
    /// A feeder into `registry()`'s tables, with a capture state of its own or `state`.
    public static func feeder(state: CaptureState = CaptureState()) -> PDUFeeder {
        PDUFeeder(registry: registry(), state: state)
    }
}
