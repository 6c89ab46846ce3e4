import BLEAssignedNumbers
public import BLEInspectCore

/// A platform form an advert is checked against. `--platform ios` gives both iOS forms.
public enum Profile: Hashable, Sendable {
    case iosForeground
    case iosBackground
    case android
    case legacy
    /// Extended advertising with a maximum data length (1650, or the controller's, §1.3).
    case extended(maximum: Int)

    /// The stable name in reports: `ios-foreground`, `ios-background`, `android`, `legacy`, `extended`.
    public var id: String {
        switch self {
        case .iosForeground: "ios-foreground"
        case .iosBackground: "ios-background"
        case .android: "android"
        case .legacy: "legacy"
        case .extended: "extended"
        }
    }

    public var title: String {
        switch self {
        case .iosForeground: "iOS foreground (CBPeripheralManager.startAdvertising)"
        case .iosBackground: "iOS background (CBPeripheralManager.startAdvertising)"
        case .android: "Android (BluetoothLeAdvertiser.startAdvertising, legacy)"
        case .legacy: "legacy advertising (31 + 31 bytes)"
        case .extended(let maximum): "extended advertising (254 bytes per PDU, \(maximum) in total)"
        }
    }

    /// The profiles a platform stands for.
    public static func profiles(for platform: Platform, extendedMaximum: Int) -> [Profile] {
        switch platform {
        case .ios: [.iosForeground, .iosBackground]
        case .android: [.android]
        case .legacy: [.legacy]
        case .extended: [.extended(maximum: extendedMaximum)]
        }
    }
}

/// Which payload of an advert.
public enum PayloadKind: String, Hashable, Sendable, Codable {
    case advertisingData
    case scanResponse

    public var title: String { self == .advertisingData ? "advertising data" : "scan response" }
}

/// One AD structure at its offset in a payload, with a short description.
public struct PlacedStructure: Hashable, Sendable {
    public var offset: Int
    public var structure: ADStructure
    public var description: String
}

/// The bytes of one payload (advertising data or scan response) and its budget.
public struct PayloadLayout: Hashable, Sendable {
    public var kind: PayloadKind
    /// Where the bytes go, e.g. "ADV_IND AdvData".
    public var pdu: String
    /// The most bytes this payload can carry.
    public var capacity: Int
    public var structures: [PlacedStructure]
    /// The size the platform checks when it differs from the bytes sent (Android counts the
    /// adapter's whole name but sends at most 26 bytes of it, §3).
    public var countedSize: Int?
    /// Bytes that follow the last whole structure (raw input only).
    public var trailing: [UInt8]
    /// Set when the layout shows one case of values the sources do not fix: which case, said on
    /// the same line as the layout ("partial layout, if `service.uuid` is 16-bit").
    public var partial: String?
    /// Offsets of bytes whose values are not known (shown as `??`).
    public var unknownOffsets: Set<Int> = []

    public init(
        kind: PayloadKind,
        pdu: String,
        capacity: Int,
        structures: [ADStructure],
        offsets: [Int]? = nil,
        countedSize: Int? = nil,
        trailing: [UInt8] = []
    ) {
        self.kind = kind
        self.pdu = pdu
        self.capacity = capacity
        var placed: [PlacedStructure] = []
        var offset = 0
        for (i, s) in structures.enumerated() {
            let at = offsets.flatMap { i < $0.count ? $0[i] : nil } ?? offset
            placed.append(PlacedStructure(offset: at, structure: s, description: Describe.structure(s)))
            offset = at + s.size
        }
        self.structures = placed
        self.countedSize = countedSize
        self.trailing = trailing
    }

    /// The bytes on air.
    public var bytes: [UInt8] { structures.flatMap(\.structure.encoded) + trailing }
    /// Bytes used: the structures (and any trailing bytes).
    public var used: Int { structures.reduce(trailing.count) { $0 + $1.structure.size } }
    /// The size the limit applies to.
    public var checkedSize: Int { countedSize ?? used }
    /// Bytes left; negative when over.
    public var left: Int { capacity - checkedSize }
    public var ads: [ADStructure] { structures.map(\.structure) }

    /// The bytes as hex, `??` for those whose values are not known.
    public func hex(separator: String = " ") -> String { hex(bytes, from: 0, separator: separator) }

