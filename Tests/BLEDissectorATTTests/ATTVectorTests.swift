import BLECaptureTestSupport
import BLEDissectorATT
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// One PDU of every ATT opcode (Core Specification Vol 3 Part F 3.4), with the fields it must give.
struct ATTVector: Sendable, CustomStringConvertible {
    let name: String
    let hex: String
    let direction: Direction
    let expect: [(String, [UInt64])]
    /// A request to send first, for responses whose layout depends on it.
    var before: String? = nil

    var description: String { name }

    static let all: [ATTVector] = [
        ATTVector(
            name: "Error Response",
            hex: "01 10 19 00 0a",
            direction: .controllerToHost,
            expect: [
                ("btatt.opcode", [0x01]), ("btatt.req_opcode_in_error", [0x10]), ("btatt.handle_in_error", [0x0019]),
                ("btatt.handle", [0x0019]),
                ("btatt.error_code", [0x0A]),
            ]
        ),
        ATTVector(
            name: "Exchange MTU Request",
            hex: "02 f7 00",
            direction: .hostToController,
            expect: [("btatt.client_rx_mtu", [247])]
        ),
        ATTVector(
            name: "Exchange MTU Response",
            hex: "03 05 02",
            direction: .controllerToHost,
            expect: [("btatt.server_rx_mtu", [517])]
        ),
        ATTVector(
            name: "Find Information Request",
            hex: "04 01 00 ff ff",
            direction: .hostToController,
            expect: [("btatt.starting_handle", [1]), ("btatt.ending_handle", [0xFFFF])]
        ),
        ATTVector(
            name: "Find Information Response (16-bit)",
            hex: "05 01 09 00 02 29 0a 00 01 29",
            direction: .controllerToHost,
            expect: [
                ("btatt.uuid_format", [1]), ("btatt.handle", [0x0009, 0x000A]), ("btatt.uuid16", [0x2902, 0x2901]),
            ]
        ),
        ATTVector(
            name: "Find Information Response (128-bit)",
            hex: "05 02 18 00 01 00 00 00 00 00 00 80 00 40 00 00 c7 5e e1 b1",
            direction: .controllerToHost,
            expect: [("btatt.uuid_format", [2]), ("btatt.handle", [0x0018])]
        ),
        ATTVector(
            name: "Find By Type Value Request",
            hex: "06 01 00 ff ff 00 28 0f 18",
            direction: .hostToController,
            // The value (the service UUID searched for) is a btatt.value, as in Wireshark.
            expect: [
                ("btatt.starting_handle", [1]), ("btatt.ending_handle", [0xFFFF]), ("btatt.uuid16", [0x2800]),
            ]
        ),
        ATTVector(
            name: "Find By Type Value Response",
            hex: "07 0e 00 11 00",
            direction: .controllerToHost,
            expect: [("btatt.handle", [0x000E]), ("btatt.group_end_handle", [0x0011])]
        ),
        ATTVector(
            name: "Read By Type Request",
            hex: "08 01 00 05 00 03 28",
            direction: .hostToController,
            expect: [("btatt.starting_handle", [1]), ("btatt.ending_handle", [5]), ("btatt.uuid16", [0x2803])]
        ),
        ATTVector(
            name: "Read By Type Response",
            hex: "09 07 02 00 02 03 00 00 2a 04 00 02 05 00 01 2a",
            direction: .controllerToHost,
            // As in Wireshark: each declaration's handle is recorded under the requested type
            // (0x2803) and shown with it, then the characteristic's UUID, and the requested type ends
            // the list.
            expect: [
                ("btatt.length", [7]), ("btatt.handle", [2, 3, 4, 5]), ("btatt.characteristic_properties", [2, 2]),
                ("btatt.characteristic_value_handle", [3, 5]),
                ("btatt.uuid16", [0x2803, 0x2A00, 0x2803, 0x2A01, 0x2803]),
            ],
            before: "08 01 00 05 00 03 28"
        ),
        ATTVector(
            name: "Read Request",
            hex: "0a 03 00",
            direction: .hostToController,
            expect: [("btatt.handle", [3])]
        ),
        ATTVector(
            name: "Read Response",
            hex: "0b 62 6c 65",
            direction: .controllerToHost,
            expect: [("btatt.opcode", [0x0B])]
        ),
        ATTVector(
            name: "Read Blob Request",
            hex: "0c 03 00 16 00",
            direction: .hostToController,
            expect: [("btatt.handle", [3]), ("btatt.offset", [22])]
        ),
        ATTVector(
            name: "Read Blob Response",
            hex: "0d 61 62",
            direction: .controllerToHost,
            expect: [("btatt.opcode", [0x0D])]
        ),
        ATTVector(
            name: "Read Multiple Request",
            hex: "0e 03 00 10 00",
            direction: .hostToController,
            expect: [("btatt.handle", [3, 0x10])]
        ),
        ATTVector(
            name: "Read Multiple Response",
            hex: "0f 61 62 57",
            direction: .controllerToHost,
            expect: [("btatt.opcode", [0x0F])]
        ),
        ATTVector(
            name: "Read By Group Type Request",
            hex: "10 01 00 ff ff 00 28",
            direction: .hostToController,
            expect: [("btatt.starting_handle", [1]), ("btatt.ending_handle", [0xFFFF]), ("btatt.uuid16", [0x2800])]
        ),
        ATTVector(
            name: "Read By Group Type Response",
            hex: "11 06 01 00 05 00 00 18 0e 00 11 00 0f 18",
            direction: .controllerToHost,
            expect: [
                ("btatt.length", [6]), ("btatt.handle", [1, 0x0E]), ("btatt.group_end_handle", [5, 0x11]),
                ("btatt.uuid16", [0x1800, 0x180F]),
            ]
        ),
        ATTVector(
            name: "Write Request",
            hex: "12 11 00 01 00",
            direction: .hostToController,
            expect: [("btatt.handle", [0x11])]
        ),
        ATTVector(name: "Write Response", hex: "13", direction: .controllerToHost, expect: [("btatt.opcode", [0x13])]),
        ATTVector(
            name: "Prepare Write Request",
            hex: "16 17 00 00 00 61 62",
            direction: .hostToController,
            expect: [("btatt.handle", [0x17]), ("btatt.offset", [0])]
        ),
        ATTVector(
            name: "Prepare Write Response",
            hex: "17 17 00 00 00 61 62",
            direction: .controllerToHost,
            expect: [("btatt.handle", [0x17]), ("btatt.offset", [0])]
        ),
        ATTVector(
            name: "Execute Write Request",
            hex: "18 01",
            direction: .hostToController,
            expect: [("btatt.flags", [1])]
        ),
        ATTVector(
            name: "Execute Write Response",
            hex: "19",
            direction: .controllerToHost,
            expect: [("btatt.opcode", [0x19])]
        ),
        ATTVector(
            name: "Handle Value Notification",
            hex: "1b 10 00 56",
            direction: .controllerToHost,
            expect: [("btatt.handle", [0x10])]
        ),
        ATTVector(
            name: "Handle Value Indication",
            hex: "1d 08 00 01 00 ff ff",
            direction: .controllerToHost,
            expect: [("btatt.handle", [8])]
        ),
        ATTVector(
            name: "Handle Value Confirmation",
            hex: "1e",
            direction: .hostToController,
            expect: [("btatt.opcode", [0x1E])]
        ),
        ATTVector(
            name: "Read Multiple Variable Request",
            hex: "20 03 00 10 00",
            direction: .hostToController,
            expect: [("btatt.handle", [3, 0x10])]
        ),
        ATTVector(
            name: "Read Multiple Variable Response",
            hex: "21 02 00 61 62 01 00 57",
            direction: .controllerToHost,
            expect: [("gatt.value_length", [2, 1])]
        ),
        ATTVector(
            name: "Multiple Handle Value Notification",
            hex: "23 10 00 01 00 55 12 00 02 00 61 62",
            direction: .controllerToHost,
            expect: [("btatt.handle", [0x10, 0x12]), ("gatt.value_length", [1, 2])]
        ),
        ATTVector(
            name: "Write Command",
            hex: "52 11 00 01 00",
            direction: .hostToController,
            expect: [
                ("btatt.opcode", [0x52]), ("btatt.opcode.method", [0x12]), ("btatt.opcode.command", [1]),
                ("btatt.opcode.authentication_signature", [0]), ("btatt.handle", [0x11]),
            ]
        ),
        ATTVector(
            name: "Signed Write Command",
            hex: "d2 17 00 61 62 01 00 00 00 a1 a2 a3 a4 a5 a6 a7 a8",
            direction: .hostToController,
            expect: [
                ("btatt.opcode", [0xD2]), ("btatt.opcode.method", [0x12]), ("btatt.opcode.command", [1]),
                ("btatt.opcode.authentication_signature", [1]), ("btatt.handle", [0x17]), ("btatt.sign_counter", [1]),
            ]
        ),
    ]
}

