/// What a captured record is. HCI packets, plus the non-packet records that capture formats carry.
public enum FrameKind: Sendable, Hashable {
    case hciCommand
    case aclData
    case scoData
    case hciEvent
    case isoData
    /// Vendor diagnostic data (Linux monitor opcode 11).
    case vendorDiagnostic
    /// Linux monitor index records: a controller appeared, went away, was opened, closed, or described.
    case newIndex, deleteIndex, openIndex, closeIndex, indexInfo
    /// A text note: Linux monitor system note, or a PacketLogger note.
    case note
    /// Log text: Linux monitor user logging, PacketLogger syslog/kernel/error/power/config records.
    case log
    /// Linux monitor management-control records.
    case controlOpen, controlClose, controlCommand, controlEvent
    /// PacketLogger "new controller" record.
    case newController
    /// PacketLogger LMP records.
    case lmp
    /// An over-the-air link-layer frame from a sniffer, with its pcap link type (251, 256, 272, 192…).
    case linkLayer(linkType: UInt16)
    /// A record type this program does not know; the raw type number as the format gives it.
    case unknown(UInt16)

    /// The H4 packet indicator for HCI packets, nil for everything else.
    public var h4Type: UInt8? {
        switch self {
        case .hciCommand: 0x01
        case .aclData: 0x02
        case .scoData: 0x03
        case .hciEvent: 0x04
        case .isoData: 0x05
        default: nil
        }
    }

    /// The HCI packet kind for an H4 packet indicator.
    public init(h4Type: UInt8) {
        switch h4Type {
        case 0x01: self = .hciCommand
        case 0x02: self = .aclData
        case 0x03: self = .scoData
        case 0x04: self = .hciEvent
        case 0x05: self = .isoData
        default: self = .unknown(UInt16(h4Type))
        }
    }

    /// True for the five HCI packet kinds, the ones every output format can hold.
    public var isHCI: Bool { h4Type != nil }

    /// The Linux monitor channel opcode of the records that are not HCI packets (the inverse of
    /// `MonitorRecord.classify` for them), nil for everything else. HCI packets have opcodes too
    /// (2–7, 18, 19, by direction), but they are dissected by their H4 type, so they give nil here;
    /// so do the kinds only other formats have, and unknown record types.
    public var monitorOpcode: UInt16? {
        switch self {
        case .newIndex: 0
        case .deleteIndex: 1
        case .openIndex: 8
        case .closeIndex: 9
        case .indexInfo: 10
        case .vendorDiagnostic: 11
        case .note: 12
        case .log: 13
        case .controlOpen: 14
        case .controlClose: 15
        case .controlCommand: 16
        case .controlEvent: 17
        default: nil
        }
    }

    /// A short human name.
    public var name: String {
        switch self {
        case .hciCommand: "HCI Command"
        case .aclData: "ACL Data"
        case .scoData: "SCO Data"
        case .hciEvent: "HCI Event"
        case .isoData: "ISO Data"
        case .vendorDiagnostic: "Vendor Diagnostic"
        case .newIndex: "New Index"
        case .deleteIndex: "Delete Index"
        case .openIndex: "Open Index"
        case .closeIndex: "Close Index"
        case .indexInfo: "Index Info"
        case .note: "Note"
        case .log: "Log"
        case .controlOpen: "Control Open"
        case .controlClose: "Control Close"
        case .controlCommand: "Control Command"
        case .controlEvent: "Control Event"
        case .newController: "New Controller"
        case .lmp: "LMP"
        case .linkLayer(let linkType): "Link Layer (DLT \(linkType))"
        case .unknown(let raw): "Unknown record type \(raw)"
        }
    }

    /// True for records whose bytes are text (notes and logs).
    public var isText: Bool {
        switch self {
        case .note, .log: true
        default: false
        }
    }
}
