import BLECapture
import BLECaptureIO
public import BLEInspectCore
import BLEInspectFilter
public import BLEInspectSession

/// The streaming pipeline the views (`gatt`, `follow`, `conns`) share: every frame of every
/// input is dissected once, in order, with the derived `device.*` fields, and handed on when it
/// passes the display filter. Nothing is kept between frames here: what a view remembers is up
/// to the view.
public struct CaptureScan {
    /// What the frames are decoded with: the registry (with the run's plugins) and its names.
    public let session: Session
    public var paths: [String]
    /// A display filter (`-Y`): only matching frames reach the view.
    public var filter: String?
    /// Stop after this many frames in all, matching or not (`-c`).
    public var frameLimit: Int?
    private let errorOutput: (String) -> Void

    /// Where the scan reports damaged input, for a view's own messages.
    public var reportError: (String) -> Void { errorOutput }

    public init(session: Session, paths: [String], filter: String? = nil, errorOutput: @escaping (String) -> Void) {
        self.session = session
        self.paths = paths
        self.filter = filter
        self.errorOutput = errorOutput
    }

    /// What a run needs before the first frame: the registry and the compiled filter, or the
    /// exit status after the problem was reported.
    public func prepare() -> Result<(registry: DissectorRegistry, filter: DisplayFilter?), ExitStatus> {
        let registry = session.registry
        guard case .success(let compiled) = RunSetup.filter(filter, registry: registry, errorOutput) else {
            return .failure(.usage)
        }
        return .success((registry, compiled))
    }

    /// What a view gives `runView`: the field names it reads that the registry lacks, and what
    /// it does with each frame.
    public struct ViewConsumer {
        var missing: [String]
        /// Whether the view reads the derived `device.*` fields, which only the post-dissectors add.
        var readsDevices = true
        var take: (CapturedFrame, borrowing ProtocolTree) -> Void

        public init(
            missing: [String],
            readsDevices: Bool = true,
            take: @escaping (CapturedFrame, borrowing ProtocolTree) -> Void
        ) {
            self.missing = missing
            self.readsDevices = readsDevices
            self.take = take
        }
    }

    /// The steps every view takes: prepare the registry and filter, let `setup` build the view
    /// (or stop with a status), refuse to run if it reads fields the registry lacks, and read
    /// every frame through it, the inputs' problems reported to `errorOutput`. Returns the status
    /// of the reading.
    public func runView(
        _ name: String,
        errorOutput: (String) -> Void,
        _ setup: (DissectorRegistry) -> Result<ViewConsumer, ExitStatus>
    ) -> ExitStatus {
        let prepared: (registry: DissectorRegistry, filter: DisplayFilter?)
        switch prepare() {
        case .success(let p): prepared = p
        case .failure(let status): return status
        }
        let consumer: ViewConsumer
        switch setup(prepared.registry) {
        case .success(let c): consumer = c
        case .failure(let status): return status
        }
        guard RunSetup.fieldsPresent(consumer.missing, view: name, errorOutput) else { return .software }
        return run(
            registry: prepared.registry,
            filter: prepared.filter,
            derived: consumer.readsDevices,
            reporting: errorOutput,
            consumer.take
        )
    }

    /// Reads every input and calls `body` with each frame that passes the filter and its tree
    /// (valid only during the call). A damaged or unreadable input is reported on the error
    /// output, naming the file, the frame and the byte offset; the frames before the damage
    /// have been passed on, and the next input is read. Returns the exit status.
    /// The derived fields (`device.*`) are added when `derived` asks for them or the filter uses them.
    public func run(
        registry: DissectorRegistry,
        filter: DisplayFilter?,
        derived: Bool = true,
        _ body: (CapturedFrame, borrowing ProtocolTree) -> Void
    ) -> ExitStatus {
        run(registry: registry, filter: filter, derived: derived, reporting: errorOutput, body)
    }

    /// `run`, with the inputs' problems (damage, an input it cannot read) reported to `reporting`:
    /// a view's own error output, which may keep them as well as print them.
    func run(
        registry: DissectorRegistry,
        filter: DisplayFilter?,
        derived: Bool,
        reporting: (String) -> Void,
        _ body: (CapturedFrame, borrowing ProtocolTree) -> Void
    ) -> ExitStatus {
        var status = ExitStatus.success
        var remaining = frameLimit ?? Int.max
        // One engine for all inputs: a view follows devices across files given together.
        var engine = DissectionEngine(registry: registry)
        engine.runsPostDissectors = derived || (filter?.fieldsUsed.contains(where: registry.derived) ?? false)
        for path in paths where remaining > 0 {
            let shownName = path == "-" ? "<stdin>" : path
            do throws(CaptureError) {
                let reader = try CaptureOpener.open(path: path)
                while remaining > 0, let frame = try reader.next() {
                    remaining -= 1
                    engine.dissect(frame, wantsInfo: false) { tree in
                        if let filter, !filter.matches(tree, frameBytes: frame.bytes) { return }
                        body(frame.withDirection(of: tree), tree)
                    }
                }
            } catch {
                if RunSetup.report(error, name: shownName, status: &status, reporting) { return status }
            }
        }
        return status
    }
}
