import BLEDissectorL2CAP
import BLEInspectCore
import BLEDissectorTestSupport
import Testing

/// The signalling command table: the length rule applied to each command's data, the engine's
/// error boundary around each command, and the facts the registry serves.
@Suite struct SignallingCommandTableTests {
    /// Commands whose data is shorter than their row's length rule.
    static let short: [(String, [UInt8])] = [
        ("LE Flow Control Credit, exact(4)", PDU.frame(cid: 5, PDU.command(0x16, 1, [0x40, 0x00]))),
        ("Disconnection Request, exact(4)", PDU.frame(cid: 5, PDU.command(0x06, 1, [0x40, 0x00, 0x41]))),
        ("Command Reject, atLeast(2)", PDU.frame(cid: 5, PDU.command(0x01, 1, [0x00]))),
        ("Configuration Response, atLeast(6)", PDU.frame(cid: 1, PDU.command(0x05, 1, [0x40, 0, 0, 0]))),
        ("LE Credit Based Connection Request, exact(10)", PDU.frame(cid: 5, PDU.command(0x14, 1, [0x85, 0]))),
    ]

    @Test("a command shorter than its length rule is truncated, its malformed note in the command's node")
    func shortCommand() {
        for (what, bytes) in Self.short {
            let s = PDUFeeder.l2cap().pdu(bytes, .hostToController)
            #expect(s.isMalformed, "\(what)")
            #expect(s.expertMessages.contains { $0.hasPrefix("Malformed: packet too short: ") }, "\(what)")
            let command = s.depth("btl2cap.command")
            #expect(command != nil && s.depth("_ws.malformed") == command.map { $0 + 1 }, "\(what)")
        }
    }

    @Test("a command longer than an exact rule keeps today's output: a warning and the bytes as command data")
    func longCommand() {
        let credit = PDUFeeder.l2cap().pdu(
            PDU.frame(cid: 5, PDU.command(0x16, 1, [0x40, 0x00, 0x05, 0x00, 0xEE, 0xFF])),
            .hostToController
        )
        #expect(!credit.isMalformed)
        #expect(credit.uints("btl2cap.credits") == [5])
        #expect(credit.warnings.contains("2 unexpected bytes after the command"))
        #expect(credit.has("btl2cap.cmd_data"))
        let update = PDUFeeder.l2cap().pdu(PDU.frame(cid: 5, PDU.command(0x13, 2, [0, 0, 0xEE])), .hostToController)
        #expect(!update.isMalformed)
        #expect(update.uints("btl2cap.move_result") == [0])
        #expect(update.warnings.contains("1 unexpected byte after the command"))
    }

    @Test("after a malformed command, the next command of the PDU is still decoded")
    func nextCommand() {
        let s = PDUFeeder.l2cap().pdu(
            PDU.frame(cid: 1, PDU.command(0x06, 1, [0x40]) + PDU.command(0x0A, 2, [2, 0])),
            .hostToController
        )
        #expect(s.isMalformed)
        #expect(s.uints("btl2cap.cmd_code") == [0x06, 0x0A])
        #expect(s.uints("btl2cap.info_type") == [2])
    }

    @Test("the registry serves the table: names, lengths, answers, transports")
    func facts() throws {
        let registry = Dissect.registry()
        let facts = try #require(registry.opcodeFacts(SignallingCommands.tableID))
        #expect(facts.all.map(\.opcode) == Array(0x01...0x1A))
        #expect(facts[0x14]?.name == "LE Credit Based Connection Request")
        #expect(facts[0x14]?.length == .exact(10))
        #expect(facts[0x14]?.answeredBy == 0x15)
        #expect(facts[0x1A]?.answers == 0x19)
        #expect(facts[0x01]?.answers == nil)
        #expect(facts[0x12]?.sender == .peripheral)
        let le = facts.all.filter { $0.transport.allows(le: true) }.map(\.opcode)
        #expect(le == [0x01, 0x06, 0x07] + Array(0x12...0x1A))
        let bredr = facts.all.filter { $0.transport.allows(le: false) }.map(\.opcode)
        #expect(bredr == Array(0x01...0x11) + Array(0x17...0x1A))
        #expect(facts[0x00] == nil && facts[0x1B] == nil)
    }
}
