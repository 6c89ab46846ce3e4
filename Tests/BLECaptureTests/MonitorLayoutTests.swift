import BLECapture
import BLECaptureIO
import BLECapturePcap
import BLEInspectCore
import BLEInspectTestSupport
import Foundation
import Testing

/// One frame for the tests, at `micros` microseconds after 2025-01-01.
func testFrame(
    _ kind: FrameKind,
    _ direction: Direction,
    controller: UInt16?,
    _ bytes: [UInt8],
    micros: Int64,
    originalLength: Int? = nil
) -> CapturedFrame {
    CapturedFrame(
        number: 0,
        timestamp: Timestamp(unixMicroseconds: 1_735_689_600_000_000 + micros),
        direction: direction,
        controllerIndex: controller,
        kind: kind,
        bytes: bytes,
        originalLength: originalLength ?? bytes.count,
        sourceOffset: 0
    )
}

/// Everything a live monitor capture holds: index records, notes, logs, control records, and
/// HCI traffic in both directions on two controllers.
func monitorFrames() -> [CapturedFrame] {
    let newIndex: [UInt8] = [0x00, 0x01, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66] + Array("hci0\0\0\0\0".utf8)
    return [
        testFrame(.note, .unknown, controller: nil, Array("Bluetooth subsystem version 2.22".utf8), micros: 0),
        testFrame(.newIndex, .unknown, controller: 0, newIndex, micros: 10),
        testFrame(.openIndex, .unknown, controller: 0, [], micros: 20),
        testFrame(.indexInfo, .unknown, controller: 0, [0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x02, 0x00], micros: 30),
        testFrame(.log, .unknown, controller: nil, [6, 9] + Array("bluetoothd\0hello\0".utf8), micros: 40),
        testFrame(.controlOpen, .unknown, controller: 0xFFFF - 1, [1, 0, 0, 0, 2, 0], micros: 50),
        testFrame(.hciCommand, .hostToController, controller: 0, [0x03, 0x0C, 0x00], micros: 100),
        testFrame(.hciEvent, .controllerToHost, controller: 0, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], micros: 200),
        testFrame(.aclData, .hostToController, controller: 1, [0x01, 0x00, 0x03, 0x00, 0xAA, 0xBB, 0xCC], micros: 300),
        testFrame(.aclData, .controllerToHost, controller: 1, [0x01, 0x20, 0x02, 0x00, 0x01, 0x02], micros: 400),
        testFrame(.scoData, .hostToController, controller: 0, [0x02, 0x00, 0x01, 0x55], micros: 500),
        testFrame(.scoData, .controllerToHost, controller: 0, [0x02, 0x00, 0x01, 0x66], micros: 600),
        testFrame(.isoData, .hostToController, controller: 1, [0x03, 0x00, 0x01, 0x00, 0x77], micros: 700),
        testFrame(.isoData, .controllerToHost, controller: 1, [0x03, 0x00, 0x01, 0x00, 0x88], micros: 800),
        testFrame(.vendorDiagnostic, .unknown, controller: 0, [0xDE, 0xAD], micros: 900),
        testFrame(
            .aclData,
            .controllerToHost,
            controller: 0,
            [0x01, 0x20, 0x10, 0x00, 0x01],
            micros: 950,
            originalLength: 20
        ),
        testFrame(.controlCommand, .unknown, controller: 0xFFFE, [0x01, 0x00], micros: 1000),
        testFrame(.controlEvent, .unknown, controller: 0xFFFE, [0x01, 0x00, 0x00], micros: 1100),
        testFrame(.controlClose, .unknown, controller: 0xFFFE, [], micros: 1200),
        testFrame(.unknown(42), .unknown, controller: 0, [0x42], micros: 1250),
        testFrame(.closeIndex, .unknown, controller: 0, [], micros: 1300),
        testFrame(.deleteIndex, .unknown, controller: 0, [], micros: 1400),
    ]
}

@Suite("monitor layout")
struct MonitorLayoutTests {
    @Test("opcode(for:direction:) is the inverse of classify for every known opcode")
    func opcodeInverse() {
        for opcode in UInt16(0)...19 {
            let (kind, direction) = MonitorRecord.classify(opcode: opcode)
            #expect(MonitorRecord.opcode(for: kind, direction: direction) == opcode, "opcode \(opcode)")
        }
        // Unknown directions: data as sent; commands and events by kind.
        #expect(MonitorRecord.opcode(for: .aclData, direction: .unknown) == 4)
        #expect(MonitorRecord.opcode(for: .scoData, direction: .unknown) == 6)
        #expect(MonitorRecord.opcode(for: .isoData, direction: .unknown) == 18)
        #expect(MonitorRecord.opcode(for: .hciEvent, direction: .unknown) == 3)
        #expect(MonitorRecord.opcode(for: .hciCommand, direction: .controllerToHost) == 2)
        // An unknown monitor opcode survives; an unknown record that would collide does not.
        #expect(MonitorRecord.opcode(for: .unknown(42), direction: .unknown) == 42)
        #expect(MonitorRecord.opcode(for: .unknown(7), direction: .unknown) == nil)
        #expect(MonitorRecord.opcode(for: .linkLayer(linkType: 251), direction: .unknown) == nil)
        #expect(MonitorRecord.opcode(for: .newController, direction: .unknown) == nil)
        #expect(MonitorRecord.opcode(for: .lmp, direction: .controllerToHost) == nil)
    }

