import BLEInspectCore
import BLEDissectorTestSupport
import Testing

/// The ATT opcode table: the length rule the engine applies, and the facts the registry serves.
@Suite struct ATTOpcodeTableTests {
    /// (PDU, whether it is short): a few rows of each length rule, cut short or made long.
    static let cases: [(String, Bool)] = [
        ("0a 03", true),  // Read Request, exact(2): 1 of 2 bytes
        ("0a 03 00 00", false),  // one byte too many
        ("02 f7", true),  // Exchange MTU Request, exact(2)
        ("02 f7 00 00", false),
        ("18", true),  // Execute Write Request, exact(1)
        ("18 01 00", false),
        ("13 00", false),  // Write Response, exact(0)
        ("0c 03 00 00", true),  // Read Blob Request, exact(4)
        ("12 03", true),  // Write Request, atLeast(2)
        ("d2 03 00 01 02", true),  // Signed Write Command, atLeast(14)
    ]

    @Test("a short PDU is truncated, a long one malformed", arguments: cases)
    func lengthRule(_ hex: String, _ short: Bool) {
        let s = Dissect.feeder().att(hex)
        #expect(s.isMalformed, "\(hex)")
        let prefix = short ? "Malformed: packet too short: " : "Malformed: "
        let message = s.expertMessages.last ?? ""
        #expect(message.hasPrefix(prefix), "\(hex): \(s.expertMessages)")
        #expect(short || message.hasSuffix("after the PDU"), "\(hex): \(message)")
    }

    @Test("a PDU of the right length is not malformed")
    func rightLength() {
        for hex in ["0a 03 00", "02 f7 00", "18 01", "12 03 00", "d2 03 00 01 02 03 04 05 06 07 08 09 0a 0b 0c"] {
            #expect(!Dissect.feeder().att(hex).isMalformed, "\(hex)")
        }
    }

    @Test("the registry serves the table: senders, answers, lengths")
    func facts() throws {
        let registry = Dissect.registry()
        let facts = try #require(registry.opcodeFacts(StandardTables.attOpcode))
        let server = facts.all.filter { $0.sender == .server }.map(\.opcode)
        #expect(
            server == [0x01, 0x03, 0x05, 0x07, 0x09, 0x0B, 0x0D, 0x0F, 0x11, 0x13, 0x17, 0x19, 0x1B, 0x1D, 0x21, 0x23]
        )
        #expect(facts[0x0A]?.answeredBy == 0x0B)
        #expect(facts[0x0B]?.answers == 0x0A)
        #expect(facts[0x1E]?.answers == 0x1D)
        #expect(facts[0x0A]?.length == .exact(2))
        #expect(facts[0x0A]?.name == "Read Request")
        #expect(facts[0x14] == nil)
        #expect(registry.opcode(0x52, in: StandardTables.attOpcode)?.sender == .client)
    }
}
