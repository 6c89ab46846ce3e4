/// Fields every frame has, and the generic ones the engine adds: malformed notes, expert notes,
/// undissected data.
public enum CoreField: UInt16, FieldSet {
    case number, timeEpoch, length, capturedLength, direction, controller, kind, note
    case malformed, expert, expertMessage, expertSeverity, data
    case time, timeDelta, timeDeltaDisplayed, timeRelative

    /// The fields the engine adds in the `frame` layer (the controller only where the frame has one).
    public static let frameLayer: [CoreField] = [
        .number, .time, .timeEpoch, .timeDelta, .timeDeltaDisplayed, .timeRelative, .length, .capturedLength,
        .direction, .controller, .kind,
    ]

    public static let layer = FieldDescriptor("frame", "Frame", .layer, short: "FRAME")

    public var descriptor: FieldDescriptor {
        switch self {
        case .number: .uint("frame.number", "Frame Number", 32)
        case .time:
            FieldDescriptor(
                "frame.time",
                "Arrival Time",
                .time,
                base: .localTime,
                help: "Date and time in the local time zone (TZ), as tshark shows it"
            )
        // A span since 1970, as in Wireshark (FT_RELATIVE_TIME): filters compare it with seconds.
        case .timeEpoch:
            FieldDescriptor("frame.time_epoch", "Epoch Time", .relativeTime, help: "Seconds since 1970-01-01 UTC")
        case .timeDelta:
            FieldDescriptor(
                "frame.time_delta",
                "Time delta from previous captured frame",
                .relativeTime,
                unit: "seconds"
            )
        case .timeDeltaDisplayed:
            FieldDescriptor(
                "frame.time_delta_displayed",
                "Time delta from previous displayed frame",
                .relativeTime,
                help: "From the previous frame that passed the display filter (-Y)",
                unit: "seconds"
            )
        case .timeRelative:
            FieldDescriptor(
                "frame.time_relative",
                "Time since reference or first frame",
                .relativeTime,
                help: "From the first frame of the capture",
                unit: "seconds"
            )
        case .length: .uint("frame.len", "Frame Length", 32, help: "Length on the wire")
        case .capturedLength: .uint("frame.cap_len", "Capture Length", 32)
        case .direction:
            .uint(
                "frame.direction",
                "Direction",
                8,
                names: ValueNames([(0, "Unknown"), (1, "Host to controller"), (2, "Controller to host")])
            )
        case .controller: .uint("frame.controller", "Controller Index", 16, help: "hciN")
        case .kind: FieldDescriptor("frame.kind", "Record Kind", .string)
        case .note: FieldDescriptor("frame.note", "Note", .string, help: "Text of a note or log record")
        case .malformed:
            FieldDescriptor("_ws.malformed", "Malformed Packet", .expert, help: "A PDU that could not be decoded")
        case .expert: FieldDescriptor("_ws.expert", "Expert Info", .expert)
        case .expertMessage: FieldDescriptor("_ws.expert.message", "Message", .string)
        case .expertSeverity:
            .uint(
                "_ws.expert.severity",
                "Severity",
                8,
                names: ValueNames([(0, "Comment"), (1, "Note"), (2, "Warning"), (3, "Error")])
            )
        case .data: FieldDescriptor("data.data", "Data", .bytes, help: "Bytes no dissector decoded")
        }
    }
}

/// The core fields' ids.
public typealias CoreFields = Fields<CoreField>

enum CoreFieldsModule: DissectorModule {
    static let name = "core"
    static func register(_ registry: inout RegistryBuilder) {
        _ = registry.register(CoreField.self)
        // The engine's own tables, which it hands frames to by kind.
        registry.declare(StandardTables.hciPacketType, "HCI packet type (H4 indicator)")
        registry.declare(StandardTables.monitorOpcode, "Linux monitor records (not HCI, not text) by opcode")
        registry.declare(StandardTables.linkType, "Sniffer link-layer frames by pcap link type")
    }
}
