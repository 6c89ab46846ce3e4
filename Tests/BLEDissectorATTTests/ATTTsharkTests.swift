import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// A GATT session with every ATT opcode, and SMP on channels 6 and 7, as a pcap (link type 201)
/// that both tshark and bleinspect read.
enum SyntheticSession {
    /// (L2CAP CID, sent by the host?, PDU hex).
    static let pdus: [(UInt16, Bool, String)] = [
        (4, true, "02 f7 00"), (4, false, "03 05 02"),
        (4, true, "10 01 00 ff ff 00 28"), (4, false, "11 06 01 00 05 00 00 18 0e 00 11 00 0f 18"),
        (4, true, "08 01 00 05 00 03 28"), (4, false, "09 07 02 00 02 03 00 00 2a 04 00 02 05 00 01 2a"),
        (4, true, "08 0e 00 11 00 03 28"), (4, false, "09 07 0f 00 12 10 00 19 2a"),
        (4, true, "08 01 00 10 00 02 28"), (4, false, "09 08 05 00 0a 00 0f 00 0f 18"),
        (4, true, "04 11 00 11 00"), (4, false, "05 01 11 00 02 29"),
        (4, true, "06 01 00 ff ff 00 28 0f 18"), (4, false, "07 0e 00 11 00"),
        (4, true, "0a 10 00"), (4, false, "0b 57"),
        (4, true, "0c 03 00 16 00"), (4, false, "0d 61 62"),
        (4, true, "0e 03 00 10 00"), (4, false, "0f 61 62 57"),
        (4, true, "12 11 00 01 00"), (4, false, "13"),
        (4, true, "16 17 00 00 00 61 62"), (4, false, "17 17 00 00 00 61 62"),
        (4, true, "18 01"), (4, false, "19"),
        (4, false, "1b 10 00 56"),
        (4, false, "1d 08 00 01 00 ff ff"), (4, true, "1e"),
        (4, true, "20 03 00 10 00"), (4, false, "21 03 00 61 62 63 01 00 57"),
        (4, false, "23 10 00 01 00 55 12 00 02 00 61 62"),
        (4, true, "52 11 00 01 00"),
        (4, true, "d2 17 00 61 62 01 00 00 00 a1 a2 a3 a4 a5 a6 a7 a8"),
        (4, true, "0a 03 00"), (4, false, "01 0a 03 00 0a"),
        (6, true, "01 03 00 2d 10 07 0f"), (6, false, "02 03 00 2d 10 07 0f"),
        (6, false, "05 04"),
        (7, true, "01 00 00 00 10 07 07"),
    ]

    static func pcap() -> [UInt8] {
        var out = CaptureBytes.pcapHeader(linkType: 201)
        for (i, (cid, sent, hex)) in pdus.enumerated() {
            let pdu = Hex.bytes(hex)
            let l2cap = [UInt8(pdu.count & 0xFF), UInt8(pdu.count >> 8), UInt8(cid & 0xFF), UInt8(cid >> 8)] + pdu
            let acl = [0x01, 0x20, UInt8(l2cap.count & 0xFF), UInt8(l2cap.count >> 8)] + l2cap
            out += CaptureBytes.pcapRecord(
                CaptureBytes.be32(sent ? 0 : 1) + [0x02] + acl,
                seconds: UInt32(i),
                micros: 0
            )
        }
        return out
    }
}

@Suite("ATT and SMP compared with tshark", .enabled(if: Run.tshark != nil))
struct ATTTsharkTests {
    static let projectFiles = [
        "gatt-discovery.btsnoop", "gatt-discovery-be.pklg", "gatt-discovery-le.pklg", "gatt-discovery.pcapng",
        "le-coc.btsnoop", "smp-pairing.btsnoop", "smp-legacy-pairing.btsnoop", "adv-scan.btsnoop",
        "adv-extended.btsnoop",
    ]

    @Test("the project's captures agree with tshark frame by frame (ACL stand-in)", arguments: projectFiles)
    func projectMini(_ file: String) throws {
        let result = try TsharkComparison.compare(
            TestPaths.projectCapture(file),
            MiniStack.dissect(TestPaths.projectCapture(file), registry: Dissect.registry())
        )
        #expect(result.mismatches.isEmpty, "\(result.mismatches)")
    }

    @Test(
        "the project's captures agree with tshark frame by frame (full pipeline)",
        .enabled(if: Dissect.lowerLayersPresent),
        arguments: projectFiles
    )
    func projectFull(_ file: String) throws {
        let result = try TsharkComparison.compare(
            TestPaths.projectCapture(file),
            Dissect.capture(TestPaths.projectCapture(file))
        )
        #expect(result.mismatches.isEmpty, "\(result.mismatches)")
    }

    /// Every opcode in one session: the only disagreements are the documented kinds, exactly
    /// where expected.
    @Test("a session with every opcode differs from tshark only where documented")
    func synthetic() throws {
        let dir = TemporaryDirectory()
        let path = dir.write(SyntheticSession.pcap(), to: "session.pcap")
        var pipelines: [[FrameSnapshot]] = [MiniStack.dissect(path, registry: Dissect.registry())]
        if Dissect.lowerLayersPresent { pipelines.append(Dissect.capture(path)) }
        for snaps in pipelines {
            #expect(snaps.count == SyntheticSession.pdus.count)
            #expect(!snaps.contains { $0.isMalformed }, "\(snaps.filter(\.isMalformed).map(\.expertMessages))")
            let result = try TsharkComparison.compare(path, snaps)
            #expect(result.mismatches.allSatisfy { $0.kind != nil }, "\(result.mismatches)")
            let kinds = Dictionary(grouping: result.mismatches, by: { $0.frame }).mapValues {
                Set($0.compactMap(\.kind))
            }
            // Frames 30, 31, 32: Read Multiple Variable Request/Response and Multiple Handle
            // Value Notification; frame 40: SMP on channel 7.
            #expect(kinds[30] == [.eattOpcodeUnknownToTshark])
            #expect(kinds[31] == [.eattOpcodeUnknownToTshark])
            #expect(kinds[32] == [.eattOpcodeUnknownToTshark])
            #expect(kinds[40] == [.smpOnBREDR])
            #expect(Set(kinds.keys) == [30, 31, 32, 40], "\(result.mismatches)")
        }
    }

    @Test(
        "the shared HCI captures agree with tshark, apart from documented kinds (ACL stand-in)",
        .enabled(if: TestPaths.sharedCapturesAvailable),
        arguments: TsharkComparison.sharedHCICaptures().map(\.name)
    )
    func sharedMini(_ name: String) throws {
        let path = TestPaths.sharedCaptures.appendingPathComponent(name).path
        let result = try TsharkComparison.compare(path, MiniStack.dissect(path, registry: Dissect.registry()))
        #expect(result.mismatches.allSatisfy { $0.kind != nil }, "\(result.mismatches.filter { $0.kind == nil })")
    }

    @Test(
        "the shared HCI captures agree with tshark, apart from documented kinds (full pipeline)",
        .enabled(if: TestPaths.sharedCapturesAvailable && Dissect.lowerLayersPresent),
        arguments: TsharkComparison.sharedHCICaptures().map(\.name)
    )
    func sharedFull(_ name: String) throws {
        let path = TestPaths.sharedCaptures.appendingPathComponent(name).path
        let result = try TsharkComparison.compare(path, Dissect.capture(path))
        #expect(result.mismatches.allSatisfy { $0.kind != nil }, "\(result.mismatches.filter { $0.kind == nil })")
    }
}
