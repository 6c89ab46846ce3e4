public import BLEInspectCore

/// The fields of an advertising-data block (Core Vol 3 Part C §11, Core Specification Supplement
/// Part A). Wireshark's `btcommon.eir_ad.*` abbreviations where Wireshark has the field, `adv.*`
/// where it has none.
public enum ADField: UInt16, FieldSet {
    case entry, length, type, data, unused
    case flagsReserved, flagsLEBREDRHost, flagsLEBREDRController, flagsBREDRNotSupported
    case flagsGeneralDiscoverable, flagsLimitedDiscoverable
    case uuid16, uuid32, uuid128, customUUID32, customUUID128, serviceUUID, solicitedUUID
    case deviceName, powerLevel
    case classOfDevice, codInformation, codTelephony, codAudio, codObjectTransfer, codCapturing, codRendering
    case codNetworking, codPositioning, codLEAudio, codLimitedDiscoverable, codMajorDeviceClass
    case codMinorDeviceClass, codFormatType
    case hashC, randomizerR
    case didVendorIDSource, didVendorID, didProductID, didVersion, smTKValue
    case oobReserved, oobAddressType, oobLEBREDRSupport, oobLESupportedHost, oobDataPresent
    case connectionIntervalMin, connectionIntervalMax
    case serviceData, bdAddr
    case appearance, appearanceCategory, appearanceSubcategory
    case advertisingInterval, advertisingIntervalLong
    case leBDAddrReserved, leBDAddrType, leRole
    case leSCConfirmationValue, leSCRandomValue
    case uriScheme, uri
    case ipsFlags, ipsFlagsReserved, ipsFlagsLocationName, ipsFlagsUncertainty, ipsFlagsFloorNumber
    case ipsFlagsAltitude, ipsFlagsTxPower, ipsFlagsCoordinateSystem, ipsFlagsCoordinates
    case ipsLatitude, ipsLongitude, ipsLocalNorth, ipsLocalEast, ipsTxPowerLevel, ipsFloorNumber, ipsAltitude
    case ipsUncertainty, ipsUncertaintyReserved, ipsUncertaintyPrecision, ipsUncertaintyUpdateTime
    case ipsUncertaintyStationary
    case tdsOrganizationID, tdsFlags, tdsFlagsReserved, tdsFlagsTransportState, tdsFlagsIncomplete, tdsFlagsRole
    case tdsDataLength, tdsData
    case leFeatures, leFeature
    case channelMap, instant
    case meshPBADV, meshMessage, meshBeacon
    case bigOffset, bigOffsetUnits, isoInterval, numBIS, nse, bn, subInterval, pto, bisSpacing, irc, maxPDU
    case bigRFU, seedAccessAddress, sduInterval, maxSDU, baseCRCInit, bigChannelMap, phy, bisPayloadCount
    case framing, giv, gskd
    case broadcastCode, rsiHash, rsiPrand, broadcastName
    case eadRandomizer, eadPayload, eadMIC
    case pawrRspAA, pawrNumSubevents, pawrSubeventInterval, pawrResponseSlotDelay, pawrResponseSlotSpacing
    case threeDSFactoryTestMode, threeDSReserved, threeDSSendBatteryLevelReportOnStartup
    case threeDSBatteryLevelReporting, threeDSAssociationNotification, threeDSPathLossThreshold
    case companyID

    public static let layer = FieldDescriptor(
        "btcommon.eir_ad.advertising_data",
        "Advertising Data",
        .layer,
        help: "A block of AD structures: advertising or scan response data",
        short: "AD"
    )

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .entry: FieldDescriptor("btcommon.eir_ad.entry", "AD Structure", .group, help: "One AD structure: length, type, data")
        case .length: .uint("btcommon.eir_ad.entry.length", "Length", 8, help: "Octets that follow: the AD type and its data")
        case .type: .uint("btcommon.eir_ad.entry.type", "Type", 8, hex: true, names: ValueNames(ADNames.adTypes, filterAliases: ADNames.wiresharkADTypes))
        case .data: FieldDescriptor("btcommon.eir_ad.entry.data", "Data", .bytes)
        case .unused: FieldDescriptor("btcommon.eir_ad.unused", "Unused", .bytes, help: "The non-significant part after a zero length octet (padding)")

