public import BLECapture
public import BLEInspectCore

#if canImport(Glibc)
    import Glibc
#endif

/// Something a live source has to say beside its frames.
public enum LiveNotice: Sendable {
    /// A line for the user (a controller came or went, a file was rotated).
    case message(String)
    /// A record was damaged (cut short); it was shown as far as it went, and reading went on.
    case damaged(CaptureError)
    /// Records the kernel could not deliver (ENOBUFS, or its drop count going up).
    case dropped(Int)
    /// A receive failed with an error that may pass (ENETDOWN, ENODEV, EIO, ...); reading goes
    /// on. Sent for the first failure of a run of the same error, not for each repeat.
    case readError(CaptureError)
}

/// How a `MonitorReader` rides out receive errors that may pass: it waits between failed
/// receives, 1 ms after the first and twice as long after each next one up to
/// `maxWaitMilliseconds`, and gives up after `limit` failed receives in a row with no record
/// between them. The standard bounds (100 failures, waits up to 100 ms) give up after about 9 s.
public struct MonitorRetry: Sendable, Equatable {
    /// Failed receives in a row, with no record between them, after which reading gives up.
    public var limit: Int
    /// The longest wait between two failed receives, in milliseconds.
    public var maxWaitMilliseconds: Int

    public init(limit: Int, maxWaitMilliseconds: Int) {
        self.limit = max(1, limit)
        self.maxWaitMilliseconds = max(1, maxWaitMilliseconds)
    }

    public static let standard = MonitorRetry(limit: 100, maxWaitMilliseconds: 100)

    /// The wait (ms) after the `failures`-th failure in a row.
    public func wait(after failures: Int) -> Int {
        let doublings = min(max(failures - 1, 0), 20)
        return min(1 << doublings, maxWaitMilliseconds)
    }
}

/// Reads Linux HCI monitor records (the channel btmon reads) from a `MonitorChannel`, as frames:
/// commands, events, ACL, SCO and ISO data both ways, and the index, note and control records.
///
/// Each record is a 6-byte header (opcode, controller index, length; little-endian) and its
/// payload. A record shorter than its header says is shown as a cut frame and reported; reading
/// goes on, since each record arrives on its own.
///
/// Reading keeps going where it can: ENOBUFS counts a drop; an error that may pass (see
/// `isTransient`) is reported once and retried as `MonitorRetry` says; the chosen controller
/// going away (Delete Index) is reported and its records are read again once it returns (New
/// Index). Other receive errors (EBADF, ENOTSOCK, EFAULT, EINVAL, ...) end the capture at once.
public final class MonitorReader: FrameReader {
    public let format = CaptureFormat(
        container: .btsnoop,
        linkType: 2001,
        linkTypeName: "HCI monitor channel",
        precision: .microseconds
    )
    private let channel: any MonitorChannel
    private let controller: UInt16?
    private let stop: LiveStop
    private let retry: MonitorRetry
    private var buffer = [UInt8](repeating: 0, count: 6 + 65_536)
    private var pending: [CapturedFrame] = []
    private var frameNumber = 0
    private var received: Int64 = 0
    private var finished = false
    /// An error to throw once the frames read before it are out: a read failed while taking the
    /// queued records.
    private var pendingError: CaptureError?
    private var started = false
    /// Controllers that had a New Index record, present or not.
    private var seen = Set<UInt16>()
    /// The controllers present, by index.
    public private(set) var controllers = Set<UInt16>()
    /// Records the kernel dropped (ENOBUFS, and its drop count), as far as it said.
    public private(set) var dropped = 0
    /// Receives that failed with an error that may pass, the last one included when reading
    /// gave up.
    public private(set) var readErrors = 0
    /// Failed receives since the last record.
    private var failuresInRow = 0
    /// The errno of the last failed receive since the last record, nil after a record.
    private var lastFailure: Int32?
    /// The kernel's drop count last seen, and drops counted (one per ENOBUFS) that it has not
    /// shown yet.
    private var kernelDrops: Int?
    private var dropsAhead = 0
    /// Gets notices: controllers coming and going, damaged records, drops, read errors.
    public var onNotice: ((LiveNotice) -> Void)?

    public var bytesRead: Int64 { received }
    public var totalBytes: Int64? { nil }

