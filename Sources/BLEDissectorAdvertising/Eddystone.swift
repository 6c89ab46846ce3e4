public import BLEInspectCore

/// Eddystone (service data of UUID 0xFEAA, google/eddystone protocol-specification): the frame
/// type in the high nibble of the first octet, then UID, URL, TLM or EID fields. Multi-octet
/// Eddystone fields are big-endian. Wireshark has no Eddystone fields, so these are our own.
public enum EddystoneField: UInt16, FieldSet {
    case frameType, txPower, namespace, instance, reserved, urlScheme, url
    case tlmVersion, batteryVoltage, temperature, advCount, secCount, etlm, salt, mic
    case eid, data

    public static let layer = FieldDescriptor("eddystone", "Eddystone", .layer, short: "Eddystone")

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .frameType: .uint("eddystone.frame_type", "Frame Type", 8, hex: true, names: ValueNames([(0x00, "UID"), (0x10, "URL"), (0x20, "TLM"), (0x30, "EID")]))
        case .txPower: .int("eddystone.tx_power", "Ranging Data (dBm)", 8, help: "Calibrated Tx power at 0 m")
        case .namespace: FieldDescriptor("eddystone.uid.namespace", "Namespace", .bytes)
        case .instance: FieldDescriptor("eddystone.uid.instance", "Instance", .bytes)
        case .reserved: FieldDescriptor("eddystone.uid.reserved", "Reserved", .bytes)
        case .urlScheme: .uint("eddystone.url.scheme", "URL Scheme", 8, hex: true, names: ValueNames(Eddystone.schemes.enumerated().map { (UInt64($0.offset), $0.element) }))
        case .url: FieldDescriptor("eddystone.url", "URL", .string, help: "The URL with its scheme and expansion codes expanded")
        case .tlmVersion: .uint("eddystone.tlm.version", "TLM Version", 8, hex: true, names: ValueNames([(0, "Unencrypted"), (1, "Encrypted")]))
        case .batteryVoltage: .uint("eddystone.tlm.battery_voltage", "Battery Voltage (mV)", 16)
        case .temperature: .int("eddystone.tlm.temperature", "Beacon Temperature (1/256 °C)", 16, names: ValueNames([(UInt64(bitPattern: -0x8000), "Not supported")]), help: "Signed 8.8 fixed point: units of 1/256 °C")
        case .advCount: .uint("eddystone.tlm.adv_count", "Advertising PDU Count", 32)
        case .secCount: .uint("eddystone.tlm.sec_count", "Time Since Power-On (0.1 s)", 32, help: "Units of 0.1 s")
        case .etlm: FieldDescriptor("eddystone.tlm.etlm", "Encrypted TLM", .bytes)
        case .salt: .uint("eddystone.tlm.salt", "Salt", 16, hex: true)
        case .mic: .uint("eddystone.tlm.mic", "Message Integrity Check", 16, hex: true)
        case .eid: FieldDescriptor("eddystone.eid", "Ephemeral Identifier", .bytes)
        case .data: FieldDescriptor("eddystone.data", "Data", .bytes)
        }
    }
}

enum Eddystone {
    static let schemes = ["http://www.", "https://www.", "http://", "https://"]
    static let expansions = [
        ".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/", ".com", ".org", ".edu", ".net", ".info",
        ".biz", ".gov",
    ]

    /// The URL of an Eddystone-URL frame; `reserved` is true when it holds reserved octets
    /// (0x0E–0x20, 0x7F–0xFF), which are kept as U+FFFD.
    static func expandURL(scheme: UInt8, _ encoded: ArraySlice<UInt8>) -> (url: String, reserved: Bool) {
        var url = Int(scheme) < schemes.count ? schemes[Int(scheme)] : ""
        var reserved = false
        var run: [UInt8] = []
        for b in encoded {
            if Int(b) < expansions.count {
                url += String(decoding: run, as: UTF8.self) + expansions[Int(b)]
                run.removeAll(keepingCapacity: true)
            } else if b <= 0x20 || b >= 0x7F {
                reserved = true
                run.append(0xFF)  // not UTF-8: decodes as U+FFFD
            } else {
                run.append(b)
            }
        }
        return (url + String(decoding: run, as: UTF8.self), reserved)
    }
}

struct EddystoneDissector: Dissector {
    let f: Fields<EddystoneField>

    func dissect(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        c.openLayer(f.layer, over: r)
        let frame = try c.addUInt8(f[.frameType], &r)
        switch frame {
        case 0x00:
            try c.addInt8(f[.txPower], &r)
            try c.addBytes(f[.namespace], &r, 10)
            try c.addBytes(f[.instance], &r, 6)
            // The two reserved octets are sometimes left out.
            if !r.isAtEnd { try c.addBytes(f[.reserved], &r, 2) }
            try r.expectEnd("Eddystone-UID frame")
        case 0x10:
            try c.addInt8(f[.txPower], &r)
            let start = r.offset
            let scheme = try c.addUInt8(f[.urlScheme], &r)
            let (url, reserved) = Eddystone.expandURL(scheme: scheme, r.remainingSlice)
            _ = r.readRest()
            c.tree.add(f[.url], text: url, start..<r.offset, source: r.source)
            if scheme > 3 || reserved {
                c.expert(.warning, "Eddystone-URL uses a reserved scheme or octet", start..<r.offset, source: r.source)
            }
        case 0x20:
            let version = try c.addUInt8(f[.tlmVersion], &r)
            switch version {
            case 0x00:
                try c.addUInt16(f[.batteryVoltage], &r, bigEndian: true)
                try c.addInt16(f[.temperature], &r, bigEndian: true)
                try c.addUInt32(f[.advCount], &r, bigEndian: true)
                try c.addUInt32(f[.secCount], &r, bigEndian: true)
                try r.expectEnd("Eddystone-TLM frame")
            case 0x01:
                try c.addBytes(f[.etlm], &r, 12)
                try c.addUInt16(f[.salt], &r, bigEndian: true)
                try c.addUInt16(f[.mic], &r, bigEndian: true)
                try r.expectEnd("Eddystone-eTLM frame")
            default:
                c.addRest(f[.data], &r)
            }
        case 0x30:
            try c.addInt8(f[.txPower], &r)
            try c.addBytes(f[.eid], &r, 8)
            try r.expectEnd("Eddystone-EID frame")
        default:
            c.addRest(f[.data], &r)
        }
        c.tree.close()
    }
}
