import BLECapture
public import BLEInspectCore
import BLEInspectFilter
public import BLEInspectPlugins

/// The streaming pipeline the views (`gatt`, `follow`, `conns`) share: every frame of every
/// input is dissected once, in order, with the derived `device.*` fields, and handed on when it
/// passes the display filter. Nothing is kept between frames here: what a view remembers is up
/// to the view.
public struct CaptureScan {
    public var paths: [String]
    /// A display filter (`-Y`): only matching frames reach the view.
    public var filter: String?
    /// Stop after this many frames in all, matching or not (`-c`).
    public var frameLimit: Int?
    /// User plugins: their fields and bindings join the registry.
    public var plugins: PluginCatalog = .empty
    private let errorOutput: (String) -> Void

    /// Where the scan reports damaged input, for a view's own messages.
    var reportError: (String) -> Void { errorOutput }

    public init(paths: [String], filter: String? = nil, errorOutput: @escaping (String) -> Void) {
        self.paths = paths
        self.filter = filter
        self.errorOutput = errorOutput
    }

    /// What a run needs before the first frame: the registry and the compiled filter, or the
    /// exit status after the problem was reported.
    public func prepare() -> Result<(registry: DissectorRegistry, filter: DisplayFilter?), ExitStatus> {
        guard let registry = RunSetup.registry(plugins: plugins, errorOutput) else { return .failure(.software) }
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
    }

    /// The steps every view takes: prepare the registry and filter, let `setup` build the view
    /// (or stop with a status), refuse to run if it reads fields the registry lacks, and read
    /// every frame through it. Returns the status of the reading.
    func runView(
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
        // What a view writes while it reads (follow) names UUIDs as the registry does.
        return ViewText.$registryNames.withValue(prepared.registry.uuidNames) {
            run(registry: prepared.registry, filter: prepared.filter, derived: consumer.readsDevices, consumer.take)
        }
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
                if RunSetup.report(error, name: shownName, status: &status, errorOutput) { return status }
            }
        }
        return status
    }
}

/// What `read` and the views do alike before and after the frames.
enum RunSetup {
    /// The standard registry, or nil after reporting the internal error.
    static func registry(plugins: PluginCatalog, _ errorOutput: (String) -> Void) -> DissectorRegistry? {
        do throws(RegistryError) {
            return try StandardModules.registry(plugins: plugins)
        } catch {
            errorOutput("bleinspect: internal error: the dissector registry does not build:\n\(error)")
            return nil
        }
    }

    /// `text` compiled, or `.failure` after reporting the mistake.
    static func filter(
        _ text: String?,
        registry: DissectorRegistry,
        _ errorOutput: (String) -> Void
    ) -> Result<DisplayFilter?, FilterError> {
        guard let text else { return .success(nil) }
        do throws(FilterError) {
            let filter = try DisplayFilter.compile(text, registry: registry)
            // Named, not silent: the frame's length and bytes differ from tshark's (docs/FILTERS.md).
            let framing = ["frame", "frame.len", "frame.cap_len"].compactMap { registry.index[$0] }
            if !filter.fieldsUsed.isDisjoint(with: framing) {
                errorOutput(
                    "bleinspect: note: frame.len, frame.cap_len and the frame's bytes leave out the H4 packet-type byte and pseudo-headers that tshark counts, so they can differ from tshark's (docs/FILTERS.md)"
                )
            }
            return .success(filter)
        } catch {
            errorOutput("bleinspect: invalid display filter:\n" + error.rendered(filter: text))
            return .failure(error)
        }
    }

    /// False, after reporting the internal error, when a view reads fields the registry lacks.
    static func fieldsPresent(_ missing: [String], view: String, _ errorOutput: (String) -> Void) -> Bool {
        guard !missing.isEmpty else { return true }
        errorOutput("bleinspect: internal error: \(view) reads fields the registry lacks: \(missing)")
        return false
    }

    /// Reports an input's error and folds it into `status`. True when nothing more can be done
    /// (the output failed).
    static func report(
        _ error: CaptureError,
        name: String,
        status: inout ExitStatus,
        _ errorOutput: (String) -> Void
    ) -> Bool {
        errorOutput("bleinspect: \(TerminalSafeText.escape(name)): \(error)")
        if status == .success { status = ExitStatus(error) }
        if error.code == .writeFailed {
            status = .cannotCreateOutput
            return true
        }
        return false
    }
}
