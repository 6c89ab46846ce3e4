import BLECaptureTestSupport
import BLEDissectorSMP
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// One PDU of every SMP opcode (Core Specification Vol 3 Part H 3.5, 3.6).
struct SMPVector: Sendable, CustomStringConvertible {
    let name: String
    let hex: String
    let uints: [(String, [UInt64])]
    let bytes: [(String, Int)]
    let info: String

    var description: String { name }

    static let key16 = "00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff"

    static let all: [SMPVector] = [
        SMPVector(
            name: "Pairing Request",
            hex: "01 03 00 2d 10 07 0f",
            uints: [
                ("btsmp.io_capability", [3]), ("btsmp.oob_data_flags", [0]), ("btsmp.authreq", [0x2D]),
                ("btsmp.bonding_flags", [1]), ("btsmp.mitm_flag", [1]), ("btsmp.sc_flag", [1]),
                ("btsmp.keypress_flag", [0]), ("btsmp.ct2_flag", [1]), ("btsmp.reserved_flags", [0]),
                ("btsmp.max_enc_key_size", [16]), ("btsmp.initiator_key_distribution", [7]),
                ("btsmp.responder_key_distribution", [0x0F]), ("btsmp.key_dist_enc", [1, 1]),
                ("btsmp.key_dist_id", [1, 1]), ("btsmp.key_dist_sign", [1, 1]), ("btsmp.key_dist_linkkey", [0, 1]),
            ],
            bytes: [],
            info:
                "Sent Pairing Request: IO Capability: NoInputNoOutput, AuthReq: Bonding, MITM, SC, CT2 | "
                + "Initiator Keys: LTK, IRK, CSRK | Responder Keys: LTK, IRK, CSRK, LinkKey"
        ),
        SMPVector(
            name: "Pairing Response",
            hex: "02 04 01 05 07 00 02",
            uints: [
                ("btsmp.io_capability", [4]), ("btsmp.oob_data_flags", [1]), ("btsmp.bonding_flags", [1]),
                ("btsmp.mitm_flag", [1]), ("btsmp.sc_flag", [0]), ("btsmp.max_enc_key_size", [7]),
                ("btsmp.initiator_key_distribution", [0]), ("btsmp.responder_key_distribution", [2]),
            ],
            bytes: [],
            info:
                "Sent Pairing Response: IO Capability: KeyboardDisplay, AuthReq: Bonding, MITM | "
                + "Initiator Keys: none | Responder Keys: IRK"
        ),
        SMPVector(
            name: "Pairing Confirm",
            hex: "03 " + key16,
            uints: [],
            bytes: [("btsmp.cfm_value", 16)],
            info: "Sent Pairing Confirm"
        ),
        SMPVector(
            name: "Pairing Random",
            hex: "04 " + key16,
            uints: [],
            bytes: [("btsmp.random_value", 16)],
            info: "Sent Pairing Random"
        ),
        SMPVector(
            name: "Pairing Failed",
            hex: "05 04",
            uints: [("btsmp.reason", [4])],
            bytes: [],
            info: "Sent Pairing Failed: Confirm Value Failed"
        ),
        SMPVector(
            name: "Encryption Information",
            hex: "06 " + key16,
            uints: [],
            bytes: [("btsmp.long_term_key", 16)],
            info: "Sent Encryption Information"
        ),
        SMPVector(
            name: "Central Identification",
            hex: "07 34 12 01 02 03 04 05 06 07 08",
            uints: [("btsmp.ediv", [0x1234])],
            bytes: [("btsmp.random_value", 8)],
            info: "Sent Central Identification: EDIV: 0x1234"
        ),
        SMPVector(
            name: "Identity Information",
            hex: "08 " + key16,
            uints: [],
            bytes: [("btsmp.id_resolving_key", 16)],
            info: "Sent Identity Information"
        ),
        SMPVector(
            name: "Identity Address Information",
            hex: "09 01 02 00 de c0 de c0",
            uints: [("btsmp.address_type", [1])],
            bytes: [("btsmp.bd_addr", 6)],
            info: "Sent Identity Address Information: C0:DE:C0:DE:00:02 (Random)"
        ),
        SMPVector(
            name: "Signing Information",
            hex: "0a " + key16,
            uints: [],
            bytes: [("btsmp.signature_key", 16)],
            info: "Sent Signing Information"
        ),
        SMPVector(
            name: "Security Request",
            hex: "0b 0d",
            uints: [("btsmp.authreq", [0x0D])],
            bytes: [],
            info: "Sent Security Request: AuthReq: Bonding, MITM, SC"
        ),
        SMPVector(
            name: "Pairing Public Key",
            hex: "0c " + String(repeating: key16 + " ", count: 4),
            uints: [],
            bytes: [("btsmp.public_key_x", 32), ("btsmp.public_key_y", 32)],
            info: "Sent Pairing Public Key"
        ),
        SMPVector(
            name: "Pairing DHKey Check",
            hex: "0d " + key16,
            uints: [],
            bytes: [("btsmp.dhkey_check", 16)],
            info: "Sent Pairing DHKey Check"
        ),
        SMPVector(
            name: "Pairing Keypress Notification",
            hex: "0e 01",
            uints: [("btsmp.notification_type", [1])],
            bytes: [],
            info: "Sent Pairing Keypress Notification: Passkey Digit Entered"
        ),
    ]
}

