import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEInspectTestSupport
import Foundation
import Testing

/// `count` ACL frames of 100 bytes each, alternating directions, 1 ms apart, each with its own bytes.
private func aclFrames(_ count: Int) -> [CapturedFrame] {
    (0..<count).map { i in
        let payload = (0..<96).map { UInt8(truncatingIfNeeded: i &+ $0) }
        return testFrame(
            .aclData,
            i % 2 == 0 ? .hostToController : .controllerToHost,
            controller: 0,
            [0x40, 0x00, 96, 0x00] + payload,
            micros: Int64(i) * 1000
        )
    }
}

/// The ring-buffer names: `NAME_NNNNN_YYYYMMDDhhmmss.EXT`, giving the numbers.
private func ringNumbers(_ files: [String], directory: String, name: String, ext: String) -> [Int]? {
    var numbers: [Int] = []
    for file in files {
        let url = URL(fileURLWithPath: file)
        guard url.deletingLastPathComponent().standardizedFileURL.path == directory else { return nil }
        let base = url.lastPathComponent
        guard base.hasPrefix(name + "_"), base.hasSuffix(ext) else { return nil }
        let middle = base.dropFirst(name.count + 1).dropLast(ext.count)
        let parts = middle.split(separator: "_")
        guard parts.count == 2, parts[0].count == 5, parts[1].count == 14, let n = Int(parts[0]),
            parts[1].allSatisfy(\.isNumber)
        else { return nil }
        numbers.append(n)
    }
    return numbers
}

private func fileSize(_ path: String) -> Int64 {
    ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil).map(Int64.init) ?? -1
}

@Suite("ring buffer and flush")
struct RotationTests {
    @Test("rotation by size keeps every frame, in files no larger than the limit", arguments: OutputFormat.allCases)
    func rotateBySize(format: OutputFormat) throws {
        let dir = TemporaryDirectory()
        let frames = aclFrames(60)
        let path = dir.path("ring.\(format.rawValue)")
        let maxBytes: Int64 = 1000
        let output = CaptureOutput(
            path: path,
            format: format,
            layout: .monitor,
            rotation: CaptureRotation(maxBytes: maxBytes)
        )
        for frame in frames { try output.write(frame) }
        try output.finish()
        #expect(output.written == 60)
        #expect(output.files.count > 5)
        let numbers = ringNumbers(
            output.files,
            directory: dir.url.standardizedFileURL.path,
            name: "ring",
            ext: "." + format.rawValue
        )
        #expect(numbers == Array(1...output.files.count))
        // Only the ring's files: the path itself is never written.
        #expect(!FileManager.default.fileExists(atPath: path))
        let listed = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
        #expect(listed == output.files.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted())

        var all: [CapturedFrame] = []
        for (i, file) in output.files.enumerated() {
            let back = CaptureFiles.readAll(file)
            #expect(back.error == nil, "\(file)")
            #expect(!back.frames.isEmpty)
            #expect(back.format?.linkType == (format == .btsnoop ? 2001 : 254))
            #expect(fileSize(file) <= maxBytes, "\(file) is \(fileSize(file)) bytes")
            // Each file but the last was closed because the next frame would not fit: a record
            // of 100 bytes of frame is 124 bytes in btsnoop 2001, 120 in pcap 254 and 136 in
            // pcapng 254.
            let record: Int64 = format == .btsnoop ? 124 : format == .pcap ? 120 : 136
            if i < output.files.count - 1 {
                #expect(fileSize(file) + record > maxBytes)
            }
            all += back.frames
        }
        #expect(all.map(FrameEssentials.init) == frames.map(FrameEssentials.init))
    }

