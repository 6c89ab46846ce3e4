public import BLEInspectCore

/// Microsoft (company 0x0006) beacons: the first octet is the beacon ID; 0x03 is Swift Pair
/// (Microsoft "Bluetooth Swift Pair" documentation), 0x01 the Connected Devices Platform beacon
/// ([MS-CDP] 2.2.2.2.3), shown as data.
public enum SwiftPairField: UInt16, FieldSet {
    case beaconID, subScenario, reservedRSSI, bredrAddress, icon, displayName, data

    public static let layer = FieldDescriptor("swiftpair", "Microsoft Beacon", .layer, short: "SwiftPair")

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .beaconID: .uint("swiftpair.beacon_id", "Microsoft Beacon ID", 8, hex: true, names: ValueNames([(0x01, "Connected Devices Platform"), (0x03, "Swift Pair")]))
        case .subScenario: .uint("swiftpair.sub_scenario", "Microsoft Beacon Sub Scenario", 8, hex: true, names: ValueNames([(0x00, "Pairing over LE only"), (0x01, "Pairing over BR/EDR (Secure Connections)"), (0x02, "Pairing over LE and BR/EDR with Secure Connections")]))
        case .reservedRSSI: .uint("swiftpair.reserved_rssi", "Reserved RSSI Byte", 8, hex: true)
        case .bredrAddress: FieldDescriptor("swiftpair.bredr_address", "BR/EDR Address", .address)
        case .icon: .uint("swiftpair.icon", "Icon (Class of Device)", 24, hex: true, help: "A Class of Device value that chooses the icon")
        case .displayName: FieldDescriptor("swiftpair.display_name", "Display Name", .string)
        case .data: FieldDescriptor("swiftpair.data", "Data", .bytes)
        }
    }
}

struct MicrosoftDissector: Dissector {
    let f: Fields<SwiftPairField>

    func dissect(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        c.openLayer(f.layer, over: r)
        let beacon = try c.addUInt8(f[.beaconID], &r)
        if beacon == 0x03 {
            let sub = try c.addUInt8(f[.subScenario], &r)
            try c.addUInt8(f[.reservedRSSI], &r)
            switch sub {
            case 0x01:
                try c.addAddress(f[.bredrAddress], &r)
                try c.addUInt24(f[.icon], &r)
            case 0x02:
                try c.addUInt24(f[.icon], &r)
            default:
                break
            }
            if !r.isAtEnd { try c.emitString(f[.displayName], &r, r.remaining) }
        } else {
            c.addRest(f[.data], &r)
        }
        c.tree.close()
    }
}

/// Google Fast Pair (service data of UUID 0xFE2C, Fast Pair Provider specification): a 3-octet
/// model ID while discoverable, account key data otherwise. Fields are big-endian.
public enum FastPairField: UInt16, FieldSet {
    case modelID, flags, fieldLength, fieldType, accountKeyFilter, salt, battery, batteryCharging, batteryLevel
    case fieldData

    public static let layer = FieldDescriptor("fastpair", "Google Fast Pair", .layer, short: "FastPair")

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .modelID: .uint("fastpair.model_id", "Model ID", 24, hex: true)
        case .flags: .uint("fastpair.flags", "Version and Flags", 8, hex: true, help: "0bVVVVFFFF; 0x00 in the current specification")
        case .fieldLength: .uint("fastpair.field.length", "Field Length", 8, mask: 0xF0)
        case .fieldType: .uint("fastpair.field.type", "Field Type", 8, hex: true, names: ValueNames([(0x0, "Account Key Filter (show UI indication)"), (0x1, "Salt"), (0x2, "Account Key Filter (hide UI indication)"), (0x3, "Battery Values (show UI indication)"), (0x4, "Battery Values (hide UI indication)")]), mask: 0x0F)
        case .accountKeyFilter: FieldDescriptor("fastpair.account_key_filter", "Account Key Filter", .bytes)
        case .salt: FieldDescriptor("fastpair.salt", "Salt", .bytes)
        case .battery: .uint("fastpair.battery", "Battery Value", 8, hex: true)
        case .batteryCharging: .flag("fastpair.battery.charging", "Charging", 0x80)
        case .batteryLevel: .uint("fastpair.battery.level", "Level (%)", 8, names: ValueNames([(0x7F, "Unknown")]), mask: 0x7F)
        case .fieldData: FieldDescriptor("fastpair.field.data", "Field Data", .bytes)
        }
    }
}

struct FastPairDissector: Dissector {
    let f: Fields<FastPairField>

    private static let headerBits = BitFields<FastPairField>([.fieldLength, .fieldType])
    private static let batteryBits = BitFields<FastPairField>([.batteryCharging, .batteryLevel])

    func dissect(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        c.openLayer(f.layer, over: r)
        if r.remaining == 3 {
            try c.addUInt24(f[.modelID], &r, bigEndian: true)
        } else {
            try c.addUInt8(f[.flags], &r)
            while !r.isAtEnd {
                let header = try c.emitBits(Self.headerBits, f, &r)
                let declared = Int(header >> 4)
                guard declared <= r.remaining else {
                    // Vendor data beyond the published layout (newer Fast Pair versions add
                    // fields): show it as it is, with a note, rather than calling the PDU malformed.
                    let rest = r.offset..<(r.offset + r.remaining)
                    c.expert(
                        .note,
                        "Fast Pair field declares \(declared) bytes, \(r.remaining) left: not the known layout",
                        rest,
                        source: r.source
                    )
                    c.addRest(f[.fieldData], &r)
                    break
                }
                var body = try r.readSlice(declared)
                switch header & 0x0F {
                case 0x0, 0x2: c.addRest(f[.accountKeyFilter], &body)
                case 0x1: c.addRest(f[.salt], &body)
                case 0x3, 0x4:
                    while !body.isAtEnd { try c.emitBits(Self.batteryBits, f, &body, under: .battery) }
                default: c.addRest(f[.fieldData], &body)
                }
            }
        }
        c.tree.close()
    }
}
