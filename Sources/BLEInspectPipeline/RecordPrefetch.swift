import BLECapture
import BLEInspectCore
import Dispatch
import Synchronization

/// Records read ahead, a batch at a time, by the thread that reads the input.
final class RecordBatch: @unchecked Sendable {
    /// Records a batch holds at most, and the bytes after which it is handed over even when it
    /// holds fewer (a batch of long records: the memory stays small).
    static let capacity = 256
    static let byteBudget = 256 << 10
    /// A record's storage past this size, made large by an unusual record, is not kept. The
    /// ring's few hundred buffers circulate through every record of the input, so each would
    /// otherwise grow to the longest one kept: this bound is the ring's memory (at most
    /// 768 KiB). Most HCI records are shorter (an event at most 257 bytes, an LE ACL packet
    /// 255 with the usual buffer sizes).
    static let keptFrameBytes = 1 << 10

    let frames: UnsafeMutablePointer<CapturedFrame>
    var count = 0
    /// The input's bytes read once the batch was filled, for progress.
    var bytesRead: Int64 = 0
    /// The error that ended the input, after the batch's records.
    var error: CaptureError?
    /// Set on the last batch: the input ended (or failed, or the limit was reached) after it.
    var last = false
    /// Signalled when the batch is filled, and when it is free again. Both start at 0 (a
    /// semaphore freed below its starting value traps), and a new batch is free.
    let filled = DispatchSemaphore(value: 0)
    let free = DispatchSemaphore(value: 0)

    init() {
        frames = .allocate(capacity: Self.capacity)
        frames.initialize(repeating: CapturedFrame.blank(), count: Self.capacity)
        free.signal()
    }

    deinit {
        frames.deinitialize(count: Self.capacity)
        frames.deallocate()
    }
}

/// Reads the records of one input on a thread of its own, ahead of the thread that decodes them
/// (`ParallelReader`): parsing record headers and copying their bytes then costs that thread
/// nothing. The records cross in batches (`RecordBatch`), each frame's storage reused; the reading
/// thread waits when every batch of the ring is full, and the decoding thread when none is.
///
/// The decoding thread takes the records in order with `next(into:)`. It must take them until
/// the end (`next` returning false), or call `stop()`, before the prefetch goes: the reading thread
/// uses the batches until then.
struct RecordPrefetch: ~Copyable {
    private let ring: [RecordBatch]
    private let stopping: Stopping
    /// The batch the decoding thread is taking records from, and the next record in it.
    private var current = 0
    private var index = 0
    /// The records of the batch in hand, and how many it holds (0 when none is in hand).
    private var frames: UnsafeMutablePointer<CapturedFrame>
    private var available = 0
    private var holding = false
    private var ended = false

    /// Whether the decoding thread has asked the reading thread to stop.
    private final class Stopping: Sendable {
        let flag = Atomic<Bool>(false)
    }

    /// A reader handed to the reading thread, which alone uses it until the prefetch ends.
    private final class ReaderBox<R: FrameReader>: @unchecked Sendable {
        let reader: R
        init(_ reader: R) { self.reader = reader }
    }

    /// The reader itself, when the records are not read ahead, and how many records are left.
    private let direct: (any FrameReader)?
    private var directLeft: Int

    /// Starts reading up to `limit` records of `reader` on a thread of its own; with `ahead`
    /// false, `next(into:)` reads them from `reader` itself, on the calling thread.
    init(_ reader: some FrameReader, limit: Int, ahead: Bool = true, batches: Int = 3) {
        let ring = ahead ? (0..<batches).map { _ in RecordBatch() } : [RecordBatch()]
        let stopping = Stopping()
        self.ring = ring
        self.stopping = stopping
        frames = ring[0].frames
        direct = ahead ? nil : reader
        directLeft = limit
        guard ahead else {
            ended = true
            return
        }
        let box = ReaderBox(reader)
        DispatchQueue(label: "bleinspect.read.records").async {
            Self.fill(ring, from: box.reader, limit: limit, stopping: stopping)
        }
    }

    /// The reading thread's loop: fills each batch of the ring in turn once it is free.
    private static func fill(_ ring: [RecordBatch], from reader: some FrameReader, limit: Int, stopping: Stopping) {
        var read = 0
        var next = 0
        while true {
            let batch = ring[next]
            next = (next + 1) % ring.count
            batch.free.wait()
            batch.count = 0
            var bytes = 0
            while batch.count < RecordBatch.capacity, bytes < RecordBatch.byteBudget, read < limit {
                if stopping.flag.load(ordering: .relaxed) {
                    batch.last = true
                    break
                }
                let slot = batch.frames + batch.count
                if slot.pointee.bytes.capacity > RecordBatch.keptFrameBytes { slot.pointee.bytes = [] }
                do throws(CaptureError) {
                    guard try reader.next(into: &slot.pointee) else {
                        batch.last = true
                        break
                    }
                } catch {
                    batch.error = error
                    batch.last = true
                    break
                }
                bytes += slot.pointee.bytes.count
                batch.count += 1
                read += 1
            }
            if read >= limit { batch.last = true }
            batch.bytesRead = reader.bytesRead
            let last = batch.last
            batch.filled.signal()
            if last { return }
        }
    }

    /// The input's bytes read when the batch of the last record taken was filled.
    private(set) var bytesRead: Int64 = 0

    /// Moves the next record into `frame`, and the storage `frame` held into the batch, for the
    /// reading thread to reuse (a move: no copy, no reference counted); false at the end of the
    /// input (or of the limit). Throws the error that ended the input once the records before it
    /// have been taken.
    // Not inlined: inlined into `ParallelReader.run`'s loop, it made that loop dearer by more
    // than the call costs (callgrind: about 150 instructions a frame, against 41).
    @inline(never)
    mutating func next(into frame: inout CapturedFrame) throws(CaptureError) -> Bool {
        // Most records come from the batch in hand, read through its pointer (no reference
        // counted on the batch).
        if index < available {
            swap(&frame, &(frames + index).pointee)
            index += 1
            return true
        }
        if let direct {
            guard directLeft > 0, try direct.next(into: &frame) else { return false }
            directLeft -= 1
            bytesRead = direct.bytesRead
            return true
        }
        return try nextBatch(into: &frame)
    }

    private mutating func nextBatch(into frame: inout CapturedFrame) throws(CaptureError) -> Bool {
        while true {
            if ended { return false }
            let batch = ring[current]
            if !holding {
                batch.filled.wait()
                holding = true
                index = 0
                frames = batch.frames
                available = batch.count
                bytesRead = batch.bytesRead
            }
            if index < available {
                swap(&frame, &(frames + index).pointee)
                index += 1
                return true
            }
            // The batch is used up: it goes back to the reading thread, unless it was the last.
            holding = false
            available = 0
            if batch.last {
                ended = true
                if let error = batch.error { throw error }
                return false
            }
            batch.free.signal()
            current = (current + 1) % ring.count
        }
    }

    /// Asks the reading thread to stop and waits until it has: the records it read past this
    /// point are dropped.
    mutating func stop() {
        stopping.flag.store(true, ordering: .relaxed)
        while !ended {
            let batch = ring[current]
            if !holding { batch.filled.wait() }
            holding = false
            available = 0
            if batch.last {
                ended = true
            } else {
                batch.free.signal()
                current = (current + 1) % ring.count
            }
        }
    }
}