        case .flagsReserved: Self.reserved("flags.reserved", 0xE0)
        case .flagsLEBREDRHost: Self.flag("flags.le_bredr_support_host", "Simultaneous LE and BR/EDR to Same Device Capable (Host)", 0x10)
        case .flagsLEBREDRController: Self.flag("flags.le_bredr_support_controller", "Simultaneous LE and BR/EDR to Same Device Capable (Controller)", 0x08)
        case .flagsBREDRNotSupported: Self.flag("flags.bredr_not_supported", "BR/EDR Not Supported", 0x04)
        case .flagsGeneralDiscoverable: Self.flag("flags.le_general_discoverable_mode", "LE General Discoverable Mode", 0x02)
        case .flagsLimitedDiscoverable: Self.flag("flags.le_limited_discoverable_mode", "LE Limited Discoverable Mode", 0x01)

        case .uuid16: .uint("btcommon.eir_ad.entry.uuid_16", "UUID 16", 16, hex: true, names: Self.uuid16Names)
        case .uuid32: .uint("btcommon.eir_ad.entry.uuid_32", "UUID 32", 32, hex: true, names: Self.uuid16Names, help: "A 32-bit UUID with a known name")
        case .uuid128: FieldDescriptor("btcommon.eir_ad.entry.uuid_128", "UUID 128", .uuid, help: "A 128-bit UUID with a known name")
        case .customUUID32: .uint("btcommon.eir_ad.entry.custom_uuid_32", "Custom UUID", 32, hex: true, help: "A 32-bit UUID without a known name")
        case .customUUID128: FieldDescriptor("btcommon.eir_ad.entry.custom_uuid_128", "Custom UUID", .uuid, help: "A 128-bit UUID without a known name")
        case .serviceUUID: FieldDescriptor("adv.uuid", "Service UUID", .uuid, help: "Every advertised service UUID, of any width: UUID lists and service data")
        case .solicitedUUID: FieldDescriptor("adv.solicited_uuid", "Solicited Service UUID", .uuid, help: "Every service UUID in a Service Solicitation list, of any width")

        case .deviceName: FieldDescriptor("btcommon.eir_ad.entry.device_name", "Device Name", .string)
        case .powerLevel: .int("btcommon.eir_ad.entry.power_level", "Power Level (dBm)", 8)

        case .classOfDevice: .uint("adv.class_of_device", "Class of Device", 24, hex: true)
        case .codInformation: Self.codBit("information", "Information", 0x80_0000)
        case .codTelephony: Self.codBit("telephony", "Telephony", 0x40_0000)
        case .codAudio: Self.codBit("audio", "Audio", 0x20_0000)
        case .codObjectTransfer: Self.codBit("object_transfer", "Object Transfer", 0x10_0000)
        case .codCapturing: Self.codBit("capturing", "Capturing", 0x08_0000)
        case .codRendering: Self.codBit("rendering", "Rendering", 0x04_0000)
        case .codNetworking: Self.codBit("networking", "Networking", 0x02_0000)
        case .codPositioning: Self.codBit("positioning", "Positioning", 0x01_0000)
        case .codLEAudio: Self.codBit("le_audio", "LE Audio", 0x00_4000)
        case .codLimitedDiscoverable: Self.codBit("limited_discoverable_mode", "Limited Discoverable Mode", 0x2000)
        case .codMajorDeviceClass: .uint("adv.class_of_device.major_device_class", "Major Device Class", 24, hex: true, names: ADNames.majorDeviceClass, mask: 0x1F00)
        case .codMinorDeviceClass: .uint("adv.class_of_device.minor_device_class", "Minor Device Class", 24, hex: true, mask: 0xFC)
        case .codFormatType: .uint("adv.class_of_device.format_type", "Format Type", 24, hex: true, mask: 0x03)

