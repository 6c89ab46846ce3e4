#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A buffered reader over a file descriptor (a file, a pipe or standard input) that tracks the
/// absolute offset of every byte, so record readers can say where damage is.
///
/// Readers ask for `ensure(n)` bytes, look at them through `byte(at:)` and the integer helpers,
/// then `consume` or `take` them. Memory is one fixed buffer, whatever the size of the input.
public final class ByteInput {
    public let fd: Int32
    private let ownsDescriptor: Bool
    /// The one buffer, `capacity` bytes: allocated with the input and freed in `deinit`, so it
    /// lives exactly as long as the input that every access goes through.
    private let buffer: UnsafeMutablePointer<UInt8>
    private var start = 0
    private var end = 0
    private var atEOF = false
    /// Absolute offset of the next unread byte.
    public private(set) var position: Int64 = 0
    /// Size of the input when it is a regular file, for progress reports.
    public let regularFileSize: Int64?
    /// For live sources: asked before each read that could block, and when the descriptor
    /// reports its end. Nil for files, which are read straight through.
    public var waiter: (any InputWaiter)?
    /// Why a live input ended before its descriptor did: a stop request, or the file being
    /// followed was replaced. Nil while reading, and when the input simply ended.
    public private(set) var endReason: InputEndReason?

    /// The largest run of bytes `ensure` can make available at once.
    public static let capacity = 1 << 18

