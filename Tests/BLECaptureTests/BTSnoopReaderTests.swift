import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEInspectTestSupport
import Foundation
import Testing

@Suite("btsnoop reader")
struct BTSnoopReaderTests {
    typealias B = CaptureBytes
    let dir = TemporaryDirectory()

    @Test("datalink 1002: H4 type, direction flag, timestamp, original length")
    func h4Records() throws {
        let bytes =
            B.btsnoopHeader(datalink: 1002)
            + B.btsnoopRecord([0x01, 0x03, 0x0C, 0x00], flags: 2, unixMicros: 1_600_000_000_123_456)
            + B.btsnoopRecord([0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], flags: 3, unixMicros: 1_600_000_000_223_456)
            + B.btsnoopRecord(
                [0x02, 0x40, 0x00, 0x07, 0x00],
                flags: 1,
                unixMicros: 1_600_000_001_000_000,
                originalLength: 30
            )
        let (frames, error, format) = CaptureFiles.readAll(dir.write(bytes, to: "a.btsnoop"))
        #expect(error == nil)
        #expect(format?.container == .btsnoop)
        #expect(format?.linkType == 1002)
        try #require(frames.count == 3)
        #expect(frames.map(\.number) == [1, 2, 3])
        #expect(frames.map(\.kind) == [.hciCommand, .hciEvent, .aclData])
        #expect(frames.map(\.direction) == [.hostToController, .controllerToHost, .controllerToHost])
        #expect(frames[0].bytes == [0x03, 0x0C, 0x00])
        #expect(frames[0].timestamp.seconds == 1_600_000_000)
        #expect(frames[0].timestamp.nanoseconds == 123_456_000)
        #expect(frames[0].timestamp.precision == .microseconds)
        #expect(frames[2].originalLength == 29)
        #expect(frames[2].isTruncated)
        #expect(frames[2].sourceOffset == 16 + 28 + 31)
        #expect(frames.allSatisfy { $0.controllerIndex == nil })
    }

    @Test("datalink 1001 (H1): kind from the command/event and direction flags")
    func h1Records() {
        let bytes =
            B.btsnoopHeader(datalink: 1001)
            + B.btsnoopRecord([0x03, 0x0C, 0x00], flags: 2, unixMicros: 0)
            + B.btsnoopRecord([0x0E, 0x01, 0x00], flags: 3, unixMicros: 0)
            + B.btsnoopRecord([0x40, 0x00, 0x00, 0x00], flags: 0, unixMicros: 0)
            + B.btsnoopRecord([0x40, 0x00, 0x00, 0x00], flags: 1, unixMicros: 0)
        let (frames, error, _) = CaptureFiles.readAll(dir.write(bytes, to: "h1.btsnoop"))
        #expect(error == nil)
        #expect(frames.map(\.kind) == [.hciCommand, .hciEvent, .aclData, .aclData])
        #expect(
            frames.map(\.direction) == [.hostToController, .controllerToHost, .hostToController, .controllerToHost]
        )
        #expect(frames[0].bytes == [0x03, 0x0C, 0x00])
    }

    @Test("datalink 2001 (monitor): opcode gives kind and direction, the high half the controller")
    func monitorRecords() {
        let bytes =
            B.btsnoopHeader(datalink: 2001)
            + B.btsnoopRecord(Array("hello".utf8), flags: 0xFFFF_000C, unixMicros: 0)
            + B.btsnoopRecord([0x03, 0x0C, 0x00], flags: 0x0001_0002, unixMicros: 0)
            + B.btsnoopRecord([0x0E, 0x01, 0x00], flags: 0x0001_0003, unixMicros: 0)
            + B.btsnoopRecord([], flags: 0x0002_0008, unixMicros: 0)
            + B.btsnoopRecord([0x00], flags: 0x0000_0013, unixMicros: 0)
            + B.btsnoopRecord([0x00], flags: 0x0000_0063, unixMicros: 0)
        let (frames, error, _) = CaptureFiles.readAll(dir.write(bytes, to: "mon.btsnoop"))
        #expect(error == nil)
        #expect(frames.map(\.kind) == [.note, .hciCommand, .hciEvent, .openIndex, .isoData, .unknown(0x63)])
        #expect(frames.map(\.controllerIndex) == [nil, 1, 1, 2, 0, 0])
        #expect(frames[1].direction == .hostToController)
        #expect(frames[4].direction == .controllerToHost)
        #expect(frames[0].bytes == Array("hello".utf8))
    }

    @Test("a file holding only the header gives no frames and no error")
    func headerOnly() {
        let (frames, error, _) = CaptureFiles.readAll(dir.write(B.btsnoopHeader(datalink: 1002), to: "empty.btsnoop"))
        #expect(frames.isEmpty)
        #expect(error == nil)
    }

    @Test("unsupported version and datalink are named")
    func unsupported() {
        let v2 = CaptureFiles.readAll(dir.write(B.btsnoopHeader(datalink: 1002, version: 2), to: "v2.btsnoop"))
        #expect(v2.error?.code == .unsupported)
        #expect(v2.error?.description.contains("version 2") == true)
        let bcsp = CaptureFiles.readAll(dir.write(B.btsnoopHeader(datalink: 1003), to: "bcsp.btsnoop"))
        #expect(bcsp.error?.code == .unsupported)
        #expect(bcsp.error?.description.contains("1003") == true)
    }

    @Test("a record length over the cap is damage at that frame and offset; earlier frames survive")
    func lengthOverCap() {
        let good = B.btsnoopRecord([0x01, 0x03, 0x0C, 0x00], flags: 2, unixMicros: 0)
        let bad = B.btsnoopRecord([0x01], flags: 2, unixMicros: 0, includedLength: 0x7FFF_FFFF)
        let (frames, error, _) = CaptureFiles.readAll(
            dir.write(B.btsnoopHeader(datalink: 1002) + good + bad, to: "big.btsnoop")
        )
        #expect(frames.count == 1)
        #expect(error?.code == .badLength)
        #expect(error?.frame == 2)
        #expect(error?.offset == Int64(16 + good.count))
        #expect(error?.isDamage == true)
    }

    @Test("a truncated last record is damage naming the frame and offset")
    func truncatedLast() {
        let good = B.btsnoopRecord([0x01, 0x03, 0x0C, 0x00], flags: 2, unixMicros: 0)
        let cut = Array(good.dropLast(2))
        let (frames, error, _) = CaptureFiles.readAll(
            dir.write(B.btsnoopHeader(datalink: 1002) + good + cut, to: "cut.btsnoop")
        )
        #expect(frames.count == 1)
        #expect(error?.code == .truncated)
        #expect(error?.frame == 2)
        #expect(error?.offset == Int64(16 + good.count))
    }
}
