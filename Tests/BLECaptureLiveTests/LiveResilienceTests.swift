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

/// `live hciN -w FILE` riding out what a monitor socket can do: drops, errors that pass, errors
/// that do not, the controller leaving and coming back, a stop by signal, and an output that
/// cannot be written. After each, the file written reads back whole, with bleinspect's own
/// reader and, where it is installed, with tshark.
@Suite("live capture resilience", .serialized)
struct LiveResilienceTests {
    static let formats: [OutputFormat] = [.pcapng, .btsnoop, .pcap]

    struct Outcome {
        var status: BLEInspectSession.ExitStatus
        var text: [String]
        var errors: [String]
        var summary: String { errors.last ?? "" }
    }

    /// Runs `live hci0` (or `controller`) over `channel`, saving to `saved` when given; the text
    /// output is one field, the frame number.
    func run(
        channel: any MonitorChannel,
        controller: UInt16? = 0,
        saved: String? = nil,
        format: OutputFormat? = nil,
        stop: LiveStop? = nil,
        retry: MonitorRetry = MonitorRetry(limit: 10, maxWaitMilliseconds: 5)
    ) throws -> Outcome {
        let dir = TemporaryDirectory()
        let textPath = dir.path("out.txt")
        let fd = open(textPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var options = LiveOptions(source: .monitor(controller: controller))
        options.read.output = .fields(["frame.number"])
        options.read.outputPath = saved
        options.read.outputFormat = format
        let errors = Lines()
        let runner = LiveRunner(
            session: try Toolkit().session(),
            options: options,
            output: OutputSink(fd: fd, ownsDescriptor: true),
            errorOutput: { errors.all.append($0) },
            stop: try stop ?? LiveStop(),
            monitorChannel: { channel },
            monitorRetry: retry
        )
        let status = runner.run()
        let text = try String(contentsOfFile: textPath, encoding: .utf8)
        return Outcome(status: status, text: text.split(separator: "\n").map(String.init), errors: errors.all)
    }

    /// The file at `path` is a whole capture of `count` frames of controller 0, as bleinspect
    /// reads it and as tshark does (when installed).
    func expectValid(_ path: String, frames count: Int, kinds: [FrameKind]? = nil) throws {
        let back = CaptureFiles.readAll(path)
        #expect(back.error == nil, "\(path): \(String(describing: back.error))")
        #expect(back.frames.count == count, "\(path)")
        #expect(back.frames.allSatisfy { $0.controllerIndex == 0 }, "\(path)")
        if let kinds { #expect(back.frames.map(\.kind) == kinds, "\(path)") }
        guard Run.tshark != nil else { return }
        let rows = try Run.tsharkFields(path, ["frame.number"])
        #expect(rows.map { $0.first ?? "" } == (0..<count).map { String($0 + 1) }, "tshark on \(path)")
    }

    @Test("ENOBUFS and the kernel's drop count reach the summary; the capture goes on to the end", arguments: formats)
    func dropsEndToEnd(format: OutputFormat) throws {
        let fake = try FakeMonitor.resets(4)
        let channel = ScriptedChannel(
            fake.channel(),
            script: [
                .records(2), .fail(ENOBUFS), .records(1), .kernelDrops(4), .fail(ENOBUFS), .records(1),
                .fail(ENOBUFS),
            ],
            kernelDrops: 0
        )
        let dir = TemporaryDirectory()
        let saved = dir.path("drops.\(format.rawValue)")
        let outcome = try run(channel: channel, saved: saved, format: format)
        #expect(outcome.status == .success)
        #expect(outcome.text == ["1", "2", "3", "4", "5"])
        // One for the first ENOBUFS (the kernel's count had not moved); the count then says 4,
        // that one among them; one more for the last ENOBUFS: 5.
        #expect(outcome.summary.hasPrefix("bleinspect: hci0: 5 frames, 5 dropped, "))
        #expect(!outcome.summary.contains("read error"))
        try expectValid(saved, frames: 5, kinds: [.newIndex] + Array(repeating: .hciCommand, count: 4))
    }

    @Test("ENETDOWN and ENODEV mid-capture: a line each, the capture goes on, later records are saved")
    func transientErrorsEndToEnd() throws {
        for (code, name, reason) in [(ENETDOWN, "ENETDOWN", "Network is down"), (ENODEV, "ENODEV", "No such device")] {
            for format in Self.formats {
                let fake = try FakeMonitor.resets(4)
                let channel = ScriptedChannel(
                    fake.channel(),
                    script: [.records(2), .failRepeatedly(code, times: 3), .records(2), .fail(code)]
                )
                let dir = TemporaryDirectory()
                let saved = dir.path("errors.\(format.rawValue)")
                let outcome = try run(channel: channel, saved: saved, format: format)
                let what = "\(name), \(format)"
                #expect(outcome.status == .success, "\(what)")
                #expect(outcome.text == ["1", "2", "3", "4", "5"], "\(what)")
                let notices = outcome.errors.filter { $0.contains("failed") }
                #expect(
                    notices == [
                        "bleinspect: hci0: frame 3 at byte offset 31: reading the HCI monitor channel failed: \(reason) (\(name)); capture goes on",
                        "bleinspect: hci0: frame 5 at byte offset 49: reading the HCI monitor channel failed: \(reason) (\(name)); capture goes on",
                    ],
                    "\(what)"
                )
                #expect(outcome.summary.hasPrefix("bleinspect: hci0: 5 frames, 0 dropped, 4 read errors, "), "\(what)")
                try expectValid(saved, frames: 5)
            }
        }
    }

    @Test("an error that does not pass: the capture gives up after the bound, without spinning, file whole")
    func persistentErrorEndToEnd() throws {
        for format in Self.formats {
            let fake = try FakeMonitor()
            fake.newIndex(0)
            fake.reset(0)
            let channel = ScriptedChannel(fake.channel(), script: [.records(2)], failForever: EIO)
            let dir = TemporaryDirectory()
            let saved = dir.path("gave-up.\(format.rawValue)")
            let start = LiveStop.now()
            let outcome = try run(
                channel: channel,
                saved: saved,
                format: format,
                retry: MonitorRetry(limit: 6, maxWaitMilliseconds: 10)
            )
            let elapsed = LiveStop.now() - start
            #expect(outcome.status == .readFailed)
            #expect(outcome.text == ["1", "2"])
            #expect(
                outcome.errors.filter { $0.contains("failed") } == [
                    "bleinspect: hci0: frame 3 at byte offset 31: reading the HCI monitor channel failed: Input/output error (EIO); capture goes on",
                    "bleinspect: hci0: frame 3 at byte offset 31: reading the HCI monitor channel failed: Input/output error (EIO), 6 times in a row with no record between; giving up",
                ]
            )
            #expect(outcome.summary.hasPrefix("bleinspect: hci0: 2 frames, 0 dropped, 6 read errors, "))
            // Six receives, with waits of 1, 2, 4, 8 and 10 ms between them.
            #expect(channel.failures == 6)
            #expect(elapsed >= 25_000_000)
            try expectValid(saved, frames: 2)
        }
    }

