import BLECaptureTestSupport
import BLEDissectorHCI
import BLEDissectorTestSupport
import BLEInspectCore

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
        // In place of the L2CAP and Advertising modules, which own these tables.
        registry.declare(StandardTables.l2cap, "probe: L2CAP PDUs")
        registry.declare(StandardTables.advertisingData, "probe: advertising data")
        let f = registry.register(ProbeField.self)
        registry.bind(ProbeL2CAP(f: f), to: StandardTables.l2cap, key: 0)
        registry.bind(ProbeAD(f: f), to: StandardTables.advertisingData, key: 0)
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
    static func run(_ frames: [CapturedFrame]) -> [FrameSnapshot] { Dissect.frames(frames, registry: registry) }

    static func one(_ frame: CapturedFrame) -> FrameSnapshot { run([frame])[0] }

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