        case .hashC: FieldDescriptor("btcommon.eir_ad.entry.hash_c", "Hash C", .bytes)
        case .randomizerR: FieldDescriptor("btcommon.eir_ad.entry.randomizer_r", "Randomizer R", .bytes)
        case .didVendorIDSource: .uint("btcommon.eir_ad.entry.did.vendor_id_source", "Vendor ID Source", 16, hex: true, names: ADNames.didVendorIDSource)
        case .didVendorID: .uint("btcommon.eir_ad.entry.did.vendor_id", "Vendor ID", 16, hex: true, help: "A Bluetooth SIG company identifier or a USB vendor ID, as the source says")
        case .didProductID: .uint("btcommon.eir_ad.entry.did.product_id", "Product ID", 16, hex: true)
        case .didVersion: .uint("btcommon.eir_ad.entry.did.version", "Version", 16, hex: true)
        case .smTKValue: FieldDescriptor("adv.sm_tk_value", "Security Manager TK Value", .bytes)

        case .oobReserved: Self.reserved("oob_flags.oob_reserved", 0xF0)
        case .oobAddressType: Self.namedBits("oob_flags.oob_address_type", "Address Type", ADNames.oobAddressType, 0x08)
        case .oobLEBREDRSupport: Self.flag("oob_flags.oob_le_bredr_support", "Simultaneous LE and BR/EDR to Same Device Capable (Host)", 0x04)
        case .oobLESupportedHost: Self.flag("oob_flags.oob_le_supported_host", "LE Supported By Host", 0x02)
        case .oobDataPresent: Self.flag("oob_flags.oob_data_present", "OOB Data Present", 0x01)

        case .connectionIntervalMin: .uint("btcommon.eir_ad.entry.connection_interval_min", "Connection Interval Min", 16, names: ADNames.connectionInterval, help: "Units of 1.25 ms")
        case .connectionIntervalMax: .uint("btcommon.eir_ad.entry.connection_interval_max", "Connection Interval Max", 16, names: ADNames.connectionInterval, help: "Units of 1.25 ms")

        case .serviceData: FieldDescriptor("btcommon.eir_ad.entry.service_data", "Service Data", .bytes)
        case .bdAddr: FieldDescriptor("btcommon.eir_ad.entry.bd_addr", "BD_ADDR", .address)

        case .appearance: .uint("btcommon.eir_ad.entry.appearance", "Appearance", 16, hex: true, names: ADNames.appearanceNames)
        case .appearanceCategory: .uint("adv.appearance.category", "Category", 16, hex: true, names: ADNames.appearanceCategoryNames, mask: 0xFFC0)
        case .appearanceSubcategory: .uint("adv.appearance.subcategory", "Subcategory", 16, hex: true, mask: 0x003F)

        case .advertisingInterval: .uint("btcommon.eir_ad.entry.advertising_interval", "Advertising Interval", 16, help: "Units of 0.625 ms")
        case .advertisingIntervalLong: .uint("adv.advertising_interval_long", "Advertising Interval", 32, help: "Units of 0.625 ms (the 3- or 4-octet form)")

        case .leBDAddrReserved: Self.reserved("le_bd_addr.reserved", 0xFE)
        case .leBDAddrType: Self.namedBits("le_bd_addr.type", "Address Type", ADNames.addressType, 0x01)
        case .leRole: .uint("btcommon.eir_ad.entry.le_role", "LE Role", 8, hex: true, names: ADNames.leRole)
        case .leSCConfirmationValue: FieldDescriptor("btcommon.eir_ad.entry.le_secure_confirmation_value", "LE Secure Connections Confirmation Value", .bytes)
        case .leSCRandomValue: FieldDescriptor("btcommon.eir_ad.entry.le_secure_random_value", "LE Secure Connections Random Value", .bytes)

        case .uriScheme: .uint("adv.uri.scheme", "URI Scheme", 16, hex: true, names: ADNames.uriSchemeNames, help: "Code point from the Assigned Numbers URI scheme list")
        case .uri: FieldDescriptor("btcommon.eir_ad.entry.uri", "URI", .string, help: "The URI with its scheme code point expanded")

