public import BLEInspectCore

/// Value names of the link layer (Core Specification Vol 6 Part B 2).
enum LinkLayerNames {
    static let phys = ValueNames([(0, "LE 1M"), (1, "LE 2M"), (2, "LE Coded"), (3, "Reserved")])

    /// Advertising-channel PDU types. Type 5 is AUX_CONNECT_REQ and type 3 AUX_SCAN_REQ on a
    /// secondary channel; type 7 is ADV_EXT_IND on a primary channel and one of the AUX_ PDUs on a
    /// secondary one (`LinkLayerDissector.pduName`).
    static let advertisingPDUTypes = ValueNames([
        (0, "ADV_IND"), (1, "ADV_DIRECT_IND"), (2, "ADV_NONCONN_IND"), (3, "SCAN_REQ"), (4, "SCAN_RSP"),
        (5, "CONNECT_IND"), (6, "ADV_SCAN_IND"), (7, "ADV_EXT_IND"), (8, "AUX_CONNECT_RSP"),
    ])

    static let llids = ValueNames([
        (0, "Reserved"),
        (1, "Continuation fragment of an L2CAP message, or an empty PDU"),
        (2, "Start of an L2CAP message, or a complete one"),
        (3, "LL control PDU"),
    ])

    /// Sleep clock accuracy of CONNECT_IND and SyncInfo, in ppm.
    static let sleepClockAccuracy = ValueNames([
        (0, "251 ppm to 500 ppm"), (1, "151 ppm to 250 ppm"), (2, "101 ppm to 150 ppm"), (3, "76 ppm to 100 ppm"),
        (4, "51 ppm to 75 ppm"), (5, "31 ppm to 50 ppm"), (6, "21 ppm to 30 ppm"), (7, "0 ppm to 20 ppm"),
    ])

    static let advertisingModes = ValueNames([
        (0, "Non-connectable, non-scannable"), (1, "Connectable"), (2, "Scannable"), (3, "Reserved"),
    ])

    static let senders = ValueNames([(0, "Unknown"), (1, "Central"), (2, "Peripheral")])
}

/// The LE link layer: access address, advertising and data-channel PDUs, CRC. Filter names are
/// Wireshark's (`btle.*`); what Wireshark lacks is under `ll.*`: the connection a packet belongs
/// to, who sent it and how that is known, the CRC check, encryption and retransmission.
public enum LinkLayerField: UInt16, FieldSet {
    case accessAddress, codingIndicator
    case advHeader, pduType, chSel, txAdd, rxAdd, advLength
    case advertisingAddress, initiatorAddress, targetAddress, scanningAddress
    case llData, llAccessAddress, crcInit, windowSize, windowOffset, interval, latency, timeout, channelMap, hop, sca
    case extHeader, extLength, extMode, extFlags, flagAdvA, flagTargetA, flagCTEInfo, flagADI, flagAuxPtr
    case flagSyncInfo, flagTxPower, flagReserved, cteInfo, adi, did, sid
    case auxPointer, auxChannel, auxClockAccuracy, auxOffsetUnits, auxOffset, auxPHY
    case syncInfo, syncOffset, syncOffsetUnits, syncOffsetAdjust, syncInterval, syncChannelMap, syncSCA
    case syncAccessAddress, syncCRCInit, syncEventCounter
    case txPower, acad, advData
    case dataHeader, llid, nesn, sn, md, cp, dataRFU, dataLength, dataCTEInfo
    case crc, centralAddress, peripheralAddress, connectionParametersIn, fragmentCount, reassembledLength
    case connection, channelIndex, sender, senderInferred, crcValid, encrypted, encryptedData, mic
    case retransmission, pduName, decrypted, decryptionKey, packetCounter, micFailure