    /// `bytes`, which start at `offset` of this payload, as hex with `??` for unknown bytes.
    public func hex(_ bytes: some Collection<UInt8>, from offset: Int, separator: String = " ") -> String {
        guard !unknownOffsets.isEmpty else { return Quote.hex(bytes, separator: separator) }
        return bytes.enumerated().map {
            unknownOffsets.contains(offset + $0.offset) ? "??" : Quote.hex([$0.element], separator: "")
        }.joined(separator: separator)
    }
}

/// What became of the requested local name.
public struct NameOutcome: Hashable, Sendable {
    public var requested: String
    /// The bytes sent; nil when the name is not advertised.
    public var onAir: [UInt8]?
    /// 0x08 (shortened) or 0x09 (complete) when sent.
    public var type: UInt8?
    public var placement: PayloadKind?
    /// For a name the sources do not fix: its expression, whether it is cut in every case, and
    /// the most bytes that go on air. `requested` then holds the known text (prefix and suffix).
    public var bounds: NameBounds?

    public var isCut: Bool { onAir.map { $0.count < requested.utf8.count } ?? true }

    /// `always`, `never` or `unknown`.
    public var cut: CutVerdict { bounds?.cut ?? (isCut ? .always : .never) }
}

/// Whether a local name is cut, over every value the sources leave open.
public enum CutVerdict: String, Hashable, Sendable, Codable {
    case always, never, unknown
}

/// What holds for a local name the sources do not fix, or that sits beside unknown UUIDs.
public struct NameBounds: Hashable, Sendable {
    /// The name's expression when the name itself is not known.
    public var expression: String?
    public var cut: CutVerdict
    /// The most name bytes that go on air in any case.
    public var maximumOnAir: Int
    /// The fewest bytes the requested name has, and the most (nil: no bound).
    public var minimumRequested: Int
    public var maximumRequested: Int?
    /// One sentence: what holds in every case, and per case when there are few.
    public var summary: String
}

/// Where a service UUID went, and who sees it.
public struct UUIDPlacement: Hashable, Sendable {
    public enum Place: String, Hashable, Sendable, Codable {
        case advertisingData, scanResponse, overflowArea, notAdvertised
    }

    public var uuid: BluetoothUUID
    public var place: Place
    /// Bytes on air in its list (2, 4 or 16); nil in the overflow area or when not sent.
    public var width: Int?
    /// Set when the UUID is in the overflow area.
    public var overflowBit: OverflowBit?
    /// Seen by an iOS app that scans for this UUID, in the foreground or the background.
    public var seenByIOSFilteringScanner: Bool
    /// Seen as a service UUID by scanners that do not filter on it and by non-Apple scanners
    /// (Android): false in the overflow area, which only iOS decodes (§2.1, §2.7).
    public var seenByOtherScanners: Bool
    /// For a UUID the sources do not fix: its expression, and where it goes in every case.
    public var unknownExpression: String? = nil
    public var verdict: String? = nil
}

/// Apple's overflow area in a layout.
public struct OverflowLayout: Hashable, Sendable {
    public var placement: PayloadKind
    public var offset: Int
    /// The order the layout's bytes use.
    public var order: OverflowBitOrder
    public var bits: [OverflowBit]
    public var bitmap: [UInt8]
    /// Set when UUIDs the sources do not fix are in the area: their bits, and so the bitmap,
    /// are not known (`bits` lists the known UUIDs only).
    public var bitmapUnknown: Bool = false
}

/// One advert checked against one profile.
public struct AdvertResult: Hashable, Sendable {
    public var advertID: String
    public var source: SourceLocation?
    public var profile: Profile
    public var advertisingData: PayloadLayout
    public var scanResponse: PayloadLayout
    public var overflow: OverflowLayout?
    public var name: NameOutcome?
    public var uuids: [UUIDPlacement]
    public var findings: [Finding]
    /// The source path this result holds for (`#if DEBUG`, a branch), when the call has several.
    public var variant: String? = nil

    /// Whether any finding is at or above `threshold`.
    public func reaches(_ threshold: Severity) -> Bool { findings.contains { $0.severity >= threshold } }

    /// The worst severity among the findings.
    public var worst: Severity? { findings.map(\.severity).max() }
}

