public import BLECapture
import BLEInspectCore
internal import CBluetooth  // with sys/socket.h: SOCK_STREAM, MSG_DONTWAIT

#if canImport(Glibc)
    import Glibc
#endif

/// How fast a replay goes.
public enum ReplaySpeed: Sendable, Hashable, CustomStringConvertible {
    /// As fast as the client reads: no pacing.
    case max
    /// The frames' own timing divided by this factor: 1 is as recorded, 2 twice as fast.
    case factor(Double)

    /// Parses `max` or a positive number (at most 1,000,000).
    public init(_ text: String) throws(SourceError) {
        if text.lowercased() == "max" {
            self = .max
            return
        }
        guard let value = Double(text), value.isFinite, value > 0, value <= 1_000_000 else {
            throw SourceError(
                "--speed takes a number above 0 (1 is as recorded, 10 ten times faster, 0.5 half speed) or max; not '\(text)'"
            )
        }
        self = .factor(value)
    }

    public var description: String {
        switch self {
        case .max: "max"
        case .factor(let f): f == f.rounded() && f < 1e15 ? String(Int64(f)) : String(f)
        }
    }
}

/// One client's share of a replay.
public struct ReplaySession: Sendable {
    /// How the session ended.
    public enum End: Sendable {
        /// Every frame of the input was sent.
        case complete
        /// The client went away (or sending to it failed) before the end; the reason is the
        /// system's ("Broken pipe").
        case disconnected(reason: String)
        /// A stop was requested (a signal, `LiveStop.request()`).
        case stopped
        /// The input is damaged (or could not be read) at this point; every frame before it was sent.
        case inputError(CaptureError)
    }

    /// The client's address, `HOST:PORT`.
    public var peer: String
    /// Frames sent.
    public var frames: Int
    /// Frames the stream's datalink has no place for, by kind name.
    public var skipped: [String: Int]
    /// Time from the connection to the end, in nanoseconds.
    public var nanoseconds: UInt64
    public var end: End
}

/// What a replay reports as it goes.
public enum ReplayEvent: Sendable {
    /// A client connected (`HOST:PORT`).
    case connected(peer: String)
    /// A client's session ended.
    case finished(ReplaySession)
}

/// How a replay ended.
public struct ReplayOutcome: Sendable {
    /// Every client session, in order.
    public var sessions: [ReplaySession] = []
    /// The input's damage or read error, which ends the replay.
    public var inputError: CaptureError?
    /// The serving socket failed (listening, accepting).
    public var serveError: CaptureError?
    /// Set when the replay was stopped (a signal, a request).
    public var stopReason: LiveStop.Reason?
}

/// Serves a capture as a live btsnoop stream over TCP, as the Android emulator's and a rooted
/// phone's btsnoop servers do: for each client, the btsnoop file header, then every frame,
/// paced by the frames' timestamps.
///
/// The stream is btsnoop datalink 2001 (Linux monitor) when the input is a Linux monitor
/// capture (btsnoop 2001, pcap/pcapng link type 254), so that controller indexes and index
/// records stay; otherwise datalink 1002 (H4), and records that it has no place for are
/// counted in `ReplaySession.skipped`.
///
/// Use: `prepare()` (opens the input, so its errors come first), `listen()` (binds and reports
/// the address), then `run(_:)`, which waits for clients through the `LiveStop`, so that a
/// signal or `LiveStop.request()` ends it at once.
public final class ReplayServer {
    public let endpoint: TCPAddress
    public let speed: ReplaySpeed
    /// Serve client after client, until stopped; otherwise only the first.
    public let loop: Bool
    public let stop: LiveStop
    private let open: () throws(CaptureError) -> any FrameReader
    /// The input opened by `prepare()`, for the first client.
    private var pending: (any FrameReader)?
    /// The input's format, once `prepare()` opened it.
    public private(set) var inputFormat: CaptureFormat?
    /// The btsnoop datalink the stream is sent with.
    public private(set) var datalink: BTSnoopWriter.Datalink = .h4
    /// The address actually listened on (the port chosen when `endpoint.port` is 0).
    public private(set) var boundEndpoint: TCPAddress?
    private var listenFD: Int32 = -1

    /// Bytes sent in one go when not pacing.
    public static let batchSize = 1 << 16

