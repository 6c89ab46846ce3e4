import BLEInspectCore
import BLEDissectorTestSupport
import Testing

/// The SMP opcode table: the length rule the engine applies, and the facts the registry serves.
@Suite struct SMPOpcodeTableTests {
    static let cases: [(String, String?)] = [
        ("05", nil),  // Pairing Failed, exact(1): nothing
        ("05 08 00", "Pairing Failed"),
        ("01 03 00 01 10 07", nil),  // Pairing Request, exact(6): 5 of 6
        ("01 03 00 01 10 07 07 00", "Pairing Request"),
        ("0b 01 02", "Security Request"),
        ("09 00 11 22 33 44 55", nil),  // Identity Address Information, exact(7)
    ]

    @Test("a short PDU is truncated, a long one malformed after its name", arguments: cases)
    func lengthRule(_ hex: String, _ longAfter: String?) {
        let s = Dissect.feeder().smp(hex)
        #expect(s.isMalformed, "\(hex)")
        let message = s.expertMessages.last ?? ""
        if let name = longAfter {
            #expect(message.hasPrefix("Malformed: ") && message.hasSuffix("after the \(name)"), "\(message)")
        } else {
            #expect(message.hasPrefix("Malformed: packet too short: "), "\(message)")
        }
    }

    @Test("the registry serves the table")
    func facts() throws {
        let facts = try #require(Dissect.registry().opcodeFacts(StandardTables.smpOpcode))
        #expect(facts[0x01]?.answeredBy == 0x02)
        #expect(facts[0x0B]?.sender == .responder)
        #expect(facts[0x0C]?.transport == .le)
        #expect(facts[0x0C]?.length == .exact(64))
        #expect(facts.all.count == 14)
    }
}