        case .ipsFlags: .uint("btcommon.eir_ad.entry.ips.flags", "Indoor Positioning Configuration", 8, hex: true)
        case .ipsFlagsReserved: Self.reserved("ips.flags.reserved", 0x80)
        case .ipsFlagsLocationName: Self.flag("ips.flags.location_name", "Location Name", 0x40)
        case .ipsFlagsUncertainty: Self.flag("ips.flags.uncertainty", "Uncertainty", 0x20)
        case .ipsFlagsFloorNumber: Self.flag("ips.flags.floor_number", "Floor Number", 0x10)
        case .ipsFlagsAltitude: Self.flag("ips.flags.altitude", "Altitude", 0x08)
        case .ipsFlagsTxPower: Self.flag("ips.flags.tx_power", "Tx Power", 0x04)
        case .ipsFlagsCoordinateSystem: Self.namedBits("ips.flags.coordinate_system", "Coordinate System", ADNames.ipsCoordinateSystem, 0x02)
        case .ipsFlagsCoordinates: Self.flag("ips.flags.coordinates", "Coordinates", 0x01)
        case .ipsLatitude: .int("btcommon.eir_ad.entry.ips.latitude", "Latitude", 32, help: "WGS84, 90/2^31 degrees")
        case .ipsLongitude: .int("btcommon.eir_ad.entry.ips.longitude", "Longitude", 32, help: "WGS84, 180/2^31 degrees")
        case .ipsLocalNorth: .int("btcommon.eir_ad.entry.ips.local_north_coordinate", "Local North Coordinate", 16, help: "Units of 0.1 m")
        case .ipsLocalEast: .int("btcommon.eir_ad.entry.ips.local_east_coordinate", "Local East Coordinate", 16, help: "Units of 0.1 m")
        case .ipsTxPowerLevel: .int("btcommon.eir_ad.entry.ips.tx_power_level", "Tx Power Level (dBm)", 8)
        case .ipsFloorNumber: .uint("btcommon.eir_ad.entry.ips.floor_number", "Floor Number", 8, help: "Floor + 20 (0 = floor -20)")
        case .ipsAltitude: .uint("btcommon.eir_ad.entry.ips.altitude", "Altitude", 16, help: "Decimetres above the WGS84 ellipsoid + 1000")
        case .ipsUncertainty: .uint("btcommon.eir_ad.entry.ips.uncertainty", "Uncertainty", 8, hex: true)
        case .ipsUncertaintyReserved: Self.reserved("ips.uncertainty.reserved", 0x80)
        case .ipsUncertaintyPrecision: Self.namedBits("ips.uncertainty.precision", "Precision", ADNames.ipsPrecision, 0x70)
        case .ipsUncertaintyUpdateTime: Self.namedBits("ips.uncertainty.update_time", "Update Time", ADNames.ipsUpdateTime, 0x0E)
        case .ipsUncertaintyStationary: Self.namedBits("ips.uncertainty.stationary", "Stationary", ADNames.ipsStationary, 0x01)

        case .tdsOrganizationID: .uint("btcommon.eir_ad.entry.tds.organization_id", "Organization ID", 8, hex: true, names: ADNames.tdsOrganization)
        case .tdsFlags: .uint("btcommon.eir_ad.entry.tds.flags", "Flags", 8, hex: true)
        case .tdsFlagsReserved: Self.reserved("tds.flags.reserved", 0xE0)
        case .tdsFlagsTransportState: Self.namedBits("tds.flags.transport_state", "Transport State", ADNames.tdsTransportState, 0x18)
        case .tdsFlagsIncomplete: Self.flag("tds.flags.transport_data_incomplete", "Transport Data Incomplete", 0x04)
        case .tdsFlagsRole: Self.namedBits("tds.flags.role", "Role", ADNames.tdsRole, 0x03)
        case .tdsDataLength: .uint("btcommon.eir_ad.entry.tds.data_length", "Data Length", 8)
        case .tdsData: FieldDescriptor("btcommon.eir_ad.entry.tds.data", "Data", .bytes)

