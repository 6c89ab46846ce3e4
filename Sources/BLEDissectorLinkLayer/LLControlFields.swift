public import BLEInspectCore

/// The fields of LL control PDUs (Core Specification Vol 6 Part B 2.4.2). Filter names are
/// Wireshark's (`btle.control_opcode`, `btle.control.*`, its `m_to_s`/`s_to_m` spelling
/// included); what Wireshark lacks has names in the same style under `btle.control.`. Display
/// names use the specification's current terms (central, peripheral).
public enum LLControlField: UInt16, FieldSet {
    case opcode
    case windowSize, windowOffset, interval, latency, timeout, instant, channelMap
    case errorCode, unknownType, rejectOpcode, versionNumber, companyID, subversionNumber
    case randomNumber, encryptedDiversifier, skdC, ivC, skdP, ivP
    case featureSet
    case featEncryption, featConnectionParameters, featExtendedReject, featPeripheralFeatures, featPing
    case featDataLength, featPrivacy, featScanFilter, feat2M, featStableTx, featStableRx, featCoded, featExtendedAdv
    case featPeriodicAdv, featCSA2, featPowerClass1, featMinUsedChannels, featCTERequest, featCTEResponse
    case featConnectionlessCTETx, featConnectionlessCTERx, featAoD, featAoA, featCTEReception, featPASTSender
    case featPASTRecipient, featSCAUpdates, featKeyValidation, featCISCentral, featCISPeripheral
    case featISOBroadcaster, featSyncReceiver, featCISHost, featPowerControl, featPowerControl2, featPathLoss
    case featPeriodicADI, featSubrating, featSubratingHost, featChannelClassification, featCodingSelection
    case featCodingSelectionHost, featDecisionFiltering, featPAwRAdvertiser, featPAwRScanner, featUnsegmented
    case featChannelSounding, featChannelSoundingHost, featCSToneQuality, featReserved, featExtendedFeatureSet
    case maxPage, pageNumber, featurePage, featMonitoringAdvertisers, featFrameSpaceUpdate
    case intervalMin, intervalMax, preferredPeriodicity, referenceConnEventCount
    case offset0, offset1, offset2, offset3, offset4, offset5
    case maxRxOctets, maxRxTime, maxTxOctets, maxTxTime
    case txPhys, rxPhys, phyCToP, phyPToC, phys, phy1M, phy2M, phyCoded, phyReserved, minUsedChannels
    case cteMinLength, cteRFU, cteType
    case syncID, syncOffset, syncOffsetUnits, syncOffsetAdjust, syncInterval, syncChannelMap, syncInfoSCA
    case syncAccessAddress, syncCRCInit, syncEventCounter, syncConnEventCount, syncLastEventCounter
    case syncSID, syncAddressType, syncSCA, syncConnEventCountAtSync
    case responseAccessAddress, numSubevents, subeventInterval, responseSlotDelay, responseSlotSpacing
    case sleepClockAccuracy
    case cigID, cisID, cToP1M, cToP2M, cToPCoded, cToPReserved, pToC1M, pToC2M, pToCCoded, pToCReserved
    case maxSDUCToP, rfu1, framingMode, framed, maxSDUPToC, rfu2, sduIntervalCToP, rfu3, sduIntervalPToC, rfu4
    case maxPDUCToP, maxPDUPToC, nse, subInterval, bnCToP, bnPToC, ftCToP, ftPToC, isoInterval
    case cisOffsetMin, cisOffsetMax, connEventCount, accessAddress, cisOffset, cigSyncDelay, cisSyncDelay
    case powerPHY, power1M, power2M, powerCodedS8, powerCodedS2, powerPHYReserved, delta, txPower
    case powerFlags, powerMin, powerMax, powerFlagsReserved, acceptablePowerReduction
    case subrateFactorMin, subrateFactorMax, maxLatency, continuationNumber, subrateFactor, subrateBaseEvent
    case reportingEnable, reportingMinSpacing, reportingMaxDelay
    case channelStatus, channelUnknown, channelGood, channelReserved, channelBad
    case csIV, csIN, csPV, csModeTypes, csMode3, csRTTCapability, csRTTAAOnly10ns, csRTTSounding10ns
    case csRTTRandom10ns, csRTTAAOnlyN, csRTTSoundingN, csRTTRandomN, csNADMSounding, csNADMRandom
    case csSyncPHYs, csSync2M, csSync2M2BT, csNumAntennas, csMaxAntennaPaths, csInitiator, csReflector
    case csNoFAE, csChSel3c, csSoundingPCT, csNumConfigs, csMaxProcedures, csTSW, csTIP1Capability
    case csTIP2Capability, csTFCSCapability, csTPMCapability, csTxSNRCapability
    case csConfigID, csAction, csChannelMap, csChMRepetition, csMainMode, csSubMode, csMainModeMinSteps
    case csMainModeMaxSteps, csMainModeRepetition, csMode0Steps, csSyncPHY, csRTTType, csRole
    case csChannelSelection, csCh3cShape, csCh3cJump, csTIP1, csTIP2, csTFCS, csTPM, csReserved
    case csOffsetMin, csOffsetMax, csOffset, csMaxProcedureLength, csEventInterval, csSubeventsPerEvent
    case csSubeventInterval, csSubeventLength, csProcedureInterval, csProcedureCount, csACI, csPreferredPeerAntenna
    case csPHY, csPowerDelta, csTxSNRInitiator, csTxSNRReflector, csFAETable
    case frameSpaceMin, frameSpaceMax, frameSpace, spacingTypes, spacingIFSACLCP, spacingIFSACLPC, spacingMCES
    case spacingIFSCIS, spacingMSSCIS, instantReserved

