public import BLEInspectCore

// Field sets of the HCI layers. Abbreviations are Wireshark's where Wireshark has the field
// (checked with `tshark -G fields`); the few of our own are marked "(bleinspect)" in their help.

/// Short names, to keep the tables below one line per field: `D(…, .bytes)`, Core's short forms
/// (`D.uint`, `D.int`, `D.flag`) and `D.own`.
typealias D = FieldDescriptor

extension FieldDescriptor {
    static let own = "(bleinspect) "
}

/// The H4 transport header: packet type and direction (the indicator byte is not in the frame's
/// bytes, so these fields have empty ranges).
public enum H4Field: UInt16, FieldSet {
    case type, direction

    public static let layer = FieldDescriptor("hci_h4", "Bluetooth HCI H4", .layer, short: "HCI_H4")

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .type: D.uint("hci_h4.type", "HCI Packet Type", 8, hex: true, names: HCIValueNames.h4Type)
        case .direction: D.uint("hci_h4.direction", "Direction", 8, hex: true, names: HCIValueNames.h4Direction)
        }
    }
}

/// HCI command packets.
public enum HCICommandField: UInt16, FieldSet {
    case opcode, ogf, ocf, paramLength
    case connectionHandle, reason, bdAddr, eventMask, eventMaskPage2, leEventMask, deviceName, scanEnable
    case leSupportedHost, leSimultaneousHost, maxDataLengthACL, maxDataLengthSCO, maxDataNumACL, maxDataNumSCO
    case numHandles, numCompletedPackets, secureConnectionHostSupport, simplePairingMode, packetType
    case pageScanRepetitionMode, clockOffset, allowRoleSwitch, role, linkKey, encryptionEnable, pageNumber
    case ioCapability, oobDataPresent, authRequirements, txPowerLevelType, passkey
    case leAdvtsIntervalMin, leAdvtsIntervalMax, leAdvtsType, leOwnAddressType, lePeerAddressType, leAddressType
    case lePeerIdentityAddressType, leDirectAddressType, leAdvtsChannelMap, leAdvtsChMap1, leAdvtsChMap2
    case leAdvtsChMap3, leAdvtsFilterPolicy, leDataLength, unusedData, leAdvtsEnable
    case leScanType, leScanInterval, leScanWindow, leScanFilterPolicy, leScanEnable, leFilterDuplicates
    case leInitiatorFilterPolicy, leConIntervalMin, leConIntervalMax, leConLatency, leSupvTimeout
    case leMinCELength, leMaxCELength, leChannelMap, leKey, lePlaintext, leRandomNumber, leEncryptedDiversifier
    case leLongTermKey, leTxOctets, leTxTime, leSuggestedMaxTxOctets, leSuggestedMaxTxTime
    case leRemoteP256PublicKey, keyType, lePeerIRK, leLocalIRK, leAddressResolutionEnable, leRPATimeout
    case allPhys, allPhysTx, allPhysRx, txPhys, rxPhys, phyOptions
    case advertisingHandle, advertisingProperties, advPropConnectable, advPropScannable, advPropDirected
    case advPropHighDutyCycle, advPropLegacy, advPropAnonymous, advPropTxPower
    case powerLevel, primaryAdvertisingPHY, secondaryAdvertisingMaxSkip, secondaryAdvertisingPHY, advertisingSID
    case scanRequestNotificationEnable, primaryAdvPHYOptions, secondaryAdvPHYOptions
    case advDataOperation, advFragmentPreference, advNumSets, advSet, advDuration, maxExtendedAdvertisingEvents
    case periodicAdvIntervalMin, periodicAdvIntervalMax, periodicAdvProperties
    case leScanPhys, leScanPhys1M, leScanPhysCoded, leScanPhyParam, scanDuration, scanPeriod
    case leInitPhys, leInitPhys1M, leInitPhys2M, leInitPhysCoded, leInitPhyParam, subevent
    case syncOptions, skip, syncTimeout, syncCTEType, syncHandle, lePrivacyMode, reportingEnable
    case featureBitNumber, featureBitValue, rfTxPathCompensation, rfRxPathCompensation
    case linkPolicySettings, sniffMaxInterval, sniffMinInterval, sniffAttempt, timeout, maxLatency
    case minRemoteTimeout, minLocalTimeout, flushPacketType, deleteAllFlag, acceptRole, fecRequired

