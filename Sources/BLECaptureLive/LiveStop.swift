public import BLECapture
internal import CCaptureShims

#if canImport(Glibc)
    import Glibc
#endif

/// When and why a live capture stops: a signal (Ctrl-C, SIGTERM, SIGHUP), a deadline
/// (`--duration`), or a request from the program itself.
///
/// Every wait of a live source goes through `wait(for:)`, which polls the source together with a
/// pipe that the signal handler writes to, so a stop is seen at once and never lost between a
/// check and a blocking call. The same pipe lets another thread, or a test, stop the capture.
public final class LiveStop: InputWaiter {
    /// Why the capture stopped.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        case signal(Int32)
        case deadline
        case requested

        public var description: String {
            switch self {
            case .signal(SIGINT): "interrupted"
            case .signal(SIGTERM): "terminated"
            case .signal(SIGHUP): "hung up"
            case .signal(let n): "signal \(n)"
            case .deadline: "duration reached"
            case .requested: "stopped"
            }
        }
    }

    private let readFD: Int32
    /// The stop hint last seen (see `checkStop`).
    private var seenHint: UInt32 = 0
    private let writeFD: Int32
    /// The monotonic time (ns) at which to stop, nil for none.
    public var deadline: UInt64?
    /// Set once the capture is to stop; from then on every wait returns at once.
    public private(set) var reason: Reason?
    /// Called before a wait that would block: the moment to flush what was printed and written,
    /// so that each frame is out as soon as it was read.
    public var onIdle: (() -> Void)?

    public init() throws(CaptureError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw CaptureError(.unreadable, "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        readFD = fds[0]
        writeFD = fds[1]
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
    }

    deinit {
        if signalPipe == writeFD { signalPipe = -1 }
        close(readFD)
        close(writeFD)
    }

    /// Routes SIGINT, SIGTERM and SIGHUP to this stop, and ignores SIGPIPE (a closed output is
    /// seen as a write error instead). A second signal has its default effect.
    public func catchSignals() {
        signalPipe = writeFD
        for signo in [SIGINT, SIGTERM, SIGHUP] { _ = bleinspect_install_signal(signo, liveStopSignalHandler) }
        signal(SIGPIPE, SIG_IGN)
    }

    /// Stops the capture.
    public func request() {
        requester.request()
    }

    /// A handle that stops the capture from another thread, valid while this stop lives.
    public var requester: Requester { Requester(fd: writeFD) }

    /// Stops a capture from any thread.
    public struct Requester: Sendable {
        let fd: Int32

        public func request() {
            var byte: UInt8 = 0
            _ = write(fd, &byte, 1)
            bleinspect_stop_hint_bump()
        }
    }

    /// Sets the deadline `seconds` from now.
    public func stop(after seconds: Double) {
        deadline = Self.now() &+ UInt64(max(0, min(seconds, 1e9)) * 1e9)
    }

    /// The outcome of a wait.
    public enum WaitResult: Sendable, Equatable {
        case ready, stopped, timedOut
    }

    /// Waits until `fd` is readable (or writable, with `forWriting`), the capture is stopped, or
    /// `timeout` milliseconds pass (nil: no timeout but the deadline).
    public func wait(for fd: Int32?, forWriting: Bool = false, timeout: Int? = nil) -> WaitResult {
        if reason != nil { return .stopped }
        if let fd, poll(fd: fd, forWriting: forWriting, timeout: 0) { return .ready }
        if checkStop() { return .stopped }
        onIdle?()
        while true {
            var limit = timeout ?? -1
            if let deadline {
                let now = Self.now()
                guard now < deadline else {
                    reason = .deadline
                    return .stopped
                }
                let left = Int(min((deadline - now) / 1_000_000 + 1, UInt64(Int32.max)))
                limit = limit < 0 ? left : min(limit, left)
            }
            var fds = [pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)]
            if let fd { fds.append(pollfd(fd: fd, events: Int16(forWriting ? POLLOUT : POLLIN), revents: 0)) }
            let n = Glibc.poll(&fds, nfds_t(fds.count), Int32(clamping: limit))
            if n < 0 && errno == EINTR { continue }
            if fds[0].revents != 0 { readPipe() }
            if checkStop() { return .stopped }
            if n > 0, fds.count > 1, fds[1].revents != 0 { return .ready }
            if n == 0 {
                if let deadline, Self.now() >= deadline {
                    reason = .deadline
                    return .stopped
                }
                if timeout != nil { return .timedOut }
            }
        }
    }

    /// Sleeps until the monotonic time `until` (ns); false when the capture was stopped first.
    public func sleep(until: UInt64) -> Bool {
        while true {
            let now = Self.now()
            if now >= until { return reason == nil && !checkStop() }
            let ms = Int(min((until - now) / 1_000_000 + 1, 60_000))
            if wait(for: nil, timeout: ms) == .stopped { return false }
        }
    }

    /// True once a stop was asked for; reads what the signal handler or `request` wrote, but
    /// only when a stop was asked for somewhere since the last look (no system call per frame).
    @discardableResult
    public func checkStop() -> Bool {
        if reason != nil { return true }
        let hint = bleinspect_stop_hint()
        if hint != seenHint {
            seenHint = hint
            readPipe()
        }
        if reason == nil, let deadline, Self.now() >= deadline { reason = .deadline }
        return reason != nil
    }

    /// Takes what the signal handler or `request` wrote: the reason to stop.
    private func readPipe() {
        var byte: UInt8 = 0
        while read(readFD, &byte, 1) == 1 {
            reason = byte == 0 ? .requested : .signal(Int32(byte))
        }
    }

    /// The monotonic clock, in nanoseconds.
    public static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    private func poll(fd: Int32, forWriting: Bool, timeout: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(forWriting ? POLLOUT : POLLIN), revents: 0)
        return Glibc.poll(&p, 1, timeout) > 0
    }

    // InputWaiter: a stream (pipe, FIFO, socket) ends when its writer closes it.

    public func waitReadable(_ fd: Int32) -> Bool {
        wait(for: fd) == .ready
    }

    public func endOfInput(fd: Int32) -> InputEndAction {
        checkStop() ? .stopped : .end
    }
}

/// The pipe the signal handler writes to; -1 when no stop catches signals.
nonisolated(unsafe) private var signalPipe: Int32 = -1

private func liveStopSignalHandler(_ signo: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: signo)
    _ = write(signalPipe, &byte, 1)
    bleinspect_stop_hint_bump()
    errno = saved
}
