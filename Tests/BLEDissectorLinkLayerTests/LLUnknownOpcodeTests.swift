import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

@testable import BLEDissectorLinkLayer

/// LL control PDUs whose opcode this build has no name for: the opcode is still shown, with its
/// raw value, as tshark shows it (`btle.control_opcode`), and the rest as data.
@Suite("LL control PDUs with unknown opcodes")
struct LLUnknownOpcodeTests {
    /// Opcodes past the last one named, with and without parameters.
    static let pdus: [[UInt8]] = [
        [0x40], [0x41, 0x01, 0x02], [0x7F, 0x00], [0x80], [0xC3, 0xAA, 0xBB, 0xCC], [0xFF],
    ]

    static var frames: [CapturedFrame] {
        pdus.enumerated().map { i, pdu in LLControlSamples.frame(pdu, number: i + 1) }
    }

    @Test("the opcode is shown with its raw value, the parameters as data")
    func shown() {
        for (snapshot, pdu) in zip(Dissect.frames(Self.frames), Self.pdus) {
            #expect(LLControl.name(pdu[0]) == nil)
            #expect(snapshot.uints("btle.control_opcode") == [UInt64(pdu[0])])
            #expect(snapshot.bytes("data.data") == (pdu.count > 1 ? [Array(pdu.dropFirst())] : []))
        }
    }

    @Test("bleinspect's -T fields value is tshark's", .enabled(if: Run.tshark != nil))
    func agreesWithTshark() throws {
        let directory = TemporaryDirectory()
        let path = directory.write(LLControlSamples.pcap(Self.frames), to: "ll-unknown.pcap")
        let ours = try Run.bleinspect(["read", "-T", "fields", "-e", "btle.control_opcode", path])
        #expect(ours.status == 0, "\(ours.stderr)")
        let tshark = try #require(Run.tshark)
        let theirs = try Run.program(
            tshark,
            ["-r", path, "-T", "fields", "-E", "occurrence=a", "-e", "btle.control_opcode"]
        )
        let values = theirs.stdoutText.split(separator: "\n").map(String.init)
        #expect(values.count == Self.pdus.count)
        #expect(ours.stdoutText.split(separator: "\n").map(String.init) == values)
    }
}
