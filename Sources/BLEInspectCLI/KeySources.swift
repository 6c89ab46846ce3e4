import ArgumentParser
import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEKeys

/// Keys from `--keys` files (long term keys and IRKs) and `--keys-from-hci` captures (long term
/// keys); a file that does not read is a usage error naming it (and the line and byte, for a key
/// file).
enum KeySources {
    static func load(files: [String], hciCaptures: [String]) throws -> KeySet {
        var keys = KeySet()
        for path in files {
            do throws(KeyError) {
                keys.add(try keySet(path))
            } catch {
                throw ValidationError("--keys: " + error.safeDescription)
            }
        }
        for path in hciCaptures {
            var scanner = HCIKeyScanner(source: path)
            do throws(CaptureError) {
                let reader = try CaptureOpener.open(path: path)
                while let frame = try reader.next() { scanner.add(frame) }
            } catch {
                throw ValidationError("--keys-from-hci: \(TerminalSafeText.escape(path)): \(error)")
            }
            keys.longTermKeys += scanner.keys
        }
        return keys
    }

    /// The file's keys, by its name: a BlueZ `info` file, an Android `.conf`, else bleinspect's
    /// key file.
    private static func keySet(_ path: String) throws(KeyError) -> KeySet {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        if name == "info" { return try BlueZKeys.load(path) }
        if name.hasSuffix(".conf") { return try AndroidKeys.load(path) }
        return try KeyFile.load(path)
    }
}
