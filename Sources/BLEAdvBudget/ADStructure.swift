import BLEInspectCore

/// One AD structure: `[Length:1][Type:1][Data:Length-1]`, costing 2 + data bytes on air (§1.1).
public struct ADStructure: Hashable, Sendable {
    public var type: UInt8
    public var data: [UInt8]

    public init(type: UInt8, data: [UInt8]) {
        self.type = type
        self.data = data
    }

    /// The Length field's value: type plus data. More than 255 cannot be encoded (§1.1).
    public var length: Int { data.count + 1 }
    /// Bytes on air, header included.
    public var size: Int { data.count + 2 }
    /// The bytes on air. A Length over 255 is written as 0xFF (and reported as `ad.structure.too-long`).
    public var encoded: [UInt8] { [UInt8(clamping: length), type] + data }
}

/// AD type codes and names (§1.6, Assigned Numbers "Generic Access Profile").
public enum ADType {
    public static let flags: UInt8 = 0x01
    public static let incomplete16: UInt8 = 0x02
    public static let complete16: UInt8 = 0x03
    public static let incomplete32: UInt8 = 0x04
    public static let complete32: UInt8 = 0x05
    public static let incomplete128: UInt8 = 0x06
    public static let complete128: UInt8 = 0x07
    public static let shortenedName: UInt8 = 0x08
    public static let completeName: UInt8 = 0x09
    public static let txPower: UInt8 = 0x0A
    public static let serviceData16: UInt8 = 0x16
    public static let appearance: UInt8 = 0x19
    public static let serviceData32: UInt8 = 0x20
    public static let serviceData128: UInt8 = 0x21
    public static let manufacturer: UInt8 = 0xFF

    /// The name of an AD type from the §1.6 table; nil for codes the table does not list.
    public static func name(_ type: UInt8) -> String? {
        switch type {
        case 0x01: "Flags"
        case 0x02: "Incomplete List of 16-bit Service UUIDs"
        case 0x03: "Complete List of 16-bit Service UUIDs"
        case 0x04: "Incomplete List of 32-bit Service UUIDs"
        case 0x05: "Complete List of 32-bit Service UUIDs"
        case 0x06: "Incomplete List of 128-bit Service UUIDs"
        case 0x07: "Complete List of 128-bit Service UUIDs"
        case 0x08: "Shortened Local Name"
        case 0x09: "Complete Local Name"
        case 0x0A: "Tx Power Level"
        case 0x0D: "Class of Device"
        case 0x0E: "Simple Pairing Hash C-192"
        case 0x0F: "Simple Pairing Randomizer R-192"
        case 0x10: "Device ID / Security Manager TK Value"
        case 0x11: "Security Manager Out of Band Flags"
        case 0x12: "Peripheral Connection Interval Range"
        case 0x14: "List of 16-bit Service Solicitation UUIDs"
        case 0x15: "List of 128-bit Service Solicitation UUIDs"
        case 0x16: "Service Data - 16-bit UUID"
        case 0x17: "Public Target Address"
        case 0x18: "Random Target Address"
        case 0x19: "Appearance"
        case 0x1A: "Advertising Interval"
        case 0x1B: "LE Bluetooth Device Address"
        case 0x1C: "LE Role"
        case 0x1D: "Simple Pairing Hash C-256"
        case 0x1E: "Simple Pairing Randomizer R-256"
        case 0x1F: "List of 32-bit Service Solicitation UUIDs"
        case 0x20: "Service Data - 32-bit UUID"
        case 0x21: "Service Data - 128-bit UUID"
        case 0x22: "LE Secure Connections Confirmation Value"
        case 0x23: "LE Secure Connections Random Value"
        case 0x24: "URI"
        case 0x25: "Indoor Positioning"
        case 0x26: "Transport Discovery Data"
        case 0x27: "LE Supported Features"
        case 0x28: "Channel Map Update Indication"
        case 0x29: "PB-ADV"
        case 0x2A: "Mesh Message"
        case 0x2B: "Mesh Beacon"
        case 0x2C: "BIGInfo"
        case 0x2D: "Broadcast_Code"
        case 0x2E: "Resolvable Set Identifier"
        case 0x2F: "Advertising Interval - long"
        case 0x30: "Broadcast_Name"
        case 0x31: "Encrypted Advertising Data"
        case 0x32: "Periodic Advertising Response Timing Information"
        case 0x34: "Electronic Shelf Label"
        case 0x3D: "3D Information Data"
        case 0xFF: "Manufacturer Specific Data"
        default: nil
        }
    }

    /// The UUID width in bytes of a service UUID list type (0x02–0x07), else nil.
    static func listWidth(_ type: UInt8) -> Int? {
        switch type {
        case 0x02, 0x03: 2
        case 0x04, 0x05: 4
        case 0x06, 0x07: 16
        default: nil
        }
    }

    /// The UUID width in bytes of a service data type (0x16, 0x20, 0x21), else nil.
    static func serviceDataWidth(_ type: UInt8) -> Int? {
        switch type {
        case 0x16: 2
        case 0x20: 4
        case 0x21: 16
        default: nil
        }
    }

