import BLECrypto
import BLEDissectorTestSupport
import Foundation
import Testing

/// Sniffed pairings: crackle's legacy Just Works pairing is cracked and the LTK it distributes
/// learned (crackle's documentation gives TK 000000 and LTK 7f62c053f104a5bbe68b1d896a2ed49c);
/// Secure Connections pairings are reported as such; an out-of-band legacy pairing is not
/// cracked.
@Suite("sniffed pairings", .enabled(if: TestPaths.sharedCapturesAvailable))
struct PairingCaptureTests {
    static func path(_ name: String) -> String { TestPaths.sharedCaptures.appendingPathComponent(name).path }

    static func notes(_ frames: [FrameSnapshot], containing text: String) -> [Int] {
        frames.filter { $0.expertMessages.contains { $0.contains(text) } }.map(\.frame.number)
    }

    @Test func crackleJustWorks() throws {
        let frames = try Decrypting.capture(Self.path("crackle_pairing_and_ltk_exchange.pcap"), keys: [], crack: true)
        let cracked = try #require(frames[579].expertMessages.first { $0.contains("cracked") })
        #expect(cracked.hasPrefix("Legacy pairing (frame 566) cracked: TK 000000 (Just Works"))
        // LL_START_ENC_RSP, SMP Encryption Information, LL_TERMINATE_IND: every encrypted PDU.
        #expect(frames.filter { $0.bools("ll.decrypted") == [true] }.map(\.frame.number) == [585, 589, 713])
        #expect(!frames.contains { $0.has("ll.encrypted") })
        #expect(frames[588].uints("btsmp.opcode") == [0x06])
        #expect(
            frames[588].expertMessages.contains {
                $0.hasPrefix("Long term key learned: 7f62c053f104a5bbe68b1d896a2ed49c, distributed by the peripheral")
            }
        )
        #expect(frames[588].strings("ll.decryption_key").first?.contains("TK 000000 cracked") == true)
    }

    @Test func noCrackLeavesItEncrypted() throws {
        let frames = try Decrypting.capture(Self.path("crackle_pairing_and_ltk_exchange.pcap"), keys: [])
        #expect(frames.filter { $0.has("ll.encrypted") }.map(\.frame.number) == [585, 589, 713])
        #expect(!frames.contains { $0.has("ll.decrypted") })
        #expect(Self.notes(frames, containing: "cracked").isEmpty)
    }

    @Test(arguments: [
        ("crackle_le_secure_connections.pcapng", 162, 57),
        ("bsniffhub_sc-passkeyentry-725522.pcap", 502, 152),
    ])
    func secureConnectionsReported(name: String, frame: Int, pairing: Int) throws {
        let frames = try Decrypting.capture(Self.path(name), keys: [], crack: true)
        #expect(Self.notes(frames, containing: "LE Secure Connections pairing (frame \(pairing))") == [frame])
        #expect(!frames.contains { $0.has("ll.decrypted") })
    }

    /// bsniffhub's out-of-band example: no passkey fits, as expected of an OOB TK. The TK its
    /// file name carries does not fit its confirm values either, in either byte order (nor does
    /// its STK verify the first encrypted PDU's MIC), so the pairing stays undecrypted.
    @Test func outOfBandLegacyPairing() throws {
        let path = Self.path("bsniffhub_lp-oob.pcap")
        let frames = try Decrypting.capture(path, keys: [], crack: true)
        #expect(Self.notes(frames, containing: "no passkey fits its confirm values") == [246])
        let named = try Value128(msoFirst: Array(hex: "5E882417A987222423A1A9EC719AED27"))
        let given = try Decrypting.capture(path, keys: [], tks: [named], crack: false)
        #expect(!given.contains { $0.has("ll.decrypted") })
    }
}

extension Array where Element == UInt8 {
    /// Octets from hex digits (an even count of them).
    init(hex: String) {
        let digits = Array(hex.utf8)
        self = stride(from: 0, to: digits.count - 1, by: 2).compactMap {
            UInt8(String(decoding: digits[$0...($0 + 1)], as: UTF8.self), radix: 16)
        }
    }
}
