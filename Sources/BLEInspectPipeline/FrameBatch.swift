import BLEInspectCore
import BLEInspectRender
import Dispatch
import Synchronization

/// One thread's output in a batch: a `TextBuffer` (plain memory, so handing it over moves no
/// reference count), padded to a cache line so that two threads' runs never share one.
struct OutputRun: ~Copyable {
    var text = TextBuffer(capacity: 64 << 10)
    /// How many of the frames whose results are in this run matched.
    var matched = 0
    private var padding: (Int, Int, Int, Int) = (0, 0, 0, 0)
}

/// One frame of a batch: what the reading thread knows of it, where its bytes are, and (written
/// by the thread that owns it) whether it matched and where its output ends.
struct BatchFrame {
    // The defaults serve only the ring's allocation: each frame read sets every field (`refill`).
    var number = 0
    var timestamp = Timestamp.zero
    /// The frame's times, from the reading thread's timeline, when anything reads them (`timed`);
    /// read them as `frameTimes`.
    var times = FrameTimes(Timestamp.zero)
    var timed = false
    var direction = Direction.unknown
    var controllerIndex: UInt16? = nil
    var kind = FrameKind.unknown(0)
    var originalLength = 0
    var sourceOffset: Int64 = 0
    /// The frame's bytes in the batch's `bytes` run (`storeBytes`); 0 bytes: none kept.
    var offset = 0
    var length = 0
    /// The frame's finished tree in the batch's `trees` run (`ProtocolTree.writeFlat`), when the
    /// reading thread decoded it and hands over only its rendering; 0 bytes: none.
    var treeOffset = 0
    var treeLength = 0
    /// The tree's texts in the batch's `texts`, which the flat tree leaves out.
    var textStart = 0
    var textCount = 0
    /// Set when the reading thread handed over only what the summary line reads of the tree
    /// (`FrameBatch.storeLine`); its summary text is then at `treeOffset` in `trees`.
    var line: LineFacts? = nil
    /// The output run the frame's result is in: a worker's index; the worker count when the
    /// reading thread finished it as it read it; one more when it took it from the batch's pool
    /// (`FrameBatch.pool`).
    var owner = 0
    var matched = false
    /// The end of the frame's output in its owner's run.
    var outputEnd = 0

    /// Makes this entry that of `frame`, just read, with nothing stored or decided yet. Field by
    /// field, in place: building an entry and copying it in cost the reading thread about 6% of
    /// its time, in stores and loads of overlapping parts of the copy.
    mutating func refill(_ frame: borrowing CapturedFrame) {
        number = frame.number
        // A part at a time: the reader has just written them so, and a copy of the whole read
        // wider than each write would wait for them to reach the cache.
        timestamp.seconds = frame.timestamp.seconds
        timestamp.nanoseconds = frame.timestamp.nanoseconds
        timestamp.precision = frame.timestamp.precision
        timed = false
        direction = frame.direction
        controllerIndex = frame.controllerIndex
        kind = frame.kind
        originalLength = frame.originalLength
        sourceOffset = frame.sourceOffset
        offset = 0
        length = 0
        treeOffset = 0
        treeLength = 0
        textStart = 0
        textCount = 0
        line = nil
        owner = 0
        matched = false
        outputEnd = 0
    }

    /// The frame's times: those the timeline gave, or, when nothing reads them, its own time.
    var frameTimes: FrameTimes { timed ? times : FrameTimes(timestamp) }

    /// Fills `frame` (a thread's reused frame) with this one, its bytes from `run`.
    func load(into frame: inout CapturedFrame, from run: UnsafeBufferPointer<UInt8>) {
        frame.number = number
        frame.timestamp = timestamp
        frame.direction = direction
        frame.controllerIndex = controllerIndex
        frame.kind = kind
        frame.originalLength = originalLength
        frame.sourceOffset = sourceOffset
        if frame.bytes.capacity > FrameBatch.keptFrameBytes && length <= FrameBatch.keptFrameBytes {
            frame.bytes = []
        }
        frame.bytes.removeAll(keepingCapacity: true)
        frame.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: run[offset..<(offset + length)]))
    }
}

/// One batch of frames on its way through the parallel reader. The reading thread fills it and
/// hands it to the workers. The frames left to a worker are in `pool`, in frame order; workers
/// (and the reading thread, when it needs the batch finished) take them a few at a time by
/// `claimed`, and each writes only the results of the frames it took and its own output run. The
/// reading thread reads them back once every worker has signalled `done`. The semaphores and
/// the claim counter order these accesses, so the batch needs no lock. Everything in it but the
/// texts of finished trees is plain memory, so that handing it over moves few reference counts
/// (most texts are short: Strings that hold no reference).
final class FrameBatch: @unchecked Sendable {
    /// Frames per batch: enough to make handing over rare, since each hand-over wakes a worker
    /// that ran out of work, and on a virtual machine a wake costs several microseconds of the
    /// reading thread's time. Batches of finished trees are smaller, since each frame carries its
    /// whole tree and makes several lines of output (the ring's memory stays small).
    static let frameCapacity = 1024
    static let treeCapacity = 64
    /// A batch is also handed over once the bytes it keeps for the workers (frames and trees)
    /// pass this, so that frames long or rich in fields keep the ring's memory bounded.
    static let byteBudget = 96 << 10
    let capacity: Int
    /// Buffers past these sizes, made large by an unusual frame, are not kept.
    static let keptFrameBytes = 16 << 10
    static let keptRunBytes = 256 << 10

    /// Frames a claim takes: few enough that the threads finish a batch together, enough that
    /// claiming costs little.
    static let claimSize = 8

