import BLECapture
import BLECaptureLive
import BLEInspect
import BLEInspectCore
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

    @Test("both directions, index events, kernel timestamps, a cut record and a read error")
    func everyKindOfRecord() throws {
        let fake = try FakeMonitor()
        // What the kernel replays on binding.
        fake.newIndex(0)
        fake.openIndex(0)
        let stop = try LiveStop()
        let reader = MonitorReader(
            channel: FailingChannel(fake.channel(), failAfter: 8, with: ENETDOWN),
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
        #expect(failure.description.contains("Network is down"))
        #expect(ExitStatus(failure) == .readFailed)
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

    @Test("the controller captured goes away: its Delete Index is shown, then the capture ends")
    func chosenControllerGoesAway() throws {
        let fake = try FakeMonitor()
        fake.newIndex(0)
        fake.reset(0)
        fake.deleteIndex(0)
        fake.reset(0)  // never read
        let reader = MonitorReader(channel: fake.channel(), controller: 0, stop: try LiveStop())
        try reader.start()
        let (frames, error) = drain(reader)
        #expect(frames.map(\.kind) == [.newIndex, .hciCommand, .deleteIndex])
        let gone = try #require(error)
        #expect(gone.code == .controllerGone)
        #expect(gone.message == "controller hci0 went away (Delete Index, frame 3)")
        #expect(ExitStatus(gone) == .controllerGone)
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
