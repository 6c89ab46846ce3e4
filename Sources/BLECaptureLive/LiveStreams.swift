public import BLECapture

#if canImport(Glibc)
    import Glibc
#endif

/// A live source named on the command line.
public enum LiveSource: Sendable, Hashable, CustomStringConvertible {
    /// The HCI monitor channel: one controller (hciN), or every controller (nil, `any`).
    case monitor(controller: UInt16?)
    /// A capture stream on standard input (`-`).
    case standardInput
    /// A FIFO (named pipe) carrying a capture stream.
    case fifo(String)
    /// A TCP server sending a capture stream (`tcp://HOST:PORT`).
    case tcp(host: String, port: UInt16)
    /// A capture file that is still growing (`--follow FILE`).
    case follow(String)

    /// Reads `text` as a source: `hciN`, `any`, `-`, `tcp://HOST:PORT`, or a path (a FIFO, or with
    /// `follow` a file to tail). Returns a message when `text` names none of them.
    public static func parse(_ text: String, follow: Bool) -> Result<LiveSource, SourceError> {
        if follow {
            guard !text.isEmpty, text != "-", !text.hasPrefix("tcp://") else {
                return .failure(SourceError("--follow takes a file: '\(text)' is not one"))
            }
            return .success(.follow(text))
        }
        if text == "any" { return .success(.monitor(controller: nil)) }
        if text.hasPrefix("hci"), let n = UInt16(text.dropFirst(3)), text.count <= 8 {
            return .success(.monitor(controller: n))
        }
        if text == "-" { return .success(.standardInput) }
        if text.hasPrefix("tcp://") {
            do throws(SourceError) {
                let address = try TCPAddress(url: text)
                return .success(.tcp(host: address.host, port: address.port))
            } catch {
                return .failure(error)
            }
        }
        var st = stat()
        guard stat(text, &st) == 0 else {
            return .failure(
                SourceError(
                    "'\(text)' is not a source: give hciN, any, -, tcp://HOST:PORT, a FIFO, or --follow FILE"
                )
            )
        }
        switch st.st_mode & S_IFMT {
        case S_IFIFO: return .success(.fifo(text))
        case S_IFREG:
            return .failure(
                SourceError(
                    "'\(text)' is a regular file: read it with 'bleinspect read', or tail it as it grows with --follow"
                )
            )
        default:
            return .failure(SourceError("'\(text)' is neither a FIFO nor a regular file"))
        }
    }

    public var description: String {
        switch self {
        case .monitor(let c?): "hci\(c)"
        case .monitor(nil): "any"
        case .standardInput: "<stdin>"
        case .fifo(let path), .follow(let path): path
        case .tcp(let host, let port): TCPAddress(host: host, port: port).description
        }
    }
}

