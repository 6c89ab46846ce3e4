public import BLEInspectCore

/// The fields of the Attribute Protocol, of the GATT procedures built on it, and of the attribute
/// values this module decodes.
///
/// Filter names are Wireshark's (`btatt.*`) where Wireshark has the field. What Wireshark lacks is
/// under `gatt.*`: what bleinspect learns from GATT discovery (the UUID and name of the attribute a
/// handle refers to), the request/response time, the ATT MTU, and the CoreBluetooth L2CAP PSM
/// characteristic.
///
/// Every handle is a `btatt.handle`, as in Wireshark (so `btatt.handle == 0x0010` and
/// `tshark -T fields -e btatt.handle` scripts carry over). A handle with a particular role also gets
/// a child field named for it: `btatt.handle_in_error` (Error Response),
/// `btatt.characteristic_value_handle` (characteristic declarations) and
/// `gatt.included_service_handle` (include declarations).
///
/// Under each handle are also the UUIDs Wireshark shows there (`btatt.service_uuid*`,
/// `btatt.characteristic_uuid*`, `btatt.uuid*`), from Wireshark's record of the controller's
/// handles (`HandleRecord`), and bleinspect's own reading of the connection's discovery
/// (`gatt.uuid`, `gatt.name`, `gatt.characteristic_uuid`, `gatt.service_uuid`).
public enum ATTField: UInt16, FieldSet {
    // The PDU.
    case opcode, opcodeMethod, opcodeCommand, opcodeSignature
    case reqOpcodeInError, handleInError, errorCode
    case clientRxMTU, serverRxMTU
    case startingHandle, endingHandle, groupEndHandle, handle
    case uuidFormat, informationData, handlesInfo, attributeData
    case uuid16, uuid128, serviceUUID16, serviceUUID128, characteristicUUID16, characteristicUUID128
    case value, length, offset, flags
    case signCounter, signature
    case characteristicProperties
    case propertyBroadcast, propertyRead, propertyWriteWithoutResponse, propertyWrite
    case propertyNotify, propertyIndicate, propertyAuthenticatedSignedWrites, propertyExtendedProperties
    case characteristicValueHandle
    case requestInFrame, responseInFrame
    // Learned from GATT discovery and request/response matching.
    case gattUUID, gattName, gattCharacteristicUUID, gattServiceUUID
    case gattResponseTime, gattMTU, gattIncludedServiceHandle, gattValueLength
    // Attribute values, decoded by characteristic or descriptor UUID.
    case deviceName, appearance, appearanceCategory, appearanceSubcategory
    case minimumConnectionInterval, maximumConnectionInterval, peripheralLatency, supervisionTimeout
    case batteryLevel
    case pnpVendorIDSource, pnpVendorID, pnpProductID, pnpProductVersion
    case cccd, cccdNotification, cccdIndication, cccdReserved
    case userDescription
    case manufacturerName, modelNumber, serialNumber, firmwareRevision, hardwareRevision, softwareRevision
    case txPowerLevel
    case gattL2CAPPSM, gattL2CAPPSMEncoding, gattL2CAPPSMMember, gattL2CAPPSMChannelIn