    @Test(
        "with maxFiles only the newest files are kept, holding the tail of the frames",
        arguments: OutputFormat.allCases
    )
    func ringOfFiles(format: OutputFormat) throws {
        let dir = TemporaryDirectory()
        let frames = aclFrames(60)
        let path = dir.path("tail.\(format.rawValue)")
        let output = CaptureOutput(
            path: path,
            format: format,
            layout: .h4,
            rotation: CaptureRotation(maxBytes: 1000, maxFiles: 3)
        )
        for frame in frames { try output.write(frame) }
        try output.finish()
        #expect(output.files.count == 3)
        let numbers = ringNumbers(
            output.files,
            directory: dir.url.standardizedFileURL.path,
            name: "tail",
            ext: "." + format.rawValue
        )
        // Numbering goes on past the deleted files.
        #expect((numbers?.first ?? 0) > 1)
        #expect(numbers.map { zip($0, $0.dropFirst()).allSatisfy { $0 + 1 == $1 } } == true)
        let listed = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
        #expect(listed == output.files.map { URL(fileURLWithPath: $0).lastPathComponent }.sorted())

        var kept: [CapturedFrame] = []
        for file in output.files {
            let back = CaptureFiles.readAll(file)
            #expect(back.error == nil)
            #expect(back.format?.linkType == (format == .btsnoop ? 1002 : 201))
            kept += back.frames
        }
        #expect(!kept.isEmpty && kept.count < frames.count)
        let tail = frames.suffix(kept.count).map { f in
            var e = FrameEssentials(f)
            e.controller = nil  // H4 has no controller index
            return e
        }
        #expect(kept.map(FrameEssentials.init) == Array(tail))
    }

    @Test("a frame larger than the limit gets a file of its own")
    func oversizedFrame() throws {
        let dir = TemporaryDirectory()
        let output = CaptureOutput(
            path: dir.path("big.btsnoop"),
            format: .btsnoop,
            rotation: CaptureRotation(maxBytes: 50)
        )
        let frames = aclFrames(3)
        for frame in frames { try output.write(frame) }
        try output.finish()
        #expect(output.files.count == 3)
        for (file, frame) in zip(output.files, frames) {
            #expect(CaptureFiles.readAll(file).frames.map(\.bytes) == [frame.bytes])
        }
    }

    @Test("ring-buffer names follow tshark's: NAME_NNNNN_YYYYMMDDhhmmss.EXT in local time")
    func names() {
        let time: Int64 = 1_735_689_600 + 3_723  // 2025-01-01T01:02:03Z
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyyMMddHHmmss"
        let stamp = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(time)))
        #expect(
            CaptureOutput.ringName(path: "/tmp/a/cap.pcapng", number: 7, time: time)
                == "/tmp/a/cap_00007_\(stamp).pcapng"
        )
        #expect(CaptureOutput.ringName(path: "out", number: 123_456, time: time) == "out_123456_\(stamp)")
        #expect(CaptureOutput.ringName(path: "/tmp/x.d/cap", number: 1, time: time) == "/tmp/x.d/cap_00001_\(stamp)")
        #expect(CaptureOutput.ringName(path: "dir/.hidden", number: 2, time: time) == "dir/.hidden_00002_\(stamp)")
    }

    @Test("a ring buffer on standard output is a usage error")
    func standardOutput() {
        let rotation = CaptureRotation(maxBytes: 1 << 20, maxFiles: 2)
        #expect(CaptureOutput.validate(path: "-", rotation: rotation) != nil)
        #expect(CaptureOutput.validate(path: "-", rotation: nil) == nil)
        #expect(CaptureOutput.validate(path: "x.pcap", rotation: rotation) == nil)
        #expect(CaptureOutput.validate(path: "x.pcap", rotation: CaptureRotation(maxBytes: 0)) != nil)
        #expect(CaptureOutput.validate(path: "x.pcap", rotation: CaptureRotation(maxBytes: 10, maxFiles: 0)) != nil)
        let output = CaptureOutput(path: "-", format: .btsnoop, rotation: rotation)
        #expect(throws: CaptureError.self) { try output.write(aclFrames(1)[0]) }
    }

    @Test("flush makes the frames written so far visible to a reader", arguments: OutputFormat.allCases)
    func flushIsVisible(format: OutputFormat) throws {
        let dir = TemporaryDirectory()
        let path = dir.path("live.\(format.rawValue)")
        let output = CaptureOutput(path: path, format: format, layout: .monitor)
        let frames = monitorFrames()
        for frame in frames.prefix(5) { try output.write(frame) }
        // Still buffered: the file holds no complete record yet.
        #expect(CaptureFiles.readAll(path).frames.isEmpty)
        try output.flush()
        #expect(
            CaptureFiles.readAll(path).frames.map(FrameEssentials.init)
                == frames.prefix(5).map(FrameEssentials.init)
        )
        for frame in frames.dropFirst(5) { try output.write(frame) }
        try output.flush()
        let back = CaptureFiles.readAll(path)
        #expect(back.error == nil)
        #expect(back.frames.count == frames.count)
        try output.finish()
        #expect(CaptureFiles.readAll(path).frames.count == frames.count)
    }
}
