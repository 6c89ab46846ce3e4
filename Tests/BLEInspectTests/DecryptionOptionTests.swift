import BLEInspectTestSupport
import Foundation
import Testing

/// `--ltk`, `--tk` and `--no-crack`: bad values are usage errors (exit 64) that name the value and
/// the byte; on the shared sniffer captures the options reach the link layer of `read` and the
/// views.
@Suite("decryption options")
struct DecryptionOptionTests {
    typealias B = CaptureBytes
    static let capture = TestPaths.projectCapture("le-coc.btsnoop")

    @Test(arguments: [
        (["--ltk", "7f62c053f104a5bbe68b1d896a2ed49"], "got 31"),
        (["--ltk", "zz:11=7f62c053f104a5bbe68b1d896a2ed49c"], "not a device address"),
        (["--ltk", "7f62c053f104a5bbe68b1d896a2ed4xx"], "--ltk"),
        (["--tk", "1000000"], "out of range (0 to 999999)"),
        (["--tk", "5E882417A987222423A1A9EC719AED"], "--tk"),
        (["--tk", "aa:bb:cc:dd:ee:ff=5E882417A987222423A1A9EC719AED27"], "not ADDR=TK"),
    ])
    func badValuesAreUsageErrors(arguments: [String], message: String) throws {
        for command in ["read", "gatt"] {
            let result = try Run.bleinspect([command] + arguments + [Self.capture])
            #expect(result.status == 64, "\(command) \(arguments)")
            #expect(result.stderr.contains(message), "\(command) \(arguments): \(result.stderr)")
        }
    }

    @Test func goodValuesAreAccepted() throws {
        let result = try Run.bleinspect([
            "read", "--count", "--ltk", "0x7f62c053f104a5bbe68b1d896a2ed49c", "--ltk",
            "78:C5:E5:6E:DD:E8=7f62c053f104a5bbe68b1d896a2ed49c", "--tk", "123456", "--tk",
            "5E882417A987222423A1A9EC719AED27", "--no-crack", Self.capture,
        ])
        #expect(result.status == 0)
    }

    @Test(.enabled(if: TestPaths.sharedCapturesAvailable))
    func viewsDecrypt() throws {
        let path = TestPaths.sharedCaptures.appendingPathComponent("crackle_known_ltk.pcap").path
        let key = ["--ltk", "7f62c053f104a5bbe68b1d896a2ed49c"]
        let gatt = try Run.bleinspect(["gatt", path] + key)
        #expect(gatt.stdoutText.contains("\"TI BLE Sensor Tag\""))
        let without = try Run.bleinspect(["gatt", path])
        #expect(!without.stdoutText.contains("TI BLE Sensor Tag"))
        #expect(try Self.decrypted(path, key) == "7")
    }

    static func decrypted(_ path: String, _ options: [String]) throws -> String {
        let count = try Run.bleinspect(["read", "--count", "-Y", "ll.decrypted", path] + options)
        return count.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