    /// Reads `channel`, keeping only records of `controller` (nil: every controller); receive
    /// errors that may pass are retried within `retry`.
    public init(channel: any MonitorChannel, controller: UInt16?, stop: LiveStop, retry: MonitorRetry = .standard) {
        self.channel = channel
        self.controller = controller
        self.stop = stop
        self.retry = retry
        kernelDrops = channel.droppedByKernel()
    }

    /// Takes the records already queued: on binding, the kernel replays a New Index (and Open
    /// Index) record for every controller present. Throws when the chosen controller is not among
    /// them.
    public func start() throws(CaptureError) {
        do {
            while case .some(let frame) = try receive(wait: false) { pending.append(frame) }
        } catch {
            // Shown after the records read before it.
            pendingError = error
        }
        if let controller, !seen.contains(controller) {
            let present = controllers.sorted().map { "hci\($0)" }
            throw CaptureError(
                .noSuchController,
                "no controller hci\(controller)"
                    + (present.isEmpty
                        ? " (there are no controllers; 'bleinspect live any' waits for one)"
                        : " (present: \(present.joined(separator: ", ")))")
            )
        }
        pending.reverse()
        started = true
    }

    public func next() throws(CaptureError) -> CapturedFrame? {
        if let frame = pending.popLast() { return frame }
        if let pendingError {
            self.pendingError = nil
            finished = true
            countKernelDrops()
            throw pendingError
        }
        guard !finished else { return nil }
        do {
            guard let frame = try receive(wait: true) else {
                finished = true
                countKernelDrops()
                return nil
            }
            return frame
        } catch {
            finished = true
            countKernelDrops()
            throw error
        }
    }

    /// Counts the records the kernel says it dropped since the last look (the channel's drop
    /// count), sending a `.dropped` notice when there are any. The reader looks before each wait
    /// and at the end; a capture stopped between frames calls this to count the last ones.
    public func countKernelDrops() {
        guard let now = channel.droppedByKernel() else { return }
        let before = kernelDrops ?? now
        kernelDrops = now
        // A count that went down (it wrapped) is only a new starting point.
        let (rise, overflow) = now.subtractingReportingOverflow(before)
        guard now > before, !overflow else { return }
        // Drops already counted one per ENOBUFS are not counted again.
        let fresh = max(0, rise - dropsAhead)
        dropsAhead = max(0, dropsAhead - rise)
        if fresh > 0 {
            let (sum, full) = dropped.addingReportingOverflow(fresh)
            dropped = full ? Int.max : sum
            onNotice?(.dropped(fresh))
        }
    }

    /// Errors of a receive that may pass: the device or network went down or away for a while
    /// (a controller reset, unplugged, or its driver reloaded), an I/O error, or memory short.
    /// Any other error (EBADF, ENOTSOCK, EFAULT, EINVAL, ...) says the channel is unusable.
    public static func isTransient(_ code: Int32) -> Bool {
        [ENETDOWN, ENETRESET, ENETUNREACH, EHOSTDOWN, ENODEV, ENXIO, EIO, ENOMEM, ETIMEDOUT].contains(code)
    }

    /// The symbolic name of an errno the reader may meet, else "errno N".
    static func errnoName(_ code: Int32) -> String {
        let names: [Int32: String] = [
            ENETDOWN: "ENETDOWN", ENETRESET: "ENETRESET", ENETUNREACH: "ENETUNREACH", EHOSTDOWN: "EHOSTDOWN",
            ENODEV: "ENODEV", ENXIO: "ENXIO", EIO: "EIO", ENOMEM: "ENOMEM", ETIMEDOUT: "ETIMEDOUT",
            ENOBUFS: "ENOBUFS", EBADF: "EBADF", ENOTSOCK: "ENOTSOCK", EFAULT: "EFAULT", EINVAL: "EINVAL",
            ENOTCONN: "ENOTCONN", EOPNOTSUPP: "EOPNOTSUPP", EACCES: "EACCES", EPERM: "EPERM",
        ]
        return names[code] ?? "errno \(code)"
    }

    /// "reading the HCI monitor channel failed: Network is down (ENETDOWN)".
    private func failure(_ code: Int32, _ tail: String = "") -> CaptureError {
        CaptureError(
            .readFailed,
            "reading the HCI monitor channel failed: \(String(cString: strerror(code))) (\(Self.errnoName(code)))"
                + tail,
            frame: frameNumber + 1,
            offset: received
        )
    }

