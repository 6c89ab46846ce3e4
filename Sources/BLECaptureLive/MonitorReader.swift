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
    /// Records the kernel could not deliver (ENOBUFS).
    case dropped(Int)
}

/// Reads Linux HCI monitor records (the channel btmon reads) from a `MonitorChannel`, as frames:
/// commands, events, ACL, SCO and ISO data both ways, and the index, note and control records.
///
/// Each record is a 6-byte header (opcode, controller index, length; little-endian) and its
/// payload. A record shorter than its header says is shown as a cut frame and reported; reading
/// goes on, since each record arrives on its own.
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
    private var buffer = [UInt8](repeating: 0, count: 6 + 65_536)
    private var pending: [CapturedFrame] = []
    private var frameNumber = 0
    private var received: Int64 = 0
    private var finished = false
    /// An error to throw once the frames read before it are out: the chosen controller went
    /// away, or a read failed while taking the queued records.
    private var goneError: CaptureError?
    private var started = false
    /// Controllers that had a New Index record, present or not.
    private var seen = Set<UInt16>()
    /// The controllers present, by index.
    public private(set) var controllers = Set<UInt16>()
    /// Records the kernel dropped (ENOBUFS), as far as it said.
    public private(set) var dropped = 0
    /// Gets notices: controllers coming and going, damaged records, drops.
    public var onNotice: ((LiveNotice) -> Void)?

    public var bytesRead: Int64 { received }
    public var totalBytes: Int64? { nil }

    /// Reads `channel`, keeping only records of `controller` (nil: every controller).
    public init(channel: any MonitorChannel, controller: UInt16?, stop: LiveStop) {
        self.channel = channel
        self.controller = controller
        self.stop = stop
    }

    /// Takes the records already queued: on binding, the kernel replays a New Index (and Open
    /// Index) record for every controller present. Throws when the chosen controller is not among
    /// them.
    public func start() throws(CaptureError) {
        do {
            while goneError == nil, case .some(let frame) = try receive(wait: false) { pending.append(frame) }
        } catch {
            // Shown after the records read before it.
            goneError = error
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
        if let goneError {
            self.goneError = nil
            finished = true
            throw goneError
        }
        guard !finished else { return nil }
        do {
            guard let frame = try receive(wait: true) else {
                finished = true
                return nil
            }
            return frame
        } catch {
            finished = true
            throw error
        }
    }

    /// The next record that passes the controller filter; nil when none is queued (`wait`
    /// false) or the capture was stopped.
    private func receive(wait: Bool) throws(CaptureError) -> CapturedFrame? {
        while true {
            let result = buffer.withUnsafeMutableBytes { channel.receive(into: $0) }
            switch result {
            case .wouldBlock:
                guard wait, stop.wait(for: channel.fd) == .ready else { return nil }
            case .failed(ENOBUFS):
                dropped += 1
                onNotice?(.dropped(1))
            case .failed(let code):
                throw CaptureError(
                    .readFailed,
                    "reading the HCI monitor channel failed: \(String(cString: strerror(code)))",
                    frame: frameNumber + 1,
                    offset: received
                )
            case .record(0, _):
                // The kernel never sends an empty record; a test's socketpair does when its
                // other end closes.
                return nil
            case .record(let length, let micros):
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

    /// Follows controllers coming and going, and ends a capture of one controller that went away.
    private func track(kind: FrameKind, index: UInt16?) {
        guard let index else { return }
        switch kind {
        case .newIndex:
            let isNew = controllers.insert(index).inserted
            seen.insert(index)
            if isNew && started && (controller == nil || controller == index) {
                onNotice?(.message("controller hci\(index) appeared"))
            }
        case .deleteIndex:
            guard controllers.remove(index) != nil else { return }
            if controller == index {
                goneError = CaptureError(
                    .controllerGone,
                    "controller hci\(index) went away (Delete Index, frame \(frameNumber + 1))"
                )
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
