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

    /// crackle's known-LTK capture decrypted with its key from each kind of `--keys` file, and
    /// from an HCI log whose LE Enable Encryption carries it.
    @Test(.enabled(if: TestPaths.sharedCapturesAvailable))
    func keyFilesAndHCILogs() throws {
        let path = TestPaths.sharedCaptures.appendingPathComponent("crackle_known_ltk.pcap").path
        let dir = TemporaryDirectory()
        let own = dir.write(
            Array("# crackle\nltk 78:C5:E5:6E:DD:E8 7f62c053f104a5bbe68b1d896a2ed49c\n".utf8),
            to: "keys.txt"
        )
        #expect(try Self.decrypted(path, ["--keys", own]) == "7")
        let wrong = dir.write(Array("ltk * 7f62c053f104a5bbe68b1d896a2ed49d\n".utf8), to: "wrong.txt")
        #expect(try Self.decrypted(path, ["--keys", wrong]) == "0")
        // BlueZ writes the key least significant octet first; the directory names the device.
        try FileManager.default.createDirectory(
            atPath: dir.path("78:C5:E5:6E:DD:E8"),
            withIntermediateDirectories: true
        )
        let info = dir.write(
            Array(
                "[LongTermKey]\nKey=9CD42E6A891D8BE6BBA504F153C0627F\nAuthenticated=0\nEncSize=16\nEDiv=0\nRand=0\n"
                    .utf8
            ),
            to: "78:C5:E5:6E:DD:E8/info"
        )
        // Its EDIV and Rand (0) are not the LL_ENC_REQ's: the key is not tried.
        #expect(try Self.decrypted(path, ["--keys", info]) == "0")
        let rightInfo = dir.write(
            Array(
                "[LongTermKey]\nKey=9CD42E6A891D8BE6BBA504F153C0627F\nEncSize=16\nEDiv=52712\nRand=522501074677077263\n"
                    .utf8
            ),
            to: "78:C5:E5:6E:DD:E8/info"
        )
        #expect(try Self.decrypted(path, ["--keys", rightInfo]) == "7")
        // An H4 btsnoop: LE Enable Encryption, handle 0x0040, Rand, EDIV, the LTK LSO first.
        var command: [UInt8] = [0x01, 0x19, 0x20, 0x1C, 0x40, 0x00] + [UInt8](repeating: 0, count: 10)
        command += [0x9C, 0xD4, 0x2E, 0x6A, 0x89, 0x1D, 0x8B, 0xE6, 0xBB, 0xA5, 0x04, 0xF1, 0x53, 0xC0, 0x62, 0x7F]
        let log = dir.write(
            B.btsnoopHeader(datalink: 1002) + B.btsnoopRecord(command, flags: 2, unixMicros: 0),
            to: "central.btsnoop"
        )
        #expect(try Self.decrypted(path, ["--keys-from-hci", log]) == "0")  // EDIV and Rand 0: not this session's
        command.replaceSubrange(6..<16, with: [0x0F, 0x15, 0xE3, 0x86, 0xF5, 0x4B, 0x40, 0x07, 0xE8, 0xCD])
        let right = dir.write(
            B.btsnoopHeader(datalink: 1002) + B.btsnoopRecord(command, flags: 2, unixMicros: 0),
            to: "central2.btsnoop"
        )
        #expect(try Self.decrypted(path, ["--keys-from-hci", right]) == "7")
    }

    /// `--keys` with an `irk` line: the advert from the specification's sample RPA (70:81:94:0D:FB:AA,
    /// IRK ec0234a3…, Vol 3 Part H Appendix D.7) belongs to the key's identity address; an advert
    /// from another RPA does not.
    @Test func irkFromKeyFileResolvesAddresses() throws {
        let dir = TemporaryDirectory()
        func advert(_ lsoFirst: [UInt8]) -> [UInt8] {
            B.btsnoopRecord([0x04, 0x3E, 12, 0x02, 1, 0x00, 0x01] + lsoFirst + [0, 0xC4], flags: 3, unixMicros: 0)
        }
        let capture = dir.write(
            B.btsnoopHeader(datalink: 1002) + advert([0xAA, 0xFB, 0x0D, 0x94, 0x81, 0x70])
                + advert([0x55, 0x44, 0x33, 0x22, 0x11, 0x4A]),
            to: "rpa.btsnoop"
        )
        let keys = dir.write(
            Array("irk c0:de:c0:de:00:01 ec0234a357c8ad05341010a60a397d9b random\n".utf8),
            to: "keys.txt"
        )
        func frames(_ options: [String]) throws -> [String] {
            let result = try Run.bleinspect(
                [
                    "read", "-T", "fields", "-e", "frame.number", "-e", "device.irk_source", "-Y",
                    "device.addr == c0:de:c0:de:00:01", capture,
                ] + options
            )
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdoutText.split(separator: "\n").map(String.init)
        }
        #expect(try frames([]) == [])
        #expect(try frames(["--keys", keys]) == ["1\t\(keys):1"])
    }
}