    /// The next record that passes the controller filter; nil when none is queued (`wait`
    /// false) or the capture was stopped.
    private func receive(wait: Bool) throws(CaptureError) -> CapturedFrame? {
        while true {
            let result = buffer.withUnsafeMutableBytes { channel.receive(into: $0) }
            switch result {
            case .wouldBlock:
                guard wait else { return nil }
                countKernelDrops()
                guard stop.wait(for: channel.fd) == .ready else { return nil }
            case .failed(ENOBUFS):
                // At least one record was lost; the kernel's count, when it keeps one, may say more.
                let before = dropped
                countKernelDrops()
                if dropped == before {
                    dropped += 1
                    dropsAhead += 1
                    onNotice?(.dropped(1))
                }
            case .failed(let code) where Self.isTransient(code):
                readErrors += 1
                failuresInRow += 1
                if failuresInRow >= retry.limit {
                    throw failure(code, ", \(failuresInRow) times in a row with no record between; giving up")
                }
                if lastFailure != code { onNotice?(.readError(failure(code))) }
                lastFailure = code
                // Not a busy loop: a wait that grows with each failure, cut short by a stop.
                if stop.wait(for: nil, timeout: retry.wait(after: failuresInRow)) == .stopped { return nil }
            case .failed(let code):
                throw failure(code)
            case .record(0, _):
                // The kernel never sends an empty record; a test's socketpair does when its
                // other end closes.
                return nil
            case .record(let length, let micros):
                failuresInRow = 0
                lastFailure = nil
                let offset = received
                received += Int64(length)
                if let frame = record(length: length, micros: micros, offset: offset) { return frame }
            }
        }
    }

    /// The frame for one received record, nil when it belongs to another controller.
    private func record(length: Int, micros: Int64?, offset: Int64) -> CapturedFrame? {
        let got = min(length, buffer.count)
        let number = frameNumber + 1
        guard got >= 6 else {
            onNotice?(
                .damaged(
                    CaptureError(
                        .truncated,
                        "monitor record cut short: \(got) bytes, shorter than its 6-byte header",
                        frame: number,
                        offset: offset
                    )
                )
            )
            return nil
        }
        let opcode = UInt16(buffer[0]) | UInt16(buffer[1]) << 8
        let index = UInt16(buffer[2]) | UInt16(buffer[3]) << 8
        let declared = Int(UInt16(buffer[4]) | UInt16(buffer[5]) << 8)
        let payload = min(declared, got - 6)
        let (kind, direction) = MonitorRecord.classify(opcode: opcode)
        let owner = MonitorRecord.controller(index)
        track(kind: kind, index: owner)
        if let controller, owner != controller { return nil }
        frameNumber = number
        if payload < declared {
            onNotice?(
                .damaged(
                    CaptureError(
                        .truncated,
                        "monitor record cut short: \(payload) of \(declared) bytes",
                        frame: number,
                        offset: offset
                    )
                )
            )
        }
        let timestamp = micros.map { Timestamp(unixMicroseconds: $0) } ?? Self.wallClock()
        return CapturedFrame(
            number: number,
            timestamp: timestamp,
            direction: direction,
            controllerIndex: owner,
            kind: kind,
            bytes: Array(buffer[6..<(6 + payload)]),
            originalLength: declared,
            sourceOffset: offset
        )
    }

    /// Follows controllers coming and going. The chosen controller going away does not end the
    /// capture: it is waited for, and its records are read again once it returns.
    private func track(kind: FrameKind, index: UInt16?) {
        guard let index else { return }
        switch kind {
        case .newIndex:
            let isNew = controllers.insert(index).inserted
            let returned = !seen.insert(index).inserted
            if isNew && started && (controller == nil || controller == index) {
                onNotice?(.message("controller hci\(index) \(returned ? "returned" : "appeared")"))
            }
        case .deleteIndex:
            guard controllers.remove(index) != nil else { return }
            if controller == index {
                onNotice?(.message("controller hci\(index) went away; waiting for it to return"))
            } else if controller == nil {
                let left = controllers.sorted().map { "hci\($0)" }
                onNotice?(
                    .message(
                        "controller hci\(index) went away; "
                            + (left.isEmpty
                                ? "no controller left, waiting for one"
                                : "still capturing \(left.joined(separator: ", "))")
                    )
                )
            }
        default:
            break
        }
    }

    static func wallClock() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(unixMicroseconds: Int64(ts.tv_sec) &* 1_000_000 &+ Int64(ts.tv_nsec / 1000))
    }
}
