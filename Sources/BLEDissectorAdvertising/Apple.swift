public import BLEInspectCore

/// Apple (company 0x004C) manufacturer data: a sequence of `[type][length][data]` items, except
/// the overflow area (type 0x01), which has no length and a 16-octet bitmap. The type names other
/// than iBeacon and the overflow area are community reverse engineering (Apple publishes none).
public enum AppleField: UInt16, FieldSet {
    case type, length, data
    case overflowBitmap, overflowBit, overflowUUIDLSBFirst, overflowUUIDMSBFirst, overflowName

    public static let layer = FieldDescriptor("apple", "Apple Manufacturer Data", .layer, short: "Apple")

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .type: .uint("apple.type", "Type", 8, hex: true, names: ValueNames([(0x01, "Overflow Area"), (0x02, "iBeacon"), (0x03, "AirPrint"), (0x05, "AirDrop"), (0x06, "HomeKit"), (0x07, "Proximity Pairing"), (0x08, "Hey Siri"), (0x09, "AirPlay Target"), (0x0A, "AirPlay Source"), (0x0B, "Magic Switch"), (0x0C, "Handoff"), (0x0D, "Tethering Target Presence"), (0x0E, "Tethering Source Presence"), (0x0F, "Nearby Action"), (0x10, "Nearby Info"), (0x12, "Find My")]), help: "Names other than iBeacon and Overflow Area are from community reverse engineering")
        case .length: .uint("apple.length", "Length", 8)
        case .data: FieldDescriptor("apple.data", "Data", .bytes)
        case .overflowBitmap: FieldDescriptor("apple.overflow.bitmap", "Overflow Area Bitmap", .bytes, help: "128 bits, one per hashed service UUID that iOS could not fit in the advertising data")
        case .overflowBit: .uint("apple.overflow.bit", "Set Bit", 8, help: "Raw bit position: octet × 8 + bit, bit 0 being the least significant (mask 0x01)")
        case .overflowUUIDLSBFirst: FieldDescriptor("apple.overflow.uuid.lsb_first", "UUID (LSB-first bit order, iOS 11 era)", .uuid, help: "A known or user-supplied UUID whose hash sets this bit in the LSB-first order [inferred]")
        case .overflowUUIDMSBFirst: FieldDescriptor("apple.overflow.uuid.msb_first", "UUID (MSB-first bit order, iOS 13/14)", .uuid, help: "A known or user-supplied UUID whose hash sets this bit in the MSB-first order [inferred]")
        case .overflowName: FieldDescriptor("apple.overflow.name", "Name", .string)
        }
    }
}

/// iBeacon (Apple type 0x02, length 0x15). Wireshark's `bluetooth.apple.ibeacon.*` names; it has
/// no field for the measured power.
public enum IBeaconField: UInt16, FieldSet {
    case uuid, major, minor, measuredPower

    public static let layer = FieldDescriptor("ibeacon", "Apple iBeacon", .layer, short: "iBeacon")

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .uuid: FieldDescriptor("bluetooth.apple.ibeacon.uuid128", "Proximity UUID", .uuid, help: "Sent most significant octet first")
        case .major: .uint("bluetooth.apple.ibeacon.major", "Major", 16)
        case .minor: .uint("bluetooth.apple.ibeacon.minor", "Minor", 16)
        case .measuredPower: .int("ibeacon.measured_power", "Measured Power (dBm)", 8, help: "RSSI at 1 m")
        }
    }
}

struct AppleDissector: Dissector {
    let f: Fields<AppleField>
    let beacon: Fields<IBeaconField>

    func dissect(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        c.openLayer(f.layer, over: r)
        while !r.isAtEnd {
            let type = try c.addUInt8(f[.type], &r)
            if type == 0x01 {
                try overflow(&r, &c)
                continue
            }
            let length = Int(try c.addUInt8(f[.length], &r))
            var body = try r.readSlice(length)
            if type == 0x02 && length == 0x15 {
                try iBeacon(&body, &c)
            } else {
                c.addRest(f[.data], &body)
            }
        }
        c.tree.close()
    }

    private func iBeacon(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        c.openLayer(beacon.layer, over: r)
        let start = r.offset
        let uuid = try r.readUUIDBigEndian()
        c.tree.add(beacon[.uuid], .uuid(uuid), start..<r.offset, source: r.source)
        try c.addUInt16(beacon[.major], &r, bigEndian: true)
        try c.addUInt16(beacon[.minor], &r, bigEndian: true)
        try c.addInt8(beacon[.measuredPower], &r)
        c.tree.close()
    }

    private func overflow(_ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        let s = r.source
        let start = r.offset
        let bitmap = try r.readSlice(16)
        c.tree.open(f[.overflowBitmap], .bytes, start..<r.offset, source: s)
        let list = AppleOverflowUUIDList.in(c)
        for (i, octet) in bitmap.remainingSlice.enumerated() where octet != 0 {
            let range = (start + i)..<(start + i + 1)
            for bit in 0..<8 where octet & (1 << UInt8(bit)) != 0 {
                let position = i * 8 + bit
                c.tree.open(f[.overflowBit], .unsigned(UInt64(position)), range, source: s)
                for entry in list.byLSBFirst[position] {
                    add(entry, f[.overflowUUIDLSBFirst], range, s, &c)
                }
                for entry in list.byMSBFirst[position] {
                    add(entry, f[.overflowUUIDMSBFirst], range, s, &c)
                }
                c.tree.close()
            }
        }
        c.tree.close()
    }

    private func add(
        _ entry: AppleOverflowUUIDList.Entry,
        _ id: FieldID,
        _ range: Range<Int>,
        _ s: Int,
        _ c: inout DissectionContext
    ) {
        c.tree.open(id, .uuid(entry.uuid), range, source: s)
        if !entry.name.isEmpty { c.tree.add(f[.overflowName], text: entry.name, range, source: s) }
        c.tree.close()
    }
}