    public static let layer = FieldDescriptor("bthci_cmd", "Bluetooth HCI Command", .layer, short: "HCI_CMD")

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        let n = HCIValueNames.self
        switch self {
        case .opcode: return D.uint("bthci_cmd.opcode", "Command Opcode", 16, hex: true, names: HCIValueNames.opcode)
        case .ogf: return D.uint("bthci_cmd.opcode.ogf", "Opcode Group Field", 16, hex: true, names: HCIValueNames.ogf, mask: 0xFC00)
        case .ocf: return D.uint("bthci_cmd.opcode.ocf", "Opcode Command Field", 16, hex: true, mask: 0x03FF)
        case .paramLength: return D.uint("bthci_cmd.param_length", "Parameter Total Length", 8)
        case .connectionHandle: return D.uint("bthci_cmd.connection_handle", "Connection Handle", 16, hex: true, mask: 0x0FFF)
        case .reason: return D.uint("bthci_cmd.reason", "Reason", 8, hex: true, names: HCIValueNames.errors)
        case .bdAddr: return D("bthci_cmd.bd_addr", "BD_ADDR", .address)
        case .eventMask: return D.uint("bthci_cmd.event_mask", "Event Mask", 64, hex: true, help: D.own + "Set Event Mask bits")
        case .eventMaskPage2: return D.uint("bthci_cmd.event_mask_page_2", "Event Mask Page 2", 64, hex: true, help: D.own)
        case .leEventMask: return D.uint("bthci_cmd.le_event_mask", "LE Event Mask", 64, hex: true)
        case .deviceName: return D("bthci_cmd.device_name", "Device Name", .string)
        case .scanEnable: return D.uint("bthci_cmd.scan_enable", "Scan Enable", 8, hex: true, names: n.scanEnable)
        case .leSupportedHost: return D.uint("bthci_cmd.le_supported_host", "LE Supported Host", 8, hex: true)
        case .leSimultaneousHost: return D.uint("bthci_cmd.le_simultaneous_host", "Simultaneous LE Host", 8, hex: true)
        case .maxDataLengthACL: return D.uint("bthci_cmd.max_data_length_acl", "Host ACL Data Packet Length", 16)
        case .maxDataLengthSCO: return D.uint("bthci_cmd.max_data_length_sco", "Host SCO Data Packet Length", 8)
        case .maxDataNumACL: return D.uint("bthci_cmd.max_data_num_acl", "Host Total Num ACL Data Packets", 16)
        case .maxDataNumSCO: return D.uint("bthci_cmd.max_data_num_sco", "Host Total Num SCO Data Packets", 16)
        case .numHandles: return D.uint("bthci_cmd.num_handles", "Number of Connection Handles", 8)
        case .numCompletedPackets: return D.uint("bthci_cmd.num_compl_packets", "Number of Completed Packets", 16)
        case .secureConnectionHostSupport: return D.uint("bthci_cmd.secure_connection_host_support", "Secure Connections Host Support", 8, hex: true, names: n.enable)
        case .simplePairingMode: return D.uint("bthci_cmd.simple_pairing_mode", "Simple Pairing Mode", 8, names: n.enable)
        case .packetType: return D.uint("bthci_cmd.packet_type", "Packet Type", 16, hex: true)
        case .pageScanRepetitionMode: return D.uint("bthci_cmd.page_scan_repetition_mode", "Page Scan Repetition Mode", 8, hex: true)
        case .clockOffset: return D.uint("bthci_cmd.clock_offset", "Clock Offset", 16, hex: true)
        case .allowRoleSwitch: return D.uint("bthci_cmd.allow_role_switch", "Allow Role Switch", 8, hex: true)
        case .role: return D.uint("bthci_cmd.role", "Role", 8, hex: true, names: n.role)
        case .linkKey: return D("bthci_cmd.link_key", "Link Key", .bytes)
        case .encryptionEnable: return D.uint("bthci_cmd.encryption_enable", "Encryption Enable", 8, hex: true, names: n.enable)
        case .pageNumber: return D.uint("bthci_cmd.page_number", "Page Number", 8)
        case .ioCapability: return D.uint("bthci_cmd.io_capability", "IO Capability", 8, names: n.ioCapability)
        case .oobDataPresent: return D.uint("bthci_cmd.oob_data_present", "OOB Data Present", 8)
        case .authRequirements: return D.uint("bthci_cmd.auth_requirements", "Authentication Requirements", 8, hex: true)
        case .txPowerLevelType: return D.uint("bthci_cmd.tx_power_level_type", "Tx Power Level Type", 8, hex: true, names: ValueNames([(0, "Current"), (1, "Maximum")]))
        case .passkey: return D.uint("bthci_cmd.passkey", "Passkey", 32)
        case .leAdvtsIntervalMin: return D.uint("bthci_cmd.le_advts_interval_min", "Advertising Interval Min", 24, help: "Units of 0.625 ms")
        case .leAdvtsIntervalMax: return D.uint("bthci_cmd.le_advts_interval_max", "Advertising Interval Max", 24, help: "Units of 0.625 ms")
        case .leAdvtsType: return D.uint("bthci_cmd.le_advts_type", "Advertising Type", 8, hex: true, names: n.advertisingType)
        case .leOwnAddressType: return D.uint("bthci_cmd.le_own_address_type", "Own Address Type", 8, hex: true, names: n.ownAddressType)
        case .lePeerAddressType: return D.uint("bthci_cmd.le_peer_address_type", "Peer Address Type", 8, hex: true, names: n.addressType)
        case .leAddressType: return D.uint("bthci_cmd.le_address_type", "Address Type", 8, hex: true, names: n.addressType)
        case .lePeerIdentityAddressType: return D.uint("bthci_cmd.le_peer_identity_address_type", "Peer Identity Address Type", 8, hex: true, names: n.identityAddressType)
        case .leDirectAddressType: return D.uint("bthci_cmd.le_direct_address_type", "Direct Address Type", 8, hex: true, names: n.addressType)
        case .leAdvtsChannelMap: return D.uint("bthci_cmd.le_advts_channel_map", "Advertising Channel Map", 8, hex: true, help: D.own)
        case .leAdvtsChMap1: return D.flag("bthci_cmd.le_advts_ch_map_1", "Channel 37", 0x01)
        case .leAdvtsChMap2: return D.flag("bthci_cmd.le_advts_ch_map_2", "Channel 38", 0x02)
        case .leAdvtsChMap3: return D.flag("bthci_cmd.le_advts_ch_map_3", "Channel 39", 0x04)
        case .leAdvtsFilterPolicy: return D.uint("bthci_cmd.le_advts_filter_policy", "Advertising Filter Policy", 8, hex: true, names: n.advertisingFilterPolicy)
        case .leDataLength: return D.uint("bthci_cmd.le_data_length", "Data Length", 8)
        case .unusedData: return D("bthci_cmd.unused_data", "Unused Data", .bytes, help: D.own + "Padding after the significant part")
        case .leAdvtsEnable: return D.uint("bthci_cmd.le_advts_enable", "Advertising Enable", 8, hex: true, names: n.enable)
        case .leScanType: return D.uint("bthci_cmd.le_scan_type", "Scan Type", 8, hex: true, names: n.scanType)
        case .leScanInterval: return D.uint("bthci_cmd.le_scan_interval", "Scan Interval", 16, help: "Units of 0.625 ms")
        case .leScanWindow: return D.uint("bthci_cmd.le_scan_window", "Scan Window", 16, help: "Units of 0.625 ms")
        case .leScanFilterPolicy: return D.uint("bthci_cmd.le_scan_filter_policy", "Scan Filter Policy", 8, hex: true, names: n.scanFilterPolicy)
        case .leScanEnable: return D.uint("bthci_cmd.le_scan_enable", "Scan Enable", 8, hex: true, names: n.enable)
        case .leFilterDuplicates: return D.uint("bthci_cmd.le_filter_duplicates", "Filter Duplicates", 8, hex: true, names: n.filterDuplicates)
        case .leInitiatorFilterPolicy: return D.uint("bthci_cmd.le_initiator_filter_policy", "Initiator Filter Policy", 8, hex: true, names: n.initiatorFilterPolicy)
        case .leConIntervalMin: return D.uint("bthci_cmd.le_con_interval_min", "Connection Interval Min", 16, help: "Units of 1.25 ms")
        case .leConIntervalMax: return D.uint("bthci_cmd.le_con_interval_max", "Connection Interval Max", 16, help: "Units of 1.25 ms")
        case .leConLatency: return D.uint("bthci_cmd.le_con_latency", "Max Connection Latency", 16, help: "Connection events")
        case .leSupvTimeout: return D.uint("bthci_cmd.le_supv_timeout", "Supervision Timeout", 16, help: "Units of 10 ms")
        case .leMinCELength: return D.uint("bthci_cmd.le_min_ce_length", "Min CE Length", 16, help: "Units of 0.625 ms")
        case .leMaxCELength: return D.uint("bthci_cmd.le_max_ce_length", "Max CE Length", 16, help: "Units of 0.625 ms")
        case .leChannelMap: return D("bthci_cmd.le_channel_map", "Channel Map", .bytes)
        case .leKey: return D("bthci_cmd.le_key", "Key", .bytes)
        case .lePlaintext: return D("bthci_cmd.le_plaintext", "Plaintext", .bytes)
        case .leRandomNumber: return D("bthci_cmd.le_random_number", "Random Number", .bytes)
        case .leEncryptedDiversifier: return D.uint("bthci_cmd.le_encrypted_diversifier", "Encrypted Diversifier", 16, hex: true)
        case .leLongTermKey: return D("bthci_cmd.le_long_term_key", "Long Term Key", .bytes)
        case .leTxOctets: return D.uint("bthci_cmd.le_tx_octets", "TxOctets", 16)
        case .leTxTime: return D.uint("bthci_cmd.le_tx_time", "TxTime", 16, help: "Microseconds")
        case .leSuggestedMaxTxOctets: return D.uint("bthci_cmd.le_suggested_max_tx_octets", "Suggested Max TX Octets", 16)
        case .leSuggestedMaxTxTime: return D.uint("bthci_cmd.le_suggested_max_tx_time", "Suggested Max TX Time", 16, help: "Microseconds")
        case .leRemoteP256PublicKey: return D("bthci_cmd.le_remote_p_256_public_key", "Remote P-256 Public Key", .bytes)
        case .keyType: return D.uint("bthci_cmd.key_type", "Key Type", 8, hex: true, names: ValueNames([(0, "Generated private key"), (1, "Debug private key")]))
        case .lePeerIRK: return D("bthci_cmd.le_peer_irk", "Peer IRK", .bytes)
        case .leLocalIRK: return D("bthci_cmd.le_local_irk", "Local IRK", .bytes)
        case .leAddressResolutionEnable: return D.uint("bthci_cmd.le_address_resolution_enable", "Address Resolution Enable", 8, hex: true, names: n.enable)
        case .leRPATimeout: return D.uint("bthci_cmd.le_rpa_timeout", "RPA Timeout", 16, help: "Seconds")
        case .allPhys: return D.uint("bthci_cmd.all_phys", "All PHYs", 8, hex: true)
        case .allPhysTx: return D.flag("bthci_cmd.all_phys.tx_preference", "The Host has no Tx PHY preference", 0x01)
        case .allPhysRx: return D.flag("bthci_cmd.all_phys.rx_preference", "The Host has no Rx PHY preference", 0x02)
        case .txPhys: return D.uint("bthci_cmd.tx_phys", "Tx PHYs", 8, hex: true, help: "Bit 0 LE 1M, bit 1 LE 2M, bit 2 LE Coded")
        case .rxPhys: return D.uint("bthci_cmd.rx_phys", "Rx PHYs", 8, hex: true, help: "Bit 0 LE 1M, bit 1 LE 2M, bit 2 LE Coded")
        case .phyOptions: return D.uint("bthci_cmd.phy_options", "PHY Options", 16, hex: true, names: n.phyOptions)
        case .advertisingHandle: return D.uint("bthci_cmd.advertising_handle", "Advertising Handle", 8, hex: true)
        case .advertisingProperties: return D.uint("bthci_cmd.advertising_properties", "Advertising Event Properties", 16, hex: true)
        case .advPropConnectable: return D.flag("bthci_cmd.adv_properties.connectable", "Connectable", 0x0001)
        case .advPropScannable: return D.flag("bthci_cmd.adv_properties.scannable", "Scannable", 0x0002)
        case .advPropDirected: return D.flag("bthci_cmd.adv_properties.directed", "Directed", 0x0004)
        case .advPropHighDutyCycle: return D.flag("bthci_cmd.adv_properties.hdc_connectable_directed", "High Duty Cycle Connectable Directed", 0x0008)
        case .advPropLegacy: return D.flag("bthci_cmd.adv_properties.legacy_adv", "Use Legacy PDUs", 0x0010)
        case .advPropAnonymous: return D.flag("bthci_cmd.adv_properties.anonymous_adv", "Anonymous Advertising", 0x0020)
        case .advPropTxPower: return D.flag("bthci_cmd.adv_properties.txpower", "Include Tx Power", 0x0040)
        case .powerLevel: return D.int("bthci_cmd.power_level", "Advertising Tx Power (dBm)", 8, help: "127: no preference")
        case .primaryAdvertisingPHY: return D.uint("bthci_cmd.primary_advertising_phy", "Primary Advertising PHY", 8, hex: true, names: n.advertisingPHY)
        case .secondaryAdvertisingMaxSkip: return D.uint("bthci_cmd.secondary_advertising_max_skip", "Secondary Advertising Max Skip", 8)
        case .secondaryAdvertisingPHY: return D.uint("bthci_cmd.secondary_advertising_phy", "Secondary Advertising PHY", 8, hex: true, names: n.advertisingPHY)
        case .advertisingSID: return D.uint("bthci_cmd.advertising_sid", "Advertising SID", 8, hex: true)
        case .scanRequestNotificationEnable: return D.uint("bthci_cmd.scan_request_notification_enable", "Scan Request Notification Enable", 8, hex: true, names: n.enable)
        case .primaryAdvPHYOptions: return D.uint("bthci_cmd.primary_adv_phy_options", "Primary Advertising PHY Options", 8, hex: true, names: n.phyOptions, help: D.own)
        case .secondaryAdvPHYOptions: return D.uint("bthci_cmd.secondary_adv_phy_options", "Secondary Advertising PHY Options", 8, hex: true, names: n.phyOptions, help: D.own)
        case .advDataOperation: return D.uint("bthci_cmd.adv_data_operation", "Data Operation", 8, hex: true, names: n.dataOperation)
        case .advFragmentPreference: return D.uint("bthci_cmd.adv_fragment_preference", "Fragment Preference", 8, hex: true, names: n.fragmentPreference)
        case .advNumSets: return D.uint("bthci_cmd.adv_num_sets", "Number of Sets", 8)
        case .advSet: return D("bthci_cmd.le_adv_set", "Advertising Set", .group)
        case .advDuration: return D.uint("bthci_cmd.adv_duration", "Duration", 16, help: "Units of 10 ms; 0: no limit")
        case .maxExtendedAdvertisingEvents: return D.uint("bthci_cmd.max_extended_advertising_events", "Max Extended Advertising Events", 8)
        case .periodicAdvIntervalMin: return D.uint("bthci_cmd.periodic_adv_interval_min", "Periodic Advertising Interval Min", 16, help: D.own + "Units of 1.25 ms")
        case .periodicAdvIntervalMax: return D.uint("bthci_cmd.periodic_adv_interval_max", "Periodic Advertising Interval Max", 16, help: D.own + "Units of 1.25 ms")
        case .periodicAdvProperties: return D.uint("bthci_cmd.periodic_adv_properties", "Periodic Advertising Properties", 16, hex: true)
        case .leScanPhys: return D.uint("bthci_cmd.le_scan_phys", "Scanning PHYs", 8, hex: true)
        case .leScanPhys1M: return D.flag("bthci_cmd.le_scan_phys.le_1m", "LE 1M", 0x01)
        case .leScanPhysCoded: return D.flag("bthci_cmd.le_scan_phys.le_coded", "LE Coded", 0x04)
        case .leScanPhyParam: return D("bthci_cmd.le_scan_phy_param", "Scanning PHY", .group)
        case .scanDuration: return D.uint("bthci_cmd.scan_duration", "Duration", 16, help: "Units of 10 ms; 0: scan until disabled")
        case .scanPeriod: return D.uint("bthci_cmd.scan_period", "Period", 16, help: "Units of 1.28 s; 0: scan continuously")
        case .leInitPhys: return D.uint("bthci_cmd.le_init_phys", "Initiating PHYs", 8, hex: true)
        case .leInitPhys1M: return D.flag("bthci_cmd.le_phys.le_1m", "LE 1M", 0x01)
        case .leInitPhys2M: return D.flag("bthci_cmd.le_phys.le_2m", "LE 2M", 0x02)
        case .leInitPhysCoded: return D.flag("bthci_cmd.le_phys.le_coded", "LE Coded", 0x04)
        case .leInitPhyParam: return D("bthci_cmd.le_init_phy_param", "Initiating PHY", .group)
        case .subevent: return D.uint("bthci_cmd.subevent", "Subevent", 8, help: D.own + "Periodic advertising subevent")
        case .syncOptions: return D.uint("bthci_cmd.sync_options", "Options", 8, hex: true, help: D.own + "Periodic Advertising Create Sync options")
        case .skip: return D.uint("bthci_cmd.skip", "Skip", 16)
        case .syncTimeout: return D.uint("bthci_cmd.sync_timeout", "Sync Timeout", 16, help: "Units of 10 ms")
        case .syncCTEType: return D.uint("bthci_cmd.sync_cte_type", "Sync CTE Type", 8, hex: true)
        case .syncHandle: return D.uint("bthci_cmd.sync_handle", "Sync Handle", 16, hex: true)
        case .lePrivacyMode: return D.uint("bthci_cmd.le_privacy_mode", "Privacy Mode", 8, hex: true, names: n.privacyMode)
        case .reportingEnable: return D.uint("bthci_cmd.reporting_enable", "Reporting Enable", 8, hex: true)
        case .featureBitNumber: return D.uint("bthci_cmd.feature_bit_number", "Feature Bit Number", 8)
        case .featureBitValue: return D.uint("bthci_cmd.feature_bit_value", "Feature Bit Value", 8, hex: true)
        case .rfTxPathCompensation: return D.int("bthci_cmd.rf_tx_path_compensation_value", "RF Tx Path Compensation Value", 16, help: "Units of 0.1 dB")
        case .rfRxPathCompensation: return D.int("bthci_cmd.rf_rx_path_compensation_value", "RF Rx Path Compensation Value", 16, help: "Units of 0.1 dB")
        case .linkPolicySettings: return D.uint("bthci_cmd.link_policy_settings", "Link Policy Settings", 16, hex: true, help: D.own + "Bit 0 role switch, bit 1 hold, bit 2 sniff")
        case .sniffMaxInterval: return D.uint("bthci_cmd.sniff_max_int", "Sniff Max Interval", 16, help: "Baseband slots")
        case .sniffMinInterval: return D.uint("bthci_cmd.sniff_min_int", "Sniff Min Interval", 16, help: "Baseband slots")
        case .sniffAttempt: return D.uint("bthci_cmd.sniff_attempt", "Sniff Attempt", 16)
        case .timeout: return D.uint("bthci_cmd.timeout", "Timeout", 16)
        case .maxLatency: return D.uint("bthci_cmd.max_latency", "Max. Latency", 16, help: "Baseband slots")
        case .minRemoteTimeout: return D.uint("bthci_cmd.min_remote_timeout", "Min. Remote Timeout", 16)
        case .minLocalTimeout: return D.uint("bthci_cmd.min_local_timeout", "Min. Local Timeout", 16)
        case .fecRequired: return D.uint("bthci_cmd.fec_required", "FEC Required", 8, hex: true)
        case .acceptRole: return D.uint("bthci_cmd.acr.role", "Role", 8, hex: true, names: ValueNames([(0, "Become the Central (role switch)"), (1, "Remain the Peripheral")]))
        case .deleteAllFlag: return D.uint("bthci_cmd.delete_all_flag", "Delete All Flag", 8, hex: true, names: ValueNames([(0, "Only the given BD_ADDR"), (1, "All")]))
        case .flushPacketType: return D.uint("bthci_cmd.flush_packet_type", "Packet Type", 8, names: ValueNames([(0, "Automatically flushable only")]))
        }
    }
}

