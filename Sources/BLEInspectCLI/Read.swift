import ArgumentParser
import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession

extension TimeFormat: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {}
extension ColorMode: ExpressibleByArgument {}

/// `-T`: the output format.
enum TextFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, fields
}

struct Read: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Print the frames of one or more captures, one line each, and optionally save them.",
        discussion: """
            Each line shows the frame number, the time, the direction (< host to controller, \
            > controller to host, ? unknown), the controller and a summary.

            Examples:
              bleinspect read btsnoop_hci.log
              bleinspect read -c 20 capture.pklg
              bleinspect read --count capture.pcapng
              bleinspect read -t a capture.btsnoop  # wall-clock times (UTC)
              bleinspect read -V capture.btsnoop    # every field of every frame
              bleinspect read -Y 'btatt.opcode == "Write Request"' capture.pklg
              bleinspect read -Y 'device.name contains "Polar"' -w polar.pcapng android.log
              bleinspect read -Y 'btl2cap.cmd_code == 0x16' --count coc.btsnoop
              bleinspect read -2 -Y gatt.l2cap_psm chat.btsnoop  # + the channel
              bleinspect read -T json capture.pcapng | jq .  # NDJSON, one object per frame
              bleinspect read -T fields -e frame.number -e btatt.opcode capture.log
              cat btsnoop_hci.log | bleinspect read -
              bleinspect read in.pklg -w out.pcapng  # convert; format from the extension
              bleinspect read capture.pklg -w - -F btsnoop | bleinspect read -
              bleinspect read --resource-report -Y btatt --count big.btsnoop
            """
    )

    @Argument(help: "Capture files to read; - reads standard input.")
    var files: [String]

    @OptionGroup var frameOutput: FrameOutputOptions

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

    @Option(
        name: .customLong("ref-frame"),
        help: ArgumentHelp(
            "The reference frame of the first file: field references in -Y (${btatt.handle}) take their values from it, as from Wireshark's selected frame. Without it they have none, and every comparison with them is false, as in tshark.",
            valueName: "n"
        )
    )
    var referenceFrame: Int?

    @Flag(
        name: [.customShort("2"), .customLong("two-pass")],
        help: ArgumentHelp(
            "Read each file twice, as tshark -2 does: the first pass finds links to later frames, and the second shows them on the earlier frame (a published PSM names the channel opened on it)."
        )
    )
    var twoPass = false

    @Flag(
        name: .customLong("resource-report"),
        help: ArgumentHelp(
            "At exit, write one line to standard error with the peak resident set size and the C heap in use, in KiB: 'bleinspect: resources: peak-rss-kib=N heap-kib=N'. For checking memory bounds."
        )
    )
    var resourceReport = false

    func validate() throws {
        if files.isEmpty { throw ValidationError("Give at least one capture file, or - for standard input.") }
        if let threads, threads < 0 || threads > 16 { throw ValidationError("--threads takes 0 to 16.") }
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("Standard input (-) can be read only once.") }
        if twoPass, files.contains("-") {
            throw ValidationError("-2 reads each capture twice: give files, not standard input.")
        }
        if let referenceFrame {
            if referenceFrame < 1 { throw ValidationError("--ref-frame takes a frame number, from 1.") }
            if files.first == "-" {
                throw ValidationError("--ref-frame reads the capture twice: give a file, not standard input.")
            }
        }
    }

    func run(with toolkit: Toolkit) throws {
        defer { if resourceReport { StandardError.print(ResourceUsage.current().line) } }
        var options = ReadOptions(paths: files)
        frameOutput.apply(to: &options)
        let session = try frameOutput.session(toolkit)
        options.progress = progress
        options.workerThreads = threads
        options.referenceFrame = referenceFrame
        options.twoPass = twoPass
        let runner = ReadRunner(
            session: session,
            options: options,
            output: OutputSink(fd: 1, ownsDescriptor: false),
            errorOutput: { message in StandardError.print(message) }
        )
        let status = runner.run()
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
