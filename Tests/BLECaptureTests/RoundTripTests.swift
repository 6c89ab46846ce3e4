import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEInspectTestSupport
import Foundation
import Testing

/// Captures with HCI frames to convert: the project's own, and the shared real-world ones when present.
private func hciCaptures() -> [String] {
    var paths = TestPaths.projectCaptureFiles(extensions: ["btsnoop", "pklg"]).map(\.path)
    if TestPaths.sharedCapturesAvailable {
        paths += ManifestEntry.all().filter { entry in
            entry.packetCount > 0
                && (entry.format == "btsnoop" || entry.format == "pklg" || entry.linkType.contains("LINKTYPE 201"))
        }.map(\.url.path)
    }
    return paths
}

@Suite("conversion round trips")
struct RoundTripTests {
    @Test("pcap → pcapng → btsnoop → pcap keeps every HCI frame, direction and timestamp", arguments: hciCaptures())
    func roundTrip(path: String) throws {
        let dir = TemporaryDirectory()
        let original = CaptureFiles.readAll(path)
        #expect(original.error == nil)
        let expected = original.frames.filter(\.kind.isHCI).map(FrameEssentials.init)
        if expected.isEmpty {
            // Nothing an HCI capture can hold (for example only monitor index records): the
            // output is still a valid, empty capture.
            let out = dir.path("empty.pcap")
            try CaptureFiles.write(original.frames, to: out, format: .pcap)
            let back = CaptureFiles.readAll(out)
            #expect(back.error == nil && back.frames.isEmpty)
            return
        }
        // Directions that the original does not know cannot survive formats that always carry one.
        let knownDirections = expected.allSatisfy { $0.direction != .unknown }

        var frames = original.frames
        for (step, format) in [OutputFormat.pcap, .pcapng, .btsnoop, .pcap].enumerated() {
            let out = dir.path("step\(step).\(format.rawValue)")
            try CaptureFiles.write(frames, to: out, format: format)
            let back = CaptureFiles.readAll(out)
            #expect(back.error == nil, "\(format) read-back: \(String(describing: back.error))")
            let got = back.frames.map(FrameEssentials.init)
            #expect(got.count == expected.count, "\(format): frame count")
            if knownDirections {
                #expect(got == expected, "\(format) differs from \(path)")
            } else {
                #expect(got.map(\.bytes) == expected.map(\.bytes))
                #expect(got.map(\.micros) == expected.map(\.micros))
            }
            #expect(back.frames.map(\.number) == Array(1..<(got.count + 1)))
            frames = back.frames
        }
    }

    @Test(
        "writing btsnoop directly and through pcap and pcapng gives identical files",
        arguments: hciCaptures().prefix(6)
    )
    func identicalFiles(path: String) throws {
        let dir = TemporaryDirectory()
        let frames = CaptureFiles.readAll(path).frames
        try CaptureFiles.write(frames, to: dir.path("direct.btsnoop"), format: .btsnoop)
        try CaptureFiles.write(frames, to: dir.path("a.pcap"), format: .pcap)
        try CaptureFiles.write(
            CaptureFiles.readAll(dir.path("a.pcap")).frames,
            to: dir.path("b.pcapng"),
            format: .pcapng
        )
        try CaptureFiles.write(
            CaptureFiles.readAll(dir.path("b.pcapng")).frames,
            to: dir.path("c.btsnoop"),
            format: .btsnoop
        )
        let direct = try Data(contentsOf: URL(fileURLWithPath: dir.path("direct.btsnoop")))
        let through = try Data(contentsOf: URL(fileURLWithPath: dir.path("c.btsnoop")))
        #expect(direct == through)
    }

    @Test("nanosecond pcapng timestamps survive pcapng and pcap")
    func nanoseconds() throws {
        let dir = TemporaryDirectory()
        let frame = CapturedFrame(
            number: 1,
            timestamp: Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789, precision: .nanoseconds),
            direction: .controllerToHost,
            controllerIndex: nil,
            kind: .hciEvent,
            bytes: [0x0E, 0x01, 0x00],
            originalLength: 3,
            sourceOffset: 0
        )
        for format in [OutputFormat.pcapng, .pcap] {
            let out = dir.path("ns.\(format.rawValue)")
            try CaptureFiles.write([frame], to: out, format: format)
            let back = CaptureFiles.readAll(out)
            #expect(back.format?.precision == .nanoseconds)
            #expect(back.frames.first?.timestamp == frame.timestamp)
        }
    }

    @Test("records a format cannot hold are counted, not silently dropped")
    func skippedRecords() throws {
        let dir = TemporaryDirectory()
        let note = CapturedFrame(
            number: 1,
            timestamp: .zero,
            direction: .unknown,
            controllerIndex: nil,
            kind: .note,
            bytes: Array("x".utf8),
            originalLength: 1,
            sourceOffset: 0
        )
        let output = CaptureOutput(path: dir.path("n.btsnoop"), format: .btsnoop)
        try output.write(note)
        try output.finish()
        #expect(output.skipped == ["Note": 1])
        #expect(output.skippedSummary?.contains("1 record not written") == true)
        #expect(CaptureFiles.readAll(dir.path("n.btsnoop")).error == nil)
    }
}