/// HCI event packets.
public enum HCIEventField: UInt16, FieldSet {
    case code, paramLength, leMetaSubevent, numCommandPackets, opcode, ogf, ocf, status
    case connectionHandle, reason, bdAddr, rssi, linkType, encryptionEnable, encryptionMode, encKeySize
    case numHandles, numCompletedPackets, hciVersion, hciRevision, lmpVersion, compID, lmpSubversion
    case localSupportedCommands, lmpFeatures, pageNumber, maxPageNumber
    case maxDataLengthACL, maxDataLengthSCO, maxDataNumACL, maxDataNumSCO
    case deviceName, remoteName, transmitPowerLevel, leSupportedHost, leSimultaneousHost
    case leACLDataPktLen, leTotalNumACLDataPkts, isoDataPktLen, totalNumISODataPkts
    case leFeatures, leWhiteListSize, leChannelMap, leEncryptedData, leRandomNumber, leStates
    case suggestedMaxTxOctets, suggestedMaxTxTime, resolvingListSize, lePeerRPA, leLocalRPA
    case maxTxOctets, maxTxTime, maxRxOctets, maxRxTime, leTxPhy, leRxPhy, txPower
    case maxAdvDataLength, numSupportedAdvSets, lePeriodicAdvListSize, minTxPower, maxTxPower
    case rfTxPathCompensation, rfRxPathCompensation, authenticatedPayloadTimeout
    case hardwareCode, role, currentMode, interval, linkKey, keyType, maxSlots
    case ioCapability, oobDataPresent, authRequirements, numericValue, passkey, linkSupervisionTimeout
    case classOfDevice
    case leNumReports, report, leAdvtsEventType, lePeerAddressType, dataLength
    case leExtAdvtsEventType, extConnectable, extScannable, extDirected, extScanResponse, extLegacy, extDataStatus
    case primaryPHY, secondaryPHY, advertisingSID, periodicAdvertisingInterval, leDirectAddressType, directBDAddr
    case leConInterval, leConLatency, leSupvTimeout, leMasterClockAccuracy, leMinInterval, leMaxInterval
    case leEncryptedDiversifier, leLocalP256PublicKey, dhkey
    case syncHandle, advPHY, advClockAccuracy, cteType, dataStatus, advHandle, numComplExtAdvEvents
    case channelSelectionAlgorithm, periodicEventCounter, subevent, numSubevents, subeventInterval
    case responseSlotDelay, responseSlotSpacing
    case cigSyncDelay, cisSyncDelay, transportLatencyMtoS, transportLatencyStoM, phyMtoS, phyStoM, nse
    case bnMtoS, bnStoM, ftMtoS, ftStoM, maxPDUMtoS, maxPDUStoM, isoInterval, cisHandle, cigID, cisID
    case subrateFactor, continuationNumber, packetType, clockOffset, flushTimeout, linkPolicySettings
    case suggestedMaxRxOctets, suggestedMaxRxTime, pageScanRepetitionMode, fecRequired, numResponses
    case syncLinkType, syncTxInterval, syncRtxWindow, syncRxPacketLength, syncTxPacketLength, airMode
    case notificationType

