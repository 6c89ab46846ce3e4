public import BLECapture
import BLECaptureIO
public import BLEInspectCore
import BLEInspectFilter
public import BLEInspectRender
public import BLEInspectSession

#if canImport(Glibc)
    import Glibc
#endif

/// What `bleinspect read` was asked to do.
public struct ReadOptions: Sendable {
    public var paths: [String]
    /// Stop after this many frames in all.
    public var frameLimit: Int?
    /// Print only the number of frames.
    public var countOnly = false
    /// Write the frames to this capture file (`-` for standard output).
    public var outputPath: String?
    /// Write the frames as decoded: with the changes their dissectors made (decrypted
    /// link-layer packets, `FrameEdit`). Reads on one thread, decoding every frame.
    public var writeAsDecoded = false
    /// The output format; from the output file's extension when nil.
    public var outputFormat: OutputFormat?
    public var timeFormat: TimeFormat = .relative
    /// What to print for each frame.
    public var output: OutputMode = .text(verbose: false, hexDump: false)
    public var color: ColorMode = .auto
    /// A display filter (`-Y`): only matching frames are printed, written and counted.
    public var filter: String?
    /// Show a progress line on standard error: nil decides from the terminals and the file size.
    public var progress: Bool?
    /// Worker threads beside the reading thread: 0 reads on one thread; nil decides from the
    /// cores and the input (see `ReadThreads`). The output is the same either way.
    public var workerThreads: Int?
    /// The reference frame of the first file (`--ref-frame`): field references in the filter
    /// (`${btatt.handle}`) take their values from it.
    public var referenceFrame: Int?
    /// Read each file twice (`-2`): a first pass collects links to later frames
    /// (`ForwardLinks`), and the second shows them.
    public var twoPass = false

    public init(paths: [String]) {
        self.paths = paths
    }
}

/// Runs `read`: streams every input once, printing a line per frame and/or writing them out.
public struct ReadRunner {
    /// What the frames are decoded with: the registry, with the run's plugins and configuration.
    public let session: Session
    public let options: ReadOptions
    private let out: OutputSink
    private let errorOutput: (String) -> Void
    /// Text goes to stdout unless the capture itself does.
    let printLines: Bool

    /// Inputs at least this large get a progress line (when the terminals allow).
    public static let progressThreshold: Int64 = 16 << 20

    public init(session: Session, options: ReadOptions, output: OutputSink, errorOutput: @escaping (String) -> Void) {
        self.session = session
        self.options = options
        self.out = output
        self.errorOutput = errorOutput
        printLines = !options.countOnly && options.outputPath != "-"
    }

    /// The output format `options` ask for, or a usage message.
    public static func resolveOutputFormat(_ options: ReadOptions) -> Result<OutputFormat?, UsageError> {
        guard let path = options.outputPath else { return .success(nil) }
        if let format = options.outputFormat ?? OutputFormat.fromExtension(of: path) { return .success(format) }
        return .failure(
            UsageError(
                "cannot tell the output format from '\(path)': name it .pcap, .pcapng or .btsnoop, or give -F"
            )
        )
    }

    /// What every run needs before the first frame: the output format, the registry and the
    /// compiled filter; or the exit status of a usage mistake, already reported.
    struct Prepared {
        var format: OutputFormat?
        var registry: DissectorRegistry
        var filter: DisplayFilter?
    }

    func prepare() -> Result<Prepared, ExitStatus> {
        let format: OutputFormat?
        switch Self.resolveOutputFormat(options) {
        case .success(let f): format = f
        case .failure(let usage):
            errorOutput("bleinspect: \(usage.message)")
            return .failure(.usage)
        }
        let registry = session.registry
        if case .fields(let names) = options.output {
            let unknown = FrameRenderer.unknownFields(names, registry: registry)
            if !unknown.isEmpty {
                errorOutput(
                    "bleinspect: unknown field\(unknown.count == 1 ? "" : "s"): \(unknown.joined(separator: ", ")) (see 'bleinspect fields')"
                )
                return .failure(.usage)
            }
        }
        guard case .success(var filter) = RunSetup.filter(options.filter, registry: registry, errorOutput) else {
            return .failure(.usage)
        }
        if let number = options.referenceFrame, let compiled = filter, compiled.usesReferences {
            switch referenced(compiled, frame: number, registry: registry) {
            case .success(let resolved): filter = resolved
            case .failure(let status): return .failure(status)
            }
        }
        return .success(Prepared(format: format, registry: registry, filter: filter))
    }

