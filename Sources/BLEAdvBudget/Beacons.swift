import BLEInspectCore

/// Beacon payloads (§4). Their own fields are big-endian, by their specifications.
enum Beacons {
    /// The iBeacon Manufacturer Specific Data (§4.1): `1A FF 4C 00 02 15`, proximity UUID (16,
    /// big-endian), major, minor (big-endian), measured power. 27 bytes on air.
    static func iBeacon(_ b: IBeacon) -> ADStructure {
        ADStructure(
            type: ADType.manufacturer,
            data: [0x4C, 0x00, 0x02, 0x15] + b.uuid.bigEndianBytes + AD.bigEndian(b.major) + AD.bigEndian(b.minor)
                + [UInt8(bitPattern: b.measuredPower)]
        )
    }

    /// The Eddystone service UUID 0xFEAA, in the complete 16-bit list of every frame (§4.2).
    static let eddystoneUUID: UInt16 = 0xFEAA

    /// The Service Data structure `LL 16 AA FE <frame>` of an Eddystone frame (§4.2), or a
    /// message saying why the frame cannot be built.
    static func eddystone(_ frame: EddystoneFrame) -> Result<ADStructure, BeaconError> {
        let bytes: [UInt8]
        switch frame {
        case .uid(let tx, let namespace, let instance):
            guard namespace.count == 10 else {
                return .failure(BeaconError("the Eddystone-UID namespace takes 10 bytes, not \(namespace.count)"))
            }
            guard instance.count == 6 else {
                return .failure(BeaconError("the Eddystone-UID instance takes 6 bytes, not \(instance.count)"))
            }
            // type 0x00, TX power at 0 m, NID[10], BID[6], RFU[2] = 20 bytes ("length byte 0x17").
            bytes = [0x00, UInt8(bitPattern: tx)] + namespace + instance + [0x00, 0x00]
        case .url(let tx, let url):
            switch EddystoneURL.encode(url) {
            case .success(let encoded): bytes = [0x10, UInt8(bitPattern: tx)] + encoded
            case .failure(let error): return .failure(error)
            }
        case .tlm(let battery, let temperature, let advertCount, let uptime):
            // type 0x20, version 0x00, VBATT u16, TEMP s8.8, ADV_CNT u32, SEC_CNT u32 = 14 bytes.
            guard temperature.isFinite, temperature >= -128, temperature < 128 else {
                return .failure(BeaconError("the Eddystone-TLM temperature must be in -128 ..< 128 °C"))
            }
            // In range, so the scaled value fits in Int16 (|t·256| ≤ 32768, rounded down at the top).
            let scaled = Int16(clamping: Int((temperature * 256).rounded(.down)))
            bytes =
                [0x20, 0x00] + AD.bigEndian(battery) + AD.bigEndian(UInt16(bitPattern: scaled))
                + AD.bigEndian(advertCount) + AD.bigEndian(uptime)
        }
        return .success(ADStructure(type: ADType.serviceData16, data: [0xAA, 0xFE] + bytes))
    }
}

/// Why a beacon frame cannot be built.
struct BeaconError: Error, Hashable, Sendable {
    var message: String
    init(_ message: String) { self.message = message }
}

/// The Eddystone-URL encoding (§4.2): a scheme prefix byte, then the URL with the expansion
/// codes 0x00–0x0D, 1 to 17 bytes.
enum EddystoneURL {
    static let schemes: [(String, UInt8)] = [
        ("https://www.", 0x01), ("http://www.", 0x00), ("https://", 0x03), ("http://", 0x02),
    ]
    static let expansions: [String] = [
        ".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
        ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov",
    ]
    static let expansionBytes: [[UInt8]] = expansions.map { Array($0.utf8) }

    /// The scheme byte and the encoded URL.
    static func encode(_ url: String) -> Result<[UInt8], BeaconError> {
        guard let (prefix, code) = schemes.first(where: { url.hasPrefix($0.0) }) else {
            return .failure(
                BeaconError(
                    "the Eddystone-URL \(Quote.text(url)) must start with http://www., https://www., http:// or https://"
                )
            )
        }
        var out: [UInt8] = [code]
        let bytes = Array(url.utf8.dropFirst(prefix.utf8.count))
        var i = 0
        while i < bytes.count {
            let rest = bytes[i...]
            if let index = expansionBytes.firstIndex(where: { rest.starts(with: $0) }) {
                out.append(UInt8(truncatingIfNeeded: index))
                i += expansionBytes[index].count
                continue
            }
            // Literal bytes 0x0E–0x20 and 0x7F–0xFF are reserved codes, so only 0x21–0x7E pass.
            guard bytes[i] >= 0x21 && bytes[i] <= 0x7E else {
                return .failure(
                    BeaconError(
                        "the Eddystone-URL \(Quote.text(url)) contains a character that cannot be encoded "
                            + "(only printable ASCII other than space)"
                    )
                )
            }
            out.append(bytes[i])
            i += 1
        }
        let encodedLength = out.count - 1
        guard encodedLength >= 1 && encodedLength <= 17 else {
            return .failure(
                BeaconError(
                    "the Eddystone-URL \(Quote.text(url)) encodes to \(encodedLength) bytes after the scheme; "
                        + "the frame holds 1 to 17"
                )
            )
        }
        return .success(out)
    }
}
