import BLECaptureTestSupport
import BLECrypto
import BLEDissectorTestSupport
import BLEInspectCore
import BLEKeys
import Foundation
import Testing

@testable import BLEDissectorLinkLayer

/// Decoding with the keys of `LinkLayerModule.longTermKeys`.
enum Decrypting {
    /// The registry of the link-layer stack with `keys` (`--ltk` values), `tks` (`--tk`) and
    /// the legacy pairing crack on or off as its configuration.
    static func registry(_ keys: [String], tks: [Value128] = [], crack: Bool = false) throws -> DissectorRegistry {
        var configuration = RegistryConfiguration()
        configuration[LinkLayerModule.longTermKeys] = try keys.map { text throws(KeyError) in
            try LongTermKey.argument(text)
        }
        configuration[LinkLayerModule.temporaryKeys] = tks
        configuration[LinkLayerModule.recoverPairingKeys] = crack
        return try RegistryBuilder.registering(modules: Dissect.modules).build(configuration: configuration)
    }

    /// The path of a new temporary pcap of `connection`, named from `name` (a file of its own:
    /// tests run in parallel, each writing its own).
    static func file(_ connection: SyntheticConnection, _ name: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).pcap")
        try Data(connection.pcap).write(to: url)
        return url.path
    }

    /// `path` decoded with `keys`, `tks` and the crack on or off.
    static func capture(_ path: String, keys: [String], tks: [Value128] = [], crack: Bool = false) throws
        -> [FrameSnapshot]
    {
        Dissect.frames(CaptureFiles.readAll(path).frames, registry: try registry(keys, tks: tks, crack: crack))
    }
}

/// The encryption procedure followed and its PDUs decrypted (`EncryptedConnection.scenario`):
/// counters per direction, a retransmission, a missed packet, a pause; a wrong key decrypts
/// nothing and says so.
@Suite("link-layer decryption")
struct DecryptionTests {
    static let key = "4C68384139F574D836BCF34E9DFB01BF"
    let path: String

    init() throws { path = try Decrypting.file(EncryptedConnection.scenario(), "ll-encrypted") }

    @Test func decryptsWithTheKey() throws {
        let frames = try Decrypting.capture(path, keys: [Self.key])
        try #require(frames.count == 20)
        // Frames 6, 7, 8, 11, 13, 14, 16 and 17 were sent encrypted.
        let decrypted = frames.filter { $0.bools("ll.decrypted") == [true] }.map(\.frame.number)
        #expect(decrypted == [6, 7, 8, 11, 13, 14, 16, 17])
        #expect(frames.allSatisfy { !$0.has("ll.encrypted") && !$0.has("ll.mic_failure") })
        let counters = decrypted.map { frames[$0 - 1].uints("ll.packet_counter") }
        #expect(counters == [[0], [0], [1], [1], [1], [3], [4], [2]])
        #expect(frames[5].uints("btle.control_opcode") == [0x06])
        #expect(frames[6].uints("btle.control_opcode") == [0x06])
        #expect(frames[7].uints("btatt.opcode") == [0x0A])
        #expect(frames[7].uints("btatt.handle") == [3])
        #expect(frames[10].uints("btatt.opcode") == [0x0B])
        #expect(frames[10].bytes("btatt.value") == [Array("hello".utf8)])
        // The retransmission is decrypted with its first sending's counter, and not passed up.
        #expect(frames[12].bools("ll.retransmission") == [true])
        #expect(!frames[12].has("btatt.opcode"))
        #expect(frames[13].uints("btatt.opcode") == [0x12])
        #expect(frames[15].uints("btle.control_opcode") == [0x0A])
        #expect(frames[16].uints("btle.control_opcode") == [0x0B])
        // The central's LL_PAUSE_ENC_RSP, in the clear, ends encryption.
        #expect(frames[17].uints("btle.control_opcode") == [0x0B])
        #expect(!frames[17].has("ll.decrypted"))
        #expect(frames[19].uints("btatt.opcode") == [0x0A])
        #expect(!frames[19].has("ll.decrypted"))
        let label = try #require(frames[7].strings("ll.decryption_key").first)
        #expect(label.hasPrefix(Self.key.lowercased()) && label.contains("--ltk"))
    }

    @Test func keyForThePeerOnly() throws {
        let other = try Decrypting.capture(path, keys: ["aa:bb:cc:dd:ee:ff=" + Self.key])
        #expect(other.allSatisfy { !$0.has("ll.decrypted") })
        let mine = try Decrypting.capture(path, keys: ["06:05:04:03:02:01=" + Self.key])
        #expect(mine.filter { $0.has("ll.decrypted") }.count == 8)
    }