    /// A server for `endpoint`; `open` opens the input, once per client.
    public init(
        endpoint: TCPAddress,
        speed: ReplaySpeed,
        loop: Bool,
        stop: LiveStop,
        open: @escaping () throws(CaptureError) -> any FrameReader
    ) {
        self.endpoint = endpoint
        self.speed = speed
        self.loop = loop
        self.stop = stop
        self.open = open
    }

    deinit {
        if listenFD >= 0 { close(listenFD) }
    }

    /// The stream's datalink for an input of `format`.
    public static func datalink(for format: CaptureFormat) -> BTSnoopWriter.Datalink {
        format.isLinuxMonitor ? .monitor : .h4
    }

    /// Opens the input, so that a missing or damaged file is reported before anything is served,
    /// and chooses the stream's datalink from its format.
    @discardableResult
    public func prepare() throws(CaptureError) -> CaptureFormat {
        let reader = try open()
        pending = reader
        inputFormat = reader.format
        datalink = Self.datalink(for: reader.format)
        return reader.format
    }

    /// Resolves the endpoint, binds (with SO_REUSEADDR) and listens; returns the address bound,
    /// to print before any client connects. Errors are `.writeFailed`: nothing can be served.
    @discardableResult
    public func listen() throws(CaptureError) -> TCPAddress {
        if let boundEndpoint { return boundEndpoint }
        var lastError: Int32 = EADDRNOTAVAIL
        for (family, address) in try endpoint.resolve(passive: true) {
            let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else {
                lastError = errno
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let bound = address.withUnsafeBytes { p -> Bool in
                guard let base = p.baseAddress else { return false }
                return bind(fd, base.assumingMemoryBound(to: sockaddr.self), socklen_t(p.count)) == 0
            }
            guard bound, Glibc.listen(fd, 16) == 0 else {
                lastError = errno
                close(fd)
                continue
            }
            listenFD = fd
            break
        }
        guard listenFD >= 0 else {
            throw CaptureError(.writeFailed, "cannot serve on \(endpoint): \(String(cString: strerror(lastError)))")
        }
        let bound = Self.address(of: listenFD, peer: false) ?? endpoint
        boundEndpoint = bound
        return bound
    }

    /// Serves clients until the input is done for the first one (or, with `loop`, until
    /// stopped), the input turns out damaged, or a stop is requested. `onEvent` hears of each
    /// client as it connects and as its session ends.
    public func run(_ onEvent: (ReplayEvent) -> Void = { _ in }) -> ReplayOutcome {
        var outcome = ReplayOutcome()
        if inputFormat == nil {
            do throws(CaptureError) {
                try prepare()
            } catch {
                outcome.inputError = error
                return outcome
            }
        }
        do throws(CaptureError) {
            try listen()
        } catch {
            outcome.serveError = error
            return outcome
        }
        while true {
            guard let client = accept(&outcome) else { return outcome }
            let peer = Self.address(of: client, peer: true)?.hostPort ?? "client"
            onEvent(.connected(peer: peer))
            let started = LiveStop.now()
            let session: ReplaySession
            do throws(CaptureError) {
                let reader: any FrameReader
                if let pending {
                    reader = pending
                    self.pending = nil
                } else {
                    reader = try open()
                }
                session = stream(reader, to: client, peer: peer, started: started)
            } catch {
                session = ReplaySession(
                    peer: peer,
                    frames: 0,
                    skipped: [:],
                    nanoseconds: LiveStop.now() &- started,
                    end: .inputError(error)
                )
            }
            hangUp(client)
            outcome.sessions.append(session)
            onEvent(.finished(session))
            switch session.end {
            case .inputError(let error):
                outcome.inputError = error
                return outcome
            case .stopped:
                outcome.stopReason = stop.reason ?? .requested
                return outcome
            case .complete, .disconnected:
                if !loop { return outcome }
            }
        }
    }

    /// Waits for and accepts the next client; nil when stopped or when accepting failed.
    private func accept(_ outcome: inout ReplayOutcome) -> Int32? {
        while true {
            switch stop.wait(for: listenFD) {
            case .stopped:
                outcome.stopReason = stop.reason ?? .requested
                return nil
            case .timedOut:
                continue
            case .ready:
                break
            }
            let fd = Glibc.accept(listenFD, nil, nil)
            if fd >= 0 {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                var one: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return fd
            }
            let err = errno
            // The connection went away before it was accepted, or a signal came: wait again.
            if [EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED, EPROTO].contains(err) { continue }
            outcome.serveError = CaptureError(
                .writeFailed,
                "cannot accept a client on \(boundEndpoint ?? endpoint): \(String(cString: strerror(err)))"
            )
            return nil
        }
    }

    /// Sends the btsnoop stream of `reader` to `client`.
    private func stream(_ reader: any FrameReader, to client: Int32, peer: String, started: UInt64) -> ReplaySession {
        let sink = OutputSink(fd: client, ownsDescriptor: false, bufferSize: Self.batchSize, isSocket: true)
        let stop = self.stop
        sink.writeWaiter = { fd in stop.wait(for: fd, forWriting: true) == .ready }
        let writer = BTSnoopWriter(sink: sink, name: peer, datalink: datalink)
        sink.flush()
        var session = ReplaySession(peer: peer, frames: 0, skipped: [:], nanoseconds: 0, end: .complete)
        var first: Timestamp? = nil
        var pacing: Double? = nil
        if case .factor(let factor) = speed { pacing = factor }
        while sink.failure == nil {
            let frame: CapturedFrame?
            do throws(CaptureError) {
                frame = try reader.next()
            } catch {
                session.end = .inputError(error)
                break
            }
            guard let frame else { break }
            guard writer.encodedSize(of: frame) != nil else {
                session.skipped[frame.kind.name, default: 0] += 1
                continue
            }
            if let pacing {
                let base = first ?? frame.timestamp
                first = base
                let target = Self.target(start: started, offset: frame.timestamp.difference(from: base), speed: pacing)
                if target > LiveStop.now() {
                    sink.flush()
                    if sink.failure != nil { break }
                    if !stop.sleep(until: target) {
                        session.end = .stopped
                        break
                    }
                }
            } else if stop.checkStop() {
                session.end = .stopped
                break
            }
            do throws(CaptureError) {
                guard try writer.write(frame) else { continue }
            } catch {
                break  // a btsnoop writer reports failures through its sink only
            }
            session.frames += 1
            if pacing != nil { sink.flush() } else { sink.flushIfFull() }
        }
        sink.flush()
        if let failure = sink.failure {
            switch failure {
            case ECANCELED: session.end = .stopped
            default:
                if case .inputError = session.end {
                    // The input's damage is what the session reports; the client left as well.
                } else {
                    session.end = .disconnected(reason: String(cString: strerror(failure)))
                }
            }
        }
        session.nanoseconds = LiveStop.now() &- started
        return session
    }

    /// The monotonic time at which a frame `offset` after the first is due, at `speed`.
    static func target(start: UInt64, offset: (seconds: Int64, nanoseconds: UInt32), speed: Double) -> UInt64 {
        guard offset.seconds >= 0 else { return start }
        let delay = (Double(offset.seconds) * 1e9 + Double(offset.nanoseconds)) / speed
        let limit = Double(UInt64.max / 2)
        let nanos = delay >= limit ? UInt64.max / 2 : UInt64(max(0, delay))
        let (sum, overflow) = start.addingReportingOverflow(nanos)
        return overflow ? UInt64.max : sum
    }

    /// Ends a client's connection: no more bytes from us, anything it sent read and dropped (so
    /// that closing does not reset the connection under bytes it has yet to read), then closed.
    private func hangUp(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
        var scratch = [UInt8](repeating: 0, count: 4096)
        while scratch.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
        close(fd)
    }

    /// The local (or, with `peer`, the remote) address of a socket.
    static func address(of fd: Int32, peer: Bool) -> TCPAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                peer ? getpeername(fd, sa, &length) : getsockname(fd, sa, &length)
            }
        }
        guard rc == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            let sin = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self) }
            return tcpAddress(AF_INET, sin.sin_addr, port: sin.sin_port)
        case AF_INET6:
            let sin6 = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in6.self) }
            return tcpAddress(AF_INET6, sin6.sin6_addr, port: sin6.sin6_port)
        default:
            return nil
        }
    }

    /// The address (an `in_addr` or `in6_addr` of `family`) as text, with the port (network order).
    private static func tcpAddress<Address>(_ family: Int32, _ address: Address, port: in_port_t) -> TCPAddress? {
        var address = address
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        guard inet_ntop(family, &address, &text, socklen_t(text.count)) != nil else { return nil }
        return TCPAddress(host: Self.string(text), port: UInt16(bigEndian: port))
    }

    private static func string(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// One line about records a stream had no place for, nil when there were none.
    public static func skippedNote(_ skipped: [String: Int], datalink: BTSnoopWriter.Datalink) -> String? {
        SkippedRecords.summary(skipped, action: "sent", target: datalink.name)
    }
}