    public static let layer = FieldDescriptor(
        "btatt",
        "Bluetooth Attribute Protocol",
        .layer,
        help: "ATT on the LE fixed channel 4 and on EATT channels",
        short: "ATT"
    )

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .opcode: .uint("btatt.opcode", "Opcode", 8, hex: true, names: ATTNames.opcodes)
        case .opcodeMethod: .uint("btatt.opcode.method", "Method", 8, hex: true, names: ATTNames.opcodes, mask: 0x3F)
        case .opcodeCommand: .flag("btatt.opcode.command", "Command", 0x40)
        case .opcodeSignature: .flag("btatt.opcode.authentication_signature", "Authentication Signature", 0x80)
        case .reqOpcodeInError: .uint("btatt.req_opcode_in_error", "Request Opcode in Error", 8, hex: true, names: ATTNames.opcodes)
        case .handleInError: .uint("btatt.handle_in_error", "Handle in Error", 16, hex: true, help: "In an Error Response, the handle the failed request was about (a child of its btatt.handle)")
        case .errorCode: .uint("btatt.error_code", "Error Code", 8, hex: true, names: ATTNames.errors)
        case .clientRxMTU: .uint("btatt.client_rx_mtu", "Client Rx MTU", 16)
        case .serverRxMTU: .uint("btatt.server_rx_mtu", "Server Rx MTU", 16)
        case .startingHandle: .uint("btatt.starting_handle", "Starting Handle", 16, hex: true)
        case .endingHandle: .uint("btatt.ending_handle", "Ending Handle", 16, hex: true)
        case .groupEndHandle: .uint("btatt.group_end_handle", "Group End Handle", 16, hex: true)
        case .handle: .uint("btatt.handle", "Handle", 16, hex: true, help: "An attribute handle. In responses that carry no handle (Read, Read Blob, Write, Prepare Write, Handle Value Confirmation) it is the request's handle, with an empty byte range")
        case .uuidFormat: .uint("btatt.uuid_format", "UUID Format", 8, hex: true, names: ValueNames([(1, "16-bit UUIDs"), (2, "128-bit UUIDs")]))
        case .informationData: FieldDescriptor("btatt.information_data", "Information Data", .group)
        case .handlesInfo: FieldDescriptor("btatt.handles_info", "Handles Info", .group)
        case .attributeData: FieldDescriptor("btatt.attribute_data", "Attribute Data", .group)
        case .uuid16: .uint("btatt.uuid16", "UUID", 16, hex: true, names: GATTNames.uuid16Names, help: "A 16-bit UUID in the PDU; under a btatt.handle, the handle's own UUID as Wireshark records it; after the entries of a Read By (Group) Type response or Error Response, the requested type")
        case .uuid128: FieldDescriptor("btatt.uuid128", "UUID", .uuid, help: "A 128-bit UUID, where btatt.uuid16 would be for a 16-bit one (Wireshark stores it as bytes)")
        case .serviceUUID16: .uint("btatt.service_uuid16", "Service UUID", 16, hex: true, names: GATTNames.uuid16Names, help: "Under a btatt.handle: the service the handle falls in, as Wireshark records it")
        case .serviceUUID128: FieldDescriptor("btatt.service_uuid128", "Service UUID", .uuid, help: "Under a btatt.handle: the 128-bit service the handle falls in, as Wireshark records it")
        case .characteristicUUID16: .uint("btatt.characteristic_uuid16", "Characteristic UUID", 16, hex: true, names: GATTNames.uuid16Names, help: "Under a btatt.handle: the characteristic the handle belongs to, as Wireshark records it")
        case .characteristicUUID128: FieldDescriptor("btatt.characteristic_uuid128", "Characteristic UUID", .uuid, help: "Under a btatt.handle: the 128-bit characteristic the handle belongs to, as Wireshark records it")
        case .value: FieldDescriptor("btatt.value", "Value", .bytes, help: "An attribute value; decoded fields of well-known characteristics follow inside it")
        case .length: .uint("btatt.length", "Length", 8, help: "Length of each Handle/Value pair")
        case .offset: .uint("btatt.offset", "Offset", 16)
        case .flags: .uint("btatt.flags", "Flags", 8, hex: true, names: ValueNames([(0, "Cancel All"), (1, "Immediately Write All")]))
        case .signCounter: .uint("btatt.sign_counter", "Sign Counter", 32)
        case .signature: FieldDescriptor("btatt.signature", "Signature", .bytes, help: "The 8-byte MAC of the 12-byte authentication signature")
        case .characteristicProperties: .uint("btatt.characteristic_properties", "Characteristic Properties", 8, hex: true)
        case .propertyBroadcast: .flag("btatt.characteristic_properties.broadcast", "Broadcast", 0x01)
        case .propertyRead: .flag("btatt.characteristic_properties.read", "Read", 0x02)
        case .propertyWriteWithoutResponse: .flag("btatt.characteristic_properties.write_without_response", "Write without Response", 0x04)
        case .propertyWrite: .flag("btatt.characteristic_properties.write", "Write", 0x08)
        case .propertyNotify: .flag("btatt.characteristic_properties.notify", "Notify", 0x10)
        case .propertyIndicate: .flag("btatt.characteristic_properties.indicate", "Indicate", 0x20)
        case .propertyAuthenticatedSignedWrites: .flag("btatt.characteristic_properties.authenticated_signed_writes", "Authenticated Signed Writes", 0x40)
        case .propertyExtendedProperties: .flag("btatt.characteristic_properties.extended_properties", "Extended Properties", 0x80)
        case .characteristicValueHandle: .uint("btatt.characteristic_value_handle", "Characteristic Value Handle", 16, hex: true, help: "In a characteristic declaration, the handle of the value (a child of its btatt.handle)")
        case .requestInFrame: .uint("btatt.request_in_frame", "Request in Frame", 32, help: "The frame of the request (or indication) this PDU answers")
        case .responseInFrame: .uint("btatt.response_in_frame", "Response in Frame", 32, help: "The frame of the response to this request. bleinspect dissects in one pass, so it does not know this yet when it shows the request; the response names its request (btatt.request_in_frame)")
        case .gattUUID: FieldDescriptor("gatt.uuid", "Attribute UUID", .uuid, help: "The type of the attribute at this handle, learned from GATT discovery earlier on the same connection: the characteristic UUID for a value handle, the descriptor UUID for a descriptor, 0x2800/0x2801/0x2802/0x2803 for declarations. Absent when discovery was not captured")
        case .gattName: FieldDescriptor("gatt.name", "Attribute Name", .string, help: "The Bluetooth SIG (or vendor) name of gatt.uuid")
        case .gattCharacteristicUUID: FieldDescriptor("gatt.characteristic_uuid", "Characteristic UUID", .uuid, help: "For a descriptor or a characteristic declaration: the characteristic it belongs to")
        case .gattServiceUUID: FieldDescriptor("gatt.service_uuid", "Service UUID", .uuid, help: "The service whose handle range holds this handle, learned from service discovery")
        case .gattResponseTime: .uint("gatt.response_time", "Response Time (µs)", 64, help: "Microseconds from the request (or indication) to this response (or confirmation)")
        case .gattMTU: .uint("gatt.mtu", "ATT MTU", 16, help: "The ATT_MTU agreed by this exchange: the smaller of the client's and the server's Rx MTU, at least 23")
        case .gattIncludedServiceHandle: .uint("gatt.included_service_handle", "Included Service Handle", 16, hex: true, help: "In an include declaration, the first handle of the included service (a child of its btatt.handle)")
        case .gattValueLength: .uint("gatt.value_length", "Value Length", 16, help: "Length of one value in a Read Multiple Variable Response or Multiple Handle Value Notification")
        case .deviceName: FieldDescriptor("btatt.device_name", "Device Name", .string)
        case .appearance: .uint("btatt.appearance", "Appearance", 16, hex: true, names: GATTNames.appearanceNames)
        case .appearanceCategory: FieldDescriptor("btatt.appearance.category", "Category", .unsigned(bits: 16), base: .decimalAndHex, names: GATTNames.appearanceCategories, bitmask: 0xFFC0, help: "Bits 15–6 of the appearance, shifted")
        case .appearanceSubcategory: FieldDescriptor("btatt.appearance.subcategory", "Subcategory", .unsigned(bits: 16), base: .decimalAndHex, bitmask: 0x003F)
        case .minimumConnectionInterval: .uint("btatt.minimum_connection_interval", "Minimum Connection Interval", 16, help: "Units of 1.25 ms; 0xFFFF means no specific value")
        case .maximumConnectionInterval: .uint("btatt.maximum_connection_interval", "Maximum Connection Interval", 16, help: "Units of 1.25 ms; 0xFFFF means no specific value")
        case .peripheralLatency: .uint("btatt.slave_latency", "Peripheral Latency", 16, help: "Connection events the peripheral may skip (Wireshark's name predates the spec's new terms)")
        case .supervisionTimeout: .uint("btatt.connection_supervision_timeout_multiplier", "Connection Supervision Timeout Multiplier", 16, help: "Units of 10 ms; 0xFFFF means no specific value")
        case .batteryLevel: .uint("btatt.battery_level", "Battery Level", 8, help: "Percent")
        case .pnpVendorIDSource: .uint("btatt.pnp_id.vendor_id_source", "Vendor ID Source", 8, hex: true, names: ValueNames([(1, "Bluetooth SIG assigned Company Identifier"), (2, "USB Implementer's Forum assigned Vendor ID")]))
        case .pnpVendorID: .uint("btatt.pnp_id.vendor_id", "Vendor ID", 16, hex: true)
        case .pnpProductID: .uint("btatt.pnp_id.product_id", "Product ID", 16, hex: true)
        case .pnpProductVersion: .uint("btatt.pnp_id.product_version", "Version", 16, hex: true)
        case .cccd: .uint("btatt.characteristic_configuration_client", "Characteristic Configuration Client", 16, hex: true)
        case .cccdNotification: .flag("btatt.characteristic_configuration_client.notification", "Notification", 0x0001)
        case .cccdIndication: .flag("btatt.characteristic_configuration_client.indication", "Indication", 0x0002)
        case .cccdReserved: .uint("btatt.characteristic_configuration_client.reserved", "Reserved", 16, hex: true, mask: 0xFFFC)
        case .userDescription: FieldDescriptor("btatt.characteristic_user_description", "Characteristic User Description", .string)
        case .manufacturerName: FieldDescriptor("btatt.manufacturer_string", "Manufacturer String", .string)
        case .modelNumber: FieldDescriptor("btatt.model_number_string", "Model Number String", .string)
        case .serialNumber: FieldDescriptor("btatt.serial_number_string", "Serial Number String", .string)
        case .firmwareRevision: FieldDescriptor("btatt.firmware_revision_string", "Firmware Revision String", .string)
        case .hardwareRevision: FieldDescriptor("btatt.hardware_revision_string", "Hardware Revision String", .string)
        case .softwareRevision: FieldDescriptor("btatt.software_revision_string", "Software Revision String", .string)
        case .txPowerLevel: .int("btatt.tx_power_level", "Tx Power Level", 8, help: "dBm")
        case .gattL2CAPPSM: .uint("gatt.l2cap_psm", "L2CAP PSM", 16, hex: true, help: "The value of Apple CoreBluetooth's L2CAP PSM characteristic (ABDD3056-28FA-441D-A470-55A75A52553A): the PSM to open an LE credit-based channel on, in whichever encoding the app published it (gatt.l2cap_psm.encoding)")
        case .gattL2CAPPSMEncoding: .uint("gatt.l2cap_psm.encoding", "Encoding", 8, names: PSMValue.Encoding.names, help: "How the PSM is written: 1 little-endian uint16 (Apple's), 2 big-endian uint16, 3 ASCII decimal, 4 ASCII hex, 5 JSON")
        case .gattL2CAPPSMMember: FieldDescriptor("gatt.l2cap_psm.json_member", "JSON Member", .string, help: "The JSON member the PSM was taken from")
        case .gattL2CAPPSMChannelIn: .uint("gatt.l2cap_psm.channel_in", "Channel Requested in Frame", 32, help: "The connection request of a credit-based channel opened on this PSM by the other side. Known only with read -2 (two passes), as Wireshark knows btatt.response_in_frame")
        }
    }
}