    @Test("a monitor-layout file reads back with every frame", arguments: OutputFormat.allCases)
    func roundTrip(format: OutputFormat) throws {
        let dir = TemporaryDirectory()
        let frames = monitorFrames()
        let path = dir.path("monitor.\(format.rawValue)")
        let output = CaptureOutput(path: path, format: format, layout: .monitor)
        for frame in frames { try output.write(frame) }
        // Records the monitor channel has no place for are counted.
        try output.write(testFrame(.newController, .unknown, controller: nil, [1], micros: 2000))
        try output.write(testFrame(.linkLayer(linkType: 251), .unknown, controller: nil, [1, 2], micros: 2100))
        try output.finish()
        #expect(output.written == frames.count)
        #expect(output.skipped == ["New Controller": 1, "Link Layer (DLT 251)": 1])
        #expect(output.files == [path])

        let back = CaptureFiles.readAll(path)
        #expect(back.error == nil)
        #expect(back.format?.linkType == (format == .btsnoop ? 2001 : 254))
        #expect(back.frames.map(FrameEssentials.init) == frames.map(FrameEssentials.init))
        #expect(back.frames.map(\.number) == Array(1...frames.count))
    }

    @Test("a monitor-layout btsnoop record carries the controller index and opcode in its flags")
    func btsnoopFlags() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("flags.btsnoop")
        let output = CaptureOutput(path: path, format: .btsnoop, layout: .monitor)
        try output.write(testFrame(.aclData, .controllerToHost, controller: 3, [1, 2], micros: 0))
        try output.write(testFrame(.note, .unknown, controller: nil, [0x41], micros: 1))
        try output.finish()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(Array(bytes[12..<16]) == CaptureBytes.be32(2001))
        #expect(Array(bytes[24..<28]) == CaptureBytes.be32(0x0003_0005))
        #expect(Array(bytes[40..<42]) == [1, 2])
        #expect(Array(bytes[50..<54]) == CaptureBytes.be32(0xFFFF_000C))
    }

    @Test("the default layout still writes H4 and skips what H4 cannot hold", arguments: OutputFormat.allCases)
    func defaultLayout(format: OutputFormat) throws {
        let dir = TemporaryDirectory()
        let path = dir.path("h4.\(format.rawValue)")
        let frames = monitorFrames()
        try CaptureFiles.write(frames, to: path, format: format)
        let back = CaptureFiles.readAll(path)
        #expect(back.error == nil)
        #expect(back.format?.linkType == (format == .btsnoop ? 1002 : 201))
        #expect(back.frames.map(\.kind) == frames.filter(\.kind.isHCI).map(\.kind))
        #expect(back.frames.allSatisfy { $0.controllerIndex == nil })
    }

    @Test("sniffer frames keep their own link type with the monitor layout")
    func snifferFirst() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("ll.pcapng")
        let output = CaptureOutput(path: path, format: .pcapng, layout: .monitor)
        try output.write(testFrame(.linkLayer(linkType: 251), .unknown, controller: nil, [1, 2, 3, 4], micros: 0))
        try output.write(testFrame(.note, .unknown, controller: nil, [0x41], micros: 1))
        try output.finish()
        let back = CaptureFiles.readAll(path)
        #expect(back.format?.linkType == 251)
        #expect(back.frames.map(\.bytes) == [[1, 2, 3, 4]])
        #expect(output.skipped == ["Note": 1])
        #expect(output.skippedSummary?.contains("pcapng link type 251") == true)
    }

    @Test(
        "an empty monitor-layout output is a valid capture of the monitor link type",
        arguments: OutputFormat.allCases
    )
    func emptyOutput(format: OutputFormat) throws {
        let dir = TemporaryDirectory()
        let path = dir.path("empty.\(format.rawValue)")
        let output = CaptureOutput(path: path, format: format, layout: .monitor)
        try output.finish()
        let back = CaptureFiles.readAll(path)
        #expect(back.error == nil && back.frames.isEmpty)
        #expect(back.format?.linkType == (format == .btsnoop ? 2001 : 254))
    }

    @Test("bytesWritten is the file's size, before and after finishing", arguments: OutputFormat.allCases)
    func bytesWritten(format: OutputFormat) throws {
        let dir = TemporaryDirectory()
        let path = dir.path("size.\(format.rawValue)")
        let writer: any FrameWriter
        switch format {
        case .pcap: writer = try PcapWriter(path: path, linkType: 254, precision: .microseconds)
        case .pcapng:
            writer = PcapngWriter(
                sink: try OutputSink.create(path: path),
                name: path,
                linkType: 254,
                precision: .microseconds
            )
        case .btsnoop: writer = BTSnoopWriter(sink: try OutputSink.create(path: path), name: path, datalink: .monitor)
        }
        var expected = writer.bytesWritten
        for frame in monitorFrames() {
            let size = writer.encodedSize(of: frame)
            #expect(try writer.write(frame))
            expected += Int64(size ?? 0)
            #expect(writer.bytesWritten == expected)
        }
        #expect(writer.encodedSize(of: testFrame(.lmp, .unknown, controller: nil, [1], micros: 0)) == nil)
        try writer.flush()
        let flushedSize = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(flushedSize.map(Int64.init) == expected)
        try writer.finish()
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(size.map(Int64.init) == expected)
    }
}