    @Test func theRightKeyAmongOthers() throws {
        let frames = try Decrypting.capture(path, keys: [String(repeating: "1", count: 32), Self.key])
        #expect(frames.filter { $0.has("ll.decrypted") }.count == 8)
    }

    /// A wrong key: a note once, each encrypted PDU marked, and no plaintext above the link layer.
    @Test func wrongKeyGivesTheNoteAndNoPlaintext() throws {
        let frames = try Decrypting.capture(path, keys: ["4C68384139F574D836BCF34E9DFB01BE"])
        let failed = frames.filter { $0.bools("ll.mic_failure") == [true] }.map(\.frame.number)
        #expect(failed == [6, 7, 8, 11, 13, 14, 16, 17])
        let notes = frames.flatMap(\.expertMessages).filter { $0.hasPrefix("Key does not match") }
        #expect(notes.count == 1)
        for n in failed {
            let f = frames[n - 1]
            #expect(f.bools("ll.encrypted") == [true])
            #expect(!f.has("ll.decrypted") && !f.has("btatt") && !f.has("btle.control_opcode"), "frame \(n)")
            #expect(f.sources.isEmpty, "frame \(n): no decrypted data source")
        }
        // Encryption still ends at the pause.
        #expect(frames[19].uints("btatt.opcode") == [0x0A])
    }

    @Test func withoutAKeyAsBefore() throws {
        let frames = try Decrypting.capture(path, keys: [])
        let encrypted = frames.filter { $0.bools("ll.encrypted") == [true] }.map(\.frame.number)
        #expect(encrypted.starts(with: [6, 7, 8, 11, 13, 14, 16, 17]))
        #expect(frames.allSatisfy { !$0.has("ll.decrypted") && !$0.has("ll.mic_failure") })
    }
}

/// A legacy pairing cracked, its STK's session decrypted, and the LTK the peripheral distributes
/// there learned and used for the devices' next session (`PairedConnection.scenario`).
@Suite("legacy pairing and learned keys")
struct LearnedKeyTests {
    let path: String

    init() throws { path = try Decrypting.file(PairedConnection.scenario(), "ll-paired") }

    @Test func pairingCrackedAndLTKLearned() throws {
        let frames = try Decrypting.capture(path, keys: [], crack: true)
        try #require(frames.count == 29)
        let decrypted = frames.filter { $0.bools("ll.decrypted") == [true] }.map(\.frame.number)
        #expect(decrypted == [12, 13, 15, 17, 18, 19, 26, 27, 28])
        #expect(!frames.contains { $0.has("ll.encrypted") || $0.has("ll.mic_failure") })
        #expect(frames[8].expertMessages.contains { $0.hasPrefix("Legacy pairing (frame 2) cracked: TK 000000") })
        #expect(frames[14].uints("btsmp.opcode") == [0x06])
        #expect(frames[16].uints("btsmp.opcode") == [0x07])
        #expect(frames[11].strings("ll.decryption_key").first?.contains("STK of the pairing in frame 2") == true)
        let label = try #require(frames[27].strings("ll.decryption_key").first)
        #expect(label.hasPrefix("0123456789abcdeffedcba9876543210 (SMP Encryption Information in frame 15"))
        #expect(frames[27].uints("btatt.opcode") == [0x0A])
    }

    @Test func withoutTheCrackNothingDecrypts() throws {
        let frames = try Decrypting.capture(path, keys: [], crack: false)
        #expect(!frames.contains { $0.has("ll.decrypted") })
        // Without a key the link layer cannot tell the clear PDUs after the pause (frames 20, 22,
        // 23 and 25) from encrypted ones: they are marked too, as before decryption existed.
        let encrypted = Set(frames.filter { $0.has("ll.encrypted") }.map(\.frame.number))
        #expect(encrypted == [12, 13, 15, 17, 18, 19, 20, 22, 23, 25, 26, 27, 28])
    }

    @Test func aPasskeyGivenWithTK() throws {
        let frames = try Decrypting.capture(path, keys: [], tks: [Value128(0)], crack: false)
        #expect(frames[8].expertMessages.contains { $0.contains("the TK given with --tk fits") })
        #expect(frames.filter { $0.has("ll.decrypted") }.count == 9)
    }
}
