public import BLECrypto
import BLEInspectCore
import Foundation

/// BlueZ's per-device `info` file (`/var/lib/bluetooth/<adapter>/<device>/info`, BlueZ's
/// doc/settings-storage.txt): the groups [LongTermKey], [PeripheralLongTermKey] (named
/// [SlaveLongTermKey] before BlueZ 5.62; both are read, a key in both counted once) and
/// [IdentityResolvingKey], whose `Key` is 32 hexadecimal digits in the order HCI and SMP carry
/// the key (least significant octet first); `EDiv` and `Rand` are decimal. The device's address
/// is the name of the directory holding the file; [General] AddressType says whether it is
/// `public` or `static` (random).
public enum BlueZKeys {
    static let ltkGroups: Set<Substring> = ["LongTermKey", "PeripheralLongTermKey", "SlaveLongTermKey"]

    public static func load(_ path: String) throws(KeyError) -> KeySet {
        try parse(KeyLine.read(path), path: path)
    }

    public static func parse(_ text: String, path: String) throws(KeyError) -> KeySet {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent
        guard let device = BDAddr(directory) else {
            throw KeyError(
                .address,
                source: path,
                line: 0,
                offset: 0,
                "the directory name '\(directory)' is not the device's address"
            )
        }
        let ini = try IniText(text, source: path)
        let addressType = ini.entries.last { $0.section == "General" && $0.key == "AddressType" }?.value
        var keys = KeySet()
        var seen = Set<[UInt64?]>()
        for section in ini.sections where ltkGroups.contains(section.name) || section.name == "IdentityResolvingKey" {
            guard keys.count < KeyLimits.maximumKeys else {
                throw section.line.error(
                    .syntax,
                    at: section.line.text.startIndex,
                    "more than \(KeyLimits.maximumKeys) keys"
                )
            }
            let entries = ini.entries(of: section)
            guard let keyEntry = entries.last(where: { $0.key == "Key" }) else {
                throw section.line.error(.missing, at: section.line.text.startIndex, "[\(section.name)] has no Key")
            }
            let key = Value128(
                octets: try KeyField.octets(keyEntry.value, count: 16, in: keyEntry.line, what: "Key").reversed()
            )
            let source = KeySource(file: path, line: keyEntry.line.number)
            if section.name == "IdentityResolvingKey" {
                let isRandom = addressType.map { $0 != "public" }
                keys.identityKeys.append(IdentityKey(identity: device, isRandom: isRandom, irk: key, source: source))
                continue
            }
            var ltk = LongTermKey(peer: device, key: key, source: source)
            for entry in entries {
                switch entry.key {
                case "EDiv":
                    ltk.ediv = UInt16(
                        truncatingIfNeeded: try KeyField.number(
                            entry.value,
                            maximum: 0xFFFF,
                            in: entry.line,
                            what: "EDiv"
                        )
                    )
                case "Rand": ltk.rand = try KeyField.number(entry.value, maximum: .max, in: entry.line, what: "Rand")
                case "EncSize": _ = try KeyField.number(entry.value, maximum: 16, in: entry.line, what: "EncSize")
                default: break
                }
            }
            if seen.insert([ltk.key.high, ltk.key.low, ltk.ediv.map(UInt64.init), ltk.rand]).inserted {
                keys.longTermKeys.append(ltk)
            }
        }
        return keys
    }
}
