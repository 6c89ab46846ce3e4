public import BLECapture
public import BLEInspectCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a capture file that is still being written, the way Android writes its snoop log: at the
/// end of the file it waits for more, and when the file is rotated (renamed or deleted and made
/// anew) or truncated, it starts again on the new file, from its header.
///
/// Frames are numbered on across files. Waiting uses inotify, so appended frames are read at
/// once; rotation is also checked every 200 ms in case no event comes.
public final class FollowReader: FrameReader {
    public typealias Opener = (ByteInput) throws(CaptureError) -> any FrameReader

    private let path: String
    private let stop: LiveStop
    private let openReader: Opener
    private let notice: (String) -> Void
    private var inner: (any FrameReader)?
    private var input: ByteInput?
    private var frameNumber = 0
    private var finished = false
    public private(set) var format: CaptureFormat

    /// Follows `path`; `open` picks the reader for each file from its first bytes; `notice` gets
    /// one line when the file is replaced or must be waited for.
    public init(path: String, stop: LiveStop, open: @escaping Opener, notice: @escaping (String) -> Void) {
        self.path = path
        self.stop = stop
        self.openReader = open
        self.notice = notice
        format = CaptureFormat(
            container: .btsnoop,
            linkType: 0,
            linkTypeName: "followed file",
            precision: .microseconds
        )
    }

    public var bytesRead: Int64 { input?.position ?? 0 }
    public var totalBytes: Int64? { nil }

    /// Opens the file and its reader, waiting for the file to appear. False when stopped first.
    public func start() throws(CaptureError) -> Bool {
        guard inner == nil else { return true }
        var announced = false
        while true {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd >= 0 {
                let waiter = try FollowWaiter(path: path, fd: fd, stop: stop)
                let input = ByteInput(fd: fd, ownsDescriptor: true)
                input.waiter = waiter
                self.input = input
                do {
                    let reader = try openReader(input)
                    inner = reader
                    format = reader.format
                    return true
                } catch {
                    if input.endReason == .stopped || stop.reason != nil { return false }
                    if input.endReason == .replaced {
                        self.input = nil
                        continue
                    }
                    throw error
                }
            }
            let err = errno
            guard err == ENOENT else {
                throw CaptureError(.unreadable, "cannot open \(path): \(String(cString: strerror(err)))")
            }
            if !announced {
                notice("waiting for \(path) to appear")
                announced = true
            }
            if stop.wait(for: nil, timeout: 200) == .stopped { return false }
        }
    }

    public func next() throws(CaptureError) -> CapturedFrame? {
        while !finished {
            guard try start(), let reader = inner, let input else {
                finished = true
                return nil
            }
            do {
                if var frame = try reader.next() {
                    frameNumber += 1
                    frame.number = frameNumber
                    return frame
                }
            } catch {
                // A record cut off by the rotation is reported, and reading goes on with the new
                // file; an error after a stop is the stop's doing.
                guard input.endReason == .replaced else {
                    finished = true
                    if input.endReason == .stopped || stop.reason != nil { return nil }
                    throw error
                }
                notice("\(path): \(error)")
            }
            switch input.endReason {
            case .replaced:
                notice("\(path) was rotated or truncated: reading the new file from its start")
                inner = nil
                self.input = nil
            case .stopped, nil:
                finished = true
                return nil
            }
        }
        return nil
    }
}

/// Waits at the end of a followed file until it grows, is replaced, or the capture stops.
final class FollowWaiter: InputWaiter {
    private let path: String
    private let fd: Int32
    private let stop: LiveStop
    private let device: UInt64
    private let inode: UInt64
    private let notify: Int32

    init(path: String, fd: Int32, stop: LiveStop) throws(CaptureError) {
        self.path = path
        self.fd = fd
        self.stop = stop
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw CaptureError(.unreadable, "cannot stat \(path): \(String(cString: strerror(errno)))")
        }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        notify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        if notify >= 0 {
            let mask = UInt32(IN_MODIFY | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF | IN_CLOSE_WRITE)
            _ = inotify_add_watch(notify, path, mask)
        }
    }

    deinit {
        if notify >= 0 { close(notify) }
    }

    func waitReadable(_ fd: Int32) -> Bool {
        !stop.checkStop()
    }

    func endOfInput(fd: Int32) -> InputEndAction {
        while true {
            if stop.checkStop() { return .stopped }
            let offset = Int64(lseek(self.fd, 0, SEEK_CUR))
            var own = stat()
            if fstat(self.fd, &own) == 0, Int64(own.st_size) > offset { return .retry }
            var now = stat()
            if stat(path, &now) != 0 || UInt64(now.st_dev) != device || UInt64(now.st_ino) != inode {
                // Renamed or deleted: what was written to the old file is read; a new one follows.
                return .replaced
            }
            if Int64(now.st_size) < offset { return .replaced }
            let result = stop.wait(for: notify >= 0 ? notify : nil, timeout: 200)
            if result == .stopped { return .stopped }
            if result == .ready { drainEvents() }
        }
    }

    private func drainEvents() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(notify, $0.baseAddress, $0.count) }) > 0 {}
    }
}
