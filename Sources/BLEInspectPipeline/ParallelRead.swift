import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEInspectFilter
import BLEInspectRender
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// How many threads `read` uses.
enum ReadThreads {
    /// Inputs smaller than this are read on one thread: the workers' start-up would cost more
    /// than they save, and a stream (a pipe, a FIFO) must show each frame as it comes.
    static let minimumInputSize: Int64 = 4 << 20

    /// The workers beside the reading thread, when nothing is asked for: one per other core,
    /// at most three (past that, the reading thread's own work is the limit).
    static func automaticWorkers() -> Int {
        let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return max(0, min(3, cores - 1))
    }
}

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
    /// The frame's bytes in the batch's `bytes` run, when `stored`.
    var offset = 0
    var length = 0
    var stored = false
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
        stored = false
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
        frames[i].stored = true
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

    /// The summary text `storeLine` kept for frame `i`.
    func lineInfo(at i: Int) -> UnsafeBufferPointer<UInt8> {
        let start = frames[i].treeOffset
        return UnsafeBufferPointer(rebasing: trees.bytes[start..<(start + frames[i].treeLength)])
    }

    /// Makes `tree` the one `storeTree` kept for frame `i`.
    func loadTree(at i: Int, into tree: inout ProtocolTree) {
        let flat = UnsafeRawBufferPointer(
            rebasing: UnsafeRawBufferPointer(trees.bytes)[
                frames[i].treeOffset..<(frames[i].treeOffset + frames[i].treeLength)
            ]
        )
        tree.load(flat: flat, texts: texts[frames[i].textStart..<(frames[i].textStart + frames[i].textCount)])
    }
}

/// Filters and renders frames into one output run of a batch: each worker has one, and so has
/// the reading thread (the last run).
struct FrameFinisher {
    let output: Int
    let renderer: FrameRenderer
    let filter: DisplayFilter?
    let printLines: Bool

    /// Whether the filter, if any, matches the frame.
    func matches(_ frame: borrowing CapturedFrame, _ tree: borrowing ProtocolTree) -> Bool {
        // Optional chaining borrows the filter; `guard let` copied it (a reference count a frame).
        filter?.matches(tree, frameBytes: frame.bytes) ?? true
    }

    /// Filters the frame, unless `known` gives the verdict already, and renders it if it matched;
    /// returns whether it matched.
    @discardableResult
    func finish(
        _ batch: FrameBatch,
        _ i: Int,
        _ frame: borrowing CapturedFrame,
        _ tree: borrowing ProtocolTree,
        matched known: Bool? = nil
    ) -> Bool {
        let matched = known ?? matches(frame, tree)
        if matched && printLines {
            let out = batch.outputs + output
            let times = batch.frames[i].frameTimes
            renderer.render(frame, tree, first: times.first, previous: times.previous) {
                out.pointee.text.append(contentsOf: $0)
            }
        }
        Self.record(batch, i, output: output, matched: matched)
        return matched
    }

    /// Renders the summary line whose facts the reading thread handed over for frame `i` (a
    /// frame that matched).
    func finishLine(_ batch: FrameBatch, _ i: Int, _ frame: CapturedFrame, _ facts: LineFacts) {
        let out = batch.outputs + output
        let times = batch.frames[i].frameTimes
        renderer.renderLine(frame, facts, info: batch.lineInfo(at: i), first: times.first, previous: times.previous) {
            out.pointee.text.append(contentsOf: $0)
        }
        Self.record(batch, i, output: output, matched: true)
    }

    /// Records whether frame `i` of `batch` matched, and where its output ends in run `output`.
    static func record(_ batch: FrameBatch, _ i: Int, output: Int, matched: Bool) {
        batch.frames[i].matched = matched
        batch.frames[i].outputEnd = batch.outputs[output].text.count
        if matched { batch.outputs[output].matched += 1 }
    }
}

/// A worker thread: it dissects the stateless frames it takes from a batch's pool (advertising
/// reports, say) with an engine of its own, then filters and renders them; or, for a frame
/// whose tree the reading thread handed over, it rebuilds the tree and filters and renders it.
final class ReadWorker: @unchecked Sendable {
    let index: Int
    var engine: DissectionEngine
    let finisher: FrameFinisher
    let ready = DispatchSemaphore(value: 0)

    init(index: Int, engine: DissectionEngine, finisher: FrameFinisher) {
        self.index = index
        self.engine = engine
        self.finisher = finisher
    }

    /// The thread's loop: each batch of the ring in turn, until the one marked `end`.
    func run(_ ring: [FrameBatch]) {
        var next = 0
        // The worker's frame, refilled for every frame it dissects, and its copy of a tree handed
        // over: local variables, which calls borrow as they are (a class's stored property would
        // be copied for each call, counting references to all the tree's storage).
        var frame = CapturedFrame.blank()
        var tree = ProtocolTree()
        while true {
            let batch = ring[next]
            next = (next + 1) % ring.count
            ready.wait()
            if batch.end {
                batch.done.signal()
                return
            }
            finisher.work(batch, engine: &engine, frame: &frame, tree: &tree)
            batch.done.signal()
        }
    }
}