    /// `filter` with its field references taken from frame `number` of the first file, which is
    /// decoded with every frame before it (their state counts: the UUID a handle has, say).
    private func referenced(_ filter: DisplayFilter, frame number: Int, registry: DissectorRegistry)
        -> Result<DisplayFilter, ExitStatus>
    {
        guard let path = options.paths.first else { return .success(filter) }
        var resolved: DisplayFilter? = nil
        var engine = makeEngine(registry: registry, filter: filter, reads: nil)
        do throws(CaptureError) {
            let reader = try CaptureOpener.open(path: path)
            // Every frame before it counts as displayed, as in Wireshark without a filter.
            while resolved == nil, let frame = try reader.next() {
                engine.dissect(frame, wantsInfo: false) { tree in
                    if frame.number == number { resolved = filter.settingReferences(tree, frameBytes: frame.bytes) }
                }
            }
        } catch {
            var status = ExitStatus.success
            _ = RunSetup.report(error, name: path, status: &status, errorOutput)
            if resolved == nil { return .failure(status == .success ? .damagedInput : status) }
        }
        guard let resolved else {
            errorOutput("bleinspect: --ref-frame \(number): \(TerminalSafeText.escape(path)) has fewer frames")
            return .failure(.usage)
        }
        return .success(resolved)
    }

    /// Decodes `frame`, the next frame of the engine's timeline, filters it and prints its line;
    /// true when it matched the filter. A frame that did not match is not displayed: later
    /// frames' `frame.time_delta_displayed` skips it.
    func show(
        _ frame: CapturedFrame,
        engine: inout DissectionEngine,
        filter: DisplayFilter?,
        renderer: some FrameRendering
    ) -> Bool {
        // Only the frame layer's time fields and the printed lines read the times: counting with a
        // filter on other fields skips the timeline (the engine keeps no frame layer then).
        let times =
            printLines || engine.addsFrameLayer ? engine.timeline.next(frame.timestamp) : FrameTimes(frame.timestamp)
        guard printLines || filter != nil || (options.writeAsDecoded && options.outputPath != nil) else {
            return true
        }
        var matched = true
        engine.dissect(frame, times: times, wantsInfo: printLines && renderer.wantsInfo) { tree in
            if let filter { matched = filter.matches(tree, frameBytes: frame.bytes) }
            if matched && printLines {
                frame.withDirection(of: tree) {
                    renderer.render($0, tree, first: times.first, previous: times.previous, to: out)
                }
            }
        }
        if !matched { engine.timeline.lastNotDisplayed() }
        return matched
    }

    /// The frame as `-w` writes it: with the dissectors' edits (decrypted) when asked for.
    func written(_ frame: CapturedFrame, _ engine: DissectionEngine) -> CapturedFrame {
        options.writeAsDecoded && !engine.edits.isEmpty ? frame.applying(engine.edits) : frame
    }

    /// Reads everything and returns the exit status.
    public func run() -> ExitStatus {
        let prepared: Prepared
        switch prepare() {
        case .success(let p): prepared = p
        case .failure(let status): return status
        }
        let (format, registry, filter) = (prepared.format, prepared.registry, prepared.filter)
        let capture = options.outputPath.map { CaptureOutput(path: $0, format: format ?? .pcap) }
        let renderer = makeRenderer(registry)
        var status = ExitStatus.success
        var total = 0  // frames that passed the filter
        var read = 0
        var remaining = options.frameLimit ?? Int.max

        for path in options.paths where remaining > 0 {
            let shownName = path == "-" ? "<stdin>" : path
            do throws(CaptureError) {
                let reader = try CaptureOpener.open(path: path)
                if printLines && options.paths.count > 1 {
                    out.append("# \(TerminalSafeText.escape(shownName)): \(reader.format)\n")
                }
                var progress = ProgressLine(
                    name: shownName,
                    total: reader.totalBytes,
                    enabled: progressWanted(reader.totalBytes)
                )
                defer { progress.clear() }
                var engine = makeEngine(registry: registry, filter: filter, reads: reads(renderer))
                if options.twoPass { engine.forwardLinks = forwardLinks(path, registry: registry) }
                let workers = options.writeAsDecoded && capture != nil ? 0 : workerCount(reader.totalBytes)
                // Stateless frames are what workers take. With post-dissectors running none is,
                // and the workers render (and filter) the trees the reading thread decodes: only
                // worth it when there is output to render.
                let renderOnly = engine.runsPostDissectors
                // Workers filter frames out of order, except when they only render: then a frame's
                // displayed delta could not follow the filter's verdicts on the frames before it.
                if workers > 0 && (printLines || filter != nil) && (printLines || !renderOnly)
                    && (renderOnly || !needsDisplayedDelta(registry, filter, renderer))
                {
                    let parallel = ParallelReader(
                        workers: (0..<workers).map { k in
                            // Each worker has its own registry, filter and renderer: objects that
                            // two threads retain and release would cost more than they share.
                            let own = session.makeRegistry()
                            let ownFilter = options.filter.flatMap { try? DisplayFilter.compile($0, registry: own) }
                                .map { own in filter.map { own.settingReferences(of: $0) } ?? own }
                            return ReadWorker(
                                index: k,
                                engine: makeEngine(registry: own, filter: ownFilter, reads: reads(renderer)),
                                finisher: FrameFinisher(
                                    output: k,
                                    renderer: makeRenderer(own),
                                    filter: ownFilter,
                                    printLines: printLines
                                )
                            )
                        },
                        main: FrameFinisher(
                            output: workers,
                            renderer: renderer,
                            filter: filter,
                            printLines: printLines
                        ),
                        wantsInfo: printLines && renderer.wantsInfo,
                        renderOnly: renderOnly,
                        out: out,
                        capture: capture
                    )
                    let result = parallel.run(
                        reader,
                        engine: &engine,
                        limit: remaining,
                        progress: &progress,
                        readBefore: read
                    )
                    remaining -= result.read
                    read += result.read
                    total += result.matched
                    if let error = result.error { throw error }
                    continue
                }
                var frame = CapturedFrame.blank()
                while remaining > 0, try reader.next(into: &frame) {
                    // -c counts frames read, as tshark's does, whether they match or not.
                    remaining -= 1
                    read += 1
                    progress.update(frames: read, bytes: reader.bytesRead)
                    guard show(frame, engine: &engine, filter: filter, renderer: renderer) else { continue }
                    out.flushIfFull()
                    total += 1
                    if let capture {
                        try capture.write(written(frame, engine))
                    }
                }
            } catch {
                out.flush()
                if RunSetup.report(error, name: shownName, status: &status, errorOutput) { return status }
            }
        }
        if let capture {
            do throws(CaptureError) {
                try capture.finish()
            } catch {
                errorOutput("bleinspect: \(error)")
                return .cannotCreateOutput
            }
            if let summary = capture.skippedSummary { errorOutput("bleinspect: note: \(summary)") }
        }
        if options.countOnly { out.append("\(total)\n") }
        out.flush()
        return status
    }

