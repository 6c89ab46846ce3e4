import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// The pairings recorded in captures/smp-pairing.btsnoop and captures/smp-legacy-pairing.btsnoop.
@Suite("SMP on the project's captures")
struct SMPCaptureTests {
    static func mini(_ file: String) -> [FrameSnapshot] {
        MiniStack.dissect(TestPaths.projectCapture(file), registry: Dissect.registry())
    }
    static func full(_ file: String) -> [FrameSnapshot] { Dissect.capture(TestPaths.projectCapture(file)) }

    static func checkSecureConnections(_ frames: [FrameSnapshot]) {
        let smp = frames.filter { $0.has("btsmp") }
        #expect(
            smp.flatMap { $0.uints("btsmp.opcode") } == [
                0x01, 0x02, 0x0C, 0x0C, 0x03, 0x04, 0x04, 0x0D, 0x0D, 0x08, 0x09, 0x0A, 0x08, 0x09, 0x0A,
            ]
        )
        #expect(!smp.contains { $0.isMalformed || !$0.expertMessages.isEmpty })
        #expect(!smp.contains { $0.has("data.data") })
        let request = smp[0]
        #expect(request.uints("btsmp.io_capability") == [3])
        #expect(request.uints("btsmp.sc_flag") == [1])
        #expect(request.uints("btsmp.bonding_flags") == [1])
        #expect(request.uints("btsmp.initiator_key_distribution") == [7])
        #expect(request.uints("btsmp.responder_key_distribution") == [7])
        #expect(request.info.hasPrefix("Sent Pairing Request: IO Capability: NoInputNoOutput, AuthReq: Bonding, SC"))
        let response = smp[1]
        #expect(response.uints("smp.request_in_frame") == [UInt64(request.frame.number)])
        #expect(response.uints("smp.secure_connections") == [1])
        #expect(response.uints("smp.pairing_method") == [0])
        #expect(response.uints("smp.encryption_key_size") == [16])
        #expect(response.info.hasSuffix(" | LE Secure Connections, Just Works, request #\(request.frame.number)"))
        for key in smp where key.uints("btsmp.opcode") == [0x0C] {
            #expect(key.bytes("btsmp.public_key_x").map(\.count) == [32])
            #expect(key.bytes("btsmp.public_key_y").map(\.count) == [32])
        }
        for check in smp where check.uints("btsmp.opcode") == [0x0D] {
            #expect(check.bytes("btsmp.dhkey_check").map(\.count) == [16])
        }
        let addresses = smp.flatMap { $0.values("btsmp.bd_addr") }
        #expect(
            addresses == [
                .address(BDAddr(rawValue: 0xC0DE_C0DE_0002)), .address(BDAddr(rawValue: 0xC0DE_C0DE_0001)),
            ]
        )
        #expect(smp.flatMap { $0.uints("btsmp.address_type") } == [1, 1])
        #expect(
            smp.flatMap { $0.bytes("btsmp.signature_key") } == [
                [UInt8](repeating: 0, count: 16), [UInt8](repeating: 0, count: 16),
            ]
        )
        #expect(smp.flatMap { $0.bytes("btsmp.id_resolving_key") }.map(\.count) == [16, 16])
        // With SC the LTK is derived, not sent.
        #expect(!smp.contains { $0.has("btsmp.long_term_key") })
    }

    static func checkLegacy(_ frames: [FrameSnapshot]) {
        let smp = frames.filter { $0.has("btsmp") }
        #expect(
            smp.flatMap { $0.uints("btsmp.opcode") } == [
                0x01, 0x02, 0x03, 0x03, 0x04, 0x04, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x06, 0x07, 0x08, 0x09, 0x0A,
            ]
        )
        #expect(!smp.contains { $0.isMalformed || !$0.expertMessages.isEmpty })
        let response = smp[1]
        #expect(response.uints("smp.secure_connections") == [0])
        #expect(response.uints("smp.pairing_method") == [0])
        #expect(response.info.hasSuffix(" | LE Legacy Pairing, Just Works, request #\(smp[0].frame.number)"))
        #expect(smp.flatMap { $0.bytes("btsmp.cfm_value") }.map(\.count) == [16, 16])
        #expect(smp.flatMap { $0.bytes("btsmp.random_value") }.map(\.count) == [16, 16, 8, 8])
        #expect(
            smp.flatMap { $0.bytes("btsmp.long_term_key") } == [
                Hex.bytes("8085bb950d55dbf869dcd6e92069d1aa"), Hex.bytes("3371a1fac1643340880e74723aa26f57"),
            ]
        )
        #expect(smp.flatMap { $0.uints("btsmp.ediv") } == [0, 0])
        #expect(
            smp.flatMap { $0.bytes("btsmp.id_resolving_key") } == [
                Hex.bytes("ffeeddccbbaa99887766554433221100"), Hex.bytes("00112233445566778899aabbccddeeff"),
            ]
        )
        let central = smp.first { $0.uints("btsmp.opcode") == [0x07] }
        #expect(central?.info == "Rcvd Central Identification: EDIV: 0x0000")
    }

    @Test("smp-pairing: every opcode decodes with its fields (ACL stand-in)")
    func secureConnectionsMini() { Self.checkSecureConnections(Self.mini("smp-pairing.btsnoop")) }

    @Test("smp-pairing: every opcode decodes with its fields (full pipeline)", .enabled(if: Dissect.lowerLayersPresent))
    func secureConnectionsFull() { Self.checkSecureConnections(Self.full("smp-pairing.btsnoop")) }

    @Test("smp-legacy-pairing: every opcode decodes with its fields (ACL stand-in)")
    func legacyMini() { Self.checkLegacy(Self.mini("smp-legacy-pairing.btsnoop")) }

    @Test(
        "smp-legacy-pairing: every opcode decodes with its fields (full pipeline)",
        .enabled(if: Dissect.lowerLayersPresent)
    )
    func legacyFull() { Self.checkLegacy(Self.full("smp-legacy-pairing.btsnoop")) }

    @Test("SMP opcodes agree with tshark on the SMP captures", .enabled(if: Run.tshark != nil))
    func tshark() throws {
        for file in ["smp-pairing.btsnoop", "smp-legacy-pairing.btsnoop"] {
            let rows = try Run.tsharkFields(
                TestPaths.projectCapture(file),
                ["btsmp.opcode", "btsmp.reason", "btsmp.io_capability"]
            )
            let ours = Self.mini(file)
            #expect(rows.count == ours.count)
            for (s, row) in zip(ours, rows) where row.count == 3 {
                let opcodes = s.uints("btsmp.opcode").map { String(format: "0x%02x", $0) }.joined(separator: ",")
                #expect(opcodes == row[0], "\(file) #\(s.frame.number)")
                let io = s.uints("btsmp.io_capability").map { String(format: "0x%02x", $0) }.joined(separator: ",")
                #expect(io == row[2], "\(file) #\(s.frame.number)")
            }
        }
    }
}
