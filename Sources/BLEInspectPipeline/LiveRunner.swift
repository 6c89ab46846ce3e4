public import BLECapture
import BLECaptureIO
public import BLECaptureLive
import BLEInspectCore
public import BLEInspectSession

#if canImport(Glibc)
    import Glibc
#endif

/// What `bleinspect live` was asked to do.
public struct LiveOptions: Sendable {
    public var source: LiveSource
    /// The output, filter, frame limit (-c) and capture file (-w), as for `read`.
    public var read: ReadOptions
    /// Stop after this many seconds.
    public var duration: Double?
    /// Ring-buffer rotation of the -w file.
    public var rotation: CaptureRotation?

    public init(source: LiveSource) {
        self.source = source
        self.read = ReadOptions(paths: [source.description])
    }
}

/// Runs `live`: reads a live source frame by frame, printing each as soon as it is read, saving
/// while displaying, until the source ends, -c or --duration is reached, or a signal stops it.
/// Then it closes the capture file as a valid capture and prints a one-line summary.
public final class LiveRunner {
    /// What the frames are decoded with.
    public let session: Session
    public let options: LiveOptions
    private let out: OutputSink
    private let errorOutput: (String) -> Void
    private let stop: LiveStop
    private let monitorChannel: () throws(CaptureError) -> any MonitorChannel
    private let monitorRetry: MonitorRetry
    private var status = ExitStatus.success
    private var dropped = 0
    private var damaged = 0
    /// The monitor reader, for its counts at the end; nil for stream sources.
    private var monitor: MonitorReader?
    /// The first error writing the -w file, once reported.
    private var writeError: CaptureError?

    /// `monitorChannel` opens the HCI monitor channel and `monitorRetry` bounds the retries of
    /// its receive errors that may pass; tests pass their own.
    public init(
        session: Session,
        options: LiveOptions,
        output: OutputSink,
        errorOutput: @escaping (String) -> Void,
        stop: LiveStop,
        monitorChannel: @escaping () throws(CaptureError) -> any MonitorChannel = { () throws(CaptureError) in
            try HCIMonitorSocket.open()
        },
        monitorRetry: MonitorRetry = .standard
    ) {
        self.session = session
        self.options = options
        self.out = output
        self.errorOutput = errorOutput
        self.stop = stop
        self.monitorChannel = monitorChannel
        self.monitorRetry = monitorRetry
    }

    public func run() -> ExitStatus {
        let base = ReadRunner(session: session, options: options.read, output: out, errorOutput: errorOutput)
        let prepared: ReadRunner.Prepared
        switch base.prepare() {
        case .success(let p): prepared = p
        case .failure(let status): return status
        }
        if let duration = options.duration { stop.stop(after: duration) }
        let started = LiveStop.now()
        let name = TerminalSafeText.escape(options.source.description)

        let reader: any FrameReader
        do throws(CaptureError) {
            guard let opened = try open() else { return finish(name: name, started: started, frames: 0, shown: 0) }
            reader = opened
        } catch {
            if stop.reason != nil { return finish(name: name, started: started, frames: 0, shown: 0) }
            errorOutput("bleinspect: \(name): \(error)")
            return ExitStatus(error)
        }
        announce(reader.format)

        let layout = CaptureLayout(for: reader.format)
        let capture = options.read.outputPath.map {
            CaptureOutput(path: $0, format: prepared.format ?? .pcap, layout: layout, rotation: options.rotation)
        }
        stop.onIdle = { [weak self, out, stop] in
            out.flush()
            if let capture, self?.writeError == nil {
                do throws(CaptureError) {
                    try capture.flush()
                } catch {
                    // The file cannot take more: say so now and stop, rather than capture on
                    // with nothing saved.
                    self?.failedWriting(error)
                    stop.request()
                }
            }
            if out.failure != nil { stop.request() }
        }
        defer { stop.onIdle = nil }

        let renderer = base.makeRenderer(prepared.registry)
        var engine = base.makeEngine(registry: prepared.registry, filter: prepared.filter, reads: base.reads(renderer))
        var frames = 0
        var shown = 0
        var remaining = options.read.frameLimit ?? Int.max
        do throws(CaptureError) {
            while remaining > 0, !stop.checkStop(), let frame = try reader.next() {
                remaining -= 1
                frames += 1
                guard base.show(frame, engine: &engine, filter: prepared.filter, renderer: renderer) else {
                    continue
                }
                shown += 1
                if let capture { try capture.write(base.written(frame, engine)) }
                out.flushIfFull()
            }
        } catch {
            if error.code == .writeFailed {
                failedWriting(error)
            } else if stop.reason == nil {
                out.flush()
                errorOutput("bleinspect: \(name): \(error)")
                if status == .success || status == .damagedInput { status = ExitStatus(error) }
            }
        }
        out.flush()
        monitor?.countKernelDrops()
        if let capture {
            do throws(CaptureError) {
                try capture.finish()
            } catch {
                failedWriting(error)
            }
            if let summary = capture.skippedSummary { errorOutput("bleinspect: note: \(summary)") }
            if options.rotation != nil {
                let kept = capture.files.map { TerminalSafeText.escape($0) }
                errorOutput(
                    "bleinspect: ring buffer: \(kept.count) file\(kept.count == 1 ? "" : "s") kept: \(kept.joined(separator: ", "))"
                )
            }
        }
        if options.read.countOnly {
            out.append("\(shown)\n")
            out.flush()
        }
        return finish(name: name, started: started, frames: frames, shown: shown)
    }

