import ArgumentParser
import BLEDissectorLinkLayer
import BLEInspectCore
import BLEKeys

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

    func validate() throws {
        _ = try keys()
    }

    /// The keys given, or a usage error naming the value and the byte at fault.
    func keys() throws -> [LongTermKey] {
        do throws(KeyError) {
            return try ltks.map { text throws(KeyError) in try LongTermKey.argument(text) }
        } catch {
            throw ValidationError(error.safeDescription)
        }
    }

    /// Sets the keys in `configuration`.
    func apply(to configuration: inout RegistryConfiguration) throws {
        configuration[LinkLayerModule.longTermKeys] = try keys()
    }
}