    public static let layer = FieldDescriptor("btle.control", "LL Control PDU", .layer, short: "LL_CTRL")

    /// The bits of the 64-bit FeatureSet (page 0), in order.
    static let featureBits: [LLControlField] = (featEncryption.rawValue...featExtendedFeatureSet.rawValue)
        .compactMap(LLControlField.init(rawValue:))

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .opcode: .uint("btle.control_opcode", "Control Opcode", 8, hex: true, names: LLControlNames.opcodes)
        case .windowSize: u("window_size", "Window Size", 8, help: "transmitWindowSize, units of 1.25 ms")
        case .windowOffset: u("window_offset", "Window Offset", 16, help: "transmitWindowOffset, units of 1.25 ms")
        case .interval: u("interval", "Interval", 16, help: "connInterval, units of 1.25 ms")
        case .latency: u("latency", "Latency", 16, help: "connPeripheralLatency, in connection events")
        case .timeout: u("timeout", "Timeout", 16, help: "connSupervisionTimeout, units of 10 ms")
        case .instant: u("instant", "Instant", 16, help: "The connection event (connEventCount) from which the change applies")
        case .instantReserved: u("reserved", "Reserved", 16, help: "LL_PHY_UPDATE_IND changing neither PHY: the Instant field is RFU")
        case .channelMap: bytes("channel_map", "Channel Map", help: "Bit n set: data channel n is used")
        case .errorCode: u("error_code", "Error Code", 8, hex: true, names: LLControlNames.errors)
        case .unknownType: u("unknown_type", "Unknown Type", 8, hex: true, names: LLControlNames.opcodes)
        case .rejectOpcode: u("reject_opcode", "Reject Opcode", 8, hex: true, names: LLControlNames.opcodes)
        case .versionNumber: u("version_number", "Version Number", 8, hex: true, names: LLControlNames.versions)
        case .companyID: u("company_id", "Company Id", 16, hex: true, names: LLControlNames.companies)
        case .subversionNumber: u("subversion_number", "Subversion Number", 16, hex: true)
        case .randomNumber: u("random_number", "Random Number", 64, hex: true, help: "Rand")
        case .encryptedDiversifier: u("encrypted_diversifier", "Encrypted Diversifier", 16, hex: true, help: "EDIV")
        case .skdC: u("master_session_key_diversifier", "Central Session Key Diversifier", 64, hex: true, help: "SKD_C")
        case .ivC: u("master_session_initialization_vector", "Central Initialization Vector", 32, hex: true, help: "IV_C")
        case .skdP: u("slave_session_key_diversifier", "Peripheral Session Key Diversifier", 64, hex: true, help: "SKD_P")
        case .ivP: u("slave_session_initialization_vector", "Peripheral Initialization Vector", 32, hex: true, help: "IV_P")
        case .featureSet: u("feature_set", "Feature Set", 64, hex: true)
        case .featEncryption: feature("le_encryption", "LE Encryption", 0)
        case .featConnectionParameters: feature("connection_parameters_request_procedure", "Connection Parameters Request Procedure", 1)
        case .featExtendedReject: feature("extended_reject_indication", "Extended Reject Indication", 2)
        case .featPeripheralFeatures: feature("slave_initiated_features_exchange", "Peripheral-initiated Features Exchange", 3)
        case .featPing: feature("le_ping", "LE Ping", 4)
        case .featDataLength: feature("le_pkt_len_ext", "LE Data Packet Length Extension", 5)
        case .featPrivacy: feature("le_privacy", "LL Privacy", 6)
        case .featScanFilter: feature("ext_scan_flt_pol", "Extended Scanner Filter Policies", 7)
        case .feat2M: feature("le_2m_phy", "LE 2M PHY", 8)
        case .featStableTx: feature("st_mod_idx_tx", "Stable Modulation Index - Transmitter", 9)
        case .featStableRx: feature("st_mod_idx_rx", "Stable Modulation Index - Receiver", 10)
        case .featCoded: feature("le_coded_phy", "LE Coded PHY", 11)
        case .featExtendedAdv: feature("le_extended_adv", "LE Extended Advertising", 12)
        case .featPeriodicAdv: feature("periodic_adv", "LE Periodic Advertising", 13)
        case .featCSA2: feature("ch_sel_2", "Channel Selection Algorithm #2", 14)
        case .featPowerClass1: feature("le_power_class_1", "LE Power Class 1", 15)
        case .featMinUsedChannels: feature("min_num_used_ch_proc", "Minimum Number of Used Channels Procedure", 16)
        case .featCTERequest: feature("conn_cte_req", "Connection CTE Request", 17)
        case .featCTEResponse: feature("conn_cte_rsp", "Connection CTE Response", 18)
        case .featConnectionlessCTETx: feature("connless_cte_tx", "Connectionless CTE Transmitter", 19)
        case .featConnectionlessCTERx: feature("connless_cte_rx", "Connectionless CTE Receiver", 20)
        case .featAoD: feature("ant_sw_cte_tx", "Antenna Switching During CTE Transmission (AoD)", 21)
        case .featAoA: feature("ant_sw_cte_rx", "Antenna Switching During CTE Reception (AoA)", 22)
        case .featCTEReception: feature("rx_cte", "Receiving Constant Tone Extensions", 23)
        case .featPASTSender: feature("past_sender", "Periodic Advertising Sync Transfer - Sender", 24)
        case .featPASTRecipient: feature("past_recipient", "Periodic Advertising Sync Transfer - Recipient", 25)
        case .featSCAUpdates: feature("sca_updates", "Sleep Clock Accuracy Updates", 26)
        case .featKeyValidation: feature("remote_pub_key_validation", "Remote Public Key Validation", 27)
        case .featCISCentral: feature("cis_central", "Connected Isochronous Stream - Central", 28)
        case .featCISPeripheral: feature("cis_peripheral", "Connected Isochronous Stream - Peripheral", 29)
        case .featISOBroadcaster: feature("iso_broadcaster", "Isochronous Broadcaster", 30)
        case .featSyncReceiver: feature("sync_receiver", "Synchronized Receiver", 31)
        case .featCISHost: feature("cis_host", "Connected Isochronous Stream (Host Support)", 32)
        case .featPowerControl: feature("power_control_req", "LE Power Control Request", 33)
        case .featPowerControl2: feature("power_control_req_2", "LE Power Control Request (second bit)", 34)
        case .featPathLoss: feature("path_loss_monitoring", "LE Path Loss Monitoring", 35)
        case .featPeriodicADI: feature("periodic_adv_adi", "Periodic Advertising ADI Support", 36)
        case .featSubrating: feature("conn_subrating", "Connection Subrating", 37)
        case .featSubratingHost: feature("conn_subrating_host", "Connection Subrating (Host Support)", 38)
        case .featChannelClassification: feature("channel_classification", "Channel Classification", 39)
        case .featCodingSelection: feature("adv_coding_selection", "Advertising Coding Selection", 40)
        case .featCodingSelectionHost: feature("adv_coding_selection_host", "Advertising Coding Selection (Host Support)", 41)
        case .featDecisionFiltering: feature("decision_adv_filtering", "Decision-Based Advertising Filtering", 42)
        case .featPAwRAdvertiser: feature("pawr_advertiser", "Periodic Advertising with Responses - Advertiser", 43)
        case .featPAwRScanner: feature("pawr_scanner", "Periodic Advertising with Responses - Scanner", 44)
        case .featUnsegmented: feature("unsegmented_framed_mode", "Unsegmented Framed Mode", 45)
        case .featChannelSounding: feature("channel_sounding", "Channel Sounding", 46)
        case .featChannelSoundingHost: feature("channel_sounding_host", "Channel Sounding (Host Support)", 47)
        case .featCSToneQuality: feature("cs_tone_quality", "Channel Sounding Tone Quality Indication", 48)
        case .featReserved: u("feature_set.rfu", "Reserved (bits 49 to 62)", 64, hex: true, mask: 0x7FFE_0000_0000_0000)
        case .featExtendedFeatureSet: feature("ll_extended_feature_set", "LL Extended Feature Set", 63)
        case .maxPage: u("feature_ext.max_page", "MaxPage", 8, help: "The sender's highest feature page")
        case .pageNumber: u("feature_ext.page_number", "PageNumber", 8)
        case .featurePage: bytes("feature_ext.page", "FeaturePage", help: "Page 0: feature bits 0 to 63; page n: bits 192n - 128 on")
        case .featMonitoringAdvertisers: flag("feature_set.monitoring_advertisers", "Monitoring Advertisers", 0x01)
        case .featFrameSpaceUpdate: flag("feature_set.frame_space_update", "Frame Space Update", 0x02)
        case .intervalMin: u("interval.min", "Interval Min", 16, help: "Units of 1.25 ms")
        case .intervalMax: u("interval.max", "Interval Max", 16, help: "Units of 1.25 ms")
        case .preferredPeriodicity: u("preferred_periodicity", "Preferred Periodicity", 8, help: "Units of 1.25 ms; 0: no preference")
        case .referenceConnEventCount: u("reference_connection_event_count", "Reference Connection Event Count", 16)
        case .offset0, .offset1, .offset2, .offset3, .offset4, .offset5: offset(Int(rawValue - Self.offset0.rawValue))
        case .maxRxOctets: u("max_rx_octets", "Max RX octets", 16)
        case .maxRxTime: u("max_rx_time", "Max RX time", 16, unit: "µs")
        case .maxTxOctets: u("max_tx_octets", "Max TX octets", 16)
        case .maxTxTime: u("max_tx_time", "Max TX time", 16, unit: "µs")
        case .txPhys: u("tx_phys", "TX PHYs", 8, hex: true, help: "The PHYs the sender prefers to send on")
        case .rxPhys: u("rx_phys", "RX PHYs", 8, hex: true, help: "The PHYs the sender prefers to receive on")
        case .phyCToP: u("m_to_s_phy", "Central to Peripheral PHY", 8, hex: true)
        case .phyPToC: u("s_to_m_phy", "Peripheral to Central PHY", 8, hex: true)
        case .phys: u("phys", "PHYs", 8, hex: true)
        case .phy1M: flag("phys.le_1m_phy", "LE 1M PHY", 0x01)
        case .phy2M: flag("phys.le_2m_phy", "LE 2M PHY", 0x02)
        case .phyCoded: flag("phys.le_coded_phy", "LE Coded PHY", 0x04)
        case .phyReserved: u("phys.reserved", "Reserved", 8, mask: 0xF8)
        case .minUsedChannels: u("min_used_channels", "Minimum Used Channels", 8)
        case .cteMinLength: u("cte.min_len_req", "MinCTELenReq", 8, mask: 0x1F, help: "Units of 8 µs")
        case .cteRFU: u("cte.rfu", "Reserved", 8, mask: 0x20)
        case .cteType: u("cte.type_req", "CTETypeReq", 8, names: LLControlNames.cteTypes, mask: 0xC0)
        case .syncID: u("sync.id", "ID", 16, hex: true, help: "Set by the Host")
        case .syncOffset: u("sync_info.sync_offset", "Sync Packet Offset", 16, hex: true, mask: 0x1FFF, help: "In offset units")
        case .syncOffsetUnits: flag("sync_info.offset_units", "Offset Units 300 µs", 0x2000, help: "Clear: 30 µs")
        case .syncOffsetAdjust: flag("sync_info.offset_adjust", "Offset Adjust", 0x4000, help: "Set: add 2.4576 s to the offset")
        case .syncInterval: u("sync_info.interval", "Interval", 16, hex: true, help: "Units of 1.25 ms")
        case .syncChannelMap: bytes("sync_info.channel_map", "Channel Map", help: "Bits 0 to 36: data channels used")
        case .syncInfoSCA: u("sync_info.sleep_clock_accuracy", "Sleep Clock Accuracy", 8, names: LinkLayerNames.sleepClockAccuracy, mask: 0xE0_0000_0000, help: "The advertiser's")
        case .syncAccessAddress: u("sync_info.access_address", "Access Address", 32, hex: true)
        case .syncCRCInit: u("sync_info.crc_init", "CRC Init", 24, hex: true)
        case .syncEventCounter: u("sync_info.event_counter", "Event Counter", 16, help: "paEventCounter")
        case .syncConnEventCount: u("sync.conn_event_count", "connEventCount", 16)
        case .syncLastEventCounter: u("sync.last_pa_event_counter", "lastPaEventCounter", 16, help: "The last periodic advertising event")
        case .syncSID: u("sync.sid", "SID", 8, hex: true, mask: 0x0F, help: "Advertising set ID")
        case .syncAddressType: u("sync.atype", "AType", 8, mask: 0x10, help: "1: the AdvA is random")
        case .syncSCA: u("sync.sleep_clock_accuracy", "Sleep Clock Accuracy", 8, names: LinkLayerNames.sleepClockAccuracy, mask: 0xE0, help: "The sender's")
        case .syncConnEventCountAtSync: u("sync.sync_conn_event_count", "syncConnEventCount", 16)
        case .responseAccessAddress: u("pawr.rsp_access_address", "RspAA", 32, hex: true)
        case .numSubevents: u("pawr.num_subevents", "NumSubevents", 8)
        case .subeventInterval: u("pawr.subevent_interval", "SubeventInterval", 8, help: "Units of 1.25 ms")
        case .responseSlotDelay: u("pawr.response_slot_delay", "ResponseSlotDelay", 8, help: "Units of 1.25 ms")
        case .responseSlotSpacing: u("pawr.response_slot_spacing", "ResponseSlotSpacing", 8, help: "Units of 0.125 ms")
        case .sleepClockAccuracy: u("sleep_clock_accuracy", "Sleep Clock Accuracy", 8, names: LinkLayerNames.sleepClockAccuracy)
        case .cigID: u("cig_id", "CIG_ID", 8)
        case .cisID: u("cis_id", "CIS_ID", 8)
        case .cToP1M: flag("m_to_s_phy.le_1m_phy", "LE 1M PHY", 0x01)
        case .cToP2M: flag("m_to_s_phy.le_2m_phy", "LE 2M PHY", 0x02)
        case .cToPCoded: flag("m_to_s_phy.le_coded_phy", "LE Coded PHY", 0x04)
        case .cToPReserved: u("m_to_s_phy.reserved", "Reserved", 8, mask: 0xF8)
        case .pToC1M: flag("s_to_m_phy.le_1m_phy", "LE 1M PHY", 0x01)
        case .pToC2M: flag("s_to_m_phy.le_2m_phy", "LE 2M PHY", 0x02)
        case .pToCCoded: flag("s_to_m_phy.le_coded_phy", "LE Coded PHY", 0x04)
        case .pToCReserved: u("s_to_m_phy.reserved", "Reserved", 8, mask: 0xF8)
        case .maxSDUCToP: u("max_sdu_m_to_s", "Max_SDU_C_To_P", 16, mask: 0x0FFF)
        case .rfu1: u("rfu.1", "Reserved", 16, mask: 0x3000)
        case .framingMode: u("framing_mode", "Framing_Mode", 16, names: LLControlNames.framingModes, mask: 0x4000, help: "Core 5.4 on")
        case .framed: flag("framed", "Framed", 0x8000)
        case .maxSDUPToC: u("max_sdu_s_to_m", "Max_SDU_P_To_C", 16, mask: 0x0FFF)
        case .rfu2: u("rfu.2", "Reserved", 16, mask: 0xF000)
        case .sduIntervalCToP: u("sdu_interval_m_to_s", "SDU_Interval_C_To_P", 24, mask: 0xF_FFFF, unit: "µs")
        case .rfu3: u("rfu.3", "Reserved", 24, mask: 0xF0_0000)
        case .sduIntervalPToC: u("sdu_interval_s_to_m", "SDU_Interval_P_To_C", 24, mask: 0xF_FFFF, unit: "µs")
        case .rfu4: u("rfu.4", "Reserved", 24, mask: 0xF0_0000)
        case .maxPDUCToP: u("max_pdu_m_to_s", "Max_PDU_C_To_P", 16)
        case .maxPDUPToC: u("max_pdu_s_to_m", "Max_PDU_P_To_C", 16)
        case .nse: u("num_sub_events", "NSE", 8, help: "Subevents per CIS event")
        case .subInterval: u("sub_interval", "Sub_Interval", 24, unit: "µs")
        case .bnCToP: u("bn_m_to_s", "BN_C_To_P", 8, mask: 0x0F)
        case .bnPToC: u("bn_s_to_m", "BN_P_To_C", 8, mask: 0xF0)
        case .ftCToP: u("ft_m_to_s", "FT_C_To_P", 8)
        case .ftPToC: u("ft_s_to_m", "FT_P_To_C", 8)
        case .isoInterval: u("iso_interval", "ISO_Interval", 16, help: "Units of 1.25 ms")
        case .cisOffsetMin: u("cis_offset_min", "CIS_Offset_Min", 24, unit: "µs")
        case .cisOffsetMax: u("cis_offset_max", "CIS_Offset_Max", 24, unit: "µs")
        case .connEventCount: u("conn_event_count", "connEventCount", 16, help: "The connection event the offsets are from")
        case .accessAddress: u("access_address", "Access Address", 32, hex: true)
        case .cisOffset: u("cis_offset", "CIS_Offset", 24, unit: "µs")
        case .cigSyncDelay: u("cig_sync_delay", "CIG_Sync_Delay", 24, unit: "µs")
        case .cisSyncDelay: u("cis_sync_delay", "CIS_Sync_Delay", 24, unit: "µs")
        case .powerPHY: u("pwr_phy", "PHY", 8, hex: true)
        case .power1M: flag("pwr_phy.le_1m_phy", "LE 1M PHY", 0x01)
        case .power2M: flag("pwr_phy.le_2m_phy", "LE 2M PHY", 0x02)
        case .powerCodedS8: flag("pwr_phy.le_coded_s8_phy", "LE Coded PHY, S=8", 0x04)
        case .powerCodedS2: flag("pwr_phy.le_coded_s2_phy", "LE Coded PHY, S=2", 0x08)
        case .powerPHYReserved: u("pwr_phy.reserved", "Reserved", 8, mask: 0xF0)
        case .delta: i8("delta", "Delta", names: LLControlNames.notAvailable, unit: "dB")
        case .txPower: i8("txpower", "TxPower", names: LLControlNames.txPower, unit: "dBm")
        case .powerFlags: u("pwrflags", "Power Flags", 8, hex: true)
        case .powerMin: flag("min", "Min", 0x01, help: "At its minimum power level")
        case .powerMax: flag("max", "Max", 0x02, help: "At its maximum power level")
        case .powerFlagsReserved: u("pwrctrl.reserved", "Reserved", 8, mask: 0xFC)
        case .acceptablePowerReduction: u("acceptable_power_reduction", "Acceptable Power Reduction", 8, unit: "dB", help: "APR")
        case .subrateFactorMin: u("subrate_factor.min", "SubrateFactorMin", 16)
        case .subrateFactorMax: u("subrate_factor.max", "SubrateFactorMax", 16)
        case .maxLatency: u("max_latency", "MaxLatency", 16, help: "In subrated connection events")
        case .continuationNumber: u("continuation_number", "ContinuationNumber", 16)
        case .subrateFactor: u("subrate_factor", "SubrateFactor", 16)
        case .subrateBaseEvent: u("subrate_base_event", "SubrateBaseEvent", 16)
        case .reportingEnable: u("channel_reporting.enable", "Enable", 8, names: LLControlNames.enable)
        case .reportingMinSpacing: u("channel_reporting.min_spacing", "Min_Spacing", 8, help: "Units of 200 ms")
        case .reportingMaxDelay: u("channel_reporting.max_delay", "Max_Delay", 8, help: "Units of 200 ms")
        case .channelStatus: bytes("channel_status", "Channel_Classification", help: "2 bits per data channel")
        case .channelUnknown: u("channel_status.unknown", "Unknown channel", 8)
        case .channelGood: u("channel_status.good", "Good channel", 8)
        case .channelReserved: u("channel_status.reserved", "Channel with a reserved classification", 8)
        case .channelBad: u("channel_status.bad", "Bad channel", 8)
        case .csIV: bytes("cs.iv", "CS_IV", help: "The sender's part of the CS DRBG initialization vector")
        case .csIN: bytes("cs.in", "CS_IN", help: "The sender's part of the CS DRBG instantiation nonce")
        case .csPV: bytes("cs.pv", "CS_PV", help: "The sender's part of the CS DRBG personalization vector")
        case .csModeTypes: u("cs.mode_types", "Mode_Types", 8, hex: true)
        case .csMode3: flag("cs.mode_types.mode_3", "Mode-3", 0x01)
        case .csRTTCapability: u("cs.rtt_capability", "RTT_Capability", 8, hex: true)
        case .csRTTAAOnly10ns: flag("cs.rtt_capability.aa_only_10ns", "RTT_AA_Only_N for 10 ns precision", 0x01)
        case .csRTTSounding10ns: flag("cs.rtt_capability.sounding_10ns", "RTT_Sounding_N for 10 ns precision", 0x02)
        case .csRTTRandom10ns: flag("cs.rtt_capability.random_10ns", "RTT_Random_Sequence_N for 10 ns precision", 0x04)
        case .csRTTAAOnlyN: u("cs.rtt_aa_only_n", "RTT_AA_Only_N", 8)
        case .csRTTSoundingN: u("cs.rtt_sounding_n", "RTT_Sounding_N", 8)
        case .csRTTRandomN: u("cs.rtt_random_sequence_n", "RTT_Random_Sequence_N", 8)
        case .csNADMSounding: u("cs.nadm_sounding_capability", "NADM_Sounding_Capability", 16, hex: true)
        case .csNADMRandom: u("cs.nadm_random_sequence_capability", "NADM_Random_Sequence_Capability", 16, hex: true)
        case .csSyncPHYs: u("cs.cs_sync_phy_capability", "CS_SYNC_PHY_Capability", 8, hex: true)
        case .csSync2M: flag("cs.cs_sync_phy_capability.le_2m", "LE 2M PHY", 0x02)
        case .csSync2M2BT: flag("cs.cs_sync_phy_capability.le_2m_2bt", "LE 2M 2BT PHY", 0x04)
        case .csNumAntennas: u("cs.num_ant", "Num_Ant", 8, mask: 0x0F)
        case .csMaxAntennaPaths: u("cs.max_ant_path", "Max_Ant_Path", 8, mask: 0xF0)
        case .csInitiator: flag("cs.role.initiator", "Initiator role", 0x01)
        case .csReflector: flag("cs.role.reflector", "Reflector role", 0x02)
        case .csNoFAE: flag("cs.no_fae", "No_FAE", 0x08)
        case .csChSel3c: flag("cs.channel_selection_3c", "Channel Selection Algorithm #3c", 0x10)
        case .csSoundingPCT: flag("cs.sounding_pct_estimate", "Sounding_PCT_Estimate", 0x20)
        case .csNumConfigs: u("cs.num_configs", "Num_Configs", 8)
        case .csMaxProcedures: u("cs.max_procedures_supported", "Max_Procedures_Supported", 16)
        case .csTSW: u("cs.t_sw", "T_SW", 8, unit: "µs")
        case .csTIP1Capability: u("cs.t_ip1_capability", "T_IP1_Capability", 16, hex: true)
        case .csTIP2Capability: u("cs.t_ip2_capability", "T_IP2_Capability", 16, hex: true)
        case .csTFCSCapability: u("cs.t_fcs_capability", "T_FCS_Capability", 16, hex: true)
        case .csTPMCapability: u("cs.t_pm_capability", "T_PM_Capability", 16, hex: true)
        case .csTxSNRCapability: u("cs.tx_snr_capability", "TX_SNR_Capability", 8, hex: true, mask: 0xFE)
        case .csConfigID: u("cs.config_id", "Config_ID", 8, mask: 0x3F)
        case .csAction: u("cs.action", "Action", 8, names: LLControlNames.csActions, mask: 0xC0)
        case .csChannelMap: bytes("cs.channel_map", "ChM", help: "Bit n set: CS channel n is used")
        case .csChMRepetition: u("cs.chm_repetition", "ChM_Repetition", 8)
        case .csMainMode: u("cs.main_mode", "Main_Mode", 8, names: LLControlNames.csModes)
        case .csSubMode: u("cs.sub_mode", "Sub_Mode", 8, names: LLControlNames.csModes)
        case .csMainModeMinSteps: u("cs.main_mode_min_steps", "Main_Mode_Min_Steps", 8)
        case .csMainModeMaxSteps: u("cs.main_mode_max_steps", "Main_Mode_Max_Steps", 8)
        case .csMainModeRepetition: u("cs.main_mode_repetition", "Main_Mode_Repetition", 8)
        case .csMode0Steps: u("cs.mode_0_steps", "Mode_0_Steps", 8)
        case .csSyncPHY: u("cs.cs_sync_phy", "CS_SYNC_PHY", 8, hex: true)
        case .csRTTType: u("cs.rtt_type", "RTT_Type", 8, names: LLControlNames.csRTTTypes, mask: 0x0F)
        case .csRole: u("cs.role", "Role", 8, names: LLControlNames.csRoles, mask: 0x10, help: "The sender's role")
        case .csChannelSelection: u("cs.channel_selection", "ChSel", 8, names: LLControlNames.csChannelSelection, mask: 0x0F)
        case .csCh3cShape: u("cs.ch3c_shape", "Ch3cShape", 8, names: LLControlNames.csShapes, mask: 0xF0)
        case .csCh3cJump: u("cs.ch3c_jump", "Ch3cJump", 8)
        case .csTIP1: u("cs.t_ip1", "T_IP1", 8, names: LLControlNames.csTIP)
        case .csTIP2: u("cs.t_ip2", "T_IP2", 8, names: LLControlNames.csTIP)
        case .csTFCS: u("cs.t_fcs", "T_FCS", 8, names: LLControlNames.csTFCS)
        case .csTPM: u("cs.t_pm", "T_PM", 8, names: LLControlNames.csTPM)
        case .csReserved: u("cs.reserved", "Reserved", 8)
        case .csOffsetMin: u("cs.offset_min", "Offset_Min", 24, unit: "µs")
        case .csOffsetMax: u("cs.offset_max", "Offset_Max", 24, unit: "µs")
        case .csOffset: u("cs.offset", "Offset", 24, unit: "µs")
        case .csMaxProcedureLength: u("cs.max_procedure_len", "Max_Procedure_Len", 16, help: "Units of 0.625 ms")
        case .csEventInterval: u("cs.event_interval", "Event_Interval", 16, help: "In connection events")
        case .csSubeventsPerEvent: u("cs.subevents_per_event", "Subevents_Per_Event", 8)
        case .csSubeventInterval: u("cs.subevent_interval", "Subevent_Interval", 16, help: "Units of 0.625 ms")
        case .csSubeventLength: u("cs.subevent_len", "Subevent_Len", 24, unit: "µs")
        case .csProcedureInterval: u("cs.procedure_interval", "Procedure_Interval", 16, help: "In connection events")
        case .csProcedureCount: u("cs.procedure_count", "Procedure_Count", 16)
        case .csACI: u("cs.aci", "ACI", 8, help: "Antenna configuration index")
        case .csPreferredPeerAntenna: u("cs.preferred_peer_ant", "Preferred_Peer_Ant", 8, hex: true)
        case .csPHY: u("cs.phy", "PHY", 8, hex: true)
        case .csPowerDelta: i8("cs.pwr_delta", "Pwr_Delta", unit: "dB")
        case .csTxSNRInitiator: u("cs.tx_snr_i", "TX_SNR_I", 8, mask: 0x0F)
        case .csTxSNRReflector: u("cs.tx_snr_r", "TX_SNR_R", 8, mask: 0xF0)
        case .csFAETable: bytes("cs.fae_table", "FAE_Table", help: "72 signed frequency actuation errors")
        case .frameSpaceMin: u("frame_space.min", "FS_Min", 16, unit: "µs")
        case .frameSpaceMax: u("frame_space.max", "FS_Max", 16, unit: "µs")
        case .frameSpace: u("frame_space", "FS", 16, unit: "µs")
        case .spacingTypes: u("frame_space.spacing_types", "Spacing_Types", 16, hex: true)
        case .spacingIFSACLCP: flag("frame_space.t_ifs_acl_cp", "T_IFS_ACL_CP", 0x01)
        case .spacingIFSACLPC: flag("frame_space.t_ifs_acl_pc", "T_IFS_ACL_PC", 0x02)
        case .spacingMCES: flag("frame_space.t_mces", "T_MCES", 0x04)
        case .spacingIFSCIS: flag("frame_space.t_ifs_cis", "T_IFS_CIS", 0x08)
        case .spacingMSSCIS: flag("frame_space.t_mss_cis", "T_MSS_CIS", 0x10)
        }
    }
}

