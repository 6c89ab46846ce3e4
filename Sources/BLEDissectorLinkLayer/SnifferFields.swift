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

    public var descriptor: FieldDescriptor {
        switch self {
        case .boardID: FieldDescriptor("nordic_ble.board_id", "Board", .unsigned(bits: 8))
        case .payloadLength: FieldDescriptor("nordic_ble.plen", "Length of payload", .unsigned(bits: 16))
        case .headerLength: FieldDescriptor("nordic_ble.hlen", "Length of header", .unsigned(bits: 8))
        case .protocolVersion: FieldDescriptor("nordic_ble.protover", "Protocol version", .unsigned(bits: 8))
        case .packetCounter: FieldDescriptor("nordic_ble.packet_counter", "Packet counter", .unsigned(bits: 16))
        case .packetID:
            FieldDescriptor(
                "nordic_ble.packet_id",
                "Packet ID",
                .unsigned(bits: 8),
                names: ValueNames([(0x02, "Advertising PDU (v3)"), (0x06, "Packet")])
            )
        case .packetLength: FieldDescriptor("nordic_ble.len", "Length of packet header", .unsigned(bits: 16))
        case .flags: FieldDescriptor("nordic_ble.flags", "Flags", .unsigned(bits: 8), base: .hex)
        case .crcOK: FieldDescriptor("nordic_ble.crcok", "CRC OK", .boolean, bitmask: 0x01)
        case .direction:
            FieldDescriptor(
                "nordic_ble.direction",
                "Direction (central to peripheral)",
                .boolean,
                bitmask: 0x02,
                help: "Data channel: set when the central sent the packet"
            )
        case .encrypted: FieldDescriptor("nordic_ble.encrypted", "Encrypted", .boolean, bitmask: 0x04)
        case .micOK:
            FieldDescriptor(
                "nordic_ble.micok",
                "MIC OK",
                .boolean,
                bitmask: 0x08,
                help: "Data channel, encrypted packets: the sniffer decrypted the packet and its MIC is right"
            )
        case .addressResolved:
            FieldDescriptor("nordic_ble.address_resolved", "Address resolved", .boolean, bitmask: 0x08)
        case .auxType:
            FieldDescriptor(
                "nordic_ble.aux_type",
                "Auxiliary PDU type",
                .unsigned(bits: 8),
                names: ValueNames([(0, "AUX_ADV_IND"), (1, "AUX_CHAIN_IND"), (2, "AUX_SYNC_IND"), (3, "AUX_SCAN_RSP")]),
                bitmask: 0x06
            )
        case .phy:
            FieldDescriptor("nordic_ble.phy", "PHY", .unsigned(bits: 8), names: LinkLayerNames.phys, bitmask: 0x70)
        case .channel: FieldDescriptor("nordic_ble.channel", "Channel index", .unsigned(bits: 8))
        case .rssi: FieldDescriptor("nordic_ble.rssi", "RSSI", .signed(bits: 8), unit: "dBm")
        case .eventCounter: FieldDescriptor("nordic_ble.event_counter", "Event counter", .unsigned(bits: 16))
        case .timestamp: FieldDescriptor("nordic_ble.time", "Timestamp", .unsigned(bits: 32), unit: "µs")
        case .deltaTime:
            FieldDescriptor(
                "nordic_ble.delta_time",
                "Delta time (end to start)",
                .unsigned(bits: 32),
                help: "From the end of the previous packet to the start of this one",
                unit: "µs"
            )
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

    public var descriptor: FieldDescriptor {
        switch self {
        case .channel:
            FieldDescriptor(
                "btle_rf.channel",
                "RF channel",
                .unsigned(bits: 8),
                help: "0 to 39, 2402 + 2 × n MHz (not the channel index)"
            )
        case .signal: FieldDescriptor("btle_rf.signal_dbm", "Signal", .signed(bits: 8), unit: "dBm")
        case .noise: FieldDescriptor("btle_rf.noise_dbm", "Noise", .signed(bits: 8), unit: "dBm")
        case .offenses:
            FieldDescriptor("btle_rf.access_address_offenses", "Access address offenses", .unsigned(bits: 8))
        case .referenceAddress:
            FieldDescriptor(
                "btle_rf.reference_access_address",
                "Reference access address",
                .unsigned(bits: 32),
                base: .hex
            )
        case .flags: FieldDescriptor("btle_rf.flags", "Flags", .unsigned(bits: 16), base: .hex)
        case .dewhitened: FieldDescriptor("btle_rf.flags.dewhitened", "Dewhitened", .boolean, bitmask: 0x0001)
        case .signalValid:
            FieldDescriptor("btle_rf.flags.signal_dbm_valid", "Signal power valid", .boolean, bitmask: 0x0002)
        case .noiseValid:
            FieldDescriptor("btle_rf.flags.noise_dbm_valid", "Noise power valid", .boolean, bitmask: 0x0004)
        case .decrypted: FieldDescriptor("btle_rf.flags.decrypted", "Decrypted", .boolean, bitmask: 0x0008)
        case .referenceValid:
            FieldDescriptor(
                "btle_rf.flags.reference_access_address_valid",
                "Reference access address valid",
                .boolean,
                bitmask: 0x0010
            )
        case .offensesValid:
            FieldDescriptor(
                "btle_rf.flags.access_address_offenses_valid",
                "Access address offenses valid",
                .boolean,
                bitmask: 0x0020
            )
        case .aliased:
            FieldDescriptor("btle_rf.flags.channel_aliased", "Channel aliased", .boolean, bitmask: 0x0040)
        case .pduType:
            FieldDescriptor(
                "btle_rf.pdu_type",
                "PDU type",
                .unsigned(bits: 16),
                names: ValueNames([
                    (0, "Advertising or data (direction not given)"),
                    (1, "Auxiliary advertising"),
                    (2, "Data, central to peripheral"),
                    (3, "Data, peripheral to central"),
                    (4, "Connected isochronous, central to peripheral"),
                    (5, "Connected isochronous, peripheral to central"),
                    (6, "Broadcast isochronous"),
                    (7, "Reserved"),
                ]),
                bitmask: 0x0380
            )
        case .crcChecked: FieldDescriptor("btle_rf.flags.crc_checked", "CRC checked", .boolean, bitmask: 0x0400)
        case .crcValid: FieldDescriptor("btle_rf.flags.crc_valid", "CRC valid", .boolean, bitmask: 0x0800)
        case .micChecked: FieldDescriptor("btle_rf.flags.mic_checked", "MIC checked", .boolean, bitmask: 0x1000)
        case .micValid: FieldDescriptor("btle_rf.flags.mic_valid", "MIC valid", .boolean, bitmask: 0x2000)
        case .phy:
            FieldDescriptor("btle_rf.phy", "PHY", .unsigned(bits: 16), names: LinkLayerNames.phys, bitmask: 0xC000)
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

    public var descriptor: FieldDescriptor {
        switch self {
        case .version: FieldDescriptor("ppi.version", "Version", .unsigned(bits: 8))
        case .flags: FieldDescriptor("ppi.flags", "Flags", .unsigned(bits: 8), base: .hex)
        case .length: FieldDescriptor("ppi.length", "Header length", .unsigned(bits: 16))
        case .dlt: FieldDescriptor("ppi.dlt", "DLT", .unsigned(bits: 32), help: "The link type of the packet inside")
        case .fieldType:
            FieldDescriptor(
                "ppi.field_type",
                "Field type",
                .unsigned(bits: 16),
                names: ValueNames([(30006, "Bluetooth LE (Ubertooth)")])
            )
        case .fieldLength: FieldDescriptor("ppi.field_len", "Field length", .unsigned(bits: 16))
        case .fieldData: FieldDescriptor("ppi.field_data", "Field data", .bytes)
        case .btleVersion: FieldDescriptor("ppi.btle.version", "BTLE field version", .unsigned(bits: 8))
        case .btleChannel: FieldDescriptor("ppi.btle.channel", "Frequency", .unsigned(bits: 16), unit: "MHz")
        case .btleClockHigh: FieldDescriptor("ppi.btle.clkn_high", "Clock (high bits)", .unsigned(bits: 8))
        case .btleClock: FieldDescriptor("ppi.btle.clk100ns", "Clock (100 ns)", .unsigned(bits: 32))
        case .rssiMax: FieldDescriptor("ppi.btle.rssi_max", "RSSI maximum", .signed(bits: 8))
        case .rssiMin: FieldDescriptor("ppi.btle.rssi_min", "RSSI minimum", .signed(bits: 8))
        case .rssiAverage: FieldDescriptor("ppi.btle.rssi_avg", "RSSI average", .signed(bits: 8))
        case .rssiCount: FieldDescriptor("ppi.btle.rssi_count", "RSSI samples", .unsigned(bits: 8))
        }
    }
}
