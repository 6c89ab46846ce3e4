import BLECapture
import BLECaptureLive
import BLEInspectTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `bleinspect live` on stream sources, run as a process: FIFOs, standard input and files that
/// grow, fed one frame at a time.
@Suite("live: FIFO, standard input, --follow", .serialized)
struct LiveStreamTests {
    static let formats = [
        "gatt-discovery.btsnoop", "adv-scan.pcap", "gatt-discovery.pcapng", "gatt-discovery-le.pklg",
        "gatt-discovery-be.pklg",
    ]

    /// A FIFO in a scratch directory.
    static func makeFIFO(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.path("live.fifo")
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(.EIO) }
        return path
    }

    /// Opens `path` for writing (waits until the reader has opened it).
    static func openWriter(_ path: String) throws -> FileHandle {
        try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    @Test("each frame is printed as soon as it arrives through a FIFO", arguments: formats)
    func fifoFrameByFrame(name: String) throws {
        let dir = TemporaryDirectory()
        let fifo = try Self.makeFIFO(dir)
        let capture = try CaptureRecords(path: TestPaths.projectCapture(name))
        let count = min(8, capture.records.count)
        let live = try LiveProcess(["live", fifo, "-T", "fields", "-e", "frame.number"])
        let writer = try Self.openWriter(fifo)
        writer.write(Data(capture.header))
        for k in 1...count {
            writer.write(Data(capture.records[k - 1]))
            // The line for frame k comes before frame k + 1 is written: no frame waits in a buffer.
            let lines = live.waitForLines(k, timeout: 10)
            #expect(lines.count == k, "frame \(k) of \(name) was not printed while the next one was held back")
            #expect(lines.last == String(k))
        }
        try writer.close()
        let (status, stderr) = live.finish()
        #expect(status == 0)
        #expect(live.lines == (1...count).map(String.init))
        #expect(stderr.contains("\(fifo): \(count) frames, 0 dropped"))
    }

    @Test("standard input is read frame by frame too, and the same as read's output")
    func standardInput() throws {
        let path = TestPaths.projectCapture("le-coc.btsnoop")
        let capture = try CaptureRecords(path: path)
        let fields = ["-T", "fields", "-e", "frame.number", "-e", "btl2cap.cid", "-e", "btatt.opcode"]
        let live = try LiveProcess(["live", "-"] + fields)
        live.feedStdin(capture.header + capture.records[0])
        #expect(live.waitForLines(1, timeout: 10).count == 1)
        for record in capture.records.dropFirst() { live.feedStdin(record) }
        live.closeStdin()
        let (status, _) = live.finish()
        #expect(status == 0)
        let read = try Run.bleinspect(["read", path] + fields)
        #expect(live.lines.joined(separator: "\n") + "\n" == read.stdoutText)
    }

    @Test(
        "SIGINT leaves a -w file that reads back with every frame displayed",
        arguments: ["pcapng", "pcap", "btsnoop"]
    )
    func interruptLeavesValidCapture(format: String) throws {
        let dir = TemporaryDirectory()
        let fifo = try Self.makeFIFO(dir)
        let out = dir.path("saved.\(format)")
        let capture = try CaptureRecords(path: TestPaths.projectCapture("gatt-discovery.btsnoop"))
        let fields = ["-T", "fields", "-e", "frame.number", "-e", "frame.len", "-e", "hci_h4.type"]
        let live = try LiveProcess(["live", fifo, "-w", out] + fields)
        let writer = try Self.openWriter(fifo)
        let count = 12
        writer.write(Data(capture.header + capture.records[0..<count].joined()))
        let shown = live.waitForLines(count, timeout: 10)
        #expect(shown.count == count)
        // The writer stays open: the capture is still live when it is interrupted.
        let (status, stderr) = live.finish(signal: SIGINT)
        try writer.close()
        #expect(status == 0)
        #expect(stderr.contains("\(count) frames, 0 dropped"))
        #expect(stderr.contains("(interrupted)"))
        let back = try Run.bleinspect(["read", out] + fields)
        #expect(back.status == 0)
        #expect(back.stdoutText == shown.joined(separator: "\n") + "\n")
    }

    @Test("with -Y, the file holds exactly the frames shown")
    func filteredSave() throws {
        let dir = TemporaryDirectory()
        let fifo = try Self.makeFIFO(dir)
        let out = dir.path("att.pcapng")
        let source = TestPaths.projectCapture("gatt-discovery.btsnoop")
        let fields = ["-T", "fields", "-e", "btatt.opcode", "-e", "btatt.handle"]
        let live = try LiveProcess(["live", fifo, "-Y", "btatt", "-w", out] + fields)
        let writer = try Self.openWriter(fifo)
        writer.write(try Data(contentsOf: URL(fileURLWithPath: source)))
        try writer.close()
        let (status, stderr) = live.finish()
        #expect(status == 0)
        let expected = try Run.bleinspect(["read", source, "-Y", "btatt"] + fields).stdoutText
        #expect(live.lines.joined(separator: "\n") + "\n" == expected)
        #expect(try Run.bleinspect(["read", out] + fields).stdoutText == expected)
        #expect(stderr.contains("shown)"))
    }

    @Test("--duration stops an idle source, and -c stops after N frames")
    func durationAndCount() throws {
        let dir = TemporaryDirectory()
        let fifo = try Self.makeFIFO(dir)
        let started = Date()
        let live = try LiveProcess(["live", fifo, "--duration", "0.5"])
        let writer = try Self.openWriter(fifo)
        let (status, stderr) = live.finish(timeout: 10)
        try writer.close()
        let elapsed = Date().timeIntervalSince(started)
        #expect(status == 0)
        #expect(elapsed >= 0.45 && elapsed < 8)
        #expect(stderr.contains("0 frames, 0 dropped"))
        #expect(stderr.contains("(duration reached)"))

        let fifo2 = dir.path("second.fifo")
        #expect(mkfifo(fifo2, 0o600) == 0)
        let counted = try LiveProcess(["live", fifo2, "-c", "5", "-T", "fields", "-e", "frame.number"])
        let w2 = try Self.openWriter(fifo2)
        w2.write(try Data(contentsOf: URL(fileURLWithPath: TestPaths.projectCapture("le-coc.btsnoop"))))
        let (status2, _) = counted.finish()
        try? w2.close()
        #expect(status2 == 0)
        #expect(counted.lines == ["1", "2", "3", "4", "5"])
    }

    @Test("-w with --max-size and --max-files keeps the newest files, which hold the newest frames")
    func ringBuffer() throws {
        let dir = TemporaryDirectory()
        let fifo = try Self.makeFIFO(dir)
        let source = TestPaths.projectCapture("le-coc.btsnoop")
        let fields = ["-T", "fields", "-e", "frame.number", "-e", "frame.len", "-e", "btl2cap.cid"]
        let live = try LiveProcess(
            ["live", fifo, "-w", dir.path("ring.pcapng"), "--max-size", "4k", "--max-files", "3"] + fields
        )
        let writer = try Self.openWriter(fifo)
        writer.write(try Data(contentsOf: URL(fileURLWithPath: source)))
        try writer.close()
        let (status, stderr) = live.finish()
        #expect(status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.url.path)
            .filter { $0.hasPrefix("ring_") }.sorted()
        #expect(files.count == 3)
        #expect(
            files.allSatisfy { $0.range(of: "^ring_[0-9]{5}_[0-9]{14}\\.pcapng$", options: .regularExpression) != nil }
        )
        #expect(stderr.contains("ring buffer: 3 files kept: "))
        // Numbered on past the deleted files: at least 4 were made.
        #expect((Int(files[0].dropFirst(5).prefix(5)) ?? 0) > 1)
        var saved: [String] = []
        for name in files {
            let path = dir.path(name)
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            #expect(size <= 4096)
            let back = try Run.bleinspect(["read", path, "-T", "fields", "-e", "frame.len", "-e", "btl2cap.cid"])
            #expect(back.status == 0)
            saved += back.stdoutText.split(separator: "\n").map(String.init)
        }
        // The kept files hold the last frames shown, in order, without a gap.
        let shown = live.lines.map { $0.split(separator: "\t", maxSplits: 1).last.map(String.init) ?? "" }
        #expect(!saved.isEmpty && saved.count < shown.count)
        #expect(Array(shown.suffix(saved.count)) == saved)
    }

    @Test("--follow reads a file as it grows, across rotation and truncation")
    func followGrowingFile() throws {
        let dir = TemporaryDirectory()
        let path = dir.path("btsnoop_hci.log")
        let capture = try CaptureRecords(path: TestPaths.projectCapture("gatt-discovery.btsnoop"))
        let fields = ["-T", "fields", "-e", "frame.number", "-e", "frame.len"]
        let live = try LiveProcess(["live", "--follow", path, "-c", "25"] + fields)
        // The file does not exist yet: the reader says it waits for it (a fixed sleep here was
        // too short on a loaded machine, where the file then existed before the reader looked).
        #expect(live.waitForStderr(containing: "waiting for \(path) to appear"))
        var file = try Self.create(path, capture.header)
        var expectedLens: [String] = []
        func feed(_ k: Int, split: Bool) {
            let record = capture.records[k]
            if split {
                // Half a record first: the reader must wait for the rest, not report damage.
                file.write(Data(record[0..<10]))
                usleep(30_000)
                file.write(Data(record[10...]))
            } else {
                file.write(Data(record))
            }
            expectedLens.append(String(record.count - 25))  // frame.len: record minus header and H4 byte
            let lines = live.waitForLines(expectedLens.count, timeout: 10)
            #expect(lines.count == expectedLens.count, "record \(k) was not printed as it was appended")
        }
        for k in 0..<10 { feed(k, split: k % 2 == 0) }
        // Rotation, as Android does: the log is renamed and a new one started.
        try file.close()
        try FileManager.default.moveItem(atPath: path, toPath: path + ".last")
        file = try Self.create(path, capture.header)
        for k in 10..<20 { feed(k, split: false) }
        // Truncation in place.
        try file.truncate(atOffset: 0)
        try file.seek(toOffset: 0)
        file.write(Data(capture.header))
        for k in 20..<25 { feed(k, split: false) }
        try file.close()
        let (status, stderr) = live.finish()
        #expect(status == 0)
        #expect(live.lines.map { String($0.split(separator: "\t")[0]) } == (1...25).map(String.init))
        #expect(live.lines.map { String($0.split(separator: "\t")[1]) } == expectedLens)
        #expect(stderr.components(separatedBy: "was rotated or truncated").count - 1 == 2)
        #expect(stderr.contains("waiting for \(path) to appear"))
    }

    static func create(_ path: String, _ header: [UInt8]) throws -> FileHandle {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(header)))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        return handle
    }
}