@Suite("SMP PDUs from the specification")
struct SMPVectorTests {
    @Test("every opcode decodes with its fields", arguments: SMPVector.all)
    func vector(_ v: SMPVector) {
        let s = Dissect.feeder().smp(v.hex)
        #expect(!s.isMalformed, "\(v.name): \(s.expertMessages)")
        #expect(!s.has("data.data"))
        #expect(s.uints("btsmp.opcode") == [UInt64(Hex.bytes(v.hex)[0])])
        for (field, values) in v.uints { #expect(s.uints(field) == values, "\(v.name): \(field)") }
        for (field, count) in v.bytes { #expect(s.bytes(field).map(\.count) == [count], "\(v.name): \(field)") }
        #expect(s.info == v.info)
    }

    @Test("keys are shown as the bytes sent")
    func keyBytes() {
        let s = Dissect.feeder().smp("06 " + SMPVector.key16)
        #expect(s.bytes("btsmp.long_term_key") == [Hex.bytes(SMPVector.key16)])
    }

    @Test("every prefix is truncated and bytes past a PDU are malformed", arguments: SMPVector.all)
    func prefixes(_ v: SMPVector) {
        expectEveryPrefix(of: Hex.bytes(v.hex), v.name, appended: [0]) { cut in
            let s = Dissect.feeder().channel(cut, .hostToController, connection: 0x40, cid: 6, psm: nil)
            #expect(s.has("btsmp"))
            return s
        }
    }

    @Test(
        "every reason has its name",
        arguments: [
            (0x01, "Passkey Entry Failed"), (0x02, "OOB Not Available"), (0x03, "Authentication Requirements"),
            (0x04, "Confirm Value Failed"), (0x05, "Pairing Not Supported"), (0x06, "Encryption Key Size"),
            (0x07, "Command Not Supported"), (0x08, "Unspecified Reason"), (0x09, "Repeated Attempts"),
            (0x0A, "Invalid Parameters"), (0x0B, "DHKey Check Failed"), (0x0C, "Numeric Comparison Failed"),
            (0x0D, "BR/EDR Pairing in Progress"), (0x0E, "Cross-transport Key Derivation/Generation Not Allowed"),
            (0x0F, "Key Rejected"), (0x10, "Busy"),
        ] as [(UInt8, String)]
    )
    func reasons(_ code: UInt8, _ name: String) {
        let s = Dissect.feeder().smp(String(format: "05 %02x", code), .controllerToHost)
        #expect(s.info == "Rcvd Pairing Failed: \(name)")
    }

    @Test("opcode names and bindings")
    func opcodes() throws {
        let registry = Dissect.registry()
        let id = try #require(registry.field(named: "btsmp.opcode"))
        let names = try #require(registry.descriptor(id).valueNames)
        for (code, name) in [
            (1, "Pairing Request"), (2, "Pairing Response"), (3, "Pairing Confirm"), (4, "Pairing Random"),
            (5, "Pairing Failed"), (6, "Encryption Information"), (7, "Central Identification"),
            (8, "Identity Information"), (9, "Identity Address Information"), (10, "Signing Information"),
            (11, "Security Request"), (12, "Pairing Public Key"), (13, "Pairing DHKey Check"),
            (14, "Pairing Keypress Notification"),
        ] as [(UInt64, String)] {
            #expect(names.lookup(code) == name)
            #expect(registry.binding(StandardTables.smpOpcode, DissectorKey(code)) != nil)
        }
        #expect(registry.binding(StandardTables.l2capCID, DissectorKey(6)) != nil)
        #expect(registry.binding(StandardTables.l2capCID, DissectorKey(7)) != nil)
        let unknown = Dissect.feeder().smp("0f 01")
        #expect(unknown.has("data.data"))
        #expect(unknown.info == "Sent Unknown Opcode 0x0f")
    }

    @Test("out-of-range values get warnings")
    func warnings() {
        let s = Dissect.feeder().smp("01 05 02 01 06 00 00")
        #expect(s.expertMessages.count == 3)
        #expect(Dissect.feeder().smp("09 02 02 00 de c0 de c0").expertMessages.count == 1)
    }

    @Test("the Secure Connections debug key is flagged")
    func debugKey() {
        let x = Hex.bytes("20b003d2f297be2c5e2c83a7e9f9a5b9eff49111acf4fddbcc0301480e359de6").reversed()
        let y = Hex.bytes("dc809c49652aeb6d63329abf5a52155c766345c28fed3024741c8ed01589d28b").reversed()
        let s = Dissect.feeder().channel([0x0C] + x + y, .hostToController, connection: 0x40, cid: 6, psm: nil)
        #expect(s.expertMessages.contains { $0.contains("debug public key") })
        #expect(Dissect.feeder().smp("0c " + String(repeating: SMPVector.key16 + " ", count: 4)).expertMessages.isEmpty)
    }
}

/// The association model selected by a Pairing Request and its Pairing Response
/// (Core Vol 3 Part H 2.3.5.1, tables 2.7 and 2.8).
@Suite("SMP pairing method")
struct SMPPairingMethodTests {
    /// (initiator IO, responder IO, SC, expected method name).
    static let table: [(UInt8, UInt8, Bool, String)] = [
        (3, 3, true, "Just Works"),
        (1, 1, true, "Numeric Comparison"),
        (1, 1, false, "Just Works"),
        (4, 4, true, "Numeric Comparison"),
        (4, 4, false, "Passkey Entry (responder inputs, initiator displays)"),
        (2, 0, true, "Passkey Entry (initiator inputs, responder displays)"),
        (0, 2, false, "Passkey Entry (responder inputs, initiator displays)"),
        (2, 2, true, "Passkey Entry (both input)"),
        (4, 1, false, "Passkey Entry (initiator inputs, responder displays)"),
        (4, 1, true, "Numeric Comparison"),
        (0, 0, true, "Just Works"),
        (2, 3, true, "Just Works"),
    ]

    @Test("IO capabilities with MITM select the model", arguments: table)
    func method(_ io: UInt8, _ responderIO: UInt8, _ sc: Bool, _ name: String) throws {
        let h = Dissect.feeder()
        let auth: UInt8 = sc ? 0x0D : 0x05
        let request = h.smp(String(format: "01 %02x 00 %02x 10 07 07", io, auth))
        let response = h.smp(String(format: "02 %02x 00 %02x 10 07 07", responderIO, auth), .controllerToHost)
        #expect(response.uints("smp.request_in_frame") == [UInt64(request.frame.number)])
        #expect(response.uints("smp.secure_connections") == [sc ? 1 : 0])
        let id = try #require(h.registry.field(named: "smp.pairing_method"))
        let method = try #require(response.uints("smp.pairing_method").first)
        #expect(h.registry.descriptor(id).valueNames?.lookup(method) == name)
        #expect(
            response.info.hasSuffix((sc ? "LE Secure Connections, " : "LE Legacy Pairing, ") + name + ", request #1")
        )
    }

    @Test("without MITM it is Just Works; OOB data selects Out of Band")
    func mitmAndOOB() throws {
        let h = Dissect.feeder()
        h.smp("01 04 00 09 10 07 07")
        let jw = h.smp("02 04 00 09 0c 07 07", .controllerToHost)
        #expect(jw.uints("smp.pairing_method") == [0])
        #expect(jw.uints("smp.encryption_key_size") == [12])
        // SC: one side's OOB flag is enough; legacy needs both.
        h.smp("01 03 01 09 10 07 07")
        #expect(h.smp("02 03 00 09 10 07 07", .controllerToHost).uints("smp.pairing_method") == [5])
        h.smp("01 03 01 01 10 07 07")
        #expect(h.smp("02 03 00 01 10 07 07", .controllerToHost).uints("smp.pairing_method") == [0])
        h.smp("01 03 01 01 10 07 07")
        #expect(h.smp("02 03 01 01 10 07 07", .controllerToHost).uints("smp.pairing_method") == [5])
    }

    @Test("a response without its request, or on another connection, selects nothing")
    func unmatched() {
        let h = Dissect.feeder()
        #expect(!h.smp("02 03 00 01 10 07 07", .controllerToHost).has("smp.pairing_method"))
        h.smp("01 03 00 01 10 07 07", connection: 0x41)
        #expect(!h.smp("02 03 00 01 10 07 07", .controllerToHost).has("smp.pairing_method"))
        h.close(0x41)
        #expect(!h.smp("02 03 00 01 10 07 07", .controllerToHost, connection: 0x41).has("smp.pairing_method"))
    }

    @Test("over BR/EDR (channel 7) only the key size is derived")
    func bredr() {
        let h = Dissect.feeder()
        h.smp("01 00 00 00 10 07 07", cid: 7)
        let s = h.smp("02 00 00 00 10 07 07", .controllerToHost, cid: 7)
        #expect(s.uints("smp.encryption_key_size") == [16])
        #expect(!s.has("smp.pairing_method"))
    }
}

@Suite("SMP robustness")
struct SMPRobustnessTests {
    @Test("random PDUs of every opcode never trap")
    func random() {
        var state: UInt64 = 7
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let h = Dissect.feeder()
        for _ in 0..<3000 {
            let count = Int(next() % 80)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
            if !bytes.isEmpty { bytes[0] = UInt8(next() % 16) }
            let direction: Direction = next() % 2 == 0 ? .hostToController : .controllerToHost
            let s = h.channel(bytes, direction, connection: UInt16(next() % 3), cid: next() % 4 == 0 ? 7 : 6, psm: nil)
            #expect(s.has("btsmp"))
        }
    }
}
