import ArgumentParser
import BLECapture
import BLEInspectCore
import BLEInspectSession
import BLEInspectViews

/// The frames a view takes in: `-Y` and `-c`, as every view spells them.
struct ViewFrameOptions: ParsableArguments {
    // `.unconditional`: a filter may start with `-` (`-Y '-nordic_ble.rssi < 40'`).
    @Option(
        name: .customShort("Y"),
        parsing: .unconditional,
        help: ArgumentHelp("A display filter: only matching frames are taken in.", valueName: "filter")
    )
    var displayFilter: String?

    @Option(name: .customShort("c"), help: "Stop after this many frames.")
    var count: Int?

    @OptionGroup var plugins: PluginOptions

    @OptionGroup var decryption: DecryptionOptions

    /// The scan of `files` these options choose, with `toolkit`'s modules and the plugins,
    /// reporting problems on standard error.
    func scan(_ files: [String], _ toolkit: Toolkit) throws -> CaptureScan {
        var configuration = RegistryConfiguration()
        try decryption.apply(to: &configuration, writes: false)
        let session = try SessionSetup.session(toolkit, plugins: plugins.load(toolkit), configuration: configuration)
        var scan = CaptureScan(session: session, paths: files, filter: displayFilter) { StandardError.print($0) }
        scan.frameLimit = count
        return scan
    }
}

/// What a standard view reads: the capture files, then the frame options.
struct ViewInput: ParsableArguments {
    @Argument(help: "Capture files to read, in order; - reads standard input.")
    var files: [String]

    @OptionGroup var frames: ViewFrameOptions
}

/// Checks the views share.
enum ViewArguments {
    static func validate(files: [String], count: Int?) throws {
        if files.isEmpty { throw ValidationError("Give at least one capture file, or - for standard input.") }
        if let count, count < 0 { throw ValidationError("-c takes a count of 0 or more.") }
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input (-) can be read only once.") }
    }
}

/// A view's command runner (`ConnsCommandRunner`, say): reads `scan` and writes text, or JSON.
protocol ViewRunner {
    static func run(scan: CaptureScan, json: Bool, output: OutputSink, errorOutput: (String) -> Void) -> ExitStatus
}

/// A view that reads files with `-Y` and `-c` and writes text or `--json` to standard output.
protocol StandardView: ToolCommand {
    /// Runs the view.
    associatedtype Runner: ViewRunner
    var input: ViewInput { get }
    var json: Bool { get }
}

extension StandardView {
    func validate() throws {
        try ViewArguments.validate(files: input.files, count: input.frames.count)
    }

    func run(with toolkit: Toolkit) throws {
        let status = Runner.run(
            scan: try input.frames.scan(input.files, toolkit),
            json: json,
            output: OutputSink(fd: 1, ownsDescriptor: false),
            errorOutput: { StandardError.print($0) }
        )
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