    var count = 0
    /// Set on the batch after the last one: the workers stop there.
    var end = false
    let frames: UnsafeMutablePointer<BatchFrame>
    /// The indices of the frames a worker decodes or renders, in frame order, and how many.
    let pool: UnsafeMutablePointer<Int>
    var poolCount = 0
    /// How much of `pool` has been taken (it can pass `poolCount`).
    let claimed = Atomic<Int>(0)
    /// The bytes of the frames that a worker dissects or renders (or that `-w` writes).
    var bytes = TextBuffer(capacity: 64 << 10)
    /// The finished trees of the frames that a worker only renders (or their summary texts:
    /// `storeLine`), and the trees' texts.
    var trees = TextBuffer(capacity: 64 << 10)
    var texts: [String] = []
    /// The output runs: one per worker, then the reading thread's for the frames it finished as
    /// it read them, then its run for the frames it took from the pool.
    let outputs: UnsafeMutablePointer<OutputRun>
    let threads: Int
    let done = DispatchSemaphore(value: 0)

    init(workers: Int, capacity: Int) {
        threads = workers + 2
        self.capacity = capacity
        frames = .allocate(capacity: capacity)
        frames.initialize(repeating: BatchFrame(), count: capacity)
        pool = .allocate(capacity: capacity)
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: MemoryLayout<OutputRun>.stride * threads,
            alignment: 64
        )
        outputs = raw.bindMemory(to: OutputRun.self, capacity: threads)
        for t in 0..<threads { (outputs + t).initialize(to: OutputRun()) }
    }

    deinit {
        frames.deinitialize(count: capacity)
        frames.deallocate()
        pool.deallocate()
        outputs.deinitialize(count: threads)
        UnsafeMutableRawPointer(outputs).deallocate()
    }

    /// Empties the batch for the next frames.
    func reset() {
        count = 0
        poolCount = 0
        claimed.store(0, ordering: .relaxed)
        bytes.removeAll(keepingAtMost: FrameBatch.keptRunBytes)
        trees.removeAll(keepingAtMost: FrameBatch.keptRunBytes)
        if !texts.isEmpty { texts.removeAll(keepingCapacity: true) }
        for t in 0..<threads {
            outputs[t].text.removeAll(keepingAtMost: FrameBatch.keptRunBytes)
            outputs[t].matched = 0
        }
    }

    /// Whether the batch can take another frame: room in `frames`, and bytes within the budget.
    var hasRoom: Bool { count < capacity && bytes.count + trees.count < Self.byteBudget }

    /// Leaves frame `i` to whichever thread takes it from the pool.
    func leaveToPool(_ i: Int) {
        pool[poolCount] = i
        poolCount += 1
    }

    /// Takes the next frames of the pool, a claim at a time, for the thread with output run
    /// `output`, and passes each frame's index to `body`, in order, until the pool is empty.
    func takeFromPool(output: Int, _ body: (Int) -> Void) {
        while true {
            let start = claimed.wrappingAdd(Self.claimSize, ordering: .relaxed).oldValue
            guard start < poolCount else { return }
            for j in start..<min(start + Self.claimSize, poolCount) {
                let i = pool[j]
                frames[i].owner = output
                body(i)
            }
        }
    }

    /// Keeps the bytes of `frame` for another thread.
    func storeBytes(_ frame: borrowing CapturedFrame, at i: Int) {
        frames[i].offset = bytes.count
        frames[i].length = frame.bytes.count
        frame.bytes.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
    }

    /// Keeps `tree`, finished, for the worker that renders it, and the direction its dissection
    /// learnt for the frame (`CapturedFrame.withDirection(of:)`), which the flat tree leaves out.
    func storeTree(_ tree: borrowing ProtocolTree, at i: Int) {
        if let learned = tree.learnedDirection { frames[i].direction = learned }
        let start = trees.count
        trees.append(count: tree.flatByteCount(withTexts: false)) { tree.writeFlat(to: $0, withTexts: false) }
        frames[i].treeOffset = start
        frames[i].treeLength = trees.count - start
        // One append a text: a frame has few, and `append(contentsOf:)` costs more than several.
        let given = tree.texts
        frames[i].textStart = texts.count
        frames[i].textCount = given.count
        for k in given.indices { texts.append(given[k]) }
    }

    /// Keeps, for the worker that renders it, only what the summary line reads of `tree`:
    /// `facts`, the summary text, and the direction its dissection learnt. A summary line costs
    /// less to hand over this way than as the tree, and takes a third of the batch's bytes.
    func storeLine(_ tree: borrowing ProtocolTree, facts: LineFacts, at i: Int) {
        if let learned = tree.learnedDirection { frames[i].direction = learned }
        frames[i].line = facts
        let start = trees.count
        tree.withInfoBytes { trees.append(contentsOf: $0) }
        frames[i].treeOffset = start
        frames[i].treeLength = trees.count - start
    }

    /// What `storeTree` or `storeLine` kept in `trees` for frame `i`.
    private func kept(at i: Int) -> UnsafeBufferPointer<UInt8> {
        let start = frames[i].treeOffset
        return UnsafeBufferPointer(rebasing: trees.bytes[start..<(start + frames[i].treeLength)])
    }

    /// The summary text `storeLine` kept for frame `i`.
    func lineInfo(at i: Int) -> UnsafeBufferPointer<UInt8> { kept(at: i) }

    /// Makes `tree` the one `storeTree` kept for frame `i`.
    func loadTree(at i: Int, into tree: inout ProtocolTree) {
        let texts = texts[frames[i].textStart..<(frames[i].textStart + frames[i].textCount)]
        tree.load(flat: UnsafeRawBufferPointer(kept(at: i)), texts: texts)
    }
}
