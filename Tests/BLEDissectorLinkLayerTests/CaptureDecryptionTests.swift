import BLEDissectorTestSupport
import Foundation
import Testing

/// Real sniffer captures decrypted with the keys their sources give: crackle's known-LTK sample
/// (its documentation gives the LTK; crackle decrypts 7 of its encrypted packets) and bsniffhub's
/// examples (the LTK is in each file's original name).
@Suite("decrypting real captures", .enabled(if: TestPaths.sharedCapturesAvailable))
struct CaptureDecryptionTests {
    static func path(_ name: String) -> String { TestPaths.sharedCaptures.appendingPathComponent(name).path }

    static func numbers(_ frames: [FrameSnapshot], _ field: String) -> [Int] {
        frames.filter { $0.bools(field) == [true] }.map(\.frame.number)
    }

    /// The 7 packets crackle decrypts; of the 4 others sent encrypted, 3 have bad CRCs (their MICs
    /// do not verify either) and one is cut short: they stay encrypted, and say why.
    @Test func crackleKnownLTK() throws {
        let frames = try Decrypting.capture(
            Self.path("crackle_known_ltk.pcap"),
            keys: ["7f62c053f104a5bbe68b1d896a2ed49c"]
        )
        try #require(frames.count == 303)
        #expect(Self.numbers(frames, "ll.decrypted") == [91, 184, 198, 212, 215, 229, 303])
        let encrypted = Self.numbers(frames, "ll.encrypted")
        #expect(encrypted == [163, 187, 232, 235])
        for n in encrypted.dropLast() {
            #expect(frames[n - 1].bools("ll.crc_valid") == [false], "frame \(n)")
            #expect(frames[n - 1].expertMessages.contains("Encrypted: not decrypted (bad CRC)"), "frame \(n)")
        }
        #expect(frames[234].expertMessages.contains("Encrypted: not decrypted (the packet is cut short)"))
        #expect(Self.numbers(frames, "ll.mic_failure").isEmpty)
        // GATT: four Read By Type Requests for the Device Name, and its value in the one response.
        #expect(frames.filter { $0.uints("btatt.opcode") == [0x08] }.map(\.frame.number) == [184, 198, 212, 229])
        #expect(frames[214].uints("btatt.opcode") == [0x09])
        #expect(frames[214].bytes("btatt.value") == [Array("TI BLE Sensor Tag".utf8)])
        #expect(frames[302].uints("btle.control_opcode") == [0x02])
    }

    @Test func crackleWrongKey() throws {
        let frames = try Decrypting.capture(
            Self.path("crackle_known_ltk.pcap"),
            keys: ["7f62c053f104a5bbe68b1d896a2ed49d"]
        )
        #expect(Self.numbers(frames, "ll.decrypted").isEmpty)
        #expect(Self.numbers(frames, "ll.mic_failure") == [91, 184, 198, 212, 215, 229, 303])
        #expect(frames.flatMap(\.expertMessages).filter { $0.hasPrefix("Key does not match") }.count == 1)
        #expect(frames.allSatisfy { !$0.has("btatt") })
    }

    /// Every encrypted packet decrypts; two, whose sender the sniffer has wrong after a missed
    /// packet, in the other direction.
    @Test func bsniffhubAuxConnectRequest() throws {
        let frames = try Decrypting.capture(
            Self.path("bsniffhub_AUX_CONNECT_REQ.pcap"),
            keys: ["9A7163D4C92D91B5C3BA0EBFB4D1B8A2"]
        )
        try #require(frames.count == 1091)
        #expect(Self.numbers(frames, "ll.decrypted").count == 201)
        #expect(Self.numbers(frames, "ll.encrypted").isEmpty && Self.numbers(frames, "ll.mic_failure").isEmpty)
        let swapped = frames.filter { $0.expertMessages.contains { $0.hasPrefix("The MIC verifies in the other") } }
        #expect(swapped.map(\.frame.number) == [291, 292])
        #expect(frames.filter { $0.has("btatt.opcode") }.count == 141)
        #expect(frames[291].uints("btatt.opcode") == [0x12])
        #expect(frames[293].uints("btatt.opcode") == [0x13])
    }

    @Test func bsniffhubSecureConnectionsFragments() throws {
        let frames = try Decrypting.capture(
            Self.path("bsniffhub_sc-justworks-fragments-assembly.pcap"),
            keys: ["BD27012E93C195F13B8F176FE84A2DED"]
        )
        #expect(Self.numbers(frames, "ll.decrypted") == [150, 153, 244, 247, 248, 251, 252, 255, 256, 259, 346])
        #expect(Self.numbers(frames, "ll.encrypted").isEmpty && Self.numbers(frames, "ll.mic_failure").isEmpty)
        let att = frames.filter { $0.has("btatt.opcode") && $0.has("ll.decrypted") }
        #expect(att.map { $0.uints("btatt.opcode").first ?? 0 } == [0x08, 0x09, 0x08, 0x09, 0x08, 0x09, 0x08, 0x01])
    }
}