/// Short descriptions of AD structures for the layouts.
enum Describe {
    static func structure(_ s: ADStructure) -> String {
        let name = ADType.name(s.type) ?? "AD type 0x\(Quote.hexByte(s.type))"
        switch s.type {
        case ADType.flags:
            return s.data.first.map { "Flags 0x\(Quote.hexByte($0))" + flagNames($0) } ?? name
        case 0x02...0x07:
            let width = ADType.listWidth(s.type) ?? 16
            guard s.data.count % width == 0 else { return name }
            let uuids = stride(from: 0, to: s.data.count, by: width).map {
                uuidText(Array(s.data[$0..<($0 + width)]))
            }
            return "\(name): " + uuids.joined(separator: ", ")
        case ADType.shortenedName, ADType.completeName:
            return "\(name): \(Quote.bytes(s.data))"
        case ADType.txPower:
            return s.data.count == 1 ? "\(name): \(Int8(bitPattern: s.data[0])) dBm" : name
        case ADType.appearance:
            return s.data.count == 2
                ? "\(name): " + Quote.hex(UInt64(s.data[0]) | UInt64(s.data[1]) << 8, digits: 4) : name
        case ADType.manufacturer:
            guard s.data.count >= 2 else { return name }
            let company = UInt16(s.data[0]) | UInt16(s.data[1]) << 8
            var text = "\(name): " + (AssignedNumbers.companyName(company).map { Quote.safe($0) + " " } ?? "")
            text += "(" + Quote.hex(UInt64(company), digits: 4) + ")"
            if OverflowArea.isOverflowArea(s) {
                text += ", Apple overflow area"
            } else if company == 0x004C && s.data.count == 25 && s.data[2] == 0x02 && s.data[3] == 0x15 {
                text += ", iBeacon"
            } else {
                text += ", \(s.data.count - 2) bytes"
            }
            return text
        case ADType.serviceData16, ADType.serviceData32, ADType.serviceData128:
            let width = ADType.serviceDataWidth(s.type) ?? 2
            guard s.data.count >= width else { return name }
            var text = "\(name): \(uuidText(Array(s.data[0..<width]))), \(s.data.count - width) bytes"
            if width == 2 && s.data[0] == 0xAA && s.data[1] == 0xFE, let frame = s.data.dropFirst(2).first {
                text += eddystoneName(frame)
            }
            return text
        default:
            return name
        }
    }

    /// A UUID from its little-endian bytes on air, with its SIG name when it has one.
    static func uuidText(_ littleEndian: [UInt8]) -> String {
        let bigEndian = Array(littleEndian.reversed())
        switch bigEndian.count {
        case 2:
            let v = UInt16(bigEndian[0]) << 8 | UInt16(bigEndian[1])
            return uuidText(BluetoothUUID(uuid16: v))
        case 4:
            let v = bigEndian.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return uuidText(BluetoothUUID(uuid32: v))
        case 16:
            let high = bigEndian[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let low = bigEndian[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return uuidText(BluetoothUUID(high: high, low: low, width: 16))
        default:
            return Quote.hex(littleEndian)
        }
    }

    /// `0x180A (Device Information)`, or the UUID alone.
    static func uuidText(_ uuid: BluetoothUUID) -> String {
        let name: String? =
            if let short = uuid.uuid16 { AssignedNumbers.uuid16Name(short) } else {
                AssignedNumbers.uuid128Name(high: uuid.high, low: uuid.low)
            }
        return uuid.description + (name.map { " (\(Quote.safe($0)))" } ?? "")
    }

    private static func flagNames(_ v: UInt8) -> String {
        var names: [String] = []
        if v & 0x01 != 0 { names.append("LE Limited Discoverable") }
        if v & 0x02 != 0 { names.append("LE General Discoverable") }
        if v & 0x04 != 0 { names.append("BR/EDR Not Supported") }
        if v & 0x08 != 0 { names.append("LE+BR/EDR Controller") }
        if v & 0x10 != 0 { names.append("LE+BR/EDR Host") }
        return names.isEmpty ? "" : " (" + names.joined(separator: ", ") + ")"
    }

    private static func eddystoneName(_ frame: UInt8) -> String {
        switch frame {
        case 0x00: ", Eddystone-UID"
        case 0x10: ", Eddystone-URL"
        case 0x20: ", Eddystone-TLM"
        case 0x30: ", Eddystone-EID"
        default: ", Eddystone"
        }
    }
}
