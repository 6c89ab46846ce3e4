import BLEInspectCore
import BLEInspectFilter
import BLEInspectRender
import Dispatch

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
