// The steps every length-prefixed record reader takes (btsnoop, PacketLogger): make the record's
// header available, then the whole record, then hand out its bytes and move past it.

import BLEInspectCore

extension ByteInput {
    /// Makes the next record's `count`-byte header available. Returns false at a clean end of the
    /// input (no byte left); throws `.truncated` ("record `what` cut short: n of `count` bytes")
    /// when only part of the header is there. `frame` is the record's number, for the error.
    @inline(__always)
    public func ensureRecordHeader(_ count: Int, _ what: String, frame: Int) throws(CaptureError) -> Bool {
        let have = try ensure(count)
        if have >= count { return true }
        if have == 0 { return false }
        throw CaptureError(
            .truncated,
            "record \(what) cut short: \(have) of \(count) bytes",
            frame: frame,
            offset: position
        )
    }

    /// Makes the whole record (a `header`-byte header, then `length` bytes) available. Throws
    /// `.badLength` when the length field is outside `allowed`, and `.truncated` ("record cut
    /// short: n of `length` bytes") when the input ends first.
    @inline(__always)
    public func ensureRecord(header: Int, length: Int, allowed: ClosedRange<Int>, frame: Int) throws(CaptureError) {
        guard allowed.contains(length) else { throw badRecordLength(length, allowed: allowed, frame: frame) }
        let total = header + length
        let got = try ensure(total)
        guard got >= total else {
            throw CaptureError(
                .truncated,
                "record cut short: \(got - header) of \(length) bytes",
                frame: frame,
                offset: position
            )
        }
    }

    private func badRecordLength(_ length: Int, allowed: ClosedRange<Int>, frame: Int) -> CaptureError {
        let bounds =
            allowed.lowerBound == 0
            ? "is over the limit of \(allowed.upperBound)"
            : "is outside \(allowed.lowerBound)...\(allowed.upperBound)"
        return CaptureError(.badLength, "record length \(length) \(bounds)", frame: frame, offset: position)
    }

    /// Copies the record's bytes from `from` to `total` into `out` (reusing its storage, as
    /// `copy(from:count:into:)`), then moves past the `total`-byte record.
    public func takeRecord(from: Int, total: Int, into out: inout [UInt8]) {
        copy(from: from, count: total - from, into: &out)
        consume(total)
    }
}

/// What a reader of length-prefixed records keeps from one record to the next (the frame count,
/// the reused frame storage, whether it has finished), and the frame each record becomes.
struct RecordStream {
    /// One record as its format reads it: everything of the frame but its bytes.
    struct Record {
        /// The record's length: header, then payload.
        var total: Int
        /// Where the frame's bytes start: past the record header and any H4 packet indicator.
        var payloadStart: Int
        var timestamp: Timestamp
        var direction: Direction
        var controllerIndex: UInt16? = nil
        var kind: FrameKind
        /// The frame's length on the wire when the format records it; the frame's bytes when
        /// they are longer.
        var originalLength = 0
    }

    private var frameNumber = 0
    /// Storage for the bytes of the frames `next(_:header:_:read:)` returns, reused from frame to
    /// frame while callers do not keep frames.
    private var frameBytes: [UInt8] = []
    private var finished = false

    /// Reads the next record of `input` into `frame`, false at its end: makes the record's
    /// `header`-byte header (named `what` in errors) available, then `read` checks the record
    /// (given its frame number), makes all of it available (`ensureRecord`) and says what it
    /// holds; its bytes go into `frame.bytes`, in place when nothing else holds them. After a
    /// throw the stream is finished, and returns false from then on.
    @inline(__always)
    mutating func next(
        _ input: ByteInput,
        header: Int,
        _ what: String,
        into frame: inout CapturedFrame,
        read: (_ number: Int) throws(CaptureError) -> Record
    ) throws(CaptureError) -> Bool {
        guard !finished else { return false }
        let number = frameNumber + 1
        let offset = input.position
        let record: Record
        do {
            guard try input.ensureRecordHeader(header, what, frame: number) else {
                finished = true
                return false
            }
            record = try read(number)
        } catch {
            finished = true
            throw error
        }
        input.takeRecord(from: record.payloadStart, total: record.total, into: &frame.bytes)
        frameNumber = number
        frame.number = number
        frame.timestamp = record.timestamp
        frame.direction = record.direction
        frame.controllerIndex = record.controllerIndex
        frame.kind = record.kind
        frame.originalLength = max(record.originalLength, frame.bytes.count)
        frame.sourceOffset = offset
        return true
    }

    /// The next frame of `input`, nil at its end, as `next(_:header:_:into:read:)` reads it, in
    /// the stream's own storage.
    @inline(__always)
    mutating func next(
        _ input: ByteInput,
        header: Int,
        _ what: String,
        read: (_ number: Int) throws(CaptureError) -> Record
    ) throws(CaptureError) -> CapturedFrame? {
        var frame = CapturedFrame.blank()
        swap(&frame.bytes, &frameBytes)
        guard try next(input, header: header, what, into: &frame, read: read) else { return nil }
        frameBytes = frame.bytes
        return frame
    }
}
