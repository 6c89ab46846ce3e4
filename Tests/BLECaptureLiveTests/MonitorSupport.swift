import BLECapture
import BLECaptureLive
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A socketpair that keeps record boundaries, standing in for the kernel's HCI monitor socket:
/// the test writes monitor records into one end; the reader reads the other through the same
/// recvmsg path as the real socket.
final class FakeMonitor {
    let readerFD: Int32
    private(set) var writerFD: Int32

    init() throws {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0 else {
            throw POSIXError(.EIO)
        }
        readerFD = fds[0]
        writerFD = fds[1]
    }

    deinit {
        close(readerFD)
        if writerFD >= 0 { close(writerFD) }
    }

    /// Sends records from another thread while this lives.
    var sender: Sender { Sender(fd: writerFD) }

    struct Sender: Sendable {
        let fd: Int32
        /// HCI Reset, sent.
        func reset(_ index: UInt16) {
            let record: [UInt8] = [0x02, 0x00, UInt8(index & 0xFF), UInt8(index >> 8), 0x03, 0x00, 0x03, 0x0C, 0x00]
            _ = record.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        }

        /// New Index for `hciN` (type Primary, bus USB), as `FakeMonitor.newIndex` sends it.
        func newIndex(_ index: UInt16) {
            var name = Array("hci\(index)".utf8)
            name += [UInt8](repeating: 0, count: 8 - name.count)
            send(opcode: 0, index: index, [0x00, 0x01, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66] + name)
        }

        func openIndex(_ index: UInt16) { send(opcode: 8, index: index, []) }
        func deleteIndex(_ index: UInt16) { send(opcode: 1, index: index, []) }

        /// One record: the 6-byte header and `payload`.
        func send(opcode: UInt16, index: UInt16, _ payload: [UInt8]) {
            let length = UInt16(payload.count)
            let record: [UInt8] =
                [
                    UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(index & 0xFF), UInt8(index >> 8),
                    UInt8(length & 0xFF), UInt8(length >> 8),
                ] + payload
            _ = record.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        }
    }

    /// The channel a `MonitorReader` reads (it does not own the descriptor).
    func channel() -> SocketMonitorChannel { SocketMonitorChannel(fd: readerFD, ownsDescriptor: false) }

    /// Sends one record: the 6-byte header (opcode, index, `declaredLength` or the payload's
    /// length) and `payload`.
    func send(opcode: UInt16, index: UInt16, _ payload: [UInt8], declaredLength: Int? = nil) {
        let length = UInt16(declaredLength ?? payload.count)
        var record: [UInt8] = [
            UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(index & 0xFF), UInt8(index >> 8),
            UInt8(length & 0xFF), UInt8(length >> 8),
        ]
        record += payload
        _ = record.withUnsafeBytes { Glibc.send(writerFD, $0.baseAddress, $0.count, 0) }
    }

    /// Sends raw bytes as one datagram (for records shorter than a header).
    func sendRaw(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(writerFD, $0.baseAddress, $0.count, 0) }
    }

    /// Closes the writing end: the reader sees the channel end.
    /// A finished recording: hci0's New Index (unless `announced` is false), then `commands`
    /// HCI Resets, and the writing end closed.
    static func resets(_ commands: Int, announced: Bool = true) throws -> FakeMonitor {
        let fake = try FakeMonitor()
        if announced { fake.newIndex(0) }
        for _ in 0..<commands { fake.reset(0) }
        fake.closeWriter()
        return fake
    }

    func closeWriter() {
        if writerFD >= 0 { close(writerFD) }
        writerFD = -1
    }

    // Records as the kernel sends them.

    /// New Index: type Primary, bus USB, the address, and the name `hciN`.
    func newIndex(_ index: UInt16, address: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66]) {
        var name = Array("hci\(index)".utf8)
        name += [UInt8](repeating: 0, count: 8 - name.count)
        send(opcode: 0, index: index, [0x00, 0x01] + address + name)
    }

    func openIndex(_ index: UInt16) { send(opcode: 8, index: index, []) }
    func deleteIndex(_ index: UInt16) { send(opcode: 1, index: index, []) }
    /// HCI Reset, sent.
    func reset(_ index: UInt16) { send(opcode: 2, index: index, [0x03, 0x0C, 0x00]) }
    /// Command Complete for Reset, received.
    func resetComplete(_ index: UInt16) { send(opcode: 3, index: index, [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]) }
    /// An ATT Exchange MTU Request on handle 0x0040, sent (ACL out).
    func aclOut(_ index: UInt16) {
        send(opcode: 4, index: index, [0x40, 0x00, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x02, 0x05, 0x02])
    }
    /// The Exchange MTU Response, received (ACL in).
    func aclIn(_ index: UInt16) {
        send(opcode: 5, index: index, [0x40, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x03, 0xF7, 0x00])
    }
}

/// A channel that fails with `errno` once the records before it are read.
final class FailingChannel: MonitorChannel {
    private let inner: any MonitorChannel
    private let failure: Int32
    private var remaining: Int

    init(_ inner: any MonitorChannel, failAfter records: Int, with failure: Int32) {
        self.inner = inner
        self.remaining = records
        self.failure = failure
    }

    var fd: Int32 { inner.fd }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> MonitorReceive {
        guard remaining > 0 else { return .failed(failure) }
        let result = inner.receive(into: buffer)
        if case .record = result { remaining -= 1 }
        return result
    }
}

/// A channel that plays a script over a `FakeMonitor`'s channel: records pass through from the
/// socketpair, failures (any errno) come when the script says, and the kernel's drop count is
/// set as the script goes. Once the script is done, everything passes through, or with
/// `failForever` set every receive fails with that errno.
final class ScriptedChannel: MonitorChannel {
    enum Step {
        /// Pass this many records through.
        case records(Int)
        /// Fail one receive with this errno.
        case fail(Int32)
        /// Fail this many receives in a row with this errno.
        case failRepeatedly(Int32, times: Int)
        /// Set the kernel's drop count (the channel then keeps one).
        case kernelDrops(Int)
    }

    private let inner: any MonitorChannel
    private var script: [Step]
    private let failForever: Int32?
    /// The kernel's drop count, nil when the channel keeps none.
    private var drops: Int?
    /// Every receive asked for, and those that failed.
    private(set) var receives = 0
    private(set) var failures = 0

    init(_ inner: any MonitorChannel, script: [Step], kernelDrops: Int? = nil, failForever: Int32? = nil) {
        self.inner = inner
        self.script = script
        self.drops = kernelDrops
        self.failForever = failForever
    }

    var fd: Int32 { inner.fd }

    func droppedByKernel() -> Int? { drops }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> MonitorReceive {
        receives += 1
        while let step = script.first {
            switch step {
            case .kernelDrops(let count):
                drops = count
                script.removeFirst()
            case .fail(let code):
                script.removeFirst()
                failures += 1
                return .failed(code)
            case .failRepeatedly(let code, let times):
                script.removeFirst()
                if times > 1 { script.insert(.failRepeatedly(code, times: times - 1), at: 0) }
                failures += 1
                return .failed(code)
            case .records(let count):
                guard count > 0 else {
                    script.removeFirst()
                    continue
                }
                let result = inner.receive(into: buffer)
                if case .record = result {
                    script.removeFirst()
                    if count > 1 { script.insert(.records(count - 1), at: 0) }
                }
                return result
            }
        }
        if let failForever {
            failures += 1
            return .failed(failForever)
        }
        return inner.receive(into: buffer)
    }
}
