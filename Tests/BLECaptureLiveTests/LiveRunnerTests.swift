import BLECapture
import BLECaptureIO
import BLECaptureLive
import BLEInspectCore
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Collects the runner's standard-error lines.
final class Lines: @unchecked Sendable {
    var all: [String] = []
}

@Suite("live runner on the monitor seam")
struct LiveRunnerTests {
    /// Runs `live` over `channel` with `options`, the text going to a file; returns the status,
    /// the text and the standard-error lines.
    func run(_ options: LiveOptions, channel: any MonitorChannel, stop: LiveStop) throws -> (
        BLEInspectSession.ExitStatus, String, [String]
    ) {
        let dir = TemporaryDirectory()
        let textPath = dir.path("out.txt")
        let fd = open(textPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let errors = Lines()
        let runner = LiveRunner(
            session: try Toolkit().session(),
            options: options,
            output: OutputSink(fd: fd, ownsDescriptor: true),
            errorOutput: { errors.all.append($0) },
            stop: stop,
            monitorChannel: { channel }
        )
        let status = runner.run()
        let text = try String(contentsOfFile: textPath, encoding: .utf8)
        return (status, text, errors.all)
    }

    @Test("lines for both directions and index events; a cut record; a read error; -w keeps every frame shown")
    func displaysAndSaves() throws {
        let fake = try FakeMonitor()
        fake.newIndex(0)
        fake.openIndex(0)
        fake.reset(0)
        fake.resetComplete(0)
        fake.aclOut(0)
        fake.aclIn(0)
        fake.reset(1)  // another controller: not shown
        fake.send(opcode: 3, index: 0, [0x0E, 0x04, 0x01], declaredLength: 6)
        let dir = TemporaryDirectory()
        let saved = dir.path("monitor.pcapng")
        var options = LiveOptions(source: .monitor(controller: 0))
        options.read.outputPath = saved
        options.read.color = .never
        let channel = FailingChannel(fake.channel(), failAfter: 8, with: EBADF)
        let (status, text, errors) = try run(options, channel: channel, stop: try LiveStop())

        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 7)
        #expect(lines[0].contains("hci0") && lines[0].contains("New Index: hci0 66:55:44:33:22:11 (Primary, USB)"))
        #expect(lines[1].contains("Open Index"))
        #expect(lines[2].contains(" < hci0") && lines[2].contains("Sent Reset"))
        #expect(lines[3].contains(" > hci0") && lines[3].contains("Rcvd Command Complete (Reset)"))
        #expect(lines[4].contains(" < hci0") && lines[4].contains("Exchange MTU Request"))
        #expect(lines[5].contains(" > hci0") && lines[5].contains("Exchange MTU Response"))
        #expect(lines[6].contains(" > hci0"))

        #expect(errors.first == "bleinspect: capturing on hci0 (HCI monitor channel); Ctrl-C stops")
        #expect(errors.contains("bleinspect: hci0: frame 7 at byte offset 92: monitor record cut short: 3 of 6 bytes"))
        #expect(
            errors.contains(
                "bleinspect: hci0: frame 8 at byte offset 101: reading the HCI monitor channel failed: Bad file descriptor (EBADF)"
            )
        )
        #expect(errors.last?.hasPrefix("bleinspect: hci0: 7 frames, 0 dropped, 1 damaged, ") == true)
        #expect(status == .readFailed)

        // The file is a valid capture with every frame shown: index records included.
        let back = CaptureFiles.readAll(saved)
        #expect(back.error == nil)
        #expect(back.format?.linkType == 254)
        #expect(
            back.frames.map(\.kind) == [.newIndex, .openIndex, .hciCommand, .hciEvent, .aclData, .aclData, .hciEvent]
        )
        #expect(back.frames.allSatisfy { $0.controllerIndex == 0 })
        try #require(back.frames.count == 7)
        #expect(back.frames[6].bytes == [0x0E, 0x04, 0x01])
    }

    @Test("a stop from another thread ends a capture waiting for traffic, with a summary")
    func stopWhileIdle() throws {
        let fake = try FakeMonitor()
        fake.newIndex(0)
        let stop = try LiveStop()
        var options = LiveOptions(source: .monitor(controller: nil))
        options.read.output = .fields(["frame.number", "hci_mon.adapter_name"])
        let requester = stop.requester
        let feeder = fake.sender
        let thread = Thread {
            usleep(100_000)
            feeder.reset(0)
            usleep(100_000)
            requester.request()
        }
        thread.start()
        let (status, text, errors) = try run(options, channel: fake.channel(), stop: stop)
        #expect(status == .success)
        #expect(text == "1\thci0\n2\t\n")
        #expect(errors.last?.hasPrefix("bleinspect: any: 2 frames, 0 dropped, ") == true)
        #expect(errors.last?.hasSuffix(" (stopped)") == true)
    }

    @Test("each monitor record is printed before the next one is sent")
    func noLatency() throws {
        let fake = try FakeMonitor()
        fake.newIndex(0)
        let stop = try LiveStop()
        let dir = TemporaryDirectory()
        let textPath = dir.path("out.txt")
        let fd = open(textPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var options = LiveOptions(source: .monitor(controller: 0))
        options.read.output = .fields(["frame.number"])
        let runner = LiveRunner(
            session: try Toolkit().session(),
            options: options,
            output: OutputSink(fd: fd, ownsDescriptor: true),
            errorOutput: { _ in },
            stop: stop,
            monitorChannel: { fake.channel() }
        )
        let requester = stop.requester
        let feeder = fake.sender
        let seen = Lines()
        let thread = Thread {
            // Frame 1 is the New Index; send frames 2...6 one at a time, each only once the line
            // of the one before is in the output file.
            for k in 1...6 {
                if k > 1 { feeder.reset(0) }
                let deadline = Date().addingTimeInterval(10)
                var text = ""
                while Date() < deadline {
                    text = (try? String(contentsOfFile: textPath, encoding: .utf8)) ?? ""
                    if text.split(separator: "\n").count >= k { break }
                    usleep(2_000)
                }
                seen.all.append(text.split(separator: "\n").last.map(String.init) ?? "none")
            }
            requester.request()
        }
        thread.start()
        #expect(runner.run() == .success)
        #expect(seen.all == ["1", "2", "3", "4", "5", "6"])
    }

    @Test("no such controller ends with its status; the controller going away does not end the capture")
    func controllerStatuses() throws {
        let missing = try FakeMonitor()
        missing.newIndex(1)
        let (status, text, errors) = try run(
            LiveOptions(source: .monitor(controller: 0)),
            channel: missing.channel(),
            stop: try LiveStop()
        )
        #expect(status == .noSuchController)
        #expect(text.isEmpty)
        #expect(errors == ["bleinspect: hci0: no controller hci0 (present: hci1)"])

        let leaving = try FakeMonitor()
        leaving.newIndex(0)
        leaving.deleteIndex(0)
        var options = LiveOptions(source: .monitor(controller: 0))
        options.read.output = .fields(["frame.number"])
        leaving.closeWriter()
        let (gone, shown, lines) = try run(options, channel: leaving.channel(), stop: try LiveStop())
        #expect(gone == .success)
        #expect(shown == "1\n2\n")
        #expect(lines.contains("bleinspect: hci0: controller hci0 went away; waiting for it to return"))
    }
}
