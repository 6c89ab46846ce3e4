import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import BLEInspectViews
import Foundation
import Testing

/// Every real-world capture in ../shared/captures, checked against the counts tshark gave when the
/// manifest was made, and against the installed tshark when there is one.
@Suite("shared real-world captures", .enabled(if: TestPaths.sharedCapturesAvailable))
struct SharedCaptureTests {
    @Test("every shared capture reads without error, with tshark's frame count", arguments: ManifestEntry.all())
    func frameCount(entry: ManifestEntry) throws {
        let (frames, error, format) = CaptureFiles.readAll(entry.url.path)
        #expect(error == nil, "\(entry.name): \(String(describing: error))")
        #expect(frames.count == entry.packetCount, "\(entry.name)")
        #expect(frames.map(\.number) == Array(1..<(frames.count + 1)))
        // The manifest's format is what the content is, whatever the name says.
        let expected: CaptureFormat.Container? =
            switch entry.format {
            case "pcap": .pcap
            case "pcapng": .pcapng
            case "btsnoop": .btsnoop
            case "pklg": .packetLogger
            default: nil
            }
        #expect(format?.container == expected, "\(entry.name)")
        if Run.tshark != nil {
            let tsharkFrames = try Run.tsharkFields(entry.url.path, ["frame.number"])
            #expect(frames.count == tsharkFrames.count, "\(entry.name): tshark counts \(tsharkFrames.count)")
        }
    }

    @Test("the header-only btsnoop gives no frames and no error")
    func headerOnly() throws {
        let entries = ManifestEntry.all().filter { $0.format == "btsnoop" && $0.packetCount == 0 }
        try #require(!entries.isEmpty)
        for entry in entries {
            let size = try FileManager.default.attributesOfItem(atPath: entry.url.path)[.size] as? Int
            #expect(size == 16)
            let result = try Run.bleinspect(["read", entry.url.path])
            #expect(result.status == 0)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.isEmpty)
        }
    }

    @Test("files named .pcapng that are really pcap are read as pcap")
    func misnamed() throws {
        // Chosen by their first bytes (a classic pcap magic), not by the manifest.
        let pcapMagics: Set<[UInt8]> = [
            [0xD4, 0xC3, 0xB2, 0xA1], [0xA1, 0xB2, 0xC3, 0xD4], [0x4D, 0x3C, 0xB2, 0xA1], [0xA1, 0xB2, 0x3C, 0x4D],
        ]
        let entries = try ManifestEntry.all().filter { entry in
            let head = try FileHandle(forReadingFrom: entry.url).read(upToCount: 4).map { [UInt8]($0) } ?? []
            return entry.name.hasSuffix(".pcapng") && pcapMagics.contains(head)
        }
        #expect(!entries.isEmpty)
        for entry in entries {
            #expect(CaptureFiles.readAll(entry.url.path).format?.container == .pcap)
        }
    }

    /// Times and directions agree with tshark frame by frame, for every HCI capture.
    @Test(
        "timestamps and directions agree with tshark",
        .enabled(if: Run.tshark != nil),
        arguments: ManifestEntry.all().filter { $0.packetCount > 0 }
    )
    func timesAndDirections(entry: ManifestEntry) throws {
        let frames = CaptureFiles.readAll(entry.url.path).frames
        let rows = try Run.tsharkFields(entry.url.path, ["frame.time_epoch", "hci_h4.direction"])
        try #require(rows.count == frames.count)
        var mismatches: [String] = []
        for (frame, row) in zip(frames, rows) {
            let epoch = TimeFormat.epoch.format(frame.timestamp, first: frame.timestamp, previous: frame.timestamp)
            // tshark prints nine fractional digits; the file's own precision is a prefix of them.
            if !row[0].hasPrefix(epoch) { mismatches.append("frame \(frame.number): time \(epoch) vs \(row[0])") }
            if row.count > 1, !row[1].isEmpty {
                let expected: Direction = row[1] == "0x00" ? .hostToController : .controllerToHost
                if frame.direction != expected {
                    mismatches.append("frame \(frame.number): direction \(frame.direction) vs \(row[1])")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(entry.name): \(mismatches.prefix(5))")
    }
}

extension ManifestEntry: CustomTestStringConvertible {
    public var testDescription: String { name }
}
