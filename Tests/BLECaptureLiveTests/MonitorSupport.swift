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
