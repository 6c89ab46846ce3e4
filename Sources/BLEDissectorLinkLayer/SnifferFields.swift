public import BLEInspectCore

/// The nRF Sniffer's header (pcap link type 272), protocol versions 1 to 3. Names are Wireshark's
/// (`nordic_ble.*`).
public enum NordicField: UInt16, FieldSet {
    case boardID, payloadLength, headerLength, protocolVersion, packetCounter, packetID
    case packetLength, flags, crcOK, direction, encrypted, micOK, addressResolved, auxType, phy
    case channel, rssi, eventCounter, timestamp, deltaTime

    public static let layer = FieldDescriptor(
        "nordic_ble",
        "nRF Sniffer for Bluetooth LE",
        .layer,
        help: "The header Nordic's nRF Sniffer puts before each over-the-air packet (pcap link type 272)",
        short: "NORDIC_BLE"
    )

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .boardID: .uint("nordic_ble.board_id", "Board", 8)
        case .payloadLength: .uint("nordic_ble.plen", "Length of payload", 16)
        case .headerLength: .uint("nordic_ble.hlen", "Length of header", 8)
        case .protocolVersion: .uint("nordic_ble.protover", "Protocol version", 8)
        case .packetCounter: .uint("nordic_ble.packet_counter", "Packet counter", 16)
        case .packetID: .uint("nordic_ble.packet_id", "Packet ID", 8, names: ValueNames([(0x02, "Advertising PDU (v3)"), (0x06, "Packet")]))
        case .packetLength: .uint("nordic_ble.len", "Length of packet header", 16)
        case .flags: .uint("nordic_ble.flags", "Flags", 8, hex: true)
        case .crcOK: .flag("nordic_ble.crcok", "CRC OK", 0x01)
        case .direction: .flag("nordic_ble.direction", "Direction (central to peripheral)", 0x02, help: "Data channel: set when the central sent the packet")
        case .encrypted: .flag("nordic_ble.encrypted", "Encrypted", 0x04)
        case .micOK: .flag("nordic_ble.micok", "MIC OK", 0x08, help: "Data channel, encrypted packets: the sniffer decrypted the packet and its MIC is right")
        case .addressResolved: .flag("nordic_ble.address_resolved", "Address resolved", 0x08)
        case .auxType: .uint("nordic_ble.aux_type", "Auxiliary PDU type", 8, names: ValueNames([(0, "AUX_ADV_IND"), (1, "AUX_CHAIN_IND"), (2, "AUX_SYNC_IND"), (3, "AUX_SCAN_RSP")]), mask: 0x06)
        case .phy: .uint("nordic_ble.phy", "PHY", 8, names: LinkLayerNames.phys, mask: 0x70)
        case .channel: .uint("nordic_ble.channel", "Channel index", 8)
        case .rssi: .int("nordic_ble.rssi", "RSSI", 8, unit: "dBm")
        case .eventCounter: .uint("nordic_ble.event_counter", "Event counter", 16)
        case .timestamp: .uint("nordic_ble.time", "Timestamp", 32, unit: "µs")
        case .deltaTime: .uint("nordic_ble.delta_time", "Delta time (end to start)", 32, help: "From the end of the previous packet to the start of this one", unit: "µs")
        }
    }
}

/// The RF header of pcap link type 256 (LE link layer with PHDR). Names are Wireshark's
/// (`btle_rf.*`).
public enum RFField: UInt16, FieldSet {
    case channel, signal, noise, offenses, referenceAddress, flags
    case dewhitened, signalValid, noiseValid, decrypted, referenceValid, offensesValid, aliased, pduType
    case crcChecked, crcValid, micChecked, micValid, phy