    /// The first pass of `-2`: every frame of `path` decoded (up to the frame limit), nothing
    /// shown; the links it found, for the second pass. An error ends it quietly: the second pass
    /// reports it where it happens.
    private func forwardLinks(_ path: String, registry: DissectorRegistry) -> ForwardLinks {
        let links = ForwardLinks()
        var engine = DissectionEngine(registry: registry)
        engine.runsPostDissectors = false
        engine.addsExpertText = false
        engine.forwardLinks = links
        do throws(CaptureError) {
            let reader = try CaptureOpener.open(path: path)
            var remaining = options.frameLimit ?? Int.max
            var frame = CapturedFrame.blank()
            while remaining > 0, try reader.next(into: &frame) {
                remaining -= 1
                engine.dissect(frame, wantsInfo: false) { _ in }
            }
        } catch {}
        links.startAnswering()
        return links
    }

    func makeRenderer(_ registry: DissectorRegistry) -> FrameRenderer {
        FrameRenderer(
            registry: registry,
            mode: options.output,
            style: ANSIStyle(enabled: options.color.enabled(fd: 1)),
            timeFormat: options.timeFormat
        )
    }

    /// What `renderer` reads of each tree, nil when no lines are printed.
    func reads(_ renderer: some FrameRendering) -> TreeNeeds? { printLines ? renderer.reads : nil }

    /// An engine configured for this run: one per input, and one per worker thread. `reads` is
    /// what the output reads of each tree, nil when nothing is shown.
    func makeEngine(registry: DissectorRegistry, filter: DisplayFilter?, reads: TreeNeeds?) -> DissectionEngine {
        var engine = DissectionEngine(registry: registry)
        Self.configure(&engine, registry: registry, filter: filter, reads: reads)
        return engine
    }

    /// Worker threads for an input of `size` bytes (nil: not a regular file).
    private func workerCount(_ size: Int64?) -> Int {
        if let asked = options.workerThreads { return max(0, min(asked, 16)) }
        guard let size, size >= ReadThreads.minimumInputSize else { return 0 }
        return ReadThreads.automaticWorkers()
    }

