public import BLECrypto
import BLEInspectCore

/// Android's `bt_config.conf` (`/data/misc/bluedroid/bt_config.conf`): a section per peer named
/// by its address (`[aa:bb:cc:dd:ee:ff]`), whose LE keys are hexadecimal dumps of the stack's
/// key records, octets in memory order:
///
/// - `LE_KEY_PENC` (28 octets): the peer's LTK (16, least significant first, as SMP carries
///   it), Rand (8) and EDIV (2) little-endian, security level (1), key size (1);
/// - `LE_KEY_PID` (23 octets): the peer's IRK (16, least significant first), identity address
///   type (1: 0 public, 1 random), identity address (6, most significant first);
/// - `LE_KEY_LENC` (20 octets): the LTK this device gave the peer (16), DIV (2), key size (1),
///   security level (1); its EDIV and Rand are not kept, so the key is for any EDIV.
public enum AndroidKeys {
    public static func load(_ path: String) throws(KeyError) -> KeySet {
        try parse(KeyLine.read(path), source: path)
    }

    public static func parse(_ text: String, source: String) throws(KeyError) -> KeySet {
        let ini = try IniText(text, source: source)
        var keys = KeySet()
        for entry in ini.entries where entry.key.hasPrefix("LE_KEY_") {
            let length: Int
            switch entry.key {
            case "LE_KEY_PENC": length = 28
            case "LE_KEY_PID": length = 23
            case "LE_KEY_LENC": length = 20
            default: continue
            }
            guard keys.count < KeyLimits.maximumKeys else {
                throw entry.line.error(.syntax, at: entry.key.startIndex, "more than \(KeyLimits.maximumKeys) keys")
            }
            guard let peer = BDAddr(String(entry.section)) else {
                throw entry.line.error(
                    .address,
                    at: entry.key.startIndex,
                    "\(entry.key) is in [\(entry.section)], which is not a device address"
                )
            }
            let blob = try KeyField.octets(entry.value, count: length, in: entry.line, what: String(entry.key))
            let ltkOrIRK = Value128(octets: blob[0..<16].reversed())
            let source = KeySource(file: source, line: entry.line.number)
            switch entry.key {
            case "LE_KEY_PENC":
                keys.longTermKeys.append(
                    LongTermKey(
                        peer: peer,
                        key: ltkOrIRK,
                        ediv: UInt16(truncatingIfNeeded: blob.littleEndian(24, 26)),
                        rand: blob.littleEndian(16, 24),
                        source: source
                    )
                )
            case "LE_KEY_LENC":
                keys.longTermKeys.append(LongTermKey(peer: peer, key: ltkOrIRK, source: source))
            default:
                let identity = BDAddr(rawValue: blob.bigEndian(17, 23))
                keys.identityKeys.append(
                    IdentityKey(identity: identity, isRandom: blob[16] != 0, irk: ltkOrIRK, source: source)
                )
            }
        }
        return keys
    }
}
