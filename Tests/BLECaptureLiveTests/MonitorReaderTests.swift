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

@Suite("HCI monitor channel, through a socketpair seam")
struct MonitorReaderTests {
    /// Reads every frame until the reader ends or throws.
    func drain(_ reader: MonitorReader) -> (frames: [CapturedFrame], error: CaptureError?) {
        var frames: [CapturedFrame] = []
        do throws(CaptureError) {
            while let frame = try reader.next() { frames.append(frame) }
            return (frames, nil)
        } catch {
            return (frames, error)
        }
    }

    @Test("both directions, index events, kernel timestamps, a cut record and a read error that ends it")
    func everyKindOfRecord() throws {
        let fake = try FakeMonitor()
        // What the kernel replays on binding.
        fake.newIndex(0)
        fake.openIndex(0)
        let stop = try LiveStop()
        let reader = MonitorReader(
            channel: FailingChannel(fake.channel(), failAfter: 8, with: EBADF),
            controller: 0,
            stop: stop
        )
        var notices: [LiveNotice] = []
        reader.onNotice = { notices.append($0) }
        let before = Int64(Date().timeIntervalSince1970 * 1e6)
        try reader.start()
        fake.reset(0)
        fake.resetComplete(0)
        fake.aclOut(0)
        fake.aclIn(0)
        fake.send(opcode: 3, index: 0, [0x0E, 0x04, 0x01], declaredLength: 6)  // cut: 3 of 6 bytes
        fake.sendRaw([0x02, 0x00, 0x00])  // shorter than a header
        let (frames, error) = drain(reader)

        #expect(frames.map(\.kind) == [.newIndex, .openIndex, .hciCommand, .hciEvent, .aclData, .aclData, .hciEvent])
        #expect(
            frames.map(\.direction) == [
                .unknown, .unknown, .hostToController, .controllerToHost, .hostToController, .controllerToHost,
                .controllerToHost,
            ]
        )
        #expect(frames.map(\.number) == Array(1...7))
        #expect(frames.allSatisfy { $0.controllerIndex == 0 })
        #expect(frames[2].bytes == [0x03, 0x0C, 0x00])
        // The socket's receive timestamps (SO_TIMESTAMP), not zero and not far from now.
        for frame in frames {
            let micros = frame.timestamp.unixMicroseconds ?? 0
            #expect(micros >= before - 1_000_000 && micros <= before + 60_000_000)
        }
        // Byte offsets count every record received: 22 + 6 + 9 + 12 + 17 + 17 = 83 before the cut one.
        let cut = frames[6]
        #expect(cut.bytes == [0x0E, 0x04, 0x01])
        #expect(cut.originalLength == 6)
        #expect(cut.isTruncated)
        #expect(cut.sourceOffset == 83)

        let damage = notices.compactMap { notice -> CaptureError? in
            if case .damaged(let e) = notice { return e }
            return nil
        }
        #expect(damage.count == 2)
        #expect(damage.first?.frame == 7)
        #expect(damage.first?.offset == 83)
        #expect(damage.first?.description.contains("cut short: 3 of 6 bytes") == true)
        #expect(damage.last?.offset == 92)
        #expect(damage.last?.description.contains("shorter than its 6-byte header") == true)

