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
    case retransmission, pduName

    public static let layer = FieldDescriptor(
        "btle",
        "Bluetooth Low Energy Link Layer",
        .layer,
        help: "Over-the-air LE packets from a sniffer",
        short: "LE LL"
    )

    public var descriptor: FieldDescriptor {
        switch self {
        case .accessAddress:
            FieldDescriptor("btle.access_address", "Access Address", .unsigned(bits: 32), base: .hex)
        case .codingIndicator:
            FieldDescriptor(
                "btle.coding_indicator",
                "Coding Indicator",
                .unsigned(bits: 8),
                names: ValueNames([(0, "FEC block 2 coded with S=8"), (1, "FEC block 2 coded with S=2")]),
                bitmask: 0x03,
                help: "LE Coded PHY: how the rest of the packet is coded"
            )
        case .advHeader: FieldDescriptor("btle.advertising_header", "Packet Header", .unsigned(bits: 16), base: .hex)
        case .pduType:
            FieldDescriptor(
                "btle.advertising_header.pdu_type",
                "PDU Type",
                .unsigned(bits: 8),
                base: .hex,
                names: LinkLayerNames.advertisingPDUTypes,
                bitmask: 0x0F
            )
        case .chSel:
            FieldDescriptor(
                "btle.advertising_header.ch_sel",
                "Channel Selection Algorithm #2",
                .boolean,
                bitmask: 0x20
            )
        case .txAdd:
            FieldDescriptor("btle.advertising_header.randomized_tx", "Tx Address random", .boolean, bitmask: 0x40)
        case .rxAdd:
            FieldDescriptor("btle.advertising_header.randomized_rx", "Rx Address random", .boolean, bitmask: 0x80)
        case .advLength: FieldDescriptor("btle.advertising_header.length", "Length", .unsigned(bits: 8))
        case .advertisingAddress: FieldDescriptor("btle.advertising_address", "Advertising Address", .address)
        case .initiatorAddress: FieldDescriptor("btle.initiator_address", "Initiator Address", .address)
        case .targetAddress: FieldDescriptor("btle.target_address", "Target Address", .address)
        case .scanningAddress: FieldDescriptor("btle.scanning_address", "Scanning Address", .address)
        case .llData: FieldDescriptor("btle.link_layer_data", "Link Layer Data", .group)
        case .llAccessAddress:
            FieldDescriptor("btle.link_layer_data.access_address", "Access Address", .unsigned(bits: 32), base: .hex)
        case .crcInit:
            FieldDescriptor("btle.link_layer_data.crc_init", "CRC Init", .unsigned(bits: 24), base: .hex)
        case .windowSize:
            FieldDescriptor(
                "btle.link_layer_data.window_size",
                "Window Size",
                .unsigned(bits: 8),
                help: "Units of 1.25 ms"
            )
        case .windowOffset:
            FieldDescriptor(
                "btle.link_layer_data.window_offset",
                "Window Offset",
                .unsigned(bits: 16),
                help: "Units of 1.25 ms"
            )
        case .interval:
            FieldDescriptor(
                "btle.link_layer_data.interval",
                "Interval",
                .unsigned(bits: 16),
                help: "Connection interval, units of 1.25 ms"
            )
        case .latency: FieldDescriptor("btle.link_layer_data.latency", "Latency", .unsigned(bits: 16))
        case .timeout:
            FieldDescriptor(
                "btle.link_layer_data.timeout",
                "Timeout",
                .unsigned(bits: 16),
                help: "Supervision timeout, units of 10 ms"
            )
        case .channelMap: FieldDescriptor("btle.link_layer_data.channel_map", "Channel Map", .bytes)
        case .hop: FieldDescriptor("btle.link_layer_data.hop", "Hop", .unsigned(bits: 8), bitmask: 0x1F)
        case .sca:
            FieldDescriptor(
                "btle.link_layer_data.sleep_clock_accuracy",
                "Sleep Clock Accuracy",
                .unsigned(bits: 8),
                names: LinkLayerNames.sleepClockAccuracy,
                bitmask: 0xE0
            )
        case .extHeader: FieldDescriptor("btle.extended_advertising_header", "Extended Advertising Header", .group)
        case .extLength:
            FieldDescriptor(
                "btle.extended_advertising_header.length",
                "Extended Header Length",
                .unsigned(bits: 8),
                bitmask: 0x3F
            )
        case .extMode:
            FieldDescriptor(
                "btle.extended_advertising_header.mode",
                "Advertising Mode",
                .unsigned(bits: 8),
                base: .hex,
                names: LinkLayerNames.advertisingModes,
                bitmask: 0xC0
            )
        case .extFlags:
            FieldDescriptor(
                "btle.extended_advertising_header.flags",
                "Extended Header Flags",
                .unsigned(bits: 8),
                base: .hex
            )
        case .flagAdvA:
            FieldDescriptor(
                "btle.extended_advertising_header.flags.advertiser_address",
                "AdvA",
                .boolean,
                bitmask: 0x01
            )
        case .flagTargetA:
            FieldDescriptor("btle.extended_advertising_header.flags.target_address", "TargetA", .boolean, bitmask: 0x02)
        case .flagCTEInfo:
            FieldDescriptor("btle.extended_advertising_header.flags.cte_info", "CTEInfo", .boolean, bitmask: 0x04)
        case .flagADI:
            FieldDescriptor(
                "btle.extended_advertising_header.advertiser_data_info",
                "AdvDataInfo",
                .boolean,
                bitmask: 0x08
            )
        case .flagAuxPtr:
            FieldDescriptor("btle.extended_advertising_header.flags.aux_pointer", "AuxPtr", .boolean, bitmask: 0x10)
        case .flagSyncInfo:
            FieldDescriptor("btle.extended_advertising_header.flags.sync_info", "SyncInfo", .boolean, bitmask: 0x20)
        case .flagTxPower:
            FieldDescriptor("btle.extended_advertising_header.flags.tx_power", "TxPower", .boolean, bitmask: 0x40)
        case .flagReserved:
            FieldDescriptor("btle.extended_advertising_header.flags.reserved", "Reserved", .boolean, bitmask: 0x80)
        case .cteInfo:
            FieldDescriptor("btle.extended_advertising_header.cte_info", "CTE Info", .unsigned(bits: 8), base: .hex)
        case .adi:
            FieldDescriptor(
                "btle.extended_advertising.advertising_data_info",
                "Advertising Data Info",
                .unsigned(bits: 16),
                base: .hex
            )
        case .did:
            FieldDescriptor(
                "btle.extended_advertising.advertising_data_info.did",
                "Advertising Data ID",
                .unsigned(bits: 16),
                base: .hex,
                bitmask: 0x0FFF
            )
        case .sid:
            FieldDescriptor(
                "btle.extended_advertising.advertising_data_info.sid",
                "Advertising Set ID",
                .unsigned(bits: 16),
                base: .hex,
                bitmask: 0xF000
            )
        case .auxPointer: FieldDescriptor("btle.extended_advertising.aux_pointer", "Aux Pointer", .group)
        case .auxChannel:
            FieldDescriptor(
                "btle.extended_advertising_header.aux_pointer.channel",
                "Channel",
                .unsigned(bits: 8),
                bitmask: 0x3F
            )
        case .auxClockAccuracy:
            FieldDescriptor(
                "btle.extended_advertising_header.aux_pointer.ca",
                "Clock accuracy 0 to 50 ppm",
                .boolean,
                bitmask: 0x40
            )
        case .auxOffsetUnits:
            FieldDescriptor(
                "btle.extended_advertising_header.aux_pointer.offset_units",
                "Offset units 300 µs",
                .boolean,
                bitmask: 0x80,
                help: "Clear: 30 µs"
            )
        case .auxOffset:
            FieldDescriptor(
                "btle.extended_advertising_header.aux_pointer.aux_offset",
                "Aux Offset",
                .unsigned(bits: 16),
                base: .hex,
                bitmask: 0x1FFF
            )
        case .auxPHY:
            FieldDescriptor(
                "btle.extended_advertising_header.aux_pointer.aux_phy",
                "Aux PHY",
                .unsigned(bits: 16),
                names: LinkLayerNames.phys,
                bitmask: 0xE000
            )
        case .syncInfo: FieldDescriptor("btle.extended_advertising.sync_info", "Sync Info", .group)
        case .syncOffset:
            FieldDescriptor(
                "btle.extended_advertising_header.sync_info.sync_offset",
                "Sync Packet Offset",
                .unsigned(bits: 16),
                base: .hex,
                bitmask: 0x1FFF
            )
        case .syncOffsetUnits:
            FieldDescriptor(
                "btle.extended_advertising_header.sync_info.offset_units",
                "Offset units 300 µs",
                .boolean,
                bitmask: 0x2000
            )
        case .syncOffsetAdjust:
            FieldDescriptor(
                "btle.extended_advertising_header.sync_info.offset_adjust",
                "Offset adjust",
                .boolean,
                bitmask: 0x4000
            )
        case .syncInterval:
            FieldDescriptor(
                "btle.extended_advertising_header.sync_info.interval",
                "Interval",
                .unsigned(bits: 16),
                base: .hex
            )
        case .syncChannelMap:
            FieldDescriptor("btle.extended_advertising_header.sync_info.channel_map", "Channel Map", .bytes)
        case .syncSCA:
            FieldDescriptor(
                "btle.extended_advertising_header.sync_info.sleep_clock_accuracy",
                "Sleep Clock Accuracy",
                .unsigned(bits: 8),
                names: LinkLayerNames.sleepClockAccuracy,
                bitmask: 0xE0
            )
        case .syncAccessAddress:
            FieldDescriptor(
                "btle.extended_advertising_header.sync_info.access_address",
                "Access Address",
                .unsigned(bits: 32),
                base: .hex
            )
        case .syncCRCInit:
            FieldDescriptor(
                "btle.extended_advertising_header.sync_info.crc_init",
                "CRC Init",
                .unsigned(bits: 24),
                base: .hex
            )
        case .syncEventCounter:
            FieldDescriptor(
                "btle.extended_advertising_header.sync_info.event_counter",
                "Event Counter",
                .unsigned(bits: 16)
            )
        case .txPower:
            FieldDescriptor("btle.extended_advertising_header.tx_power", "TX Power", .signed(bits: 8), unit: "dBm")
        case .acad: FieldDescriptor("btle.extended_advertising_header.acad", "Additional Controller Data", .bytes)
        case .advData: FieldDescriptor("btle.advertising_data", "Advertising Data", .bytes)
        case .dataHeader: FieldDescriptor("btle.data_header", "Data Header", .group)
        case .llid:
            FieldDescriptor(
                "btle.data_header.llid",
                "LLID",
                .unsigned(bits: 8),
                base: .hex,
                names: LinkLayerNames.llids,
                bitmask: 0x03
            )
        case .nesn:
            FieldDescriptor(
                "btle.data_header.next_expected_sequence_number",
                "Next Expected Sequence Number",
                .unsigned(bits: 8),
                bitmask: 0x04
            )
        case .sn:
            FieldDescriptor("btle.data_header.sequence_number", "Sequence Number", .unsigned(bits: 8), bitmask: 0x08)
        case .md: FieldDescriptor("btle.data_header.more_data", "More Data", .boolean, bitmask: 0x10)
        case .cp: FieldDescriptor("btle.data_header.cte_info_present", "CTE Info Present", .boolean, bitmask: 0x20)
        case .dataRFU: FieldDescriptor("btle.data_header.rfu", "RFU", .unsigned(bits: 8), bitmask: 0xC0)
        case .dataLength: FieldDescriptor("btle.data_header.length", "Length", .unsigned(bits: 8))
        case .dataCTEInfo: FieldDescriptor("btle.data_header.cte_info", "CTE Info", .unsigned(bits: 8), base: .hex)
        case .crc:
            FieldDescriptor(
                "btle.crc",
                "CRC",
                .unsigned(bits: 24),
                base: .hex,
                help: "As Wireshark shows it: each byte's bits reversed, first byte highest"
            )
        case .centralAddress:
            FieldDescriptor(
                "btle.master_bd_addr",
                "Central Address",
                .address,
                help: "From the connection's CONNECT_IND (Wireshark's name)"
            )
        case .peripheralAddress:
            FieldDescriptor(
                "btle.slave_bd_addr",
                "Peripheral Address",
                .address,
                help: "From the connection's CONNECT_IND (Wireshark's name)"
            )
        case .connectionParametersIn:
            FieldDescriptor("btle.connection_parameters_in", "Connection Parameters in frame", .unsigned(bits: 32))
        case .fragmentCount:
            FieldDescriptor("btle.l2cap.fragment.count", "L2CAP fragment count", .unsigned(bits: 32))
        case .reassembledLength:
            FieldDescriptor("btle.l2cap.reassembled.length", "Reassembled L2CAP length", .unsigned(bits: 32))
        case .connection:
            FieldDescriptor(
                "ll.connection",
                "Connection",
                .unsigned(bits: 16),
                help: "The connection's number in this capture, from 1, in the order they were seen"
            )
        case .channelIndex: FieldDescriptor("ll.channel", "Channel index", .unsigned(bits: 8))
        case .sender:
            FieldDescriptor("ll.sender", "Sender", .unsigned(bits: 8), names: LinkLayerNames.senders)
        case .senderInferred:
            FieldDescriptor(
                "ll.sender_inferred",
                "Sender inferred",
                .boolean,
                help:
                    "The sniffer did not say who sent the packet; it is inferred from timing within the connection event"
            )
        case .crcValid:
            FieldDescriptor(
                "ll.crc_valid",
                "CRC valid",
                .boolean,
                help: "From the sniffer, or computed when the CRC init is known"
            )
        case .encrypted:
            FieldDescriptor("ll.encrypted", "Encrypted", .boolean, help: "Sent encrypted and not decrypted here")
        case .encryptedData: FieldDescriptor("ll.encrypted_data", "Encrypted payload", .bytes)
        case .mic: FieldDescriptor("ll.mic", "MIC", .unsigned(bits: 32), base: .hex)
        case .retransmission:
            FieldDescriptor(
                "ll.retransmission",
                "Retransmission",
                .boolean,
                help: "Same sequence number and payload as the sender's previous packet: not passed up again"
            )
        case .pduName: FieldDescriptor("ll.pdu", "PDU", .string, help: "The PDU's name (AUX_ PDUs named by context)")
        }
    }
}