    /// The complete-list type for a UUID width.
    static func completeList(width: Int) -> UInt8 {
        width == 2 ? complete16 : width == 4 ? complete32 : complete128
    }

    /// The incomplete-list type for a UUID width.
    static func incompleteList(width: Int) -> UInt8 {
        width == 2 ? incomplete16 : width == 4 ? incomplete32 : incomplete128
    }
}

/// Building AD structures. Multi-octet values are little-endian on air (§1.1).
enum AD {
    /// A UUID's bytes on air at `width` (2, 4 or 16): little-endian. A 16- or 32-bit width needs
    /// a UUID on the Bluetooth base; callers pick the width with `BluetoothUUID.shortValue`.
    static func uuidBytes(_ uuid: BluetoothUUID, width: Int) -> [UInt8] {
        switch width {
        case 2, 4:
            let value = uuid.shortValue ?? 0
            return (0..<width).map { UInt8(truncatingIfNeeded: value >> UInt32(8 * $0)) }
        default:
            return uuid.bigEndianBytes.reversed()
        }
    }

    /// The width a UUID is sent at when it is written as given (plans, iOS's CBUUID, §2.3 fact 3).
    static func givenWidth(_ uuid: BluetoothUUID) -> Int {
        switch uuid.width {
        case 2 where uuid.uuid16 != nil: 2
        case 4 where uuid.shortValue != nil: 4
        default: 16
        }
    }

    /// The shortest width on the Bluetooth base (Android's `is16BitUuid`/`is32BitUuid`, §3).
    static func shortestWidth(_ uuid: BluetoothUUID) -> Int {
        if uuid.uuid16 != nil { return 2 }
        if uuid.shortValue != nil { return 4 }
        return 16
    }

    static func flags(_ value: UInt8) -> ADStructure { ADStructure(type: ADType.flags, data: [value]) }

    static func uuidList(_ uuids: [BluetoothUUID], width: Int, complete: Bool) -> ADStructure {
        ADStructure(
            type: complete ? ADType.completeList(width: width) : ADType.incompleteList(width: width),
            data: uuids.flatMap { uuidBytes($0, width: width) }
        )
    }

    static func name(_ bytes: [UInt8], complete: Bool) -> ADStructure {
        ADStructure(type: complete ? ADType.completeName : ADType.shortenedName, data: bytes)
    }

    static func txPower(_ dBm: Int8) -> ADStructure {
        ADStructure(type: ADType.txPower, data: [UInt8(bitPattern: dBm)])
    }

    static func appearance(_ value: UInt16) -> ADStructure {
        ADStructure(type: ADType.appearance, data: littleEndian(value))
    }

    static func manufacturer(_ m: ManufacturerData) -> ADStructure {
        ADStructure(type: ADType.manufacturer, data: littleEndian(m.company) + m.data)
    }

    static func serviceData(_ s: ServiceData, width: Int) -> ADStructure {
        let type = width == 2 ? ADType.serviceData16 : width == 4 ? ADType.serviceData32 : ADType.serviceData128
        return ADStructure(type: type, data: uuidBytes(s.uuid, width: width) + s.data)
    }

    static func littleEndian(_ v: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)]
    }
    static func bigEndian(_ v: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)] }
    static func bigEndian(_ v: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: v >> UInt32(24 - 8 * $0)) }
    }

    /// The sum of the structures' sizes.
    static func size(_ structures: [ADStructure]) -> Int { structures.reduce(0) { $0 + $1.size } }
}

/// Splits raw AD bytes into structures (§1.1). Never traps: a Length byte that runs past the end
/// is a finding and ends the parse; bytes after a zero Length are early-termination padding.
public enum ADParser {
    public struct Result: Hashable, Sendable {
        public var structures: [ADStructure]
        /// The offset of each structure.
        public var offsets: [Int]
        public var findings: [Finding]
        /// The significant bytes: up to the end of the last whole structure.
        public var significantCount: Int
    }

    /// Parses `bytes`; `block` names the data in messages ("advertising data", "scan response").
    public static func parse(_ bytes: [UInt8], block: String) -> Result {
        var structures: [ADStructure] = []
        var offsets: [Int] = []
        var findings: [Finding] = []
        var i = 0
        let n = bytes.count
        while i < n {
            let length = Int(bytes[i])
            if length == 0 {
                let nonZero = bytes[i...].filter { $0 != 0 }.count
                if nonZero > 0 {
                    findings.append(
                        Rules.adLengthZero.finding(
                            "\(block): a zero Length at offset \(i) ends the data early; \(n - i - 1) bytes after it "
                                + "(\(nonZero) non-zero) are ignored"
                        )
                    )
                }
                break
            }
            // i < n and length ≤ 255, so neither sum can overflow.
            let end = i + 1 + length
            guard end <= n else {
                findings.append(
                    Rules.adLengthOverrun.finding(
                        "\(block): the AD structure at offset \(i) has Length \(length) but only \(n - i - 1) "
                            + "bytes follow; the rest of the data is not parsed"
                    )
                )
                break
            }
            structures.append(ADStructure(type: bytes[i + 1], data: Array(bytes[(i + 2)..<end])))
            offsets.append(i)
            i = end
        }
        return Result(structures: structures, offsets: offsets, findings: findings, significantCount: i)
    }
}