        let failure = try #require(error)
        #expect(failure.code == .readFailed)
        #expect(failure.frame == 8)
        #expect(failure.offset == 95)
        #expect(failure.message == "reading the HCI monitor channel failed: Bad file descriptor (EBADF)")
        #expect(ExitStatus(failure) == .readFailed)
        // EBADF is not an error that may pass: no retry, no read error counted.
        #expect(reader.readErrors == 0)
        #expect(!notices.contains { if case .readError = $0 { true } else { false } })
    }

    @Test("hciN keeps only that controller's records; any keeps all")
    func controllerFilter() throws {
        for (selection, expected) in [(UInt16?(1), [UInt16?(1), 1]), (nil, [0, 1, 0, 1])] {
            let fake = try FakeMonitor()
            fake.newIndex(0)
            fake.newIndex(1)
            fake.reset(0)
            fake.reset(1)
            fake.closeWriter()
            let reader = MonitorReader(channel: fake.channel(), controller: selection, stop: try LiveStop())
            try reader.start()
            let (frames, error) = drain(reader)
            #expect(error == nil)
            #expect(frames.map(\.controllerIndex) == expected)
            #expect(reader.controllers.sorted() == [0, 1])
        }
    }

    @Test("a controller that is not there is named, with the ones that are")
    func noSuchController() throws {
        let fake = try FakeMonitor()
        fake.newIndex(1)
        fake.newIndex(2)
        let reader = MonitorReader(channel: fake.channel(), controller: 0, stop: try LiveStop())
        do {
            try reader.start()
            Issue.record("start() accepted a missing controller")
        } catch {
            #expect(error.code == .noSuchController)
            #expect(error.message == "no controller hci0 (present: hci1, hci2)")
            #expect(ExitStatus(error) == .noSuchController)
        }
        let empty = try FakeMonitor()
        let none = MonitorReader(channel: empty.channel(), controller: 3, stop: try LiveStop())
        #expect(throws: CaptureError.self) { try none.start() }
    }

    @Test("the controller captured goes away: its Delete Index is shown, reading waits, and it returns")
    func chosenControllerGoesAway() throws {
        let fake = try FakeMonitor()
        fake.newIndex(0)
        let reader = MonitorReader(channel: fake.channel(), controller: 0, stop: try LiveStop())
        var messages: [String] = []
        reader.onNotice = { if case .message(let m) = $0 { messages.append(m) } }
        try reader.start()
        fake.reset(0)
        fake.deleteIndex(0)
        fake.reset(1)  // another controller, while hci0 is away: not shown
        fake.newIndex(0)
        fake.openIndex(0)
        fake.reset(0)
        fake.closeWriter()
        let (frames, error) = drain(reader)
        #expect(error == nil)
        #expect(frames.map(\.kind) == [.newIndex, .hciCommand, .deleteIndex, .newIndex, .openIndex, .hciCommand])
        #expect(frames.map(\.number) == Array(1...6))
        #expect(frames.allSatisfy { $0.controllerIndex == 0 })
        #expect(messages == ["controller hci0 went away; waiting for it to return", "controller hci0 returned"])
        #expect(reader.controllers == [0])
    }

    @Test("with any, a controller going away is reported and the others are kept")
    func anyKeepsTheOthers() throws {
        let fake = try FakeMonitor()
        fake.newIndex(0)
        fake.newIndex(1)
        let reader = MonitorReader(channel: fake.channel(), controller: nil, stop: try LiveStop())
        var messages: [String] = []
        reader.onNotice = { if case .message(let m) = $0 { messages.append(m) } }
        try reader.start()
        fake.deleteIndex(1)
        fake.reset(0)
        fake.newIndex(2)
        fake.deleteIndex(0)
        fake.deleteIndex(2)
        fake.closeWriter()
        let (frames, error) = drain(reader)
        #expect(error == nil)
        #expect(frames.count == 7)
        #expect(
            messages == [
                "controller hci1 went away; still capturing hci0",
                "controller hci2 appeared",
                "controller hci0 went away; still capturing hci2",
                "controller hci2 went away; no controller left, waiting for one",
            ]
        )
    }

    @Test("ENOBUFS counts a drop and reading goes on")
    func dropsAreCounted() throws {
        let fake = try FakeMonitor()
        fake.newIndex(0)
        fake.reset(0)
        fake.closeWriter()
        let channel = DropOnceChannel(fake.channel(), after: 1)
        let reader = MonitorReader(channel: channel, controller: nil, stop: try LiveStop())
        try reader.start()
        let (frames, error) = drain(reader)
        #expect(error == nil)
        #expect(frames.count == 2)
        #expect(reader.dropped == 1)
        #expect(reader.readErrors == 0)
    }

    @Test("the kernel's drop count is counted, and an ENOBUFS it already counted is not counted twice")
    func kernelDropCount() throws {
        let fake = try FakeMonitor.resets(4, announced: false)
        // Drops before the capture (the count at the start) are not this capture's.
        let channel = ScriptedChannel(
            fake.channel(),
            script: [
                .records(1), .kernelDrops(5), .fail(ENOBUFS),  // the count went up by 3: 3 dropped
                .records(1), .fail(ENOBUFS),  // the count did not move: 1, ahead of the count
                .records(1), .kernelDrops(6),  // that one: not counted again
                .records(1), .kernelDrops(9),  // 3 more, seen at the end
            ],
            kernelDrops: 2
        )
        let reader = MonitorReader(channel: channel, controller: nil, stop: try LiveStop())
        var notices: [Int] = []
        reader.onNotice = { if case .dropped(let n) = $0 { notices.append(n) } }
        try reader.start()
        let (frames, error) = drain(reader)
        #expect(error == nil)
        #expect(frames.count == 4)
        #expect(reader.dropped == 7)
        #expect(notices == [3, 1, 3])
    }

    @Test("ENETDOWN, ENODEV, ENXIO and EIO: reported once per run, retried, and later records are read")
    func transientErrors() throws {
        for code in [ENETDOWN, ENODEV, ENXIO, EIO] {
            let fake = try FakeMonitor.resets(3)
            let channel = ScriptedChannel(
                fake.channel(),
                script: [.records(2), .failRepeatedly(code, times: 3), .records(1), .fail(code)]
            )
            let reader = MonitorReader(
                channel: channel,
                controller: 0,
                stop: try LiveStop(),
                retry: MonitorRetry(limit: 5, maxWaitMilliseconds: 5)
            )
            var errors: [CaptureError] = []
            reader.onNotice = { if case .readError(let e) = $0 { errors.append(e) } }
            try reader.start()
            let (frames, error) = drain(reader)
            let name = MonitorReaderTests.errnoNames[code] ?? "?"
            #expect(error == nil, "\(name)")
            #expect(frames.count == 4, "\(name): the records after the errors are read")
            #expect(reader.readErrors == 4, "\(name)")
            // The three in a row are one notice; the one after a record is another.
            #expect(errors.count == 2, "\(name)")
            #expect(errors.first?.frame == 3)
            #expect(errors.last?.frame == 4)
            #expect(
                errors.first?.message
                    == "reading the HCI monitor channel failed: \(String(cString: strerror(code))) (\(name))"
            )
            #expect(channel.failures == 4)
        }
    }

    static let errnoNames: [Int32: String] = [ENETDOWN: "ENETDOWN", ENODEV: "ENODEV", ENXIO: "ENXIO", EIO: "EIO"]

    @Test("errors that say the channel is unusable end reading at once, without retrying")
    func fatalErrors() throws {
        for (code, name) in [(EBADF, "EBADF"), (ENOTSOCK, "ENOTSOCK"), (EFAULT, "EFAULT"), (EINVAL, "EINVAL")] {
            let fake = try FakeMonitor()
            fake.newIndex(0)
            fake.reset(0)
            let channel = ScriptedChannel(fake.channel(), script: [.records(1)], failForever: code)
            let reader = MonitorReader(channel: channel, controller: 0, stop: try LiveStop())
            try reader.start()
            let (frames, error) = drain(reader)
            #expect(frames.count == 1)
            #expect(error?.code == .readFailed)
            #expect(error?.message.hasSuffix("(\(name))") == true, "\(name)")
            #expect(channel.failures == 1, "\(name): retried")
            #expect(!MonitorReader.isTransient(code))
        }
    }

    @Test("the same error over and over: waits between tries, then gives up after the bound")
    func persistentErrorGivesUp() throws {
        let fake = try FakeMonitor()
        fake.newIndex(0)
        fake.reset(0)
        let channel = ScriptedChannel(fake.channel(), script: [.records(2)], failForever: ENETDOWN)
        let retry = MonitorRetry(limit: 8, maxWaitMilliseconds: 20)
        let reader = MonitorReader(channel: channel, controller: 0, stop: try LiveStop(), retry: retry)
        var notices = 0
        reader.onNotice = { if case .readError = $0 { notices += 1 } }
        let start = LiveStop.now()
        try reader.start()
        let (frames, error) = drain(reader)
        let elapsed = LiveStop.now() - start
        #expect(frames.count == 2)
        let failure = try #require(error)
        #expect(failure.code == .readFailed)
        #expect(
            failure.message
                == "reading the HCI monitor channel failed: Network is down (ENETDOWN), 8 times in a row with no record between; giving up"
        )
        #expect(failure.frame == 3)
        #expect(ExitStatus(failure) == .readFailed)
        // Exactly the bound's receives, no more: no busy loop. Between them, waits of 1, 2, 4,
        // 8, 16, 20 and 20 ms.
        #expect(channel.failures == 8)
        #expect(reader.readErrors == 8)
        #expect(notices == 1)
        #expect(elapsed >= 71_000_000 && elapsed < 5_000_000_000)
        #expect((1..<8).map { retry.wait(after: $0) } == [1, 2, 4, 8, 16, 20, 20])
    }

    @Test("the standard bound: 100 failures in a row, waits up to 100 ms, about 9 s in all")
    func standardBound() {
        let standard = MonitorRetry.standard
        #expect(standard.limit == 100)
        let total = (1..<standard.limit).map { standard.wait(after: $0) }.reduce(0, +)
        #expect(total == 9_327)
        #expect((1..<standard.limit).allSatisfy { standard.wait(after: $0) <= 100 })
    }

    @Test("a stop during the waits between failures ends reading at once, without an error")
    func stopWhileRetrying() throws {
        let fake = try FakeMonitor()
        fake.newIndex(0)
        let channel = ScriptedChannel(fake.channel(), script: [.records(1)], failForever: EIO)
        let stop = try LiveStop()
        let reader = MonitorReader(channel: channel, controller: 0, stop: stop)
        stop.stop(after: 0.3)
        let start = LiveStop.now()
        try reader.start()
        let (frames, error) = drain(reader)
        let elapsed = LiveStop.now() - start
        #expect(frames.count == 1)
        #expect(error == nil)
        #expect(stop.reason == .deadline)
        #expect(elapsed < 3_000_000_000)
        // The waits double up to 100 ms: in 0.3 s, a handful of tries, not thousands.
        #expect(channel.failures >= 3 && channel.failures <= 12)
    }

    @Test("opening: no Bluetooth in the kernel, and no permission, give their own errors")
    func openErrors() throws {
        let noKernel = MonitorSocketCalls(socket: { (-1, EAFNOSUPPORT) }, bind: { _ in 0 })
        do {
            _ = try HCIMonitorSocket.open(calls: noKernel)
            Issue.record("opened without a kernel")
        } catch {
            #expect(error.code == .noBluetooth)
            #expect(ExitStatus(error) == .noBluetooth)
            #expect(error.message.contains("no Bluetooth support"))
        }
        for code in [EPERM, EACCES] {
            let denied = MonitorSocketCalls(
                socket: {
                    let fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0)
                    return (fd, 0)
                },
                bind: { _ in code }
            )
            do {
                _ = try HCIMonitorSocket.open(calls: denied)
                Issue.record("opened without permission")
            } catch {
                #expect(error.code == .permissionDenied)
                #expect(ExitStatus(error) == .permissionDenied)
                #expect(error.message.contains("CAP_NET_RAW"))
                #expect(error.message.contains("setcap cap_net_raw+ep"))
            }
        }
    }

    @Test("a stop request ends a reader waiting for records")
    func stopWhileWaiting() throws {
        let fake = try FakeMonitor()
        fake.newIndex(0)
        let stop = try LiveStop()
        let reader = MonitorReader(channel: fake.channel(), controller: 0, stop: stop)
        try reader.start()
        #expect(try reader.next()?.kind == .newIndex)
        stop.stop(after: 0.05)
        #expect(try reader.next() == nil)
        #expect(stop.reason == .deadline)
    }
}

/// A channel that reports ENOBUFS once after `after` records.
final class DropOnceChannel: MonitorChannel {
    private let inner: any MonitorChannel
    private var count = 0
    private let after: Int
    private var dropped = false

    init(_ inner: any MonitorChannel, after: Int) {
        self.inner = inner
        self.after = after
    }

    var fd: Int32 { inner.fd }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> MonitorReceive {
        if count == after && !dropped {
            dropped = true
            return .failed(ENOBUFS)
        }
        let result = inner.receive(into: buffer)
        if case .record = result { count += 1 }
        return result
    }
}