/// Value names of ATT opcodes and error codes (Core Specification Vol 3 Part F 3.4).
enum ATTNames {
    /// The opcodes' names, from `ATTOpcodes.table`.
    static let opcodes = ValueNames(ATTOpcodes.table.facts.all.map { (UInt64($0.opcode), $0.name) })

    /// `opcodes` by opcode: every ATT PDU's summary names its opcode.
    private static let byOpcode: [String?] = (0...255).map { opcodes.lookup(UInt64($0)) }

    /// The name of `opcode`, or "Unknown Opcode 0xNN".
    static func opcodeName(_ opcode: UInt8) -> String {
        byOpcode[Int(opcode)] ?? "Unknown Opcode " + hex8(opcode)
    }

    static let errorList: [(UInt64, String)] = {
        var pairs: [(UInt64, String)] = [
            (0x01, "Invalid Handle"),
            (0x02, "Read Not Permitted"),
            (0x03, "Write Not Permitted"),
            (0x04, "Invalid PDU"),
            (0x05, "Insufficient Authentication"),
            (0x06, "Request Not Supported"),
            (0x07, "Invalid Offset"),
            (0x08, "Insufficient Authorization"),
            (0x09, "Prepare Queue Full"),
            (0x0A, "Attribute Not Found"),
            (0x0B, "Attribute Not Long"),
            (0x0C, "Encryption Key Size Too Short"),
            (0x0D, "Invalid Attribute Value Length"),
            (0x0E, "Unlikely Error"),
            (0x0F, "Insufficient Encryption"),
            (0x10, "Unsupported Group Type"),
            (0x11, "Insufficient Resources"),
            (0x12, "Database Out Of Sync"),
            (0x13, "Value Not Allowed"),
        ]
        for code in UInt64(0x80)...0x9F { pairs.append((code, "Application Error")) }
        for code in UInt64(0xE0)...0xFB { pairs.append((code, "Reserved Common Profile and Service Error")) }
        pairs += [
            (0xFC, "Write Request Rejected"),
            (0xFD, "Client Characteristic Configuration Descriptor Improperly Configured"),
            (0xFE, "Procedure Already in Progress"),
            (0xFF, "Out of Range"),
        ]
        return pairs
    }()

    static let errors = ValueNames(errorList)

    static func errorName(_ code: UInt8) -> String {
        errors.lookup(UInt64(code)) ?? "Reserved Error " + hex8(code)
    }

    static func hex8(_ v: UInt8) -> String { HexText.prefixed(UInt64(v), digits: 2, upperCase: false) }

    static func hex16(_ v: UInt16) -> String { HexText.prefixed(UInt64(v), digits: 4, upperCase: false) }
}
