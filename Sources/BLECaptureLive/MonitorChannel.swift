public import BLECapture
internal import CBluetooth
internal import CCaptureShims

#if canImport(Glibc)
    import Glibc
#endif

/// Where monitor records come from: the kernel's HCI monitor socket, or, in tests, any socket
/// that keeps record boundaries (a `SOCK_SEQPACKET` socketpair fed with monitor records).
public protocol MonitorChannel: AnyObject {
    /// The descriptor to wait on.
    var fd: Int32 { get }
    /// Receives one record into `buffer` without blocking.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> MonitorReceive
    /// The records the kernel dropped for this channel since it was opened (its receive buffer
    /// was full), nil when the channel keeps no such count.
    func droppedByKernel() -> Int?
}

extension MonitorChannel {
    /// No count of dropped records.
    public func droppedByKernel() -> Int? { nil }
}

/// The outcome of one receive.
public enum MonitorReceive: Sendable, Equatable {
    /// A record of `length` bytes (more than the buffer holds when it was cut), with the kernel's
    /// receive time (µs since the epoch) when the socket gave one.
    case record(length: Int, microseconds: Int64?)
    /// Nothing is waiting.
    case wouldBlock
    /// The receive failed with this errno.
    case failed(Int32)
}

/// A monitor channel over a socket descriptor, read with recvmsg and SO_TIMESTAMP.
public final class SocketMonitorChannel: MonitorChannel {
    public let fd: Int32
    private let ownsDescriptor: Bool

    /// Wraps `fd` and asks the kernel for receive timestamps.
    public init(fd: Int32, ownsDescriptor: Bool) {
        self.fd = fd
        self.ownsDescriptor = ownsDescriptor
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit {
        if ownsDescriptor { close(fd) }
    }

    public func receive(into buffer: UnsafeMutableRawBufferPointer) -> MonitorReceive {
        var seconds: Int64 = 0
        var micros: Int64 = 0
        var hasTime: Int32 = 0
        while true {
            let n = bleinspect_recv_stamped(
                fd,
                buffer.baseAddress,
                buffer.count,
                Int32(MSG_DONTWAIT),
                &seconds,
                &micros,
                &hasTime
            )
            if n >= 0 {
                let (scaled, o1) = seconds.multipliedReportingOverflow(by: 1_000_000)
                let (stamp, o2) = scaled.addingReportingOverflow(micros)
                return .record(length: n, microseconds: hasTime != 0 && !o1 && !o2 ? stamp : nil)
            }
            let err = errno
            if err == EINTR { continue }
            return err == EAGAIN || err == EWOULDBLOCK ? .wouldBlock : .failed(err)
        }
    }

    /// The socket's drop count (SO_MEMINFO, Linux 4.12 and later): records the kernel could not
    /// queue because the receive buffer was full. Nil when the kernel does not say.
    public func droppedByKernel() -> Int? {
        var info = [UInt32](repeating: 0, count: Self.memInfoCount)
        var size = socklen_t(MemoryLayout<UInt32>.stride * Self.memInfoCount)
        let rc = info.withUnsafeMutableBytes { p in getsockopt(fd, SOL_SOCKET, SO_MEMINFO, p.baseAddress, &size) }
        let needed = MemoryLayout<UInt32>.stride * (Self.memInfoDrops + 1)
        guard rc == 0, Int(size) >= needed else { return nil }
        return Int(info[Self.memInfoDrops])
    }

    /// SK_MEMINFO_VARS and SK_MEMINFO_DROPS (linux/sock_diag.h).
    private static let memInfoCount = 9
    private static let memInfoDrops = 8
}

/// The system calls that open the HCI monitor socket, replaceable in tests.
public struct MonitorSocketCalls: Sendable {
    /// socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI): a descriptor, or -1 with the errno.
    public var socket: @Sendable () -> (fd: Int32, errno: Int32)
    /// bind to the monitor channel: 0, or the errno.
    public var bind: @Sendable (Int32) -> Int32

    public init(socket: @escaping @Sendable () -> (Int32, Int32), bind: @escaping @Sendable (Int32) -> Int32) {
        self.socket = socket
        self.bind = bind
    }

    /// The real calls.
    public static let system = MonitorSocketCalls(
        socket: {
            let fd = Glibc.socket(
                AF_BLUETOOTH,
                Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                BTPROTO_HCI
            )
            return (fd, fd < 0 ? errno : 0)
        },
        bind: { fd in
            var address = sockaddr_hci()
            address.hci_family = sa_family_t(AF_BLUETOOTH)
            address.hci_dev = UInt16(HCI_DEV_NONE)
            address.hci_channel = UInt16(HCI_CHANNEL_MONITOR)
            let rc = withUnsafePointer(to: &address) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                    Glibc.bind(fd, sa, socklen_t(MemoryLayout<sockaddr_hci>.size))
                }
            }
            return rc == 0 ? 0 : errno
        }
    )
}

/// Opens the kernel's HCI monitor channel: every controller's traffic, both directions.
public enum HCIMonitorSocket {
    /// Opens and binds the monitor socket, turning each way it can fail into a clear error.
    public static func open(calls: MonitorSocketCalls = .system) throws(CaptureError) -> SocketMonitorChannel {
        let (fd, socketError) = calls.socket()
        guard fd >= 0 else { throw error(socketError, step: "socket") }
        let bindError = calls.bind(fd)
        guard bindError == 0 else {
            close(fd)
            throw error(bindError, step: "bind")
        }
        // A larger receive buffer rides out bursts (advertising floods) without drops.
        var size: Int32 = 4 << 20
        if setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        return SocketMonitorChannel(fd: fd, ownsDescriptor: true)
    }

    /// The error for a failed `step` with `code` (an errno).
    static func error(_ code: Int32, step: String) -> CaptureError {
        let reason = String(cString: strerror(code))
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT:
            return CaptureError(
                .noBluetooth,
                "this kernel has no Bluetooth support (\(step): \(reason)); load it with 'modprobe bluetooth', "
                    + "or read a capture file instead"
            )
        case EPERM, EACCES:
            return CaptureError(
                .permissionDenied,
                "no permission to open the HCI monitor channel (\(step): \(reason)): it needs CAP_NET_RAW. "
                    + "Run as root, or grant it once with 'sudo setcap cap_net_raw+ep \"$(command -v bleinspect)\"'"
            )
        default:
            return CaptureError(.readFailed, "cannot open the HCI monitor channel (\(step): \(reason))")
        }
    }
}