    public static let layer = FieldDescriptor("bthci_evt", "Bluetooth HCI Event", .layer, short: "HCI_EVT")

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        let n = HCIValueNames.self
        switch self {
        case .code: return D.uint("bthci_evt.code", "Event Code", 8, hex: true, names: HCIValueNames.eventCode)
        case .paramLength: return D.uint("bthci_evt.param_length", "Parameter Total Length", 8)
        case .leMetaSubevent: return D.uint("bthci_evt.le_meta_subevent", "Sub Event", 8, hex: true, names: HCIValueNames.subevent)
        case .numCommandPackets: return D.uint("bthci_evt.num_command_packets", "Number of Allowed Command Packets", 8)
        case .opcode: return D.uint("bthci_evt.opcode", "Command Opcode", 16, hex: true, names: HCIValueNames.opcode)
        case .ogf: return D.uint("bthci_evt.opcode.ogf", "Opcode Group Field", 16, hex: true, names: HCIValueNames.ogf, mask: 0xFC00)
        case .ocf: return D.uint("bthci_evt.opcode.ocf", "Opcode Command Field", 16, hex: true, mask: 0x03FF)
        case .status: return D.uint("bthci_evt.status", "Status", 8, hex: true, names: HCIValueNames.errors)
        case .connectionHandle: return D.uint("bthci_evt.connection_handle", "Connection Handle", 16, hex: true, mask: 0x0FFF)
        case .reason: return D.uint("bthci_evt.reason", "Reason", 8, hex: true, names: HCIValueNames.errors)
        case .bdAddr: return D("bthci_evt.bd_addr", "BD_ADDR", .address)
        case .rssi: return D.int("bthci_evt.rssi", "RSSI (dBm)", 8, help: "127: not available")
        case .linkType: return D.uint("bthci_evt.link_type", "Link Type", 8, hex: true, names: n.linkType)
        case .encryptionEnable: return D.uint("bthci_evt.encryption_enable", "Encryption Enable", 8, hex: true, names: n.encryptionEnabled)
        case .encryptionMode: return D.uint("bthci_evt.encryption_mode", "Encryption Mode", 8, hex: true, names: n.enable)
        case .encKeySize: return D.uint("bthci_evt.enc_key_size", "Encryption Key Size", 8)
        case .numHandles: return D.uint("bthci_evt.num_handles", "Number of Connection Handles", 8)
        case .numCompletedPackets: return D.uint("bthci_evt.num_compl_packets", "Number of Completed Packets", 16)
        case .hciVersion: return D.uint("bthci_evt.hci_vers_nr", "HCI Version", 8, hex: true, names: n.coreVersion)
        case .hciRevision: return D.uint("bthci_evt.hci_revision", "HCI Revision", 16, hex: true, help: D.own)
        case .lmpVersion: return D.uint("bthci_evt.lmp_vers_nr", "LMP Version", 8, hex: true, names: n.coreVersion)
        case .compID: return D.uint("bthci_evt.comp_id", "Manufacturer Name", 16, hex: true)
        case .lmpSubversion: return D.uint("bthci_evt.lmp_sub_vers_nr", "LMP Subversion", 16)
        case .localSupportedCommands: return D("bthci_evt.local_supported_cmds", "Local Supported Commands", .bytes)
        case .lmpFeatures: return D("bthci_evt.lmp_features", "LMP Features", .bytes)
        case .pageNumber: return D.uint("bthci_evt.page_number", "Page Number", 8)
        case .maxPageNumber: return D.uint("bthci_evt.max_page_number", "Max. Page Number", 8)
        case .maxDataLengthACL: return D.uint("bthci_evt.max_data_length_acl", "ACL Data Packet Length", 16)
        case .maxDataLengthSCO: return D.uint("bthci_evt.max_data_length_sco", "Synchronous Data Packet Length", 8)
        case .maxDataNumACL: return D.uint("bthci_evt.max_data_num_acl", "Total Num ACL Data Packets", 16)
        case .maxDataNumSCO: return D.uint("bthci_evt.max_data_num_sco", "Total Num Synchronous Data Packets", 16)
        case .deviceName: return D("bthci_evt.device_name", "Device Name", .string)
        case .remoteName: return D("bthci_evt.remote_name", "Remote Name", .string)
        case .transmitPowerLevel: return D.int("bthci_evt.transmit_power_level", "Transmit Power Level (dBm)", 8)
        case .leSupportedHost: return D.uint("bthci_evt.le_supported_host", "LE Supported Host", 8, hex: true)
        case .leSimultaneousHost: return D.uint("bthci_evt.le_simultaneous_host", "Simultaneous LE Host", 8, hex: true)
        case .leACLDataPktLen: return D.uint("bthci_evt.le_acl_data_pkt_len", "LE ACL Data Packet Length", 16)
        case .leTotalNumACLDataPkts: return D.uint("bthci_evt.le_total_num_acl_data_pkts", "Total Number LE ACL Data Packets", 8)
        case .isoDataPktLen: return D.uint("bthci_evt.iso_data_pkt_len", "ISO Data Packet Length", 16)
        case .totalNumISODataPkts: return D.uint("bthci_evt.total_num_iso_data_pkts", "Total Number ISO Data Packets", 8)
        case .leFeatures: return D.uint("bthci_evt.le_features", "Supported LE Features", 64, hex: true)
        case .leWhiteListSize: return D.uint("bthci_evt.le_white_list_size", "Filter Accept List Size", 8)
        case .leChannelMap: return D("bthci_evt.le_channel_map", "Channel Map", .bytes)
        case .leEncryptedData: return D("bthci_evt.le_encrypted_data", "Encrypted Data", .bytes)
        case .leRandomNumber: return D("bthci_evt.le_random_number", "Random Number", .bytes)
        case .leStates: return D.uint("bthci_evt.le_states", "Supported LE States", 64, hex: true)
        case .suggestedMaxTxOctets: return D.uint("bthci_evt.suggested_max_tx_octets", "Suggested Max TX Octets", 16)
        case .suggestedMaxTxTime: return D.uint("bthci_evt.suggested_max_tx_time", "Suggested Max TX Time", 16, help: "Microseconds")
        case .resolvingListSize: return D.uint("bthci_evt.resolving_list_size", "Resolving List Size", 8)
        case .lePeerRPA: return D("bthci_evt.le_peer_rpa", "Peer Resolvable Private Address", .address)
        case .leLocalRPA: return D("bthci_evt.le_local_rpa", "Local Resolvable Private Address", .address)
        case .maxTxOctets: return D.uint("bthci_evt.max_tx_octets", "Max TX Octets", 16)
        case .maxTxTime: return D.uint("bthci_evt.max_tx_time", "Max TX Time", 16, help: "Microseconds")
        case .maxRxOctets: return D.uint("bthci_evt.max_rx_octets", "Max RX Octets", 16)
        case .maxRxTime: return D.uint("bthci_evt.max_rx_time", "Max RX Time", 16, help: "Microseconds")
        case .leTxPhy: return D.uint("bthci_evt.le_tx_phy", "Tx PHY", 8, hex: true, names: n.phy)
        case .leRxPhy: return D.uint("bthci_evt.le_rx_phy", "Rx PHY", 8, hex: true, names: n.phy)
        case .txPower: return D.int("bthci_evt.tx_power", "TX Power (dBm)", 8, help: "127: not available")
        case .maxAdvDataLength: return D.uint("bthci_evt.max_adv_data_length", "Maximum Advertising Data Length", 16)
        case .numSupportedAdvSets: return D.uint("bthci_evt.num_supported_adv_sets", "Number of Supported Advertising Sets", 8)
        case .lePeriodicAdvListSize: return D.uint("bthci_evt.le_periodic_adv_list_size", "Periodic Advertiser List Size", 8)
        case .minTxPower: return D.int("bthci_evt.min_tx_power", "Minimum TX Power (dBm)", 8)
        case .maxTxPower: return D.int("bthci_evt.max_tx_power", "Maximum TX Power (dBm)", 8)
        case .rfTxPathCompensation: return D.int("bthci_evt.rf_tx_path_compensation_value", "RF Tx Path Compensation Value", 16, help: "Units of 0.1 dB")
        case .rfRxPathCompensation: return D.int("bthci_evt.rf_rx_path_compensation_value", "RF Rx Path Compensation Value", 16, help: "Units of 0.1 dB")
        case .authenticatedPayloadTimeout: return D.uint("bthci_evt.authenticated_payload_timeout", "Authenticated Payload Timeout", 16, help: "Units of 10 ms")
        case .hardwareCode: return D.uint("bthci_evt.hardware_code", "Hardware Code", 8, hex: true)
        case .role: return D.uint("bthci_evt.role", "Role", 8, hex: true, names: n.role)
        case .currentMode: return D.uint("bthci_evt.current_mode", "Current Mode", 8, hex: true, names: n.currentMode)
        case .interval: return D.uint("bthci_evt.interval", "Interval", 16, help: "Baseband slots")
        case .linkKey: return D("bthci_evt.link_key", "Link Key", .bytes)
        case .keyType: return D.uint("bthci_evt.key_type", "Key Type", 8, hex: true, names: n.keyType)
        case .maxSlots: return D.uint("bthci_evt.max_slots", "Maximum Number of Slots", 8)
        case .ioCapability: return D.uint("bthci_evt.io_capability", "IO Capability", 8, hex: true, names: n.ioCapability)
        case .oobDataPresent: return D.uint("bthci_evt.oob_data_present", "OOB Data Present", 8)
        case .authRequirements: return D.uint("bthci_evt.auth_requirements", "Authentication Requirements", 8, hex: true)
        case .numericValue: return D.uint("bthci_evt.numeric_value", "Numeric Value", 32)
        case .passkey: return D.uint("bthci_evt.passkey", "Passkey", 32)
        case .linkSupervisionTimeout: return D.uint("bthci_evt.link_supervision_timeout", "Link Supervision Timeout", 16, help: "Baseband slots")
        case .classOfDevice: return D.uint("bthci_evt.class_of_device", "Class of Device", 24, hex: true, help: D.own)
        case .leNumReports: return D.uint("bthci_evt.le_num_reports", "Num Reports", 8)
        case .report: return D("bthci_evt.report", "Report", .group)
        case .leAdvtsEventType: return D.uint("bthci_evt.le_advts_event_type", "Event Type", 8, hex: true, names: n.advertisingReportType)
        case .lePeerAddressType: return D.uint("bthci_evt.le_peer_address_type", "Peer Address Type", 8, hex: true, names: n.addressType)
        case .dataLength: return D.uint("bthci_evt.data_length", "Data Length", 8)
        case .leExtAdvtsEventType: return D.uint("bthci_evt.le_ext_advts_event_type", "Event Type", 16, hex: true)
        case .extConnectable: return D.flag("bthci_evt.le_ext_advts_event_type.connectable", "Connectable", 0x0001)
        case .extScannable: return D.flag("bthci_evt.le_ext_advts_event_type.scannable", "Scannable", 0x0002)
        case .extDirected: return D.flag("bthci_evt.le_ext_advts_event_type.directed", "Directed", 0x0004)
        case .extScanResponse: return D.flag("bthci_evt.le_ext_advts_event_type.scan_response", "Scan Response", 0x0008)
        case .extLegacy: return D.flag("bthci_evt.le_ext_advts_event_type.legacy", "Legacy", 0x0010)
        case .extDataStatus: return D.uint("bthci_evt.le_ext_advts_event_type.data_status", "Data Status", 16, hex: true, names: n.dataStatus, mask: 0x0060)
        case .primaryPHY: return D.uint("bthci_evt.primary_phy", "Primary PHY", 8, hex: true, names: n.phy)
        case .secondaryPHY: return D.uint("bthci_evt.secondary_phy", "Secondary PHY", 8, hex: true, names: n.phy)
        case .advertisingSID: return D.uint("bthci_evt.advertising_sid", "Advertising SID", 8, hex: true, names: ValueNames([(0xFF, "Not available")]))
        case .periodicAdvertisingInterval: return D.uint("bthci_evt.periodic_advertising_interval", "Periodic Advertising Interval", 16, hex: true, names: ValueNames([(0, "No periodic advertising")]), help: "Units of 1.25 ms")
        case .leDirectAddressType: return D.uint("bthci_evt.le_direct_address_type", "Direct Address Type", 8, hex: true, names: n.addressType)
        case .directBDAddr: return D("bthci_evt.direct_bd_addr", "Direct BD_ADDR", .address)
        case .leConInterval: return D.uint("bthci_evt.le_con_interval", "Connection Interval", 16, help: "Units of 1.25 ms")
        case .leConLatency: return D.uint("bthci_evt.le_con_latency", "Connection Latency", 16, help: "Connection events")
        case .leSupvTimeout: return D.uint("bthci_evt.le_supv_timeout", "Supervision Timeout", 16, help: "Units of 10 ms")
        case .leMasterClockAccuracy: return D.uint("bthci_evt.le_master_clock_accuracy", "Central Clock Accuracy", 8, hex: true, names: n.clockAccuracy)
        case .leMinInterval: return D.uint("bthci_evt.le_min_interval", "Min Connection Interval", 16, help: "Units of 1.25 ms")
        case .leMaxInterval: return D.uint("bthci_evt.le_max_interval", "Max Connection Interval", 16, help: "Units of 1.25 ms")
        case .leEncryptedDiversifier: return D.uint("bthci_evt.le_encrypted_diversifier", "Encrypted Diversifier", 16, hex: true)
        case .leLocalP256PublicKey: return D("bthci_evt.le_local_p_256_public_key", "Local P-256 Public Key", .bytes)
        case .dhkey: return D("bthci_evt.dhkey", "DHKey", .bytes)
        case .syncHandle: return D.uint("bthci_evt.sync_handle", "Sync Handle", 16, hex: true)
        case .advPHY: return D.uint("bthci_evt.adv_phy", "Advertiser PHY", 8, hex: true, names: n.phy)
        case .advClockAccuracy: return D.uint("bthci_evt.adv_clock_accuracy", "Advertiser Clock Accuracy", 8, hex: true, names: n.clockAccuracy)
        case .cteType: return D.uint("bthci_evt.cte_type", "CTE Type", 8, hex: true, names: ValueNames([(0, "AoA"), (1, "AoD 1 us"), (2, "AoD 2 us"), (0xFF, "No CTE")]))
        case .dataStatus: return D.uint("bthci_evt.data_status", "Data Status", 8, hex: true, names: n.periodicDataStatus)
        case .advHandle: return D.uint("bthci_evt.adv_handle", "Advertising Handle", 8, hex: true)
        case .numComplExtAdvEvents: return D.uint("bthci_evt.num_compl_ext_adv_events", "Number Completed Extended Advertising Events", 8)
        case .channelSelectionAlgorithm: return D.uint("bthci_evt.channel_selection_algorithm", "Channel Selection Algorithm", 8, hex: true, names: n.channelSelection)
        case .periodicEventCounter: return D.uint("bthci_evt.periodic_event_counter", "Periodic Event Counter", 16, help: D.own)
        case .subevent: return D.uint("bthci_evt.subevent", "Subevent", 8, help: D.own)
        case .numSubevents: return D.uint("bthci_evt.num_subevents", "Number of Subevents", 8, help: D.own)
        case .subeventInterval: return D.uint("bthci_evt.subevent_interval", "Subevent Interval", 8, help: D.own + "Units of 1.25 ms")
        case .responseSlotDelay: return D.uint("bthci_evt.response_slot_delay", "Response Slot Delay", 8, help: D.own + "Units of 1.25 ms")
        case .responseSlotSpacing: return D.uint("bthci_evt.response_slot_spacing", "Response Slot Spacing", 8, help: D.own + "Units of 0.125 ms")
        case .cigSyncDelay: return D.uint("bthci_evt.cig_sync_delay", "CIG Sync Delay", 24, help: "Microseconds")
        case .cisSyncDelay: return D.uint("bthci_evt.cis_sync_delay", "CIS Sync Delay", 24, help: "Microseconds")
        case .transportLatencyMtoS: return D.uint("bthci_evt.transport_latency_m_to_s", "Transport Latency Central to Peripheral", 24)
        case .transportLatencyStoM: return D.uint("bthci_evt.transport_latency_s_to_m", "Transport Latency Peripheral to Central", 24)
        case .phyMtoS: return D.uint("bthci_evt.phy_m_to_s", "PHY Central to Peripheral", 8, hex: true, names: n.phy)
        case .phyStoM: return D.uint("bthci_evt.phy_s_to_m", "PHY Peripheral to Central", 8, hex: true, names: n.phy)
        case .nse: return D.uint("bthci_evt.nse", "Number of Subevents", 8)
        case .bnMtoS: return D.uint("bthci_evt.bn_m_to_s", "Burst Number Central to Peripheral", 8)
        case .bnStoM: return D.uint("bthci_evt.bn_s_to_m", "Burst Number Peripheral to Central", 8)
        case .ftMtoS: return D.uint("bthci_evt.ft_m_to_s", "Flush Timeout Central to Peripheral", 8)
        case .ftStoM: return D.uint("bthci_evt.ft_s_to_m", "Flush Timeout Peripheral to Central", 8)
        case .maxPDUMtoS: return D.uint("bthci_evt.max_pdu_m_to_s", "Max PDU Central to Peripheral", 16)
        case .maxPDUStoM: return D.uint("bthci_evt.max_pdu_s_to_m", "Max PDU Peripheral to Central", 16)
        case .isoInterval: return D.uint("bthci_evt.iso_interval", "ISO Interval", 16, help: "Units of 1.25 ms")
        case .cisHandle: return D.uint("bthci_evt.cis_handle", "CIS Handle", 16, hex: true, mask: 0x0FFF)
        case .cigID: return D.uint("bthci_evt.cig_id", "CIG Id", 8, hex: true)
        case .cisID: return D.uint("bthci_evt.cis_id", "CIS Id", 8, hex: true)
        case .subrateFactor: return D.uint("bthci_evt.subrate_factor", "Subrate Factor", 16)
        case .continuationNumber: return D.uint("bthci_evt.continuation_number", "Continuation Number", 16)
        case .packetType: return D.uint("bthci_evt.packet_type", "Packet Type", 16, hex: true)
        case .clockOffset: return D.uint("bthci_evt.clock_offset", "Clock Offset", 16, hex: true)
        case .flushTimeout: return D.uint("bthci_evt.timeout", "Timeout", 16)
        case .suggestedMaxRxOctets: return D.uint("bthci_evt.suggested_max_rx_octets", "Suggested Max RX Octets", 16)
        case .suggestedMaxRxTime: return D.uint("bthci_evt.suggested_max_rx_time", "Suggested Max RX Time", 16, help: "Microseconds")
        case .pageScanRepetitionMode: return D.uint("bthci_evt.page_scan_repetition_mode", "Page Scan Repetition Mode", 8, hex: true)
        case .fecRequired: return D.uint("bthci_evt.fec_required", "FEC Required", 8, hex: true)
        case .numResponses: return D.uint("bthci_evt.num_responses", "Number of Responses", 8)
        case .syncLinkType: return D.uint("bthci_evt.sync_link_type", "Link Type", 8, hex: true, names: n.linkType)
        case .syncTxInterval: return D.uint("bthci_evt.sync_tx_interval", "Transmit Interval", 8, help: "Slots")
        case .syncRtxWindow: return D.uint("bthci_evt.sync_rtx_window", "Retransmit Window", 8, help: "Slots")
        case .syncRxPacketLength: return D.uint("bthci_evt.sync_rx_pkt_len", "Rx Packet Length", 16)
        case .syncTxPacketLength: return D.uint("bthci_evt.sync_tx_pkt_len", "Tx Packet Length", 16)
        case .airMode: return D.uint("bthci_evt.air_mode", "Air Mode", 8)
        case .notificationType: return D.uint("bthci_evt.notification_type", "Notification Type", 8)
        case .linkPolicySettings: return D.uint("bthci_evt.link_policy_settings", "Link Policy Settings", 16, hex: true, help: D.own + "Bit 0 role switch, bit 1 hold, bit 2 sniff")
        }
    }
}

