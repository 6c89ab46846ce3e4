import ArgumentParser
import BLECapture
import BLEInspect
import BLEInspectCore

extension TimeFormat: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {}
extension ColorMode: ExpressibleByArgument {}

/// `-T`: the output format.
enum TextFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, fields
}

struct Read: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the frames of one or more captures, one line each, and optionally save them.",
        discussion: """
            Each line shows the frame number, the time, the direction (< host to controller,
            > controller to host, ? unknown), the controller and a summary.

            Examples:
              bleinspect read btsnoop_hci.log
              bleinspect read -c 20 capture.pklg
              bleinspect read --count capture.pcapng
              bleinspect read -t a capture.btsnoop            # wall-clock times (UTC)
              bleinspect read -V capture.btsnoop              # every field of every frame
              bleinspect read -Y 'btatt.opcode == "Write Request"' capture.pklg
              bleinspect read -Y 'device.name contains "Polar"' -w polar.pcapng android.log
              bleinspect read -Y 'btl2cap.cmd_code == 0x16' --count coc.btsnoop
              bleinspect read -T json capture.pcapng | jq .    # NDJSON, one object per frame
              bleinspect read -T fields -e frame.number -e btatt.opcode -e btatt.handle capture.log
              cat btsnoop_hci.log | bleinspect read -
              bleinspect read capture.pklg -w capture.pcapng   # convert; format from the extension
              bleinspect read capture.pklg -w - -F btsnoop | bleinspect read -
            """
    )

    @Argument(help: "Capture files to read; - reads standard input.")
    var files: [String]

    @Option(name: .customShort("c"), help: "Stop after this many frames.")
    var count: Int?

    @Flag(name: .customLong("count"), help: "Print only the number of frames.")
    var countOnly = false

    @Option(
        name: .customShort("Y"),
        help: ArgumentHelp(
            "A display filter, in Wireshark's syntax: only matching frames are shown, written and counted.",
            valueName: "filter"
        )
    )
    var displayFilter: String?

    @Option(name: .short, help: "Write the frames to this capture file (- for standard output).")
    var w: String?

    @Option(name: .customShort("F"), help: "Format for -w when the extension does not say: pcap, pcapng or btsnoop.")
    var writeFormat: OutputFormat?

    @Option(name: .short, help: "Time format: r relative to the first frame, d delta, a absolute (UTC), e epoch.")
    var t: TimeFormat = .relative

    @Flag(name: .customShort("V"), help: "Show the full tree of every frame: names, values and value names.")
    var verbose = false

    @Flag(name: .customShort("x"), help: "Add a hex dump of each frame (and of reassembled PDUs).")
    var hexDump = false

    @Option(name: .customShort("T"), help: "Output format: text (default), json (NDJSON), or fields (with -e).")
    var format: TextFormat = .text

    @Option(name: .customShort("e"), help: "A field to print with -T fields; repeat for more columns.")
    var fields: [String] = []

    @Option(
        name: .customLong("overflow-uuid"),
        help: ArgumentHelp(
            "A 128-bit service UUID (optionally UUID=NAME) to look for in Apple's overflow-area bitmaps; repeatable.",
            valueName: "uuid[=name]"
        )
    )
    var overflowUUIDs: [String] = []

    @Option(help: "Colour: auto (on a terminal, unless NO_COLOR is set), always or never.")
    var color: ColorMode = .auto

    @Flag(
        inversion: .prefixedNo,
        help:
            "Show a progress line on standard error (default: for large files when stderr is a terminal and stdout is not)."
    )
    var progress: Bool?

    @Option(
        help: ArgumentHelp(
            "Worker threads beside the reading thread: 0 reads on one thread (default: one per other core, up to 3, for files of 4 MiB or more). The output is the same either way.",
            valueName: "n"
        )
    )
    var threads: Int?

    func validate() throws {
        if files.isEmpty { throw ValidationError("Give at least one capture file, or - for standard input.") }
        if let count, count < 0 { throw ValidationError("-c takes a count of 0 or more.") }
        if let threads, threads < 0 || threads > 16 { throw ValidationError("--threads takes 0 to 16.") }
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input (-) can be read only once.") }
        var options = ReadOptions(paths: files)
        options.outputPath = w
        options.outputFormat = writeFormat
        if case .failure(let usage) = ReadRunner.resolveOutputFormat(options) {
            throw ValidationError(usage.message)
        }
        for text in overflowUUIDs where Self.parseOverflowUUID(text) == nil {
            throw ValidationError(
                "--overflow-uuid '\(text)' is not a UUID (for example 6E400001-B5A3-F393-E0A9-E50E24DCCA9E=UART)."
            )
        }
        if format == .fields && fields.isEmpty { throw ValidationError("-T fields needs at least one -e FIELD.") }
        if format != .fields && !fields.isEmpty { throw ValidationError("-e goes with -T fields.") }
    }

    /// `UUID` or `UUID=NAME`.
    static func parseOverflowUUID(_ text: String) -> (BluetoothUUID, String)? {
        let parts = text.split(separator: "=", maxSplits: 1)
        guard let first = parts.first, let uuid = BluetoothUUID(String(first)) else { return nil }
        return (uuid, parts.count > 1 ? String(parts[1]) : "")
    }

    func run() throws {
        var options = ReadOptions(paths: files)
        options.frameLimit = count
        options.countOnly = countOnly
        options.outputPath = w
        options.outputFormat = writeFormat
        options.timeFormat = t
        options.progress = progress
        options.workerThreads = threads
        options.color = color
        options.overflowUUIDs = overflowUUIDs.compactMap(Self.parseOverflowUUID)
        options.filter = displayFilter
        switch format {
        case .text: options.output = .text(verbose: verbose, hexDump: hexDump)
        case .json: options.output = .json
        case .fields: options.output = .fields(fields)
        }
        let runner = ReadRunner(
            options: options,
            output: OutputSink(fd: 1, ownsDescriptor: false),
            errorOutput: { message in StandardError.print(message) }
        )
        let status = runner.run()
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
