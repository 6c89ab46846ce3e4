#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A buffered writer to a file descriptor, for capture writers and text output alike.
public final class OutputSink {
    public let fd: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private let flushThreshold: Int
    /// The first write error, sticky.
    public private(set) var failure: Int32? = nil
    /// True when `fd` is a socket: bytes go out with send(MSG_NOSIGNAL), so a peer that went
    /// away is an EPIPE failure rather than a SIGPIPE.
    public let isSocket: Bool
    /// For a non-blocking descriptor: asked to wait until `fd` can take more bytes. Returning
    /// false gives up, and the sink fails with ECANCELED (a stop request, say).
    public var writeWaiter: ((Int32) -> Bool)?
    /// Bytes no longer buffered: handed to the descriptor, or discarded after a failure.
    private var flushedBytes: Int64 = 0

    /// Wraps `fd`; with `isSocket`, writes use send(MSG_NOSIGNAL).
    /// Runs at least this long are written without a copy (`append(bytes:)`).
    static let directRun = 1 << 12

    public init(fd: Int32, ownsDescriptor: Bool, bufferSize: Int = 1 << 16, isSocket: Bool = false) {
        self.fd = fd
        self.ownsDescriptor = ownsDescriptor
        self.flushThreshold = bufferSize
        self.isSocket = isSocket
        buffer.reserveCapacity(bufferSize + 1024)
    }

    /// Every byte appended so far, written out or still buffered.
    public var bytesWritten: Int64 { flushedBytes + Int64(buffer.count) }

    /// Creates (or truncates) the file at `path` for writing; `-` means standard output.
    public static func create(path: String) throws(CaptureError) -> OutputSink {
        if path == "-" { return OutputSink(fd: 1, ownsDescriptor: false) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CaptureError(.writeFailed, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        return OutputSink(fd: fd, ownsDescriptor: true)
    }

    deinit {
        flush()
        if ownsDescriptor { close(fd) }
    }

    @inline(__always)
    public func append(_ byte: UInt8) {
        buffer.append(byte)
    }

    public func append<C: Collection<UInt8>>(contentsOf bytes: C) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushThreshold { flush() }
    }

    /// Appends a run of bytes (a rendered frame, say) in one copy; a long run (a batch's output,
    /// `directRun` bytes or more) goes out as it is, after what is buffered: copying it would
    /// cost more than the write.
    public func append(bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.count >= min(flushThreshold, Self.directRun) {
            flush()
            flushedBytes += Int64(bytes.count)
            writeAll(UnsafeRawBufferPointer(bytes))
            return
        }
        // Within the capacity reserved, so that the copy is one memcpy (growing copies slowly).
        if buffer.count + bytes.count > flushThreshold { flush() }
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushThreshold { flush() }
    }

    public func append(_ string: String) {
        var s = string
        s.withUTF8 { buffer.append(contentsOf: $0) }
        if buffer.count >= flushThreshold { flush() }
    }

    public func appendUInt32BE(_ v: UInt32) {
        buffer.append(UInt8(truncatingIfNeeded: v >> 24))
        buffer.append(UInt8(truncatingIfNeeded: v >> 16))
        buffer.append(UInt8(truncatingIfNeeded: v >> 8))
        buffer.append(UInt8(truncatingIfNeeded: v))
    }

    public func appendUInt32LE(_ v: UInt32) {
        buffer.append(UInt8(truncatingIfNeeded: v))
        buffer.append(UInt8(truncatingIfNeeded: v >> 8))
        buffer.append(UInt8(truncatingIfNeeded: v >> 16))
        buffer.append(UInt8(truncatingIfNeeded: v >> 24))
    }

    public func appendUInt16LE(_ v: UInt16) {
        buffer.append(UInt8(truncatingIfNeeded: v))
        buffer.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    /// Appends `n` spaces.
    public func appendSpaces(_ n: Int) {
        if n > 0 { buffer.append(contentsOf: repeatElement(0x20, count: n)) }
    }

    /// Appends a signed decimal number, right-aligned in `width` columns.
    public func appendDecimal(_ value: Int64, width: Int = 0) {
        var v = value.magnitude
        var count = 1
        var t = v
        while t >= 10 {
            t /= 10
            count += 1
        }
        let negative = value < 0
        appendSpaces(width - count - (negative ? 1 : 0))
        if negative { buffer.append(0x2D) }
        buffer.append(contentsOf: repeatElement(0x30, count: count))
        var i = buffer.count - 1
        repeat {
            buffer[i] = UInt8(v % 10) + 0x30
            v /= 10
            i -= 1
        } while v > 0
    }

    /// Appends `value` as exactly `digits` decimal digits, zero-padded (for fractions).
    public func appendZeroPadded(_ value: UInt32, digits: Int) {
        var divisor: UInt32 = 1
        for _ in 1..<max(1, digits) { divisor &*= 10 }
        var v = value
        for _ in 0..<digits {
            buffer.append(UInt8((v / divisor) % 10) + 0x30)
            v %= divisor
            divisor /= 10
            if divisor == 0 { divisor = 1 }
        }
    }

    /// Flushes when the buffer is past its threshold; call after a batch of small appends.
    @inline(__always)
    public func flushIfFull() {
        if buffer.count >= flushThreshold { flush() }
    }

    /// Writes out everything buffered. After an error, output is discarded and `failure` is set.
    public func flush() {
        // Bytes count as written once appended, so that `bytesWritten` stays the file's size
        // even when writing fails.
        flushedBytes += Int64(buffer.count)
        defer { buffer.removeAll(keepingCapacity: true) }
        buffer.withUnsafeBytes { writeAll($0) }
    }

    /// Hands `bytes` to the descriptor, unless a write failed before.
    private func writeAll(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, let base = bytes.baseAddress else { return }
        var done = 0
        let total = bytes.count
        while done < total {
            let n = isSocket ? socketSend(fd, base + done, total - done) : systemWrite(fd, base + done, total - done)
            if n > 0 {
                done += n
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK), let writeWaiter {
                if writeWaiter(fd) { continue }
                failure = ECANCELED
                return
            } else {
                failure = n < 0 ? errno : EIO
                return
            }
        }
    }

    /// Flushes and reports a sticky write error as a CaptureError; the descriptor stays open.
    public func flush(name: String) throws(CaptureError) {
        flush()
        if let failure {
            throw CaptureError.writeFailed(name, errno: failure)
        }
    }
}

@inline(__always)
private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int {
    write(fd, p, n)
}

@inline(__always)
private func socketSend(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int {
    send(fd, p, n, Int32(MSG_NOSIGNAL))
}