        case .leFeatures: .uint("btcommon.eir_ad.entry.le_features", "LE Features", 8, hex: true, help: "One octet of the LE features bit field")
        case .leFeature: .uint("adv.le_feature", "LE Feature", 8, names: ADNames.leFeature, help: "The bit number of a feature that is set")
        case .channelMap: FieldDescriptor("btcommon.eir_ad.entry.le_channel_map", "Channel Map", .bytes)
        case .instant: .uint("btcommon.eir_ad.entry.instant", "Instant", 16)
        case .meshPBADV: FieldDescriptor("btcommon.eir_ad.entry.mesh_pbadv", "Mesh PB-ADV message content", .bytes)
        case .meshMessage: FieldDescriptor("btcommon.eir_ad.entry.mesh_msg", "Mesh message content", .bytes)
        case .meshBeacon: FieldDescriptor("btcommon.eir_ad.entry.mesh_beacon", "Mesh Beacon message content", .bytes)

        case .bigOffset: Self.big("big_offset", "BIG_Offset", 32, 0x3FFF)
        case .bigOffsetUnits: .uint("btcommon.eir_ad.entry.biginfo.big_offset_units", "BIG_Offset_Units", 32, names: ADNames.bigOffsetUnits, mask: 0x4000)
        case .isoInterval: Self.big("iso_interval", "ISO_Interval", 32, 0x07FF_8000, help: "Units of 1.25 ms")
        case .numBIS: Self.big("num_bis", "Num_BIS", 32, 0xF800_0000)
        case .nse: Self.big("nse", "NSE", 32, 0x1F)
        case .bn: Self.big("bn", "BN", 32, 0xE0)
        case .subInterval: Self.big("sub_interval", "Sub_Interval", 32, 0x0FFF_FF00, help: "Microseconds")
        case .pto: Self.big("pto", "PTO", 32, 0xF000_0000)
        case .bisSpacing: Self.big("bis_spacing", "BIS_Spacing", 24, 0x0F_FFFF, help: "Microseconds")
        case .irc: Self.big("irc", "IRC", 24, 0xF0_0000)
        case .maxPDU: Self.big("max_pdu", "Max_PDU", 8, 0)
        case .bigRFU: Self.big("rfu", "Reserved", 8, 0)
        case .seedAccessAddress: .uint("btcommon.eir_ad.entry.biginfo.seed_access_address", "Seed Access Address", 32, hex: true)
        case .sduInterval: Self.big("sdu_interval", "SDU_Interval", 32, 0x000F_FFFF, help: "Microseconds")
        case .maxSDU: Self.big("max_sdu", "Max_SDU", 32, 0xFFF0_0000)
        case .baseCRCInit: .uint("btcommon.eir_ad.entry.biginfo.base_crc_init", "BaseCRCInit", 16, hex: true)
        case .bigChannelMap: .uint("btcommon.eir_ad.entry.biginfo.channel_map", "Channel Map", 40, hex: true, mask: 0x1F_FFFF_FFFF)
        case .phy: .uint("btcommon.eir_ad.entry.biginfo.phy", "PHY", 40, names: ADNames.phy, mask: 0xE0_0000_0000)
        case .bisPayloadCount: Self.big("bis_payload_count", "bisPayloadCount", 40, 0x7F_FFFF_FFFF)
        case .framing: .uint("btcommon.eir_ad.entry.biginfo.framing", "Framing", 40, names: ADNames.framing, mask: 0x80_0000_0000)
        case .giv: FieldDescriptor("btcommon.eir_ad.entry.biginfo.giv", "GIV", .bytes)
        case .gskd: FieldDescriptor("btcommon.eir_ad.entry.biginfo.gskd", "GSKD", .bytes)

