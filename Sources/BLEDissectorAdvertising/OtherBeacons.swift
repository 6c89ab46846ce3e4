public import BLEInspectCore

/// Google/Apple Exposure Notification (service data of UUID 0xFD6F, "Exposure Notification -
/// Bluetooth Specification" v1.2): rolling proximity identifier and associated encrypted
/// metadata. Wireshark's `bluetooth.gaen.*` names.
public enum GAENField: UInt16, FieldSet {
    case rpi, aemd

    public static let layer = FieldDescriptor(
        "bluetooth.gaen",
        "Google/Apple Exposure Notification",
        .layer,
        short: "GAEN"
    )

    public var descriptor: FieldDescriptor {
        switch self {
        case .rpi: FieldDescriptor("bluetooth.gaen.rpi", "Rolling Proximity Identifier", .bytes)
        case .aemd: FieldDescriptor("bluetooth.gaen.aemd", "Associated Encrypted Metadata", .bytes)
        }
    }
}

struct GAENDissector: Dissector {
    let f: Fields<GAENField>

    func dissect(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        c.openLayer(f.layer, over: r)
        try c.addBytes(f[.rpi], &r, 16)
        try c.addBytes(f[.aemd], &r, 4)
        try r.expectEnd("Exposure Notification service data")
        c.tree.close()
    }
}

/// AltBeacon (AltBeacon specification v1.0): manufacturer data of any company whose first two
/// octets are the beacon code 0xBEAC, 24 octets long. Recognised only for companies that have no
/// decoder of their own. Wireshark's `bluetooth.alt_beacon.*` names.
public enum AltBeaconField: UInt16, FieldSet {
    case code, id, referenceRSSI, manufacturerData

    public static let layer = FieldDescriptor("alt_beacon", "AltBeacon", .layer, short: "AltBeacon")

    public var descriptor: FieldDescriptor {
        switch self {
        case .code: .uint("bluetooth.alt_beacon.code", "Code", 16, hex: true)
        case .id: FieldDescriptor("bluetooth.alt_beacon.id", "ID", .bytes)
        case .referenceRSSI: .int("bluetooth.alt_beacon.reference_rssi", "Reference RSSI (dBm)", 8)
        case .manufacturerData: .uint("bluetooth.alt_beacon.manufacturer_data", "Manufacturer Data", 8, hex: true)
        }
    }
}

struct AltBeaconDissector: Dissector {
    let f: Fields<AltBeaconField>

    /// Whether manufacturer data (after the company ID) looks like an AltBeacon.
    static func matches(_ r: ByteReader) -> Bool {
        r.remaining == 24 && r.peekUInt8() == 0xBE && r.peekUInt8(at: 1) == 0xAC
    }

    func dissect(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        c.openLayer(f.layer, over: r)
        try c.addUInt16(f[.code], &r, bigEndian: true)
        try c.addBytes(f[.id], &r, 20)
        try c.addInt8(f[.referenceRSSI], &r)
        try c.addUInt8(f[.manufacturerData], &r)
        c.tree.close()
    }
}
