public import BLEInspectCore

/// The fields of the Bluetooth Quality Report (BQR): the vendor-specific HCI event (0xFF) that
/// Android's controllers send with sub-event code 0x58, once a second in quality monitoring
/// mode, or when a link approaches its supervision timeout, audio gets choppy or a connection
/// fails. Wireshark has no fields for it; the names follow Android's BQR parameters.
public enum BQRField: UInt16, FieldSet {
    case subeventCode, reportID, packetType, connectionHandle, role, txPowerLevel, rssi, snr
    case unusedAFHChannelCount, afhSelectUnidealChannelCount, lsto, piconetClock, retransmissionCount
    case noRXCount, nakCount, lastTXAckTimestamp, flowOffCount, lastFlowOnTimestamp
    case bufferOverflowBytes, bufferUnderflowBytes, remoteAddress, calibrationFailedItemCount, parameters

    public static let layer = FieldDescriptor(
        "bqr",
        "Bluetooth Quality Report",
        .layer,
        help: "Android's vendor-specific HCI event 0xFF, sub-event 0x58",
        short: "BQR"
    )

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .subeventCode: Self.u8("bqr.subevent_code", "Sub-event Code", hex: true)
        case .reportID: .uint("bqr.report_id", "Quality Report ID", 8, hex: true, names: BQRNames.reports)
        case .packetType: Self.u8("bqr.packet_type", "Packet Type", hex: true)
        case .connectionHandle: .uint("bqr.connection_handle", "Connection Handle", 16, hex: true)
        case .role: .uint("bqr.role", "Connection Role", 8, names: BQRNames.roles)
        case .txPowerLevel: Self.u8("bqr.tx_power_level", "TX Power Level", unit: "dBm")
        case .rssi: .int("bqr.rssi", "RSSI", 8, unit: "dBm")
        case .snr: .int("bqr.snr", "SNR", 8, unit: "dB")
        case .unusedAFHChannelCount: Self.u8("bqr.unused_afh_channel_count", "Unused AFH Channel Count")
        case .afhSelectUnidealChannelCount: Self.u8("bqr.afh_select_unideal_channel_count", "AFH Select Unideal Channel Count")
        case .lsto: .uint("bqr.lsto", "Link Supervision Timeout", 16, help: "In slots of 0.625 ms", unit: "slots")
        case .piconetClock: Self.clock("bqr.piconet_clock", "Piconet Clock")
        case .retransmissionCount: Self.u32("bqr.retransmission_count", "Retransmission Count")
        case .noRXCount: Self.u32("bqr.no_rx_count", "No RX Count")
        case .nakCount: Self.u32("bqr.nak_count", "NAK Count")
        case .lastTXAckTimestamp: Self.clock("bqr.last_tx_ack_timestamp", "Last TX ACK Timestamp")
        case .flowOffCount: Self.u32("bqr.flow_off_count", "Flow Off Count")
        case .lastFlowOnTimestamp: Self.clock("bqr.last_flow_on_timestamp", "Last Flow On Timestamp")
        case .bufferOverflowBytes: Self.u32("bqr.buffer_overflow_bytes", "Buffer Overflow", unit: "bytes")
        case .bufferUnderflowBytes: Self.u32("bqr.buffer_underflow_bytes", "Buffer Underflow", unit: "bytes")
        case .remoteAddress: FieldDescriptor("bqr.remote_address", "Remote Address", .address)
        case .calibrationFailedItemCount: Self.u8("bqr.calibration_failed_item_count", "Calibration Failed Item Count")
        case .parameters: FieldDescriptor("bqr.parameters", "Report Parameters", .bytes, help: "Parameters this version of the report adds, or of a report whose layout is not known")
        }
    }

    private static func u8(_ abbrev: String, _ name: String, hex: Bool = false, unit: String = "")
        -> FieldDescriptor
    {
        .uint(abbrev, name, 8, hex: hex, unit: unit)
    }

    private static func u32(_ abbrev: String, _ name: String, unit: String = "") -> FieldDescriptor {
        .uint(abbrev, name, 32, unit: unit)
    }

    /// A Bluetooth clock value, in ticks of 0.3125 ms.
    private static func clock(_ abbrev: String, _ name: String) -> FieldDescriptor {
        .uint(abbrev, name, 32, hex: true, help: "In Bluetooth clock ticks of 0.3125 ms")
    }
}

/// The names of the report's values, from Android's BluetoothQualityReport.
enum BQRNames {
    /// The reports whose parameters start with the common part (`BQRDissector.common`).
    static let reports = ValueNames([
        (0x01, "Quality monitoring"), (0x02, "Approaching LSTO"), (0x03, "A2DP audio choppy"),
        (0x04, "(e)SCO voice choppy"), (0x08, "Connect fail"),
    ])
    static let roles = ValueNames([(0, "Central"), (1, "Peripheral")])
}