        case .broadcastCode: FieldDescriptor("btcommon.eir_ad.entry.broadcast_code", "Broadcast Code", .string, help: "The 16 octets as UTF-8, trailing zero octets removed")
        case .rsiHash: .uint("adv.rsi.hash", "RSI hash", 24, hex: true)
        case .rsiPrand: .uint("adv.rsi.prand", "RSI prand", 24, hex: true)
        case .broadcastName: FieldDescriptor("adv.broadcast_name", "Broadcast Name", .string)
        case .eadRandomizer: FieldDescriptor("adv.ead.randomizer", "Randomizer", .bytes)
        case .eadPayload: FieldDescriptor("adv.ead.payload", "Encrypted Payload", .bytes)
        case .eadMIC: FieldDescriptor("adv.ead.mic", "MIC", .bytes)
        case .pawrRspAA: .uint("adv.pawr.rsp_aa", "RspAA", 32, hex: true)
        case .pawrNumSubevents: .uint("adv.pawr.num_subevents", "Num_Subevents", 8)
        case .pawrSubeventInterval: .uint("adv.pawr.subevent_interval", "Subevent_Interval", 8, help: "Units of 1.25 ms")
        case .pawrResponseSlotDelay: .uint("adv.pawr.response_slot_delay", "Response_Slot_Delay", 8, help: "Units of 1.25 ms")
        case .pawrResponseSlotSpacing: .uint("adv.pawr.response_slot_spacing", "Response_Slot_Spacing", 8, help: "Units of 0.125 ms")

        case .threeDSFactoryTestMode: Self.flag("3ds.factory_test_mode", "3DS Factory Test Mode", 0x80)
        case .threeDSReserved: Self.reserved("3ds.reserved", 0x78)
        case .threeDSSendBatteryLevelReportOnStartup: Self.flag("3ds.send_battery_level_report_on_startup", "3DS Send Battery Level Report on Startup", 0x04)
        case .threeDSBatteryLevelReporting: Self.flag("3ds.battery_level_reporting", "3DS Battery Level Reporting", 0x02)
        case .threeDSAssociationNotification: Self.flag("3ds.association_notification", "3DS Association Notification", 0x01)
        case .threeDSPathLossThreshold: .uint("btcommon.eir_ad.entry.3ds.path_loss_threshold", "3DS Path Loss Threshold", 8, help: "dB")

        case .companyID: .uint("btcommon.eir_ad.entry.company_id", "Company ID", 16, hex: true, names: Self.companyNames)
        }
    }

    static let uuid16Names = ValueNames(lookup: { v in v <= 0xFFFF ? SIGNames.uuid16(UInt16(v)) : nil })

    static let companyNames = ValueNames(lookup: { v in v <= 0xFFFF ? SIGNames.company(UInt16(v)) : nil })

    // The bit fields of a flags octet; `key` follows `btcommon.eir_ad.entry.`.

    /// One flag bit: a boolean with its mask.
    private static func flag(_ key: String, _ name: String, _ mask: UInt64) -> FieldDescriptor {
        .flag("btcommon.eir_ad.entry." + key, name, mask)
    }

    /// The reserved bits, shown in hex.
    private static func reserved(_ key: String, _ mask: UInt64) -> FieldDescriptor {
        .uint("btcommon.eir_ad.entry." + key, "Reserved", 8, hex: true, mask: mask)
    }

    /// A named value held in some of the bits, shown in hex.
    private static func namedBits(
        _ key: String,
        _ name: String,
        _ names: ValueNames,
        _ mask: UInt64
    ) -> FieldDescriptor {
        .uint("btcommon.eir_ad.entry." + key, name, 8, hex: true, names: names, mask: mask)
    }

    private static func codBit(_ key: String, _ name: String, _ mask: UInt64) -> FieldDescriptor {
        .flag("adv.class_of_device.major_service_classes." + key, "Major Service Classes: " + name, mask)
    }

    private static func big(
        _ key: String,
        _ name: String,
        _ bits: UInt8,
        _ mask: UInt64,
        help: String = ""
    ) -> FieldDescriptor {
        .uint("btcommon.eir_ad.entry.biginfo." + key, name, bits, mask: mask, help: help)
    }
}