extension FrameFinisher {
    /// Takes frames from the batch's pool until it is empty, and finishes each into this
    /// finisher's output run: a stateless frame is dissected with `engine` (which only frames
    /// without state reach, so that any engine configured alike will do), a finished tree
    /// rebuilt in `tree`. `frame` and `tree` are the calling thread's, reused.
    func work(
        _ batch: FrameBatch,
        engine: inout DissectionEngine,
        frame: inout CapturedFrame,
        tree: inout ProtocolTree
    ) {
        let wantsInfo = printLines && renderer.wantsInfo
        batch.takeFromPool(output: output) { i in
            batch.frames[i].load(into: &frame, from: batch.bytes.bytes)
            if let line = batch.frames[i].line {
                finishLine(batch, i, frame, line)
            } else if batch.frames[i].treeLength > 0 {
                // The reading thread filtered it: it hands over only frames that matched.
                batch.loadTree(at: i, into: &tree)
                finish(batch, i, frame, tree, matched: true)
            } else {
                engine.dissect(frame, times: batch.frames[i].frameTimes, wantsInfo: wantsInfo) { tree in
                    frame.withDirection(of: tree) { finish(batch, i, $0, tree) }
                }
            }
        }
    }
}

/// The result of reading one input in parallel.
struct ParallelReadResult {
    var read = 0
    var matched = 0
    var error: CaptureError?
}

/// Reads one input with worker threads, when decoding does not need every frame in order.
///
/// The reading thread reads the frames and dissects, in order, every frame whose decoding reads
/// or changes capture state (connections, reassembly, ATT requests), and filters them. It hands
/// the stateless frames (advertising reports and the like; see `Binding.keepsNoState`) to the
/// workers, in batches, and with them the finished trees of its own frames that matched, for the
/// workers to render (on a real capture most frames are stateful, and rendering them is the part
/// that can move). For the one-line summary, only what the line reads of a tree crosses: its
/// innermost layer, the malformed mark and the summary text (`FrameBatch.storeLine`). Each worker dissects, filters and renders its stateless frames with its own
/// engine, filter and renderer, and renders the trees, into its own output run. The reading
/// thread then writes each batch's output in frame order. The output is the same, byte for
/// byte, as reading on one thread.
///
/// Frames cross threads as plain bytes, and output comes back as plain bytes. Handing over
/// decoded trees as they are (arrays and strings) was tried: the cache lines of their arrays,
/// and of the reference counts on them, moving between cores cost more than rendering them.
/// Trees therefore cross as bytes too (`renderOnly`), and the worker rebuilds them in storage of
/// its own.
///
/// The reading thread reads ahead by up to a ring of batches. When the ring is full and the
/// oldest batch is not finished, it takes the rest of that batch's pool itself, with its own
/// engine and renderer, into an output run of its own, rather than wait: the threads share the
/// work by what each has time for, whatever the frames cost and however the system schedules
/// the threads.
///
/// With post-dissectors (`device.*`, for the tree and JSON), every frame reads the state the
/// frames before it left, so none is stateless. Then, with `renderOnly`, the reading thread
/// decodes and filters every frame and hands over the finished trees of those that matched
/// instead, as plain bytes (`ProtocolTree.writeFlat`): the workers render them, and the reading
/// thread helps as above. The reading thread filters so that each frame's `frame.time_delta_displayed`
/// is measured from the last frame that matched before it, as on one thread; without
/// `renderOnly`, workers filter, and the caller reads on one thread when that delta is needed.
///
/// The reading thread's engine keeps the timeline (`DissectionEngine.timeline`): every frame's
/// times are taken from it in order and travel with the frame (when anything reads them: the
/// printed lines or the frame layer).
struct ParallelReader {
    let workers: [ReadWorker]
    let main: FrameFinisher
    let wantsInfo: Bool
    /// Hands over finished trees rather than stateless frames.
    let renderOnly: Bool
    let out: OutputSink
    let capture: CaptureOutput?