// The descriptors' builders: every name under `btle.control.`.

private func u(
    _ name: String,
    _ label: String,
    _ bits: UInt8,
    hex: Bool = false,
    names: ValueNames? = nil,
    mask: UInt64 = 0,
    unit: String = "",
    help: String = ""
) -> FieldDescriptor {
    .uint("btle.control." + name, label, bits, hex: hex, names: names, mask: mask, help: help, unit: unit)
}

private func i8(_ name: String, _ label: String, names: ValueNames? = nil, unit: String) -> FieldDescriptor {
    .int("btle.control." + name, label, 8, names: names, unit: unit)
}

private func flag(_ name: String, _ label: String, _ mask: UInt64, help: String = "") -> FieldDescriptor {
    .flag("btle.control." + name, label, mask, help: help)
}

private func bytes(_ name: String, _ label: String, help: String = "") -> FieldDescriptor {
    FieldDescriptor("btle.control." + name, label, .bytes, help: help)
}

/// A bit of the FeatureSet (Vol 6 Part B 4.6), its mask over the 64-bit set.
private func feature(_ name: String, _ label: String, _ bit: UInt64) -> FieldDescriptor {
    flag("feature_set." + name, label, 1 << bit)
}

private func offset(_ n: Int) -> FieldDescriptor {
    u("offset.\(n)", "Offset\(n)", 16, help: "Units of 1.25 ms from the reference event's anchor; 0xFFFF: none")
}