/// A source or address that could not be understood.
public struct SourceError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A `tcp://HOST:PORT` address: where `live` connects, and where `replay` listens.
public struct TCPAddress: Sendable, Hashable, CustomStringConvertible {
    /// A host name, an IPv4 address, or an IPv6 address (without its brackets).
    public var host: String
    /// The port; 0 asks for any free port.
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `tcp://HOST:PORT`: HOST is a name, an IPv4 address, or an IPv6 address in
    /// brackets (`tcp://[::1]:8872`); PORT is 0 to 65535, 0 picking a free port.
    public init(url text: String) throws(SourceError) {
        let scheme = "tcp://"
        let example = "give tcp://HOST:PORT, for example tcp://127.0.0.1:8872"
        guard text.lowercased().hasPrefix(scheme) else {
            throw SourceError("'\(text)' is not a tcp:// address: \(example)")
        }
        let rest = text.dropFirst(scheme.count)
        let hostPart: Substring
        let portPart: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw SourceError("'\(text)': the IPv6 address has no closing ]")
            }
            hostPart = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            guard after.hasPrefix(":") else {
                throw SourceError("'\(text)' has no port: \(example)")
            }
            portPart = after.dropFirst()
            guard hostPart.contains(":") else {
                throw SourceError("'\(text)': brackets are for IPv6 addresses only")
            }
        } else {
            guard let colon = rest.lastIndex(of: ":") else {
                throw SourceError("'\(text)' has no port: \(example)")
            }
            hostPart = rest[..<colon]
            portPart = rest[rest.index(after: colon)...]
            if hostPart.contains(":") {
                throw SourceError("'\(text)': put an IPv6 address in brackets, as in tcp://[::1]:8872")
            }
        }
        guard !hostPart.isEmpty else { throw SourceError("'\(text)' has no host: \(example)") }
        let allowed = hostPart.unicodeScalars.allSatisfy { c in
            (c.value >= 0x30 && c.value <= 0x39) || (c.value >= 0x41 && c.value <= 0x5A)
                || (c.value >= 0x61 && c.value <= 0x7A) || ".-_:%".unicodeScalars.contains(c)
        }
        guard allowed else { throw SourceError("'\(text)': '\(hostPart)' is not a host name or address") }
        guard !portPart.isEmpty, portPart.count <= 5, portPart.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(portPart), port <= 65_535
        else {
            throw SourceError("'\(text)': the port must be a number from 0 to 65535 (0 picks a free port)")
        }
        self.init(host: String(hostPart), port: UInt16(port))
    }

    /// `HOST:PORT`, with an IPv6 host in brackets.
    public var hostPort: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    public var description: String { "tcp://" + hostPort }
}

extension TCPAddress {
    /// The socket addresses `host` resolves to, for a stream socket (passive: for listening).
    public func resolve(passive: Bool = false) throws(CaptureError) -> [(family: Int32, address: [UInt8])] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = passive ? AI_PASSIVE : 0
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0 else {
            throw CaptureError(.unreadable, "cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        var out: [(Int32, [UInt8])] = []
        var node = list
        while let entry = node?.pointee {
            if let address = entry.ai_addr {
                let bytes = UnsafeRawBufferPointer(start: address, count: Int(entry.ai_addrlen))
                out.append((entry.ai_family, Array(bytes)))
            }
            node = entry.ai_next
        }
        return out
    }

    /// Connects to the address, waiting through `stop` so that Ctrl-C works while connecting.
    /// Returns a blocking socket descriptor.
    public func connect(stop: LiveStop, timeoutSeconds: Int = 10) throws(CaptureError) -> Int32 {
        var lastError = ECONNREFUSED
        for (family, address) in try resolve() {
            let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = errno
                continue
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            let rc = address.withUnsafeBytes { p -> Int32 in
                guard let base = p.baseAddress else { return -1 }
                return Glibc.connect(fd, base.assumingMemoryBound(to: sockaddr.self), socklen_t(p.count))
            }
            var error: Int32 = rc == 0 ? 0 : errno
            if rc != 0 && error == EINPROGRESS {
                switch stop.wait(for: fd, forWriting: true, timeout: timeoutSeconds * 1000) {
                case .stopped:
                    close(fd)
                    throw CaptureError(.unreadable, "stopped while connecting to \(self)")
                case .timedOut:
                    error = ETIMEDOUT
                case .ready:
                    var soError: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    error = getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length) == 0 ? soError : errno
                }
            }
            guard error == 0 else {
                close(fd)
                lastError = error
                continue
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            return fd
        }
        throw CaptureError(.unreadable, "cannot connect to \(self): \(String(cString: strerror(lastError)))")
    }
}

/// Opens the descriptors of stream sources.
public enum LiveStreams {
    /// Opens a FIFO for reading without blocking until a writer comes (so Ctrl-C still works);
    /// reads then wait for data through the input's waiter.
    public static func openFIFO(_ path: String) throws(CaptureError) -> Int32 {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw CaptureError(.unreadable, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// A `ByteInput` over a stream descriptor that waits through `stop`.
    public static func input(fd: Int32, ownsDescriptor: Bool, stop: LiveStop) -> ByteInput {
        let input = ByteInput(fd: fd, ownsDescriptor: ownsDescriptor)
        input.waiter = stop
        return input
    }
}