    /// Wraps `fd`. When `ownsDescriptor` is true the descriptor is closed with the input.
    public init(fd: Int32, ownsDescriptor: Bool) {
        self.fd = fd
        self.ownsDescriptor = ownsDescriptor
        self.buffer = .allocate(capacity: ByteInput.capacity)
        self.buffer.initialize(repeating: 0, count: ByteInput.capacity)
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
            regularFileSize = Int64(st.st_size)
        } else {
            regularFileSize = nil
        }
    }

    deinit {
        if ownsDescriptor { close(fd) }
        buffer.deallocate()
    }

    /// Bytes buffered and not yet consumed.
    public var available: Int { end - start }

    /// Reads until at least `n` bytes are buffered or the input ends; returns how many are buffered.
    /// - Precondition: `n <= ByteInput.capacity` (a programmer error, not an input error).
    @inline(__always)
    public func ensure(_ n: Int) throws(CaptureError) -> Int {
        precondition(n <= ByteInput.capacity, "ByteInput.ensure beyond capacity")
        if end - start >= n || atEOF { return end - start }
        return try refill(n)
    }

    /// `ensure` once the buffered bytes are too few: reads more.
    private func refill(_ n: Int) throws(CaptureError) -> Int {
        if start > 0 {
            // Move the unread tail to the front to make room.
            let count = end - start
            memmove(buffer, buffer + start, count)
            start = 0
            end = count
        }
        while end - start < n {
            let got = try readSource(into: buffer + end, count: ByteInput.capacity - end)
            if got > 0 {
                end += got
            } else {
                atEOF = true
                break
            }
        }
        return end - start
    }

    /// One read from the descriptor into `p`: the number of bytes read, or 0 at the end of the
    /// input. A live input waits here, through its `waiter`, until bytes come or it is stopped.
    private func readSource(into p: UnsafeMutableRawPointer, count: Int) throws(CaptureError) -> Int {
        guard endReason == nil else { return 0 }
        while true {
            if let waiter, !waiter.waitReadable(fd) {
                endReason = .stopped
                return 0
            }
            let got = read(fd, p, count)
            if got > 0 { return got }
            if got == 0 {
                guard let waiter else { return 0 }
                switch waiter.endOfInput(fd: fd) {
                case .end: return 0
                case .retry: continue
                case .replaced:
                    endReason = .replaced
                    return 0
                case .stopped:
                    endReason = .stopped
                    return 0
                }
            }
            let err = errno
            if err == EINTR || err == EAGAIN { continue }
            throw CaptureError(
                .unreadable,
                "read failed: \(String(cString: strerror(err)))",
                offset: position + Int64(end - start)
            )
        }
    }

    /// Hands out up to `count` bytes to a stream reader of its own (libpcap's): first what is
    /// buffered, then straight from the descriptor. Returns 0 at the end of the input.
    public func readSome(into p: UnsafeMutableRawPointer, count: Int) throws(CaptureError) -> Int {
        guard count > 0 else { return 0 }
        if end > start {
            let n = min(count, end - start)
            p.copyMemory(from: buffer + start, byteCount: n)
            consume(n)
            return n
        }
        let got = try readSource(into: p, count: count)
        position += Int64(got)
        return got
    }

    /// The buffered byte `i` places past the read position. - Precondition: `i < available`.
    @inline(__always)
    public func byte(at i: Int) -> UInt8 {
        precondition(i >= 0 && start + i < ByteInput.capacity, "ByteInput read beyond its buffer")
        return buffer[start + i]
    }

    /// A big-endian UInt32 at `i` past the read position (one bounds check, one load).
    @inline(__always)
    public func uint32BE(at i: Int) -> UInt32 { UInt32(bigEndian: load(at: i)) }

    /// A little-endian UInt32 at `i` past the read position.
    @inline(__always)
    public func uint32LE(at i: Int) -> UInt32 { UInt32(littleEndian: load(at: i)) }

    @inline(__always)
    private func load<T: FixedWidthInteger>(at i: Int) -> T {
        let p = start + i
        precondition(i >= 0 && p + MemoryLayout<T>.size <= end, "ByteInput read beyond the buffered bytes")
        return UnsafeRawPointer(buffer + p).loadUnaligned(as: T.self)
    }

    /// A big-endian UInt64 at `i` past the read position.
    @inline(__always)
    public func uint64BE(at i: Int) -> UInt64 { UInt64(bigEndian: load(at: i)) }

    /// Calls `body` with the `count` buffered bytes at the read position, checked once, for a
    /// record reader to load a header's fields from. The bytes are valid only during the call.
    /// - Precondition: `count <= available`.
    @inline(__always)
    public func withBuffered<R>(_ count: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        precondition(count >= 0 && count <= end - start, "ByteInput read beyond the buffered bytes")
        // The buffer lives as long as `self`, which the caller holds for the call.
        return body(UnsafeRawBufferPointer(start: buffer + start, count: count))
    }

    /// Copies `count` buffered bytes starting `from` past the read position.
    public func copy(from: Int, count: Int) -> [UInt8] {
        let first = start + from
        precondition(from >= 0 && count >= 0 && first + count <= end, "ByteInput copy beyond the buffered bytes")
        return Array(UnsafeBufferPointer(start: buffer + first, count: count))
    }

    /// Copies `count` buffered bytes from `from` into `out`, reusing its storage when nothing
    /// else holds it (the previous frame's bytes, once the caller has let go of that frame).
    public func copy(from: Int, count: Int, into out: inout [UInt8]) {
        let first = start + from
        precondition(from >= 0 && count >= 0 && first + count <= end, "ByteInput copy beyond the buffered bytes")
        // `out` keeps the length it has when it can: its first bytes are overwritten in place,
        // then it is cut to `count` or the rest appended (one call into Array, not two).
        if out.count > count { out.removeLast(out.count - count) }
        let kept = out.count
        let source = buffer + first
        if kept > 0 {
            out.withUnsafeMutableBufferPointer { p in
                if let base = p.baseAddress { base.update(from: source, count: kept) }
            }
        }
        if kept < count { out.append(contentsOf: UnsafeBufferPointer(start: source + kept, count: count - kept)) }
    }

    /// Skips `n` buffered bytes. - Precondition: `n <= available`.
    public func consume(_ n: Int) {
        precondition(n <= end - start)
        start += n
        position += Int64(n)
    }
}

/// How a live input waits for bytes (see `ByteInput.waiter`).
public protocol InputWaiter: AnyObject {
    /// Called before each read. Blocks until `fd` has bytes to read; false when reading should
    /// stop instead (a stop request, a deadline).
    func waitReadable(_ fd: Int32) -> Bool
    /// Called when a read of `fd` returns no bytes.
    func endOfInput(fd: Int32) -> InputEndAction
}

/// What to do when a live input's descriptor reports its end.
public enum InputEndAction: Sendable {
    /// The input really ended (a closed pipe or socket).
    case end
    /// More may come: read again (a file still being written).
    case retry
    /// The file was rotated or truncated: this input ends, and its path should be reopened.
    case replaced
    /// Reading was asked to stop while waiting.
    case stopped
}

/// Why a live input ended early.
public enum InputEndReason: Sendable, Hashable {
    case stopped, replaced
}
