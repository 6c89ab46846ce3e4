import ArgumentParser
import BLECrypto
import BLEDissectorDevice
import BLEDissectorLinkLayer
import BLEInspectCore
import BLEKeys
import Foundation

/// The keys to decrypt sniffed LE connections with (docs/DECRYPTION.md), for `read`, `live` and
/// the views.
struct DecryptionOptions: ParsableArguments {
    @Option(
        name: .customLong("ltk"),
        help: ArgumentHelp(
            "A long term key to decrypt sniffed LE connections with: 32 hex digits, most significant first, or ADDR=HEX for the connections of one device; repeatable.",
            valueName: "[addr=]hex"
        )
    )
    var ltks: [String] = []

    @Option(
        name: .customLong("tk"),
        help: ArgumentHelp(
            "A legacy pairing's TK, for out-of-band pairings the crack cannot find: 32 hex digits, most significant first, or a passkey (0 to 999999); repeatable.",
            valueName: "hex|passkey"
        )
    )
    var tks: [String] = []

    @Option(
        name: .customLong("keys"),
        help: ArgumentHelp(
            "A key file: bleinspect's (ltk and irk lines), a BlueZ 'info' file, or an Android bt_config.conf (by its .conf extension); repeatable.",
            valueName: "file"
        )
    )
    var keyFiles: [String] = []

    @Option(
        name: .customLong("keys-from-hci"),
        help: ArgumentHelp(
            "An HCI capture of the same devices: the LTKs of its LE Enable Encryption commands and LE Long Term Key Request Replies; repeatable.",
            valueName: "capture"
        )
    )
    var hciKeyCaptures: [String] = []

    @Flag(
        name: .customLong("no-crack"),
        help:
            "Recover no keys from sniffed pairings: no TK search of LE legacy pairings (Just Works, then every passkey), no LTK from a Secure Connections pairing that used the debug key."
    )
    var noCrack = false

    /// Whether sniffed packets may be decrypted: a key or TK is given, or the crack is on.
    var mayDecrypt: Bool {
        !ltks.isEmpty || !tks.isEmpty || !keyFiles.isEmpty || !hciKeyCaptures.isEmpty || !noCrack
    }

    func validate() throws {
        _ = try keys()
        _ = try temporaryKeys()
    }

    /// The `--tk` values: a passkey in decimal (up to 6 digits), or 32 hex digits.
    func temporaryKeys() throws -> [Value128] {
        try tks.map { text in
            if !text.isEmpty, text.count < 32, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
                guard text.count <= 6, let passkey = UInt64(text) else {
                    throw ValidationError("--tk: passkey \(text) is out of range (0 to 999999).")
                }
                return Value128(passkey)
            }
            let key: LongTermKey
            do throws(KeyError) {
                key = try LongTermKey.argument(text, source: "--tk")
            } catch {
                throw ValidationError(error.safeDescription)
            }
            guard key.peer == nil else {
                throw ValidationError("--tk takes a TK alone (32 hex digits or a passkey), not ADDR=TK.")
            }
            return key.key
        }
    }

    /// The keys given, or a usage error naming the value and the byte at fault.
    func keys() throws -> [LongTermKey] {
        do throws(KeyError) {
            return try ltks.map { text throws(KeyError) in try LongTermKey.argument(text) }
        } catch {
            throw ValidationError(error.safeDescription)
        }
    }

    /// Sets the keys in `configuration` (long term keys for the link layer, IRKs for the device
    /// tracker), and whether decrypted packets carry the edits that write them decrypted (only
    /// when the command `writes` a capture).
    func apply(to configuration: inout RegistryConfiguration, writes: Bool) throws {
        configuration[LinkLayerModule.decryptedEdits] = writes
        let loaded = try KeySources.load(files: keyFiles, hciCaptures: hciKeyCaptures)
        configuration[LinkLayerModule.longTermKeys] = try keys() + loaded.longTermKeys
        configuration[DeviceModule.identityKeys] = loaded.identityKeys
        configuration[LinkLayerModule.temporaryKeys] = try temporaryKeys()
        configuration[LinkLayerModule.recoverPairingKeys] = !noCrack
        configuration[LinkLayerModule.crackProgress] = !noCrack && isatty(2) == 1
    }
}