@Suite("ATT PDUs from the specification")
struct ATTVectorTests {
    @Test("every opcode decodes with its fields and no malformed note", arguments: ATTVector.all)
    func vector(_ v: ATTVector) throws {
        let h = Dissect.feeder()
        if let before = v.before {
            h.att(before, v.direction == .hostToController ? .controllerToHost : .hostToController)
        }
        let s = h.att(v.hex, v.direction)
        #expect(!s.isMalformed, "\(v.name): \(s.expertMessages)")
        #expect(s.has("btatt"))
        #expect(!s.has("data.data"), "\(v.name) left undecoded bytes")
        #expect(s.uints("btatt.opcode") == [UInt64(Hex.bytes(v.hex)[0])])
        for (field, values) in v.expect {
            #expect(s.uints(field) == values, "\(v.name): \(field)")
        }
        #expect(s.info.hasPrefix(v.direction == .hostToController ? "Sent " : "Rcvd "), "\(s.info)")
    }

    /// What the sweep expects of a vector besides truncation: cuts that decode clean (a last value
    /// of any length, or a list ending on an element), cuts with another mark, and what a byte past
    /// the whole gives (the value takes it, or it starts an element cut short; malformed when the
    /// PDU has a fixed size). A Read By (Group) Type Request cut inside the attribute type, below
    /// its row's 6 bytes, is truncated too, not "an attribute type is 2 or 16 bytes".
    static let cutRules: [String: (clean: [Int], marks: [Int: FrameMark], past: FrameMark)] = [
        "Find Information Response (16-bit)": ([6], [2: .warning], .truncated),
        "Find Information Response (128-bit)": ([], [2: .warning], .truncated),
        "Find By Type Value Request": ([7, 8], [:], .clean),
        "Find By Type Value Response": ([1], [:], .truncated),
        "Read By Type Request": ([], [:], .malformed),
        "Read By Type Response": ([2, 9], [:], .truncated),
        "Read Response": (Array(1..<4), [:], .clean),
        "Read Blob Response": ([1, 2], [:], .clean),
        "Read Multiple Request": ([], [1: .warning, 3: .warning], .truncated),
        "Read Multiple Response": (Array(1..<4), [:], .clean),
        "Read By Group Type Request": ([], [:], .malformed),
        "Read By Group Type Response": ([2, 8], [:], .truncated),
        "Write Request": ([3, 4], [:], .clean),
        "Prepare Write Request": ([5, 6], [:], .clean),
        "Prepare Write Response": ([5, 6], [:], .clean),
        "Handle Value Notification": ([3], [:], .clean),
        "Handle Value Indication": (Array(3..<7), [:], .clean),
        "Read Multiple Variable Request": ([], [1: .warning, 3: .warning], .truncated),
        "Read Multiple Variable Response": (Array(1..<8), [:], .clean),
        "Multiple Handle Value Notification": ([1, 6], [:], .truncated),
        "Write Command": ([3, 4], [:], .clean),
        "Signed Write Command": ([15, 16], [:], .clean),
    ]

