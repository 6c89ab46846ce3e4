public import BLEInspectCore

/// Apple's "overflow area": the manufacturer data `4C 00 01` + a 16-octet (128-bit) bitmap in
/// which iOS advertises the service UUIDs that did not fit in the advertising data, one bit per
/// UUID. Apple documents the behaviour but not the encoding; everything here is reverse-engineered
/// by third parties (see `../shared/docs/ADVERTISING.md` §2.7).
///
/// The bit for a UUID is a hash **c** = CRC-8 (polynomial 0x09, initial value 0, most significant
/// bit first, no reflection, no final XOR) over the 16 octets of the 128-bit UUID in big-endian
/// (string) order, masked to 7 bits. 16- and 32-bit UUIDs are first expanded on the Bluetooth base
/// UUID. The bit then lands in octet `c >> 3` of the bitmap, but two bit orders within the octet
/// have been observed:
///
/// - *LSB-first* (mask `1 << (c & 7)`): iOS 11-era captures, 5 of 5 UUIDs fit [measured].
/// - *MSB-first* (mask `0x80 >> (c & 7)`): the iOS 13/14 table of 128 UUIDs fits 128 of 128
///   [measured].
///
/// Which order current iOS (15 and later) uses is unverified, so the dissector shows candidate
/// UUIDs under both. Bits collide (only 128 of them): a match means "may be advertising".
///
/// Positions here are *raw bitmap positions*: `octet × 8 + bit`, with bit 0 the least
/// significant (mask 0x01) of the octet.
public enum AppleOverflowArea {
    /// The 7-bit CRC-8 hash c (0...127) of a UUID.
    public static func hashIndex(_ uuid: BluetoothUUID) -> Int {
        var crc: UInt8 = 0
        for index in 0..<16 {
            let word = index < 8 ? uuid.high : uuid.low
            crc ^= UInt8(truncatingIfNeeded: word >> UInt64(56 - 8 * (index & 7)))
            for _ in 0..<8 {
                crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x09 : crc << 1
            }
        }
        return Int(crc & 0x7F)
    }

    /// The raw bitmap positions a UUID sets under the LSB-first (iOS 11-era) and MSB-first
    /// (iOS 13/14) bit orders.
    public static func bitPositions(_ uuid: BluetoothUUID) -> (lsbFirst: Int, msbFirst: Int) {
        let c = hashIndex(uuid)
        return (c, c ^ 7)
    }

    /// The octet of the 16-octet bitmap and the mask within it for a raw bitmap position.
    public static func octetAndMask(position: Int) -> (octet: Int, mask: UInt8) {
        (position >> 3, UInt8(1) << UInt8(position & 7))
    }

    /// The raw positions of the set bits of a 16-octet bitmap.
    public static func setBits<C: Collection<UInt8>>(_ bitmap: C) -> [Int] {
        var out: [Int] = []
        for (i, octet) in bitmap.enumerated() where octet != 0 {
            for bit in 0..<8 where octet & (1 << UInt8(bit)) != 0 { out.append(i * 8 + bit) }
        }
        return out
    }

    /// UUIDs known to be advertised through the overflow area, mapped by the dissector without
    /// being asked. [INFERRED] entries come from third-party reverse engineering only.
    public static let knownUUIDs: [(uuid: BluetoothUUID, name: String)] = [
        // Pinned by D. Young's OverflowAreaBeaconRef to table bit 69 (= c ^ 7 with c = 66, the
        // MSB-first order); nearby iPhones offer to set up an Apple Watch. [INFERRED]
        (BluetoothUUID(high: 0x9AA4_730F_B25C_4CC3, low: 0xB821_C931_559F_C196, width: 16), "Apple Watch setup")
    ]
}

/// The UUIDs the dissector maps onto set overflow bits in one capture: the known ones, those of the
/// registry's configuration (`AdvertisingModule.overflowUUIDs`, which `--overflow-uuid` sets), and
/// any added to the capture state before dissecting:
///
/// ```swift
/// AppleOverflowUUIDList.in(engine.state).add(uuid, name: "My service")
/// ```
public final class AppleOverflowUUIDList {
    public struct Entry: Sendable {
        public let uuid: BluetoothUUID
        public let name: String

        public init(uuid: BluetoothUUID, name: String = "") {
            self.uuid = uuid
            self.name = name
        }
    }

    /// Entries by the raw position they set under the LSB-first order.
    private(set) var byLSBFirst: [[Entry]] = Array(repeating: [], count: 128)
    /// Entries by the raw position they set under the MSB-first order.
    private(set) var byMSBFirst: [[Entry]] = Array(repeating: [], count: 128)
    public private(set) var entries: [Entry] = []

    /// The most UUIDs a list holds.
    public static let maximumEntries = 4096

    /// A list with the known UUIDs when `includeKnown` is true.
    public init(includeKnown: Bool = true) {
        if includeKnown {
            for (uuid, name) in AppleOverflowArea.knownUUIDs { add(uuid, name: name) }
        }
    }

    /// Adds a UUID to map (ignored past `maximumEntries` or when already present). Returns
    /// whether it was added.
    @discardableResult
    public func add(_ uuid: BluetoothUUID, name: String = "") -> Bool {
        guard entries.count < Self.maximumEntries, !entries.contains(where: { $0.uuid == uuid }) else { return false }
        let entry = Entry(uuid: uuid, name: name)
        entries.append(entry)
        let (lsb, msb) = AppleOverflowArea.bitPositions(uuid)
        byLSBFirst[lsb].append(entry)
        byMSBFirst[msb].append(entry)
        return true
    }

    /// The list of an engine, made on first use with the known UUIDs and those the registry's
    /// configuration names (`AdvertisingModule.overflowUUIDs`).
    public static func `in`(_ context: DissectionContext) -> AppleOverflowUUIDList {
        let configuration = context.registry.configuration
        return context.constants.value(AppleOverflowUUIDList.self) { make(configuration) }
    }

    /// The list kept in `store` (an engine's `state`), made on first use with the known UUIDs and
    /// those `configuration` names; a caller may add UUIDs before the first frame.
    public static func `in`(
        _ store: CaptureState,
        configuration: RegistryConfiguration = RegistryConfiguration()
    ) -> AppleOverflowUUIDList {
        store.constant(AppleOverflowUUIDList.self) { make(configuration) }
    }

    private static func make(_ configuration: RegistryConfiguration) -> AppleOverflowUUIDList {
        let list = AppleOverflowUUIDList()
        for entry in configuration[AdvertisingModule.overflowUUIDs] { list.add(entry.uuid, name: entry.name) }
        return list
    }
}