    public static let layer = FieldDescriptor(
        "btle",
        "Bluetooth Low Energy Link Layer",
        .layer,
        help: "Over-the-air LE packets from a sniffer",
        short: "LE LL"
    )

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .accessAddress: .uint("btle.access_address", "Access Address", 32, hex: true)
        case .codingIndicator: .uint("btle.coding_indicator", "Coding Indicator", 8, names: ValueNames([(0, "FEC block 2 coded with S=8"), (1, "FEC block 2 coded with S=2")]), mask: 0x03, help: "LE Coded PHY: how the rest of the packet is coded")
        case .advHeader: .uint("btle.advertising_header", "Packet Header", 16, hex: true)
        case .pduType: .uint("btle.advertising_header.pdu_type", "PDU Type", 8, hex: true, names: LinkLayerNames.advertisingPDUTypes, mask: 0x0F)
        case .chSel: .flag("btle.advertising_header.ch_sel", "Channel Selection Algorithm #2", 0x20)
        case .txAdd: .flag("btle.advertising_header.randomized_tx", "Tx Address random", 0x40)
        case .rxAdd: .flag("btle.advertising_header.randomized_rx", "Rx Address random", 0x80)
        case .advLength: .uint("btle.advertising_header.length", "Length", 8)
        case .advertisingAddress: FieldDescriptor("btle.advertising_address", "Advertising Address", .address)
        case .initiatorAddress: FieldDescriptor("btle.initiator_address", "Initiator Address", .address)
        case .targetAddress: FieldDescriptor("btle.target_address", "Target Address", .address)
        case .scanningAddress: FieldDescriptor("btle.scanning_address", "Scanning Address", .address)
        case .llData: FieldDescriptor("btle.link_layer_data", "Link Layer Data", .group)
        case .llAccessAddress: .uint("btle.link_layer_data.access_address", "Access Address", 32, hex: true)
        case .crcInit: .uint("btle.link_layer_data.crc_init", "CRC Init", 24, hex: true)
        case .windowSize: .uint("btle.link_layer_data.window_size", "Window Size", 8, help: "Units of 1.25 ms")
        case .windowOffset: .uint("btle.link_layer_data.window_offset", "Window Offset", 16, help: "Units of 1.25 ms")
        case .interval: .uint("btle.link_layer_data.interval", "Interval", 16, help: "Connection interval, units of 1.25 ms")
        case .latency: .uint("btle.link_layer_data.latency", "Latency", 16)
        case .timeout: .uint("btle.link_layer_data.timeout", "Timeout", 16, help: "Supervision timeout, units of 10 ms")
        case .channelMap: FieldDescriptor("btle.link_layer_data.channel_map", "Channel Map", .bytes)
        case .hop: .uint("btle.link_layer_data.hop", "Hop", 8, mask: 0x1F)
        case .sca: .uint("btle.link_layer_data.sleep_clock_accuracy", "Sleep Clock Accuracy", 8, names: LinkLayerNames.sleepClockAccuracy, mask: 0xE0)
        case .extHeader: FieldDescriptor("btle.extended_advertising_header", "Extended Advertising Header", .group)
        case .extLength: .uint("btle.extended_advertising_header.length", "Extended Header Length", 8, mask: 0x3F)
        case .extMode: .uint("btle.extended_advertising_header.mode", "Advertising Mode", 8, hex: true, names: LinkLayerNames.advertisingModes, mask: 0xC0)
        case .extFlags: .uint("btle.extended_advertising_header.flags", "Extended Header Flags", 8, hex: true)
        case .flagAdvA: .flag("btle.extended_advertising_header.flags.advertiser_address", "AdvA", 0x01)
        case .flagTargetA: .flag("btle.extended_advertising_header.flags.target_address", "TargetA", 0x02)
        case .flagCTEInfo: .flag("btle.extended_advertising_header.flags.cte_info", "CTEInfo", 0x04)
        case .flagADI: .flag("btle.extended_advertising_header.advertiser_data_info", "AdvDataInfo", 0x08)
        case .flagAuxPtr: .flag("btle.extended_advertising_header.flags.aux_pointer", "AuxPtr", 0x10)
        case .flagSyncInfo: .flag("btle.extended_advertising_header.flags.sync_info", "SyncInfo", 0x20)
        case .flagTxPower: .flag("btle.extended_advertising_header.flags.tx_power", "TxPower", 0x40)
        case .flagReserved: .flag("btle.extended_advertising_header.flags.reserved", "Reserved", 0x80)
        case .cteInfo: .uint("btle.extended_advertising_header.cte_info", "CTE Info", 8, hex: true)
        case .adi: .uint("btle.extended_advertising.advertising_data_info", "Advertising Data Info", 16, hex: true)
        case .did: .uint("btle.extended_advertising.advertising_data_info.did", "Advertising Data ID", 16, hex: true, mask: 0x0FFF)
        case .sid: .uint("btle.extended_advertising.advertising_data_info.sid", "Advertising Set ID", 16, hex: true, mask: 0xF000)
        case .auxPointer: FieldDescriptor("btle.extended_advertising.aux_pointer", "Aux Pointer", .group)
        case .auxChannel: .uint("btle.extended_advertising_header.aux_pointer.channel", "Channel", 8, mask: 0x3F)
        case .auxClockAccuracy: .flag("btle.extended_advertising_header.aux_pointer.ca", "Clock accuracy 0 to 50 ppm", 0x40)
        case .auxOffsetUnits: .flag("btle.extended_advertising_header.aux_pointer.offset_units", "Offset units 300 µs", 0x80, help: "Clear: 30 µs")
        case .auxOffset: .uint("btle.extended_advertising_header.aux_pointer.aux_offset", "Aux Offset", 16, hex: true, mask: 0x1FFF)
        case .auxPHY: .uint("btle.extended_advertising_header.aux_pointer.aux_phy", "Aux PHY", 16, names: LinkLayerNames.phys, mask: 0xE000)
        case .syncInfo: FieldDescriptor("btle.extended_advertising.sync_info", "Sync Info", .group)
        case .syncOffset: .uint("btle.extended_advertising_header.sync_info.sync_offset", "Sync Packet Offset", 16, hex: true, mask: 0x1FFF)
        case .syncOffsetUnits: .flag("btle.extended_advertising_header.sync_info.offset_units", "Offset units 300 µs", 0x2000)
        case .syncOffsetAdjust: .flag("btle.extended_advertising_header.sync_info.offset_adjust", "Offset adjust", 0x4000)
        case .syncInterval: .uint("btle.extended_advertising_header.sync_info.interval", "Interval", 16, hex: true)
        case .syncChannelMap: FieldDescriptor("btle.extended_advertising_header.sync_info.channel_map", "Channel Map", .bytes)
        case .syncSCA: .uint("btle.extended_advertising_header.sync_info.sleep_clock_accuracy", "Sleep Clock Accuracy", 8, names: LinkLayerNames.sleepClockAccuracy, mask: 0xE0)
        case .syncAccessAddress: .uint("btle.extended_advertising_header.sync_info.access_address", "Access Address", 32, hex: true)
        case .syncCRCInit: .uint("btle.extended_advertising_header.sync_info.crc_init", "CRC Init", 24, hex: true)
        case .syncEventCounter: .uint("btle.extended_advertising_header.sync_info.event_counter", "Event Counter", 16)
        case .txPower: .int("btle.extended_advertising_header.tx_power", "TX Power", 8, unit: "dBm")
        case .acad: FieldDescriptor("btle.extended_advertising_header.acad", "Additional Controller Data", .bytes)
        case .advData: FieldDescriptor("btle.advertising_data", "Advertising Data", .bytes)
        case .dataHeader: FieldDescriptor("btle.data_header", "Data Header", .group)
        case .llid: .uint("btle.data_header.llid", "LLID", 8, hex: true, names: LinkLayerNames.llids, mask: 0x03)
        case .nesn: .uint("btle.data_header.next_expected_sequence_number", "Next Expected Sequence Number", 8, mask: 0x04)
        case .sn: .uint("btle.data_header.sequence_number", "Sequence Number", 8, mask: 0x08)
        case .md: .flag("btle.data_header.more_data", "More Data", 0x10)
        case .cp: .flag("btle.data_header.cte_info_present", "CTE Info Present", 0x20)
        case .dataRFU: .uint("btle.data_header.rfu", "RFU", 8, mask: 0xC0)
        case .dataLength: .uint("btle.data_header.length", "Length", 8)
        case .dataCTEInfo: .uint("btle.data_header.cte_info", "CTE Info", 8, hex: true)
        case .crc: .uint("btle.crc", "CRC", 24, hex: true, help: "As Wireshark shows it: each byte's bits reversed, first byte highest")
        case .centralAddress: FieldDescriptor("btle.master_bd_addr", "Central Address", .address, help: "From the connection's CONNECT_IND (Wireshark's name)")
        case .peripheralAddress: FieldDescriptor("btle.slave_bd_addr", "Peripheral Address", .address, help: "From the connection's CONNECT_IND (Wireshark's name)")
        case .connectionParametersIn: .uint("btle.connection_parameters_in", "Connection Parameters in frame", 32)
        case .fragmentCount: .uint("btle.l2cap.fragment.count", "L2CAP fragment count", 32)
        case .reassembledLength: .uint("btle.l2cap.reassembled.length", "Reassembled L2CAP length", 32)
        case .connection: .uint("ll.connection", "Connection", 16, help: "The connection's number in this capture, from 1, in the order they were seen")
        case .channelIndex: .uint("ll.channel", "Channel index", 8)
        case .sender: .uint("ll.sender", "Sender", 8, names: LinkLayerNames.senders)
        case .senderInferred: FieldDescriptor("ll.sender_inferred", "Sender inferred", .boolean, help: "The sniffer did not say who sent the packet; it is inferred from timing within the connection event")
        case .crcValid: FieldDescriptor("ll.crc_valid", "CRC valid", .boolean, help: "From the sniffer, or computed when the CRC init is known")
        case .encrypted: FieldDescriptor("ll.encrypted", "Encrypted", .boolean, help: "Sent encrypted and not decrypted here")
        case .encryptedData: FieldDescriptor("ll.encrypted_data", "Encrypted payload", .bytes)
        case .mic: .uint("ll.mic", "MIC", 32, hex: true)
        case .retransmission: FieldDescriptor("ll.retransmission", "Retransmission", .boolean, help: "Same sequence number and payload as the sender's previous packet: not passed up again")
        case .pduName: FieldDescriptor("ll.pdu", "PDU", .string, help: "The PDU's name (AUX_ PDUs named by context)")
        case .decrypted: FieldDescriptor("ll.decrypted", "Decrypted", .boolean, help: "Sent encrypted, decrypted here with a key whose MIC verifies; the payload follows in its own data source")
        case .decryptionKey: FieldDescriptor("ll.decryption_key", "Decrypted with", .string, help: "The long term key (or STK) and where it came from")
        case .packetCounter: .uint("ll.packet_counter", "Packet counter", 64, help: "The 39-bit counter of the nonce, per direction, from 0 at the session's start")
        case .micFailure: FieldDescriptor("ll.mic_failure", "MIC check failed", .boolean, help: "A key was given, but none verifies the MIC at the expected packet counter or near it: not decrypted")
        }
    }
}
