import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEInspectFilter
import BLEInspectRender
import Dispatch

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
/// innermost layer, the malformed mark and the summary text (`FrameBatch.storeLine`). Each
/// worker dissects, filters and renders its stateless frames with its own engine, filter and
/// renderer, and renders the trees, into its own output run (`ReadWorker`). The reading thread
/// then writes each batch's output in frame order. The output is the same, byte for byte, as
/// reading on one thread. The batches and what crosses in them are in `FrameBatch`.
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
