/// One parameter of a control PDU's CtrData, little-endian like all of them.
enum LLParam: Sendable {
    /// A field read whole, its size from its kind: 8 to 64 bits, signed or not.
    case field(LLControlField)
    /// A field of `count` bytes.
    case bytes(LLControlField, Int)
    /// A word of `size` bytes, shown as `parent` (when there is one, an integer or bytes field) and
    /// split into `parts` by their descriptors' bitmasks.
    case bits(LLControlField?, Int, [LLControlField])
    /// An advertiser's address, as Wireshark names it: the link layer's `btle.advertising_address`.
    case advertiserAddress
    /// LL_CHANNEL_STATUS_IND's classification of the 37 data channels, 2 bits each.
    case channelStatus
    /// The 24-byte FeaturePage of LL_FEATURE_EXT_REQ and _RSP, read by the page number before it.
    case featurePage
}

/// A control PDU: its opcode, name and parameters.
struct LLControlLayout: Sendable {
    let opcode: UInt8
    let name: String
    let parameters: [LLParam]
    /// False for the PDUs whose parameters are shown as bytes (newer than the layouts here).
    var decoded = true
    /// For a PDU whose first two parameter bytes are both zero: LL_PHY_UPDATE_IND changing
    /// neither PHY, whose Instant is then RFU (Vol 6 Part B 2.4.2.22).
    var unchanged: [LLParam]? = nil
}

/// The control PDUs of the Core Specification (Vol 6 Part B 2.4.2, versions 5.4 to 6.0; the
/// three of 6.2 by name only).
enum LLControlLayouts {
    typealias P = LLParam

    static let phyBits: [LLControlField] = [.phy1M, .phy2M, .phyCoded, .phyReserved]
    static let powerPHY = P.bits(.powerPHY, 1, [.power1M, .power2M, .powerCodedS8, .powerCodedS2, .powerPHYReserved])
    static let powerFlags = P.bits(.powerFlags, 1, [.powerMin, .powerMax, .powerFlagsReserved])
    static let features = P.bits(.featureSet, 8, LLControlField.featureBits)
    static let featurePage1 = P.bits(nil, 1, [.featMonitoringAdvertisers, .featFrameSpaceUpdate])

    static let connectionParameters: [P] = [
        .field(.intervalMin), .field(.intervalMax), .field(.latency), .field(.timeout), .field(.preferredPeriodicity),
        .field(.referenceConnEventCount), .field(.offset0), .field(.offset1), .field(.offset2), .field(.offset3),
        .field(.offset4), .field(.offset5),
    ]
    static let dataLength: [P] = [.field(.maxRxOctets), .field(.maxRxTime), .field(.maxTxOctets), .field(.maxTxTime)]
    static let phyPreferences: [P] = [.bits(.txPhys, 1, phyBits), .bits(.rxPhys, 1, phyBits)]
    /// LL_PERIODIC_SYNC_IND, which LL_PERIODIC_SYNC_WR_IND begins with; the SyncInfo (Vol 6 Part B
    /// 2.3.4.6) is fields 2 to 9.
    static let periodicSync: [P] = [
        .field(.syncID), .bits(nil, 2, [.syncOffset, .syncOffsetUnits, .syncOffsetAdjust]), .field(.syncInterval),
        .bits(.syncChannelMap, 5, [.syncInfoSCA]), .field(.syncAccessAddress), .field(.syncCRCInit),
        .field(.syncEventCounter), .field(.syncConnEventCount), .field(.syncLastEventCounter),
        .bits(nil, 1, [.syncSID, .syncAddressType, .syncSCA]), .bits(.phys, 1, phyBits), .advertiserAddress,
        .field(.syncConnEventCountAtSync),
    ]
    static let cisOffsets: [P] = [.field(.cisOffsetMin), .field(.cisOffsetMax), .field(.connEventCount)]
    static let subrate: [P] = [.field(.continuationNumber), .field(.timeout)]
    static let featureExchange: [P] = [.field(.maxPage), .field(.pageNumber), .featurePage]
    static let csSecurity: [P] = [.bytes(.csIV, 8), .bytes(.csIN, 4), .bytes(.csPV, 8)]
    static let csConfigID = P.bits(nil, 1, [.csConfigID])
    static let csCapabilities: [P] = [
        .bits(.csModeTypes, 1, [.csMode3]),
        .bits(.csRTTCapability, 1, [.csRTTAAOnly10ns, .csRTTSounding10ns, .csRTTRandom10ns]), .field(.csRTTAAOnlyN),
        .field(.csRTTSoundingN), .field(.csRTTRandomN), .field(.csNADMSounding), .field(.csNADMRandom),
        .bits(.csSyncPHYs, 1, [.csSync2M, .csSync2M2BT]), .bits(nil, 1, [.csNumAntennas, .csMaxAntennaPaths]),
        .bits(nil, 1, [.csInitiator, .csReflector, .csNoFAE, .csChSel3c, .csSoundingPCT]), .field(.csNumConfigs),
        .field(.csMaxProcedures), .field(.csTSW), .field(.csTIP1Capability), .field(.csTIP2Capability),
        .field(.csTFCSCapability), .field(.csTPMCapability), .bits(nil, 1, [.csTxSNRCapability]),
    ]
    /// The start of LL_CS_REQ, LL_CS_RSP and LL_CS_IND.
    static let csStart: [P] = [csConfigID, .field(.connEventCount)]
    static let csSubevents: [P] = [
        .field(.csEventInterval), .field(.csSubeventsPerEvent), .field(.csSubeventInterval), .field(.csSubeventLength),
    ]
    static let csTermination: [P] = [csConfigID, .field(.csProcedureCount), .field(.errorCode)]
    static let frameSpace: [P] = [.bits(.phys, 1, phyBits), spacingTypes]
    static let spacingTypes = P.bits(
        .spacingTypes,
        2,
        [.spacingIFSACLCP, .spacingIFSACLPC, .spacingMCES, .spacingIFSCIS, .spacingMSSCIS]
    )

