import BLEInspectCore
import BLEInspectTestSupport
import Foundation
import Testing

/// `-w` with a key writes the decrypted capture in the same link type, and tshark (which cannot
/// decrypt) reads it cleanly: the ATT PDUs it finds are the ones bleinspect shows, the RF header
/// says decrypted with a valid MIC, and every CRC (recomputed) is right.
@Suite(
    "writing decrypted captures",
    .enabled(if: Run.tshark != nil && TestPaths.sharedCapturesAvailable)
)
struct DecryptedWriteTests {
    static let userDLT = "uat:user_dlts:\"User 0 (DLT=147)\",\"btle\",\"0\",\"\",\"0\",\"\""

    static func tshark(_ path: String, _ filter: String, _ fields: [String]) throws -> [String] {
        guard let tshark = Run.tshark else { return [] }
        var args = ["-r", path, "-o", userDLT, "-Y", filter, "-T", "fields"]
        for f in fields { args += ["-e", f] }
        return try Run.program(tshark, args).stdoutText.split(separator: "\n").map(String.init)
    }

    static func ours(_ path: String, _ key: String, _ filter: String, _ fields: [String]) throws -> [String] {
        var args = ["read", path, "--ltk", key, "-Y", filter, "-T", "fields"]
        for f in fields { args += ["-e", f] }
        return try Run.bleinspect(args).stdoutText.split(separator: "\n").map(String.init)
    }

    /// The shared capture `name` written decrypted with `key` into `dir`: its path, and the
    /// written file's.
    static func written(_ name: String, _ key: String, in dir: TemporaryDirectory) throws -> (String, String) {
        let original = TestPaths.sharedCaptures.appendingPathComponent(name).path
        let out = dir.path("decrypted.pcap")
        let write = try Run.bleinspect(["read", original, "--ltk", key, "-w", out])
        try #require(write.status == 0)
        return (original, out)
    }

    /// PPI wrapping link type 147: no header flags; tshark decodes the 7 decrypted PDUs.
    @Test func crackleKnownLTK() throws {
        let dir = TemporaryDirectory()
        let key = "7f62c053f104a5bbe68b1d896a2ed49c"
        let (original, out) = try Self.written("crackle_known_ltk.pcap", key, in: dir)
        let att = try Self.tshark(out, "btatt", ["frame.number", "btatt.opcode"])
        #expect(att == ["184\t0x08", "198\t0x08", "212\t0x08", "215\t0x09", "229\t0x08"])
        #expect(att == (try Self.ours(original, key, "btatt", ["frame.number", "btatt.opcode"])))
        let control = try Self.tshark(out, "frame.number == 91 || frame.number == 303", ["btle.control_opcode"])
        #expect(control == ["0x06", "0x02"])
        #expect(try Self.tshark(out, "frame", ["frame.number"]).count == 303)
    }

