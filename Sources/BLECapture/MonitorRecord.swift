public import BLEInspectCore

/// The Linux monitor channel's record opcodes, shared by btsnoop datalink 2001, pcap link type 254
/// and live capture.
public enum MonitorRecord {
    /// The frame kind and direction of a monitor opcode.
    public static func classify(opcode: UInt16) -> (FrameKind, Direction) {
        switch opcode {
        case 0: (.newIndex, .unknown)
        case 1: (.deleteIndex, .unknown)
        case 2: (.hciCommand, .hostToController)
        case 3: (.hciEvent, .controllerToHost)
        case 4: (.aclData, .hostToController)
        case 5: (.aclData, .controllerToHost)
        case 6: (.scoData, .hostToController)
        case 7: (.scoData, .controllerToHost)
        case 8: (.openIndex, .unknown)
        case 9: (.closeIndex, .unknown)
        case 10: (.indexInfo, .unknown)
        case 11: (.vendorDiagnostic, .unknown)
        case 12: (.note, .unknown)
        case 13: (.log, .unknown)
        case 14: (.controlOpen, .unknown)
        case 15: (.controlClose, .unknown)
        case 16: (.controlCommand, .unknown)
        case 17: (.controlEvent, .unknown)
        case 18: (.isoData, .hostToController)
        case 19: (.isoData, .controllerToHost)
        default: (.unknown(opcode), .unknown)
        }
    }

    /// The monitor opcode a frame of `kind` travelling in `direction` is written with: the inverse
    /// of `classify`. Nil for what the monitor channel has no record for (PacketLogger's
    /// new-controller and LMP records, sniffer link-layer frames).
    ///
    /// - Commands are always opcode 2 and events always 3, whatever `direction` says: the
    ///   monitor channel has no received command or sent event.
    /// - ACL, SCO and ISO data with an unknown direction are written as sent (host to
    ///   controller), as the H4 writers do.
    /// - `.unknown(n)` keeps `n` as its opcode when `n` is not one of the known opcodes (0–19),
    ///   so an unknown monitor record reads back as the same unknown record. Other unknown
    ///   records (a stray H4 packet type, say) have no monitor form: nil.
    public static func opcode(for kind: FrameKind, direction: Direction) -> UInt16? {
        let received = direction == .controllerToHost
        switch kind {
        case .hciCommand: return 2
        case .hciEvent: return 3
        case .aclData: return received ? 5 : 4
        case .scoData: return received ? 7 : 6
        case .isoData: return received ? 19 : 18
        case .unknown(let raw): return raw > 19 ? raw : nil
        default: return kind.monitorOpcode  // index, note, log, diagnostic and control records
        }
    }

    /// The controller index a frame is written with: 0xFFFF when it names no controller.
    public static func index(of frame: CapturedFrame) -> UInt16 {
        frame.controllerIndex ?? 0xFFFF
    }

    /// The controller index a monitor record names; 0xFFFF means "no controller".
    public static func controller(_ index: UInt16) -> UInt16? {
        index == 0xFFFF ? nil : index
    }
}