    @Test("every prefix of every vector is truncated unless listed; nothing traps", arguments: ATTVector.all)
    func prefixes(_ v: ATTVector) {
        let rule = Self.cutRules[v.name] ?? ([], [:], .malformed)
        expectEveryPrefix(
            of: Hex.bytes(v.hex),
            v.name,
            clean: Set(rule.clean),
            marks: rule.marks,
            appended: [0xEE],
            appendedMark: rule.past
        ) { cut in
            let h = Dissect.feeder()
            if let before = v.before {
                h.att(before, v.direction == .hostToController ? .controllerToHost : .hostToController)
            }
            let s = h.channel(cut, v.direction, connection: 0x40, cid: 4, psm: nil)
            #expect(s.has("btatt"))
            return s
        }
    }

    @Test("bytes after a fixed-size PDU are malformed")
    func trailing() {
        for hex in ["01 10 19 00 0a 00", "02 f7 00 00", "04 01 00 ff ff 00", "0a 03 00 00", "13 00", "18 01 00"] {
            let s = Dissect.feeder().att(hex)
            #expect(s.isMalformed, "\(hex)")
        }
    }

    @Test("the opcode's bits and the names of every opcode")
    func opcodeNames() throws {
        let registry = Dissect.registry()
        let opcode = try #require(registry.field(named: "btatt.opcode"))
        let names = try #require(registry.descriptor(opcode).valueNames)
        let expected: [UInt64: String] = [
            0x01: "Error Response", 0x02: "Exchange MTU Request", 0x03: "Exchange MTU Response",
            0x04: "Find Information Request", 0x05: "Find Information Response",
            0x06: "Find By Type Value Request", 0x07: "Find By Type Value Response", 0x08: "Read By Type Request",
            0x09: "Read By Type Response", 0x0A: "Read Request", 0x0B: "Read Response", 0x0C: "Read Blob Request",
            0x0D: "Read Blob Response", 0x0E: "Read Multiple Request", 0x0F: "Read Multiple Response",
            0x10: "Read By Group Type Request", 0x11: "Read By Group Type Response", 0x12: "Write Request",
            0x13: "Write Response", 0x16: "Prepare Write Request", 0x17: "Prepare Write Response",
            0x18: "Execute Write Request", 0x19: "Execute Write Response", 0x1B: "Handle Value Notification",
            0x1D: "Handle Value Indication", 0x1E: "Handle Value Confirmation",
            0x20: "Read Multiple Variable Request", 0x21: "Read Multiple Variable Response",
            0x23: "Multiple Handle Value Notification", 0x52: "Write Command", 0xD2: "Signed Write Command",
        ]
        for (code, name) in expected {
            #expect(names.lookup(code) == name)
            #expect(registry.binding(StandardTables.attOpcode, DissectorKey(code)) != nil, "opcode \(code) unbound")
        }
        #expect(names.lookup(0x14) == nil)
    }