/// ACL data packets.
public enum HCIACLField: UInt16, FieldSet {
    case chandle, pbFlag, bcFlag, length, fragmentCount, reassembledLength

    public static let layer = FieldDescriptor("bthci_acl", "Bluetooth HCI ACL Packet", .layer, short: "HCI_ACL")

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .chandle: D.uint("bthci_acl.chandle", "Connection Handle", 16, hex: true, mask: 0x0FFF)
        case .pbFlag: D.uint("bthci_acl.pb_flag", "PB Flag", 16, names: HCIValueNames.aclPB, mask: 0x3000)
        case .bcFlag: D.uint("bthci_acl.bc_flag", "BC Flag", 16, names: HCIValueNames.aclBC, mask: 0xC000)
        case .length: D.uint("bthci_acl.length", "Data Total Length", 16)
        case .fragmentCount: D.uint("bthci_acl.fragment_count", "Fragments", 16, help: D.own + "ACL fragments the L2CAP PDU came in")
        case .reassembledLength: D.uint("bthci_acl.reassembled_length", "Reassembled L2CAP PDU Length", 32, help: D.own)
        }
    }
}

/// SCO (synchronous) data packets.
public enum HCISCOField: UInt16, FieldSet {
    case chandle, packetStatus, length

    public static let layer = FieldDescriptor("bthci_sco", "Bluetooth HCI SCO Packet", .layer, short: "HCI_SCO")

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .chandle: D.uint("bthci_sco.chandle", "Connection Handle", 16, hex: true, mask: 0x0FFF)
        case .packetStatus: D.uint("bthci_sco.packet_status", "Packet Status", 16, hex: true, names: HCIValueNames.scoStatus, mask: 0x3000)
        case .length: D.uint("bthci_sco.length", "Data Total Length", 8)
        }
    }
}

