/// Bluetooth SIG assigned numbers: company identifiers and the names of service, characteristic and
/// descriptor UUIDs.
///
/// The tables in `Generated/` are never written by hand. `scripts/generate_assigned_numbers.py` makes
/// them from the PyPI package bluetooth-numbers, at the version pinned in
/// `scripts/requirements-assigned-numbers.txt`, and its output is committed; CI runs the script with
/// `--check`. Each table is a set of sorted parallel arrays searched by bisection, so a lookup costs
/// about 12 comparisons for the ~3400 companies and allocates nothing but the returned `String`.
public enum AssignedNumbers {
    /// What a SIG 16-bit UUID names.
    public enum UUIDKind: Sendable {
        case service, characteristic, descriptor
    }

    /// Company name for a Bluetooth SIG company identifier (manufacturer data, LMP).
    public static func companyName(_ id: UInt16) -> String? {
        name(of: id, keys: companyKeys, names: companyNames)
    }

    /// Name of a SIG 16-bit UUID: service, characteristic or descriptor.
    ///
    /// The tables are searched in that order: service, then characteristic, then descriptor. The SIG
    /// allocates the three from disjoint ranges (services 0x18xx and the member UUIDs 0xFCxx-0xFFxx,
    /// characteristics 0x2Axx-0x2Bxx, descriptors 0x29xx), so at most one matches; the tests check
    /// that the generated tables do not overlap.
    public static func uuid16Name(_ uuid: UInt16) -> String? {
        serviceName(uuid16: uuid) ?? characteristicName(uuid16: uuid) ?? descriptorName(uuid16: uuid)
    }

    /// Name of a SIG 16-bit service UUID, including the member-company service UUIDs (0xFCxx-0xFFxx).
    public static func serviceName(uuid16: UInt16) -> String? {
        name(of: uuid16, keys: service16Keys, names: service16Names)
    }

    /// Name of a SIG 16-bit characteristic UUID.
    public static func characteristicName(uuid16: UInt16) -> String? {
        name(of: uuid16, keys: characteristic16Keys, names: characteristic16Names)
    }

    /// Name of a SIG 16-bit descriptor UUID.
    public static func descriptorName(uuid16: UInt16) -> String? {
        name(of: uuid16, keys: descriptor16Keys, names: descriptor16Names)
    }

    /// Name of a 128-bit UUID given as its 16 bytes in big-endian (display) order, e.g. the bytes of
    /// "0000180F-0000-1000-8000-00805F9B34FB" or of a vendor UUID the package lists.
    ///
    /// A vendor UUID listed in the tables is looked up as services, then characteristics, then
    /// descriptors. A UUID built on the Bluetooth base UUID (`xxxxxxxx-0000-1000-8000-00805F9B34FB`)
    /// resolves through its 16-bit value with ``uuid16Name(_:)``; the SIG lists assign no 32-bit
    /// values, so a base-UUID form whose value does not fit in 16 bits gives nil. Anything but 16
    /// bytes gives nil.
    public static func uuid128Name(_ bytesBigEndian: [UInt8]) -> String? {
        guard bytesBigEndian.count == 16 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 {
            high = high << 8 | UInt64(bytesBigEndian[index])
            low = low << 8 | UInt64(bytesBigEndian[index + 8])
        }
        return uuid128Name(high: high, low: low)
    }

    /// Name of a 128-bit UUID given as its two big-endian halves (`high` holds the first 8 bytes in
    /// display order); the same lookup as ``uuid128Name(_:)`` without an array.
    public static func uuid128Name(high: UInt64, low: UInt64) -> String? {
        if let name = vendorUUID128Name(high: high, low: low) {
            return name
        }
        guard low == baseUUIDLow, high & 0xFFFF_FFFF == baseUUIDHighLow32 else { return nil }
        let value = high >> 32
        guard value <= UInt64(UInt16.max) else { return nil }
        return uuid16Name(UInt16(value))
    }

    /// The kind of a 16-bit UUID: .service, .characteristic, .descriptor, or nil. Searched in the
    /// order of ``uuid16Name(_:)``.
    public static func uuid16Kind(_ uuid: UInt16) -> UUIDKind? {
        if index(of: uuid, in: service16Keys) != nil { return .service }
        if index(of: uuid, in: characteristic16Keys) != nil { return .characteristic }
        if index(of: uuid, in: descriptor16Keys) != nil { return .descriptor }
        return nil
    }

    /// The number of company identifiers in the table, for tests and `bleinspect fields`-style listings.
    public static var companyCount: Int { companyKeys.count }
}

extension AssignedNumbers {
    /// The low 64 bits of the Bluetooth base UUID 00000000-0000-1000-8000-00805F9B34FB.
    package static let baseUUIDLow: UInt64 = 0x8000_0080_5F9B_34FB
    /// The low 32 bits of the base UUID's high half (the "-0000-1000" part).
    package static let baseUUIDHighLow32: UInt64 = 0x0000_1000

    /// The position of `key` in the ascending `keys`, or nil.
    package static func index(of key: UInt16, in keys: [UInt16]) -> Int? {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = low + (high - low) / 2
            let candidate = keys[middle]
            if candidate == key { return middle }
            if candidate < key { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// The position of the 128-bit value (`high`, `low`) in `keys`, or nil. `keys` holds each
    /// value's high then low half, ascending by high and then low half; the position counts values.
    package static func index(of high: UInt64, _ low: UInt64, in keys: [UInt64]) -> Int? {
        var lower = 0
        var upper = keys.count / 2
        while lower < upper {
            let middle = lower + (upper - lower) / 2
            let candidate = (keys[2 * middle], keys[2 * middle + 1])
            if candidate == (high, low) { return middle }
            if candidate < (high, low) { lower = middle + 1 } else { upper = middle }
        }
        return nil
    }

    /// The name of a 128-bit UUID listed as such: services, then characteristics, then descriptors.
    static func vendorUUID128Name(high: UInt64, low: UInt64) -> String? {
        if let name = name(of: high, low, keys: service128Keys, names: service128Names) { return name }
        if let name = name(of: high, low, keys: characteristic128Keys, names: characteristic128Names) { return name }
        return name(of: high, low, keys: descriptor128Keys, names: descriptor128Names)
    }

    static func name(of key: UInt16, keys: [UInt16], names: [StaticString]) -> String? {
        guard let index = index(of: key, in: keys), index < names.count else { return nil }
        return string(names[index])
    }

    static func name(of high: UInt64, _ low: UInt64, keys: [UInt64], names: [StaticString])
        -> String?
    {
        guard let index = index(of: high, low, in: keys), index < names.count else { return nil }
        return string(names[index])
    }

    /// A `String` with the contents of a `StaticString`.
    package static func string(_ text: StaticString) -> String {
        // `description` copies the bytes without validating them again: the compiler made them from a
        // string literal, so they are valid UTF-8.
        text.description
    }
}