    @Test(
        "every error code has its name",
        arguments: [
            (0x01, "Invalid Handle"), (0x02, "Read Not Permitted"), (0x03, "Write Not Permitted"),
            (0x04, "Invalid PDU"),
            (0x05, "Insufficient Authentication"), (0x06, "Request Not Supported"), (0x07, "Invalid Offset"),
            (0x08, "Insufficient Authorization"), (0x09, "Prepare Queue Full"), (0x0A, "Attribute Not Found"),
            (0x0B, "Attribute Not Long"), (0x0C, "Encryption Key Size Too Short"),
            (0x0D, "Invalid Attribute Value Length"), (0x0E, "Unlikely Error"), (0x0F, "Insufficient Encryption"),
            (0x10, "Unsupported Group Type"), (0x11, "Insufficient Resources"), (0x12, "Database Out Of Sync"),
            (0x13, "Value Not Allowed"), (0x80, "Application Error"), (0x9F, "Application Error"),
            (0xFC, "Write Request Rejected"),
            (0xFD, "Client Characteristic Configuration Descriptor Improperly Configured"),
            (0xFE, "Procedure Already in Progress"), (0xFF, "Out of Range"),
        ] as [(UInt8, String)]
    )
    func errorCodes(_ code: UInt8, _ name: String) throws {
        let h = Dissect.feeder()
        h.att("0a 03 00")
        let s = h.att("01 0a 03 00 " + String(format: "%02x", code), .controllerToHost)
        #expect(s.uints("btatt.error_code") == [UInt64(code)])
        let id = try #require(h.registry.field(named: "btatt.error_code"))
        #expect(h.registry.descriptor(id).valueNames?.lookup(UInt64(code)) == name)
        #expect(s.info == "Rcvd Error Response - \(name), Read Request, Handle: 0x0003, response to #1")
    }

