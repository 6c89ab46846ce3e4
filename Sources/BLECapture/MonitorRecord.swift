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

    /// The controller index a monitor record names; 0xFFFF means "no controller".
    public static func controller(_ index: UInt16) -> UInt16? {
        index == 0xFFFF ? nil : index
    }
}
