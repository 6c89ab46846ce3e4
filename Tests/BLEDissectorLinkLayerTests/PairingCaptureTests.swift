import BLECaptureTestSupport
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

    /// crackle's Secure Connections sample: neither side used the debug key, so no sniff gives the
    /// LTK, and the note says so.
    @Test func secureConnectionsReported() throws {
        let frames = try Decrypting.capture(Self.path("crackle_le_secure_connections.pcapng"), keys: [], crack: true)
        #expect(
            Self.notes(
                frames,
                containing: "LE Secure Connections pairing (frame 57): its LTK comes from an ECDH exchange"
            )
                == [162]
        )
        #expect(!frames.contains { $0.has("ll.decrypted") })
    }

    /// bsniffhub's Secure Connections passkey example: the peripheral sent the debug public key,
    /// so the LTK follows from the debug private key, the central's public key, the last Pairing
    /// Randoms and the addresses (f5); every encrypted PDU's MIC verifies with it. The central's
    /// DHKey Check (f6) verifies with the passkey the file's original name carries, 725522, given
    /// with --tk, and not with another.
    @Test func secureConnectionsDebugKeyPasskey() throws {
        let path = Self.path("bsniffhub_sc-passkeyentry-725522.pcap")
        let derived =
            "LE Secure Connections pairing (frame 152) with the debug key (sent by the peripheral): LTK baebed471f8e4c336ef9558c7d258717 derived"
        let frames = try Decrypting.capture(path, keys: [], crack: true)
        #expect(Self.notes(frames, containing: derived) == [502])
        #expect(
            Self.notes(frames, containing: "does not verify with rb = 0 (a passkey or out-of-band pairing)") == [502]
        )
        let decrypted = frames.filter { $0.bools("ll.decrypted") == [true] }.map(\.frame.number)
        #expect(decrypted == [507, 510, 512, 514, 516, 517, 519, 521, 607])
        #expect(!frames.contains { $0.has("ll.encrypted") })
        #expect(frames[511].uints("btsmp.opcode") == [0x08])
        let withPasskey = try Decrypting.capture(path, keys: [], tks: [Value128(725_522)], crack: true)
        #expect(Self.notes(withPasskey, containing: "DHKey Check verifies it with passkey 725522") == [502])
        let wrong = try Decrypting.capture(path, keys: [], tks: [Value128(123_456)], crack: true)
        #expect(Self.notes(wrong, containing: "does not verify with rb = 0 or a passkey given with --tk") == [502])
        // With no key recovered (--no-crack) the pairing is reported, and nothing is decrypted.
        let off = try Decrypting.capture(path, keys: [], crack: false)
        #expect(Self.notes(off, containing: "its LTK can be derived, which --no-crack leaves off") == [502])
        #expect(!off.contains { $0.has("ll.decrypted") })
    }

    /// bsniffhub's capture in which the nRF Sniffer loses the connection after packet 501: it
    /// decrypted the session itself until then, and afterwards leaves the PDUs encrypted, or marks
    /// them clear, with the two directions swapped. The Secure Connections pairing used the debug
    /// key (Just Works: the DHKey Check verifies with rb = 0); the sniffer's own decryptions keep
    /// the packet counters, and every PDU after the loss verifies its MIC with the derived LTK,
    /// in the direction opposite to the sniffer's: the GATT discovery that follows reads whole.
    @Test func sniffersLostSessionFollowedWithTheDebugKey() throws {
        let frames = try Decrypting.capture(
            Self.path("bsniffhub_encrypted-packet-501-missing.pcap"),
            keys: [],
            crack: true
        )
        #expect(
            Self.notes(
                frames,
                containing: "LTK fc4091878a54c22cb58488b88608b5e2 derived; the central's DHKey Check verifies it"
            )
                == [214]
        )
        let decrypted = frames.filter { $0.bools("ll.decrypted") == [true] }.map(\.frame.number)
        #expect(decrypted.count == 29 && decrypted.first == 503 && decrypted.last == 1522)
        #expect(!frames.contains { $0.has("ll.encrypted") || $0.has("ll.mic_failure") })
        #expect(
            Self.notes(frames, containing: "The sniffer marked this PDU as not encrypted")
                == [504, 508, 512, 516, 520, 572, 610, 650, 793, 959]
        )
        // The Read By Type Requests and Responses of characteristic discovery, paired.
        #expect(frames[503].uints("btatt.opcode") == [0x08])
        #expect(frames[506].uints("btatt.opcode") == [0x09])
        #expect(frames[1521].uints("btle.control_opcode") == [0x02])
    }

    /// bsniffhub's out-of-band example: no passkey fits, as expected of an OOB TK. The TK its
    /// original file name carries (5E882417...) is written least significant octet first: its
    /// reverse fits the confirm values, its STK decrypts the session, and the keys both sides
    /// distribute are learned; tshark decodes the same LTKs from the decrypted file (f8eeb5de...
    /// and 3fc5ae67..., which it shows least significant octet first).
    @Test func outOfBandLegacyPairing() throws {
        let path = Self.path("bsniffhub_lp-oob.pcap")
        let frames = try Decrypting.capture(path, keys: [], crack: true)
        #expect(Self.notes(frames, containing: "no passkey fits its confirm values") == [246])
        let named = try Value128(msoFirst: Array(hex: "5E882417A987222423A1A9EC719AED27"))
        let given = try Decrypting.capture(path, keys: [], tks: [named], crack: false)
        #expect(Self.notes(given, containing: "the TK given with --tk fits, its octets reversed") == [246])
        let decrypted = given.filter { $0.bools("ll.decrypted") == [true] }.map(\.frame.number)
        #expect(decrypted == [251, 254, 256, 258, 260, 262, 264, 265, 267, 269, 271, 273, 369])
        #expect(!given.contains { $0.has("ll.encrypted") })
        #expect(given[255].uints("btsmp.opcode") == [0x06])
        #expect(Self.notes(given, containing: "Long term key learned: f3b847bb0b99af4b648c4f40deb5eef8") == [256])
        #expect(Self.notes(given, containing: "Long term key learned: 90145b0d3f855eab1fe4ff9867aec53f") == [265])
        // A TK that fits in neither order is said not to.
        let wrong = try Decrypting.capture(path, keys: [], tks: [Value128(123_456)], crack: false)
        #expect(Self.notes(wrong, containing: "no TK given with --tk fits its confirm values") == [246])
        #expect(!wrong.contains { $0.has("ll.decrypted") })
    }

    /// crackle's pairing capture without its two Pairing Confirms (frames 569 and 572, as in
    /// crackle's own missing-confirms test, whose documentation expects TK 000000 by the slow
    /// search): the TK is found by the MIC of the first encrypted PDU, and the same PDUs decrypt.
    @Test func missingConfirmsUseTheSlowSearch() throws {
        let read = CaptureFiles.readAll(Self.path("crackle_pairing_and_ltk_exchange.pcap"))
        let kept = read.frames.enumerated().filter { ![568, 571].contains($0.offset) }.map(\.element)
        try #require(kept.count == read.frames.count - 2)
        let frames = Dissect.frames(kept, registry: try Decrypting.registry([], crack: true))
        // Frames keep their numbers in the capture: LL_ENC_RSP 580, LL_START_ENC_RSP 585.
        #expect(Self.notes(frames, containing: "without its confirm values (not captured)") == [580])
        #expect(
            Self.notes(
                frames,
                containing: "cracked without its confirm values, by this PDU's MIC (the slow search): TK 000000"
            )
                == [585]
        )
        #expect(frames.filter { $0.bools("ll.decrypted") == [true] }.map(\.frame.number) == [585, 589, 713])
        #expect(Self.notes(frames, containing: "Long term key learned: 7f62c053f104a5bbe68b1d896a2ed49c") == [589])
        // With the crack off and no TK, nothing is searched and nothing decrypts.
        let off = Dissect.frames(kept, registry: try Decrypting.registry([], crack: false))
        #expect(!off.contains { $0.has("ll.decrypted") })
        #expect(Self.notes(off, containing: "slow search").isEmpty)
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