    /// Reports the first error writing the -w file (later ones repeat it) and sets the status.
    private func failedWriting(_ error: CaptureError) {
        status = .cannotCreateOutput
        guard writeError == nil else { return }
        writeError = error
        out.flush()
        errorOutput("bleinspect: \(error)")
    }

    /// Opens the source; nil when stopped before it gave anything.
    private func open() throws(CaptureError) -> (any FrameReader)? {
        switch options.source {
        case .monitor(let controller):
            let reader = MonitorReader(
                channel: try monitorChannel(),
                controller: controller,
                stop: stop,
                retry: monitorRetry
            )
            reader.onNotice = { [weak self] notice in self?.report(notice) }
            monitor = reader
            // Notices about the records queued at binding come after the announcement.
            announceFormat = reader.format
            try reader.start()
            return reader
        case .standardInput:
            return try CaptureOpener.open(input: LiveStreams.input(fd: 0, ownsDescriptor: false, stop: stop))
        case .fifo(let path):
            let fd = try LiveStreams.openFIFO(path)
            return try CaptureOpener.open(input: LiveStreams.input(fd: fd, ownsDescriptor: true, stop: stop))
        case .tcp(let host, let port):
            let fd = try TCPAddress(host: host, port: port).connect(stop: stop)
            return try CaptureOpener.open(input: LiveStreams.input(fd: fd, ownsDescriptor: true, stop: stop))
        case .follow(let path):
            let reader = FollowReader(
                path: path,
                stop: stop,
                open: { input throws(CaptureError) in try CaptureOpener.open(input: input) },
                notice: { [weak self] line in self?.report(.message(line)) }
            )
            return try reader.start() ? reader : nil
        }
    }

    private var announced = false
    /// The source's format once it is open, for an announcement that a notice brings forward.
    private var announceFormat: CaptureFormat?

    /// Says once what is being captured.
    private func announce(_ format: CaptureFormat) {
        guard !announced else { return }
        announced = true
        errorOutput(
            "bleinspect: capturing on \(TerminalSafeText.escape(options.source.description)) (\(format.linkTypeName)); Ctrl-C stops"
        )
    }

    private func report(_ notice: LiveNotice) {
        if let announceFormat { announce(announceFormat) }
        out.flush()
        let name = TerminalSafeText.escape(options.source.description)
        switch notice {
        case .message(let line):
            errorOutput("bleinspect: \(name): \(line)")
        case .damaged(let error):
            damaged += 1
            errorOutput("bleinspect: \(name): \(error)")
            if status == .success { status = .damagedInput }
        case .dropped(let count):
            let (sum, full) = dropped.addingReportingOverflow(count)
            dropped = full ? Int.max : sum
        case .readError(let error):
            errorOutput("bleinspect: \(name): \(error); capture goes on")
        }
    }

    /// Prints the summary line and returns the final status.
    private func finish(name: String, started: UInt64, frames: Int, shown: Int) -> ExitStatus {
        let seconds = Double(LiveStop.now() &- started) / 1e9
        var line = "bleinspect: \(name): \(frames) frame\(frames == 1 ? "" : "s")"
        if options.read.filter != nil { line += " (\(shown) shown)" }
        line += ", \(dropped) dropped"
        if let readErrors = monitor?.readErrors, readErrors > 0 {
            line += ", \(readErrors) read error\(readErrors == 1 ? "" : "s")"
        }
        if damaged > 0 { line += ", \(damaged) damaged" }
        line += ", " + Self.formatSeconds(seconds)
        if let reason = stop.reason { line += " (\(reason))" }
        errorOutput(line)
        return status
    }

    static func formatSeconds(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