/// ISO data packets: the HCI header.
public enum HCIISOField: UInt16, FieldSet {
    case chandle, pbFlag, tsFlag, dataLength

    public static let layer = FieldDescriptor("bthci_iso", "Bluetooth HCI ISO Packet", .layer, short: "HCI_ISO")

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .chandle: D.uint("bthci_iso.chandle", "Connection Handle", 16, hex: true, mask: 0x0FFF)
        case .pbFlag: D.uint("bthci_iso.pb_flag", "PB Flag", 16, hex: true, names: HCIValueNames.isoPB, mask: 0x3000)
        case .tsFlag: D.flag("bthci_iso.ts_flag", "Timestamp present", 0x4000)
        case .dataLength: D.uint("bthci_iso.data_length", "Data Length", 16, mask: 0x3FFF)
        }
    }
}

/// ISO data packets: the ISO data load header of a first or complete fragment.
public enum HCIISODataField: UInt16, FieldSet {
    case timestamp, packetSeqNum, sduLength, statusFlag

    public static let layer = FieldDescriptor("bthci_iso_data", "Bluetooth ISO Data", .layer, short: "ISO")

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .timestamp: D.uint("bthci_iso_data.timestamp", "Timestamp", 32, help: "Microseconds")
        case .packetSeqNum: D.uint("bthci_iso_data.packet_seq_num", "Sequence Number", 16)
        case .sduLength: D.uint("bthci_iso_data.sdu_length", "SDU Length", 16, mask: 0x0FFF)
        case .statusFlag: D.uint("bthci_iso_data.status_flag", "Data Status Flag", 16, names: HCIValueNames.isoStatus, mask: 0xC000)
        }
    }
}

/// The field ids of every HCI field set, registered once and shared by the dissectors.
struct HCIFieldIDs: Sendable {
    let h4: Fields<H4Field>
    let cmd: Fields<HCICommandField>
    let evt: Fields<HCIEventField>
    let acl: Fields<HCIACLField>
    let sco: Fields<HCISCOField>
    let iso: Fields<HCIISOField>
    let isoData: Fields<HCIISODataField>
    /// The tables HCI hands payloads to (`HCIHandoffs`).
    let next: HCIHandoffs
}