    @Test("EBADF ends the capture at once, with the file whole")
    func fatalErrorEndToEnd() throws {
        let fake = try FakeMonitor()
        fake.newIndex(0)
        fake.reset(0)
        let channel = ScriptedChannel(fake.channel(), script: [.records(2)], failForever: EBADF)
        let dir = TemporaryDirectory()
        let saved = dir.path("fatal.pcapng")
        let outcome = try run(channel: channel, saved: saved)
        #expect(outcome.status == .readFailed)
        #expect(channel.failures == 1)
        #expect(
            outcome.errors.contains(
                "bleinspect: hci0: frame 3 at byte offset 31: reading the HCI monitor channel failed: Bad file descriptor (EBADF)"
            )
        )
        #expect(outcome.summary.hasPrefix("bleinspect: hci0: 2 frames, 0 dropped, "))
        try expectValid(saved, frames: 2)
    }

    @Test("live hci0: the controller goes away and returns; frames flow again and are saved", arguments: formats)
    func controllerReturns(format: OutputFormat) throws {
        let fake = try FakeMonitor()
        fake.newIndex(0)
        let stop = try LiveStop()
        let feeder = fake.sender
        let requester = stop.requester
        // The controller leaves while the capture waits, and comes back a little later.
        let thread = Thread {
            usleep(50_000)
            feeder.reset(0)
            feeder.deleteIndex(0)
            feeder.reset(1)
            usleep(50_000)
            feeder.newIndex(0)
            feeder.openIndex(0)
            feeder.reset(0)
            usleep(50_000)
            requester.request()
        }
        thread.start()
        let dir = TemporaryDirectory()
        let saved = dir.path("returned.\(format.rawValue)")
        let outcome = try run(channel: fake.channel(), saved: saved, format: format, stop: stop)
        #expect(outcome.status == .success)
        #expect(outcome.text == ["1", "2", "3", "4", "5", "6"])
        #expect(
            outcome.errors.dropFirst().dropLast() == [
                "bleinspect: hci0: controller hci0 went away; waiting for it to return",
                "bleinspect: hci0: controller hci0 returned",
            ]
        )
        #expect(outcome.summary.hasPrefix("bleinspect: hci0: 6 frames, 0 dropped, "))
        #expect(outcome.summary.hasSuffix(" (stopped)"))
        try expectValid(
            saved,
            frames: 6,
            kinds: [.newIndex, .hciCommand, .deleteIndex, .newIndex, .openIndex, .hciCommand]
        )
    }

    @Test("live hci0: the channel ends while the controller is away; the file is whole")
    func channelEndsWhileAway() throws {
        let fake = try FakeMonitor()
        fake.newIndex(0)
        fake.reset(0)
        fake.deleteIndex(0)
        fake.closeWriter()
        let dir = TemporaryDirectory()
        let saved = dir.path("away.btsnoop")
        let outcome = try run(channel: fake.channel(), saved: saved)
        #expect(outcome.status == .success)
        #expect(outcome.text == ["1", "2", "3"])
        #expect(outcome.errors.contains("bleinspect: hci0: controller hci0 went away; waiting for it to return"))
        try expectValid(saved, frames: 3, kinds: [.newIndex, .hciCommand, .deleteIndex])
    }

    @Test("SIGTERM and SIGINT mid-capture stop it cleanly, the file whole", arguments: [SIGTERM, SIGINT])
    func signalLeavesValidFile(signo: Int32) throws {
        let fake = try FakeMonitor()
        fake.newIndex(0)
        let stop = try LiveStop()
        // The handlers the test process had, put back afterwards.
        let signals = [SIGINT, SIGTERM, SIGHUP]
        var saved: [sigaction] = []
        for s in signals {
            var old = sigaction()
            sigaction(s, nil, &old)
            saved.append(old)
        }
        defer {
            for (k, s) in signals.enumerated() {
                var old = saved[k]
                sigaction(s, &old, nil)
            }
        }
        stop.catchSignals()
        let feeder = fake.sender
        let me = getpid()
        let thread = Thread {
            usleep(50_000)
            feeder.reset(0)
            feeder.reset(0)
            usleep(50_000)
            kill(me, signo)
        }
        thread.start()
        // A deadline in case the signal never arrives; the test then fails on the reason.
        stop.stop(after: 10)
        let dir = TemporaryDirectory()
        let path = dir.path("signalled.pcapng")
        let outcome = try run(channel: fake.channel(), saved: path, stop: stop)
        #expect(stop.reason == .signal(signo))
        #expect(outcome.status == .success)
        #expect(outcome.text == ["1", "2", "3"])
        #expect(outcome.summary.hasSuffix(signo == SIGTERM ? " (terminated)" : " (interrupted)"))
        try expectValid(path, frames: 3)
    }

    @Test(
        "an output that cannot be written (/dev/full): a clear error, status 73, the capture stops",
        arguments: formats
    )
    func outputFull(format: OutputFormat) throws {
        guard FileManager.default.isWritableFile(atPath: "/dev/full") else { return }
        let fake = try FakeMonitor()
        fake.newIndex(0)
        fake.reset(0)
        let stop = try LiveStop()
        // Nothing else stops this capture: the write failure must, well before this.
        stop.stop(after: 10)
        let start = LiveStop.now()
        let outcome = try run(channel: fake.channel(), saved: "/dev/full", format: format, stop: stop)
        #expect(LiveStop.now() - start < 5_000_000_000)
        #expect(stop.reason == .requested)
        #expect(outcome.status == .cannotCreateOutput)
        #expect(outcome.text == ["1", "2"])
        let failures = outcome.errors.filter { $0.contains("/dev/full") }
        #expect(failures == ["bleinspect: writing /dev/full failed: No space left on device"])
        #expect(outcome.summary.hasPrefix("bleinspect: hci0: 2 frames, 0 dropped, "))
    }
}