    public static let layer = FieldDescriptor(
        "btle_rf",
        "Bluetooth Low Energy RF Info",
        .layer,
        help: "The RF header of pcap link type 256",
        short: "BTLE_RF"
    )

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .channel: .uint("btle_rf.channel", "RF channel", 8, help: "0 to 39, 2402 + 2 × n MHz (not the channel index)")
        case .signal: .int("btle_rf.signal_dbm", "Signal", 8, unit: "dBm")
        case .noise: .int("btle_rf.noise_dbm", "Noise", 8, unit: "dBm")
        case .offenses: .uint("btle_rf.access_address_offenses", "Access address offenses", 8)
        case .referenceAddress: .uint("btle_rf.reference_access_address", "Reference access address", 32, hex: true)
        case .flags: .uint("btle_rf.flags", "Flags", 16, hex: true)
        case .dewhitened: .flag("btle_rf.flags.dewhitened", "Dewhitened", 0x0001)
        case .signalValid: .flag("btle_rf.flags.signal_dbm_valid", "Signal power valid", 0x0002)
        case .noiseValid: .flag("btle_rf.flags.noise_dbm_valid", "Noise power valid", 0x0004)
        case .decrypted: .flag("btle_rf.flags.decrypted", "Decrypted", 0x0008)
        case .referenceValid: .flag("btle_rf.flags.reference_access_address_valid", "Reference access address valid", 0x0010)
        case .offensesValid: .flag("btle_rf.flags.access_address_offenses_valid", "Access address offenses valid", 0x0020)
        case .aliased: .flag("btle_rf.flags.channel_aliased", "Channel aliased", 0x0040)
        case .pduType: .uint("btle_rf.pdu_type", "PDU type", 16, names: ValueNames([(0, "Advertising or data (direction not given)"), (1, "Auxiliary advertising"), (2, "Data, central to peripheral"), (3, "Data, peripheral to central"), (4, "Connected isochronous, central to peripheral"), (5, "Connected isochronous, peripheral to central"), (6, "Broadcast isochronous"), (7, "Reserved")]), mask: 0x0380)
        case .crcChecked: .flag("btle_rf.flags.crc_checked", "CRC checked", 0x0400)
        case .crcValid: .flag("btle_rf.flags.crc_valid", "CRC valid", 0x0800)
        case .micChecked: .flag("btle_rf.flags.mic_checked", "MIC checked", 0x1000)
        case .micValid: .flag("btle_rf.flags.mic_valid", "MIC valid", 0x2000)
        case .phy: .uint("btle_rf.phy", "PHY", 16, names: LinkLayerNames.phys, mask: 0xC000)
        }
    }
}

/// The Per-Packet Information header (pcap link type 192), and its Bluetooth LE field (type
/// 30006, which Ubertooth writes). The header fields are Wireshark's (`ppi.*`); the LE field's
/// are this project's (`ppi.btle.*`).
public enum PPIField: UInt16, FieldSet {
    case version, flags, length, dlt, fieldType, fieldLength, fieldData
    case btleVersion, btleChannel, btleClockHigh, btleClock, rssiMax, rssiMin, rssiAverage, rssiCount

    public static let layer = FieldDescriptor("ppi", "PPI Packet Header", .layer, short: "PPI")

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .version: .uint("ppi.version", "Version", 8)
        case .flags: .uint("ppi.flags", "Flags", 8, hex: true)
        case .length: .uint("ppi.length", "Header length", 16)
        case .dlt: .uint("ppi.dlt", "DLT", 32, help: "The link type of the packet inside")
        case .fieldType: .uint("ppi.field_type", "Field type", 16, names: ValueNames([(30006, "Bluetooth LE (Ubertooth)")]))
        case .fieldLength: .uint("ppi.field_len", "Field length", 16)
        case .fieldData: FieldDescriptor("ppi.field_data", "Field data", .bytes)
        case .btleVersion: .uint("ppi.btle.version", "BTLE field version", 8)
        case .btleChannel: .uint("ppi.btle.channel", "Frequency", 16, unit: "MHz")
        case .btleClockHigh: .uint("ppi.btle.clkn_high", "Clock (high bits)", 8)
        case .btleClock: .uint("ppi.btle.clk100ns", "Clock (100 ns)", 32)
        case .rssiMax: .int("ppi.btle.rssi_max", "RSSI maximum", 8)
        case .rssiMin: .int("ppi.btle.rssi_min", "RSSI minimum", 8)
        case .rssiAverage: .int("ppi.btle.rssi_avg", "RSSI average", 8)
        case .rssiCount: .uint("ppi.btle.rssi_count", "RSSI samples", 8)
        }
    }
}