    /// Reads up to `limit` frames of `reader` with `engine` (configured like the workers').
    func run(
        _ reader: some FrameReader,
        engine: inout DissectionEngine,
        limit: Int,
        progress: inout ProgressLine,
        readBefore: Int
    ) -> ParallelReadResult {
        let k = workers.count
        let perBatch = renderOnly ? FrameBatch.treeCapacity : FrameBatch.frameCapacity
        let ring = (0..<(2 * k + 2)).map { _ in FrameBatch(workers: k, capacity: perBatch) }
        for worker in workers {
            DispatchQueue(label: "bleinspect.read.worker.\(worker.index)").async { worker.run(ring) }
        }
        var result = ParallelReadResult()
        var next = 0
        var oldest = 0
        var inFlight = 0
        var written = CapturedFrame.blank()
        let timed = main.printLines || engine.addsFrameLayer
        // Frames this thread decodes hand over only their summary line's facts.
        let lineOnly = main.printLines && main.renderer.rendersLineOnly
        // The frame being read: refilled for every frame, its bytes' storage reused.
        var frame = CapturedFrame.blank()

        // This thread's finisher for the frames it takes from a pool, its frame and tree.
        let helper = FrameFinisher(
            output: k + 1,
            renderer: main.renderer,
            filter: main.filter,
            printLines: main.printLines
        )
        var helperFrame = CapturedFrame.blank()
        var helperTree = ProtocolTree()

        func merge(_ batch: FrameBatch) {
            // What no worker has taken yet, this thread finishes.
            helper.work(batch, engine: &engine, frame: &helperFrame, tree: &helperTree)
            for _ in 0..<k { batch.done.wait() }
            for t in 0..<(k + 2) { result.matched += batch.outputs[t].matched }
            // Only output and frames to write need the frames in order; counting needs neither,
            // and the frames' entries, written long before, would be read back from memory.
            guard main.printLines || capture != nil else { return }
            var cursor = [Int](repeating: 0, count: k + 2)
            // Output goes out a run at a time: consecutive frames of one owner are one copy.
            var runOwner = 0
            var pendingEnd = 0
            func flushRun() {
                let end = pendingEnd
                guard end > cursor[runOwner] else { return }
                let run = batch.outputs[runOwner].text.bytes
                out.append(bytes: UnsafeBufferPointer(rebasing: run[cursor[runOwner]..<end]))
                cursor[runOwner] = end
            }
            for i in 0..<batch.count {
                // Read in place, rather than copying each frame's whole entry.
                let f = batch.frames + i
                let owner = f.pointee.owner
                let end = f.pointee.outputEnd
                if end > cursor[owner] {
                    if owner != runOwner {
                        flushRun()
                        runOwner = owner
                        pendingEnd = cursor[runOwner]
                    }
                    pendingEnd = end
                }
                guard f.pointee.matched else { continue }
                if let capture, result.error == nil {
                    f.pointee.load(into: &written, from: batch.bytes.bytes)
                    do throws(CaptureError) {
                        try capture.write(written)
                    } catch {
                        result.error = error
                    }
                }
            }
            flushRun()
            out.flushIfFull()
        }

        /// Adds `frame`, just read, to `batch`: decodes and filters it here, or leaves it to a
        /// worker. A function of its own so that the frame is borrowed, not copied, for the
        /// closures below (the reused frame is a variable).
        func place(_ frame: borrowing CapturedFrame, in batch: FrameBatch) {
            // Only the frame layer's time fields and the printed lines read the times (as on one
            // thread, `ReadRunner.show`): counting with a filter on other fields skips them.
            let i = batch.count
            batch.count += 1
            batch.frames[i].refill(frame)
            if timed {
                batch.frames[i].times = engine.timeline.next(frame.timestamp)
                batch.frames[i].timed = true
            }
            // Stateless frames go to the pool whole, for whichever thread takes them.
            if !renderOnly && engine.decodesWithoutState(frame) {
                batch.storeBytes(frame, at: i)
                batch.leaveToPool(i)
                return
            }
            // This thread decodes and filters the frame: every frame when the workers only
            // render, else those only it can decode (they read capture state). A frame that
            // matched goes to the pool as its finished tree, or its summary line's facts, to be
            // rendered.
            var handOver = false
            let matched = engine.dissect(frame, times: batch.frames[i].frameTimes, wantsInfo: wantsInfo) { tree in
                let matched = main.matches(frame, tree)
                handOver = matched && main.printLines
                if handOver && lineOnly {
                    batch.storeLine(tree, facts: main.renderer.lineFacts(tree), at: i)
                } else if handOver {
                    batch.storeTree(tree, at: i)
                } else {
                    // Nothing to render (counting, writing, or no match): only the verdict.
                    FrameFinisher.record(batch, i, output: k, matched: matched)
                }
                return matched
            }
            if !matched { engine.timeline.lastNotDisplayed() }
            if handOver {
                // A summary line reads the frame's bytes only when it has no summary text.
                if !lineOnly || batch.frames[i].treeLength == 0 || capture != nil { batch.storeBytes(frame, at: i) }
                batch.leaveToPool(i)
            } else {
                batch.frames[i].owner = k
                if capture != nil { batch.storeBytes(frame, at: i) }
            }
        }

        while result.error == nil, result.read < limit {
            let batch = ring[next]
            if inFlight == ring.count {
                merge(ring[oldest])
                oldest = (oldest + 1) % ring.count
                inFlight -= 1
                if result.error != nil { break }
            }
            batch.reset()
            while batch.hasRoom, result.read < limit {
                do throws(CaptureError) {
                    guard try reader.next(into: &frame) else { break }
                } catch {
                    result.error = error
                    break
                }
                result.read += 1
                progress.update(frames: readBefore + result.read, bytes: reader.bytesRead)
                place(frame, in: batch)
            }
            if batch.count == 0 { break }
            for worker in workers { worker.ready.signal() }
            inFlight += 1
            next = (next + 1) % ring.count
        }
        while inFlight > 0 {
            merge(ring[oldest])
            oldest = (oldest + 1) % ring.count
            inFlight -= 1
        }
        ring[next].end = true
        for worker in workers { worker.ready.signal() }
        for _ in 0..<k { ring[next].done.wait() }
        return result
    }
}