    /// Link type 256: the RF header's flags say decrypted, MIC checked and valid; CRCs hold.
    @Test func bsniffhubAuxConnectRequest() throws {
        let dir = TemporaryDirectory()
        let key = "9A7163D4C92D91B5C3BA0EBFB4D1B8A2"
        let (original, out) = try Self.written("bsniffhub_AUX_CONNECT_REQ.pcap", key, in: dir)
        #expect(
            try Self.tshark(out, "btle_rf.flags.decrypted == 1 && btle_rf.flags.mic_valid == 1", ["frame.number"]).count
                == 201
        )
        #expect(try Self.tshark(out, "btle.crc.incorrect || _ws.malformed", ["frame.number"]).isEmpty)
        // Every ATT PDU tshark finds is one bleinspect shows; bleinspect also puts together 4 PDUs
        // from LL fragments that tshark leaves as fragments.
        let theirs = try Self.tshark(out, "btatt", ["frame.number", "btatt.opcode"])
        let ours = try Self.ours(original, key, "btatt", ["frame.number", "btatt.opcode"])
        #expect(theirs.count == 137 && ours.count == 141)
        #expect(Set(theirs).isSubset(of: Set(ours)))
    }

    /// The crack's STK (no key given) writes crackle's pairing capture decrypted: tshark finds
    /// the LL_START_ENC_RSPs, the SMP Encryption Information with the LTK crackle documents
    /// (7f62c053..., which tshark shows least significant octet first) and LL_TERMINATE_IND, as
    /// bleinspect does.
    @Test func cracklePairingCracked() throws {
        let dir = TemporaryDirectory()
        let original = TestPaths.sharedCaptures.appendingPathComponent("crackle_pairing_and_ltk_exchange.pcap").path
        let out = dir.path("cracked.pcap")
        #expect(try Run.bleinspect(["read", original, "-w", out]).status == 0)
        let fields = ["frame.number", "btsmp.opcode", "btsmp.long_term_key"]
        let smp = try Self.tshark(out, "btsmp.opcode == 6", fields)
        #expect(smp == ["589\t0x06\t9cd42e6a891d8be6bba504f153c0627f"])
        #expect(
            smp
                == (try Run.bleinspect(
                    ["read", original, "-Y", "btsmp.opcode == 6", "-T", "fields"] + fields.flatMap { ["-e", $0] }
                ).stdoutText.split(separator: "\n").map(String.init))
        )
        let control = try Self.tshark(out, "frame.number in {585, 713}", ["btle.control_opcode"])
        #expect(control == ["0x06", "0x02"])
        #expect(try Self.tshark(out, "_ws.malformed", ["frame.number"]).isEmpty)
    }

    /// The nRF Sniffer capture that loses its session after packet 501, written with the LTK the
    /// debug key gives: tshark reads the ATT PDUs of the 29 PDUs decrypted here with the opcodes
    /// bleinspect shows, with Encrypted and MIC OK set, and nothing malformed. The sniffer swaps
    /// directions after the loss; where the MIC verifies in the other direction, `ll.sender` says
    /// so, and the written header's direction bit too: tshark's direction of every decrypted PDU
    /// is bleinspect's sender (1, central to peripheral, for sender 1).
    @Test func nordicSessionLostAfter501() throws {
        let dir = TemporaryDirectory()
        let original = TestPaths.sharedCaptures.appendingPathComponent("bsniffhub_encrypted-packet-501-missing.pcap")
            .path
        let out = dir.path("501.pcap")
        #expect(try Run.bleinspect(["read", original, "-w", out]).status == 0)
        let filter = "frame.number >= 502 && btatt"
        let theirs = try Self.tshark(out, filter, ["frame.number", "btatt.opcode"])
        let ours = try Run.bleinspect([
            "read", original, "-Y", filter, "-T", "fields", "-e", "frame.number", "-e", "btatt.opcode",
        ])
        #expect(theirs.count == 28)
        #expect(theirs == ours.stdoutText.split(separator: "\n").map(String.init))
        #expect(
            try Self.tshark(out, "nordic_ble.encrypted == 1 && nordic_ble.micok == 1", ["frame.number"]).count >= 29
        )
        #expect(try Self.tshark(out, "_ws.malformed", ["frame.number"]).isEmpty)

        let decrypted = "frame.number >= 502 && nordic_ble.encrypted == 1 && nordic_ble.micok == 1"
        let directions = try Self.tshark(out, decrypted, ["frame.number", "nordic_ble.direction"])
        let senders = try Run.bleinspect([
            "read", original, "-Y", "frame.number >= 502 && ll.decrypted", "-T", "fields", "-e", "frame.number", "-e",
            "ll.sender",
        ]).stdoutText.split(separator: "\n").map { $0.replacingOccurrences(of: "\t2", with: "\t0") }
        #expect(directions.count == 29)
        #expect(directions == senders)
        // Frame 503: the sniffer says central; the MIC, the peripheral (a Read By Type Response).
        let original503 = try Self.tshark(original, "frame.number == 503", ["nordic_ble.direction"])
        #expect(original503 == ["1"])
        #expect(try Self.tshark(out, "frame.number == 503", ["nordic_ble.direction", "btatt.opcode"]) == ["0\t0x09"])
    }

    /// bsniffhub's out-of-band pairing with the TK its file name carries: tshark reads the 13
    /// decrypted PDUs as the SMP key distribution of both sides (opcodes 6 to 10, twice) between
    /// the LL_START_ENC_RSPs and LL_TERMINATE_IND, with the flags set and nothing malformed.
    @Test func bsniffhubOutOfBand() throws {
        let dir = TemporaryDirectory()
        let original = TestPaths.sharedCaptures.appendingPathComponent("bsniffhub_lp-oob.pcap").path
        let out = dir.path("oob.pcap")
        #expect(
            try Run.bleinspect(["read", original, "--tk", "5E882417A987222423A1A9EC719AED27", "-w", out]).status == 0
        )
        let decrypted = try Self.tshark(
            out,
            "btle_rf.flags.decrypted == 1 && btle_rf.flags.mic_valid == 1",
            ["frame.number"]
        )
        #expect(
            decrypted == ["251", "254", "256", "258", "260", "262", "264", "265", "267", "269", "271", "273", "369"]
        )
        let smp = try Self.tshark(out, "btsmp.opcode >= 6", ["btsmp.opcode"])
        #expect(smp == ["0x06", "0x07", "0x08", "0x09", "0x0a", "0x06", "0x07", "0x08", "0x09", "0x0a"])
        #expect(try Self.tshark(out, "btle.crc.incorrect || _ws.malformed", ["frame.number"]).isEmpty)
        let ltks = try Self.tshark(out, "btsmp.opcode == 6", ["btsmp.long_term_key"])
        #expect(ltks == ["f8eeb5de404f8c644baf990bbb47b8f3", "3fc5ae6798ffe41fab5e853f0d5b1490"])
    }
}

/// `CapturedFrame.applying`: edits replace ranges of the bytes as captured, in any order.
@Suite("frame edits")
struct FrameEditTests {
    @Test func editsReplaceRanges() {
        let frame = CapturedFrame(
            number: 1,
            timestamp: Timestamp(seconds: 0, nanoseconds: 0, precision: .microseconds),
            direction: .unknown,
            controllerIndex: nil,
            kind: .linkLayer(linkType: 251),
            bytes: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
            originalLength: 10,
            sourceOffset: 0
        )
        let edited = frame.applying([FrameEdit(6..<10, [0xAA]), FrameEdit(1..<2, [0xBB, 0xCC])])
        #expect(edited.bytes == [0, 0xBB, 0xCC, 2, 3, 4, 5, 0xAA])
        #expect(edited.originalLength == 8)
        // An edit past the bytes is skipped.
        #expect(frame.applying([FrameEdit(9..<12, [1, 2, 3])]).bytes == frame.bytes)
    }
}