@Suite("live: the HCI monitor channel, as a process")
struct LiveMonitorProcessTests {
    /// True when this kernel has no Bluetooth (CI's case).
    static var kernelLacksBluetooth: Bool {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), 1)
        if fd >= 0 {
            close(fd)
            return false
        }
        return errno == EAFNOSUPPORT
    }

    @Test(
        "without Bluetooth in the kernel, live hci0 says so and exits 69",
        .enabled(if: kernelLacksBluetooth)
    )
    func noKernelSupport() throws {
        for source in ["hci0", "any"] {
            let result = try Run.bleinspect(["live", source])
            #expect(result.status == 69)
            #expect(
                result.stderr
                    == "bleinspect: \(source): this kernel has no Bluetooth support (socket: Address family not supported by protocol); load it with 'modprobe bluetooth', or read a capture file instead\n"
            )
            #expect(result.stdout.isEmpty)
        }
    }

    @Test("bad sources are usage errors that say what a source is")
    func badSources() throws {
        let regular = try Run.bleinspect(["live", TestPaths.projectCapture("le-coc.btsnoop")])
        #expect(regular.status == 64)
        #expect(regular.stderr.contains("is a regular file: read it with 'bleinspect read', or tail it"))
        for bad in ["hcix", "tcp://nohost", "tcp://[::1", "/nonexistent/x"] {
            let result = try Run.bleinspect(["live", bad])
            #expect(result.status == 64, "\(bad)")
        }
        let ring = try Run.bleinspect(["live", "hci0", "--max-files", "3"])
        #expect(ring.status == 64)
        #expect(ring.stderr.contains("--max-size and --max-files go with -w FILE"))
    }
}