    /// Leaves out the work whose fields nothing shown (`reads`, from the renderer) or filtered
    /// reads: the derived fields (`device.*`) unless the output or the filter uses them, and, when
    /// the needed fields are known (`-T fields`, or only counting and filtering), the `frame`
    /// layer and the advertising-data dissectors. The tree and JSON need everything.
    static func configure(
        _ engine: inout DissectionEngine,
        registry: DissectorRegistry,
        filter: DisplayFilter?,
        reads: TreeNeeds?
    ) {
        var needed = Set<FieldID>()
        if let filter { needed.formUnion(filter.fieldsUsed) }
        switch reads {
        case nil:
            break
        case .everything:
            return
        case .fields(let fields):
            needed.formUnion(fields)
        case .summary:
            // One-line output shows no derived fields.
            engine.runsPostDissectors = needed.contains(where: registry.derived)
            // The summary line shows no expert text.
            let coreNeeded = needed.contains { registry.owner(of: $0) == "core" }
            engine.addsExpertText = coreNeeded
            guard !engine.runsPostDissectors else { return }
            // Of the tree, the line shows only the innermost layer's name and, in colour,
            // whether the frame is malformed; the summary text is built beside the tree.
            var kept = needed
            for (i, isLayer) in registry.isLayer.enumerated() where isLayer { kept.insert(FieldID(UInt32(i))) }
            kept.insert(registry.core[.malformed])
            engine.keepOnly(kept)
            if !coreNeeded { engine.addsFrameLayer = false }
            return
        }
        engine.runsPostDissectors = needed.contains(where: registry.derived)
        if engine.runsPostDissectors { return }
        // Only the needed fields are read: the others' nodes need not be stored.
        engine.keepOnly(needed)
        let core = registry.core
        let frameFields = Set([core.layer] + CoreField.frameLayer.map { core[$0] })
        engine.addsFrameLayer = !needed.isDisjoint(with: frameFields)
        // Malformed and expert notes, and undecoded data, can come from any dissector: then
        // nothing may be skipped. Frame fields come from the engine, and skipping leaves them be.
        let anyLayer = needed.contains { registry.owner(of: $0) == "core" && !frameFields.contains($0) }
        engine.addsExpertText = anyLayer
        if anyLayer { return }
        // Decoders that keep no state and add none of the needed fields need not run: the
        // advertising reports and their data for a filter on ATT, say.
        let owners = Set(needed.map { registry.owner(of: $0) }).subtracting(["core"])
        engine.skipStateless(unlessOwnedBy: owners)
        // L2CAP and the protocols above it (ATT, SMP, channels' SDUs) keep state that only they
        // read: when none of them adds a needed field (a filter on HCI events or advertising,
        // say), the L2CAP PDUs reassembled from ACL data need not be decoded at all.
        let l2cap = registry.tables[StandardTables.l2cap.id].map { Array($0.bindings.values) } ?? []
        if l2cap.allSatisfy({ registry.ownersBeneath($0).isDisjoint(with: owners) }) {
            engine.skip(StandardTables.l2cap)
        }
    }

    /// Whether a filter selects the frames and `frame.time_delta_displayed` is shown or filtered
    /// on: then each frame's value depends on the filter's verdicts on the frames before it.
    private func needsDisplayedDelta(
        _ registry: DissectorRegistry,
        _ filter: DisplayFilter?,
        _ renderer: some FrameRendering
    ) -> Bool {
        guard let filter else { return false }
        let id = registry.core[.timeDeltaDisplayed]
        if filter.fieldsUsed.contains(id) { return true }
        guard case .fields(let fields) = renderer.reads else { return false }
        return fields.contains(id)
    }

    private func progressWanted(_ size: Int64?) -> Bool {
        if let forced = options.progress { return forced }
        guard let size, size >= Self.progressThreshold else { return false }
        let stdoutIsCapture = options.outputPath == "-"
        return isatty(2) == 1 && (stdoutIsCapture || isatty(1) == 0)
    }
}

/// A usage mistake found while running, reported with exit status 64.
public struct UsageError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// A self-updating progress line on standard error.
struct ProgressLine {
    let name: String
    let total: Int64?
    let enabled: Bool
    private var lastUpdate: UInt64 = 0
    private var shown = false

    init(name: String, total: Int64?, enabled: Bool) {
        self.name = TerminalSafeText.escape(name)
        self.total = total
        self.enabled = enabled
    }

    /// Called for every frame: only every 1,024th frame, when enabled, reads the clock (and
    /// `bytes`), and the line changes at most every 200 ms.
    @inline(__always)
    mutating func update(frames: Int, bytes: @autoclosure () -> Int64) {
        guard enabled, frames & 0x3FF == 0 else { return }
        show(frames: frames, bytes: bytes())
    }

    private mutating func show(frames: Int, bytes: Int64) {
        let now = Self.monotonicMilliseconds()
        guard now &- lastUpdate >= 200 else { return }
        lastUpdate = now
        var text = "\r\u{1B}[K\(name): \(frames) frames"
        if let total, total > 0 {
            text += ", \(min(100, bytes * 100 / total))%"
        }
        writeToStderr(text)
        shown = true
    }

    mutating func clear() {
        if shown { writeToStderr("\r\u{1B}[K") }
        shown = false
    }

    private func writeToStderr(_ s: String) {
        var s = s
        s.withUTF8 { p in _ = write(2, p.baseAddress, p.count) }
    }

    static func monotonicMilliseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1000 &+ UInt64(ts.tv_nsec / 1_000_000)
    }
}