    static let all: [LLControlLayout] = [
        .init(
            opcode: 0x00,
            name: "LL_CONNECTION_UPDATE_IND",
            parameters: [
                .field(.windowSize), .field(.windowOffset), .field(.interval), .field(.latency), .field(.timeout),
                .field(.instant),
            ]
        ),
        .init(opcode: 0x01, name: "LL_CHANNEL_MAP_IND", parameters: [.bytes(.channelMap, 5), .field(.instant)]),
        .init(opcode: 0x02, name: "LL_TERMINATE_IND", parameters: [.field(.errorCode)]),
        .init(
            opcode: 0x03,
            name: "LL_ENC_REQ",
            parameters: [.field(.randomNumber), .field(.encryptedDiversifier), .field(.skdC), .field(.ivC)]
        ),
        .init(opcode: 0x04, name: "LL_ENC_RSP", parameters: [.field(.skdP), .field(.ivP)]),
        .init(opcode: 0x05, name: "LL_START_ENC_REQ", parameters: []),
        .init(opcode: 0x06, name: "LL_START_ENC_RSP", parameters: []),
        .init(opcode: 0x07, name: "LL_UNKNOWN_RSP", parameters: [.field(.unknownType)]),
        .init(opcode: 0x08, name: "LL_FEATURE_REQ", parameters: [features]),
        .init(opcode: 0x09, name: "LL_FEATURE_RSP", parameters: [features]),
        .init(opcode: 0x0A, name: "LL_PAUSE_ENC_REQ", parameters: []),
        .init(opcode: 0x0B, name: "LL_PAUSE_ENC_RSP", parameters: []),
        .init(
            opcode: 0x0C,
            name: "LL_VERSION_IND",
            parameters: [.field(.versionNumber), .field(.companyID), .field(.subversionNumber)]
        ),
        .init(opcode: 0x0D, name: "LL_REJECT_IND", parameters: [.field(.errorCode)]),
        .init(opcode: 0x0E, name: "LL_PERIPHERAL_FEATURE_REQ", parameters: [features]),
        .init(opcode: 0x0F, name: "LL_CONNECTION_PARAM_REQ", parameters: connectionParameters),
        .init(opcode: 0x10, name: "LL_CONNECTION_PARAM_RSP", parameters: connectionParameters),
        .init(opcode: 0x11, name: "LL_REJECT_EXT_IND", parameters: [.field(.rejectOpcode), .field(.errorCode)]),
        .init(opcode: 0x12, name: "LL_PING_REQ", parameters: []),
        .init(opcode: 0x13, name: "LL_PING_RSP", parameters: []),
        .init(opcode: 0x14, name: "LL_LENGTH_REQ", parameters: dataLength),
        .init(opcode: 0x15, name: "LL_LENGTH_RSP", parameters: dataLength),
        .init(opcode: 0x16, name: "LL_PHY_REQ", parameters: phyPreferences),
        .init(opcode: 0x17, name: "LL_PHY_RSP", parameters: phyPreferences),
        .init(
            opcode: 0x18,
            name: "LL_PHY_UPDATE_IND",
            parameters: [.bits(.phyCToP, 1, phyBits), .bits(.phyPToC, 1, phyBits), .field(.instant)],
            unchanged: [.bits(.phyCToP, 1, phyBits), .bits(.phyPToC, 1, phyBits), .field(.instantReserved)]
        ),
        .init(
            opcode: 0x19,
            name: "LL_MIN_USED_CHANNELS_IND",
            parameters: [.bits(.phys, 1, phyBits), .field(.minUsedChannels)]
        ),
        .init(opcode: 0x1A, name: "LL_CTE_REQ", parameters: [.bits(nil, 1, [.cteMinLength, .cteRFU, .cteType])]),
        .init(opcode: 0x1B, name: "LL_CTE_RSP", parameters: []),
        .init(opcode: 0x1C, name: "LL_PERIODIC_SYNC_IND", parameters: periodicSync),
        .init(opcode: 0x1D, name: "LL_CLOCK_ACCURACY_REQ", parameters: [.field(.sleepClockAccuracy)]),
        .init(opcode: 0x1E, name: "LL_CLOCK_ACCURACY_RSP", parameters: [.field(.sleepClockAccuracy)]),
        .init(
            opcode: 0x1F,
            name: "LL_CIS_REQ",
            parameters: [
                .field(.cigID), .field(.cisID), .bits(.phyCToP, 1, [.cToP1M, .cToP2M, .cToPCoded, .cToPReserved]),
                .bits(.phyPToC, 1, [.pToC1M, .pToC2M, .pToCCoded, .pToCReserved]),
                .bits(nil, 2, [.maxSDUCToP, .rfu1, .framingMode, .framed]), .bits(nil, 2, [.maxSDUPToC, .rfu2]),
                .bits(nil, 3, [.sduIntervalCToP, .rfu3]), .bits(nil, 3, [.sduIntervalPToC, .rfu4]),
                .field(.maxPDUCToP), .field(.maxPDUPToC), .field(.nse), .field(.subInterval),
                .bits(nil, 1, [.bnCToP, .bnPToC]), .field(.ftCToP), .field(.ftPToC), .field(.isoInterval),
            ] + cisOffsets
        ),
        .init(opcode: 0x20, name: "LL_CIS_RSP", parameters: cisOffsets),
        .init(
            opcode: 0x21,
            name: "LL_CIS_IND",
            parameters: [
                .field(.accessAddress), .field(.cisOffset), .field(.cigSyncDelay), .field(.cisSyncDelay),
                .field(.connEventCount),
            ]
        ),
        .init(
            opcode: 0x22,
            name: "LL_CIS_TERMINATE_IND",
            parameters: [.field(.cigID), .field(.cisID), .field(.errorCode)]
        ),
        .init(opcode: 0x23, name: "LL_POWER_CONTROL_REQ", parameters: [powerPHY, .field(.delta), .field(.txPower)]),
        .init(
            opcode: 0x24,
            name: "LL_POWER_CONTROL_RSP",
            parameters: [powerFlags, .field(.delta), .field(.txPower), .field(.acceptablePowerReduction)]
        ),
        .init(
            opcode: 0x25,
            name: "LL_POWER_CHANGE_IND",
            parameters: [powerPHY, powerFlags, .field(.delta), .field(.txPower)]
        ),
        .init(
            opcode: 0x26,
            name: "LL_SUBRATE_REQ",
            parameters: [.field(.subrateFactorMin), .field(.subrateFactorMax), .field(.maxLatency)] + subrate
        ),
        .init(
            opcode: 0x27,
            name: "LL_SUBRATE_IND",
            parameters: [.field(.subrateFactor), .field(.subrateBaseEvent), .field(.latency)] + subrate
        ),
        .init(
            opcode: 0x28,
            name: "LL_CHANNEL_REPORTING_IND",
            parameters: [.field(.reportingEnable), .field(.reportingMinSpacing), .field(.reportingMaxDelay)]
        ),
        .init(opcode: 0x29, name: "LL_CHANNEL_STATUS_IND", parameters: [.channelStatus]),
        .init(
            opcode: 0x2A,
            name: "LL_PERIODIC_SYNC_WR_IND",
            parameters: periodicSync + [
                .field(.responseAccessAddress), .field(.numSubevents), .field(.subeventInterval),
                .field(.responseSlotDelay), .field(.responseSlotSpacing),
            ]
        ),
        .init(opcode: 0x2B, name: "LL_FEATURE_EXT_REQ", parameters: featureExchange),
        .init(opcode: 0x2C, name: "LL_FEATURE_EXT_RSP", parameters: featureExchange),
        .init(opcode: 0x2D, name: "LL_CS_SEC_RSP", parameters: csSecurity),
        .init(opcode: 0x2E, name: "LL_CS_CAPABILITIES_REQ", parameters: csCapabilities),
        .init(opcode: 0x2F, name: "LL_CS_CAPABILITIES_RSP", parameters: csCapabilities),
        .init(
            opcode: 0x30,
            name: "LL_CS_CONFIG_REQ",
            parameters: [
                .bits(nil, 1, [.csConfigID, .csAction]), .bytes(.csChannelMap, 10), .field(.csChMRepetition),
                .field(.csMainMode), .field(.csSubMode), .field(.csMainModeMinSteps), .field(.csMainModeMaxSteps),
                .field(.csMainModeRepetition), .field(.csMode0Steps), .field(.csSyncPHY),
                .bits(nil, 1, [.csRTTType, .csRole]), .bits(nil, 1, [.csChannelSelection, .csCh3cShape]),
                .field(.csCh3cJump), .field(.csTIP1), .field(.csTIP2), .field(.csTFCS), .field(.csTPM),
                .field(.csReserved),
            ]
        ),
        .init(opcode: 0x31, name: "LL_CS_CONFIG_RSP", parameters: [csConfigID]),
        .init(
            opcode: 0x32,
            name: "LL_CS_REQ",
            parameters: csStart + [.field(.csOffsetMin), .field(.csOffsetMax), .field(.csMaxProcedureLength)]
                + csSubevents + [
                    .field(.csProcedureInterval), .field(.csProcedureCount), .field(.csACI),
                    .field(.csPreferredPeerAntenna), .field(.csPHY), .field(.csPowerDelta),
                    .bits(nil, 1, [.csTxSNRInitiator, .csTxSNRReflector]),
                ]
        ),
        .init(
            opcode: 0x33,
            name: "LL_CS_RSP",
            parameters: csStart + [.field(.csOffsetMin), .field(.csOffsetMax)] + csSubevents + [
                .field(.csACI), .field(.csPHY), .field(.csPowerDelta), .field(.csReserved),
            ]
        ),
        .init(
            opcode: 0x34,
            name: "LL_CS_IND",
            parameters: csStart + [.field(.csOffset)] + csSubevents + [
                .field(.csACI), .field(.csPHY), .field(.csPowerDelta), .field(.csReserved),
            ]
        ),
        .init(opcode: 0x35, name: "LL_CS_TERMINATE_REQ", parameters: csTermination),
        .init(opcode: 0x36, name: "LL_CS_FAE_REQ", parameters: []),
        .init(opcode: 0x37, name: "LL_CS_FAE_RSP", parameters: [.bytes(.csFAETable, 72)]),
        .init(opcode: 0x38, name: "LL_CS_CHANNEL_MAP_IND", parameters: [.bytes(.csChannelMap, 10), .field(.instant)]),
        .init(opcode: 0x39, name: "LL_CS_SEC_REQ", parameters: csSecurity),
        .init(opcode: 0x3A, name: "LL_CS_TERMINATE_RSP", parameters: csTermination),
        .init(
            opcode: 0x3B,
            name: "LL_FRAME_SPACE_REQ",
            parameters: [.field(.frameSpaceMin), .field(.frameSpaceMax)] + frameSpace
        ),
        .init(opcode: 0x3C, name: "LL_FRAME_SPACE_RSP", parameters: [.field(.frameSpace)] + frameSpace),
        .init(opcode: 0x3D, name: "LL_OTA_UTP_IND", parameters: [], decoded: false),
        .init(opcode: 0x3E, name: "LL_CONNECTION_RATE_REQ", parameters: [], decoded: false),
        .init(opcode: 0x3F, name: "LL_CONNECTION_RATE_IND", parameters: [], decoded: false),
    ]
}