    @Test("a Find Information Response with a bad UUID format or a partial entry is malformed")
    func badFindInformation() {
        #expect(Dissect.feeder().att("05 03 09 00 02 29", .controllerToHost).isMalformed)
        #expect(Dissect.feeder().att("05 01 09 00 02", .controllerToHost).isMalformed)
        #expect(Dissect.feeder().att("05 02 09 00 02 29", .controllerToHost).isMalformed)
    }

    @Test("a Read By Type Request's attribute type must be 2 or 16 bytes")
    func badTypeLength() {
        #expect(Dissect.feeder().att("08 01 00 ff ff 03 28 00").isMalformed)
        #expect(!Dissect.feeder().att("08 01 00 ff ff 01 00 00 00 00 00 00 80 00 10 00 00 03 28 00 00").isMalformed)
    }

    @Test("a signed write needs its 12-byte signature")
    func signedWriteShort() {
        let s = Dissect.feeder().att("d2 17 00 01 02 03 04 05 06 07 08 09 0a 0b")
        #expect(s.isMalformed)
        #expect(s.uints("btatt.handle") == [0x17])
        let ok = Dissect.feeder().att("d2 17 00 01 02 03 04 05 06 07 08 09 0a 0b 0c")
        #expect(!ok.isMalformed)
        #expect(ok.bytes("btatt.value") == [[]])
        #expect(ok.bytes("btatt.signature") == [[5, 6, 7, 8, 9, 10, 11, 12]])
    }

    @Test("an unknown opcode keeps its bytes as data")
    func unknownOpcode() {
        let s = Dissect.feeder().att("3f 01 02")
        #expect(s.uints("btatt.opcode") == [0x3F])
        #expect(s.uints("btatt.opcode.method") == [0x3F])
        #expect(s.has("data.data"))
        #expect(s.info == "Sent Unknown Opcode 0x3f")
    }
}

/// Arbitrary bytes through the ATT decoders, with state kept across PDUs: nothing may trap.
@Suite("ATT robustness")
struct ATTRobustnessTests {
    @Test("random PDUs of every opcode never trap", arguments: [1, 2, 3] as [UInt64])
    func random(seed: UInt64) {
        var g = SplitMix64(seed: seed)
        let h = Dissect.feeder()
        let opcodes: [UInt8] = ATTVector.all.map { Hex.bytes($0.hex)[0] } + [0x3F, 0x14, 0xFF]
        var malformed = 0
        for _ in 0..<3000 {
            let count = Int(g.next() % 40)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: g.next()) }
            if !bytes.isEmpty { bytes[0] = opcodes[Int(g.next() % UInt64(opcodes.count))] }
            // Small handles, so that learned handles are met again.
            if bytes.count >= 3 { bytes[2] = 0 }
            let direction: Direction = g.next() % 2 == 0 ? .hostToController : .controllerToHost
            let s = h.channel(bytes, direction, connection: UInt16(g.next() % 3), cid: 4, psm: nil)
            #expect(s.has("btatt"))
            if s.isMalformed { malformed += 1 }
        }
        #expect(malformed > 0)
    }
}
