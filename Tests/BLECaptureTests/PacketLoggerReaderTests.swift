import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEInspectRender
import BLEInspectTestSupport
import Foundation
import Testing

@Suite("PacketLogger reader")
struct PacketLoggerReaderTests {
    typealias B = CaptureBytes
    let dir = TemporaryDirectory()

    func records(bigEndian: Bool) -> [UInt8] {
        B.packetLoggerRecord(
            type: 0xFC,
            Array("Product: test\u{1B}[31m".utf8),
            seconds: 1_700_000_000,
            micros: 5,
            bigEndian: bigEndian
        )
            + B.packetLoggerRecord(
                type: 0x00,
                [0x03, 0x0C, 0x00],
                seconds: 1_700_000_000,
                micros: 10,
                bigEndian: bigEndian
            )
            + B.packetLoggerRecord(
                type: 0x01,
                [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00],
                seconds: 1_700_000_001,
                micros: 999_999,
                bigEndian: bigEndian
            )
            + B.packetLoggerRecord(
                type: 0x02,
                [0x40, 0x00, 0x00, 0x00],
                seconds: 1_700_000_002,
                micros: 0,
                bigEndian: bigEndian
            )
            + B.packetLoggerRecord(
                type: 0x03,
                [0x40, 0x20, 0x00, 0x00],
                seconds: 1_700_000_002,
                micros: 1,
                bigEndian: bigEndian
            )
    }

    @Test("both byte orders give the same frames", arguments: [true, false])
    func byteOrders(bigEndian: Bool) {
        let (frames, error, format) = CaptureFiles.readAll(dir.write(records(bigEndian: bigEndian), to: "t.pklg"))
        #expect(error == nil)
        #expect(format?.container == .packetLogger)
        #expect(frames.map(\.kind) == [.note, .hciCommand, .hciEvent, .aclData, .aclData])
        #expect(
            frames.map(\.direction) == [
                .unknown, .hostToController, .controllerToHost, .hostToController, .controllerToHost,
            ]
        )
        #expect(frames[1].bytes == [0x03, 0x0C, 0x00])
        #expect(
            frames[2].timestamp == Timestamp(seconds: 1_700_000_001, nanoseconds: 999_999_000, precision: .microseconds)
        )
        #expect(FrameSummary.summary(of: frames[0]) == "Note: Product: test\\x1B[31m")
    }

    @Test("a record length under the minimum is damage")
    func tooShort() {
        let bytes = records(bigEndian: false) + B.le32(3) + [0, 0, 0]
        let (frames, error, _) = CaptureFiles.readAll(dir.write(bytes, to: "short.pklg"))
        #expect(frames.count == 5)
        #expect(error?.code == .badLength)
        #expect(error?.frame == 6)
        #expect(error?.offset == Int64(records(bigEndian: false).count))
    }

    @Test(
        "the shared iPhone captures read in their own byte order",
        .enabled(if: TestPaths.sharedCapturesAvailable)
    )
    func sharedFiles() throws {
        for (name, order) in [("isap_hci_dump.pklg", "big-endian"), ("peripage_capture.pklg", "little-endian")] {
            let path = TestPaths.sharedCaptures.appendingPathComponent(name).path
            let (frames, error, format) = CaptureFiles.readAll(path)
            #expect(error == nil)
            #expect(format?.linkTypeName.hasPrefix(order) == true, "\(name)")
            #expect(!frames.isEmpty)
        }
    }
}
