import ArgumentParser
import BLECapture
import BLECaptureIO
import BLECaptureLive
import BLEInspectPipeline
import BLEInspectSession

/// `bleinspect live SOURCE`: decodes a controller's HCI traffic, or a live stream, as it happens.
struct Live: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Show live HCI traffic as it happens, filtered, and save it while watching.",
        discussion: """
            Sources:
              hciN             one controller, via the HCI monitor channel (CAP_NET_RAW)
              any              every controller, including ones that appear later
              -                a pcap, pcapng, btsnoop or PacketLogger stream on stdin
              FIFO             the same, from a named pipe (a sniffer, iOS tooling)
              tcp://HOST:PORT  a capture stream from a TCP server (an Android btsnoop
                               server, bleinspect replay)
              --follow FILE    a capture file still being written (btsnoop_hci.log),
                               across rotation and truncation

            Each frame is printed as soon as it is read. Ctrl-C or SIGTERM stops: the \
            -w file is closed as a valid capture, and a summary (frames, dropped, \
            duration) goes to stderr. If hciN goes away, the capture waits for it to \
            return. Monitor read errors that may pass (ENETDOWN, ENODEV, EIO, ...) are \
            reported and retried; after 100 in a row (about 9 s) with no record, the \
            capture ends with status 74.

            Examples:
              bleinspect live hci0
              bleinspect live any -Y 'btatt' -w session.pcapng
              bleinspect live hci0 -w ring.pcapng --max-size 10M --max-files 5
              bleinspect live hci0 --duration 30 -T fields -e btatt.opcode
              bleinspect live hci0 | grep --line-buffered 'Write Request'
              bleinspect live tcp://127.0.0.1:8872
              bleinspect live --follow btsnoop_hci.log

            Exit status: 0 stopped, 64 usage, 65 damaged input, 66 source not opened, \
            68 no such controller, 69 no Bluetooth in the kernel, 73 output not \
            written, 74 read error, 77 no permission.
            """
    )

    @Argument(help: "hciN, any, -, a FIFO, tcp://HOST:PORT, or with --follow a capture file.")
    var source: String

    @Flag(help: "Tail SOURCE, a capture file still being written, across rotation and truncation.")
    var follow = false

    @OptionGroup var frameOutput: FrameOutputOptions

    @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
    var duration: Double?

    @Option(
        name: .customLong("max-size"),
        help: ArgumentHelp(
            "With -w: start a new file when the current one reaches this size (bytes, or with k, M, G).",
            valueName: "size"
        )
    )
    var maxSize: String?

    @Option(
        name: .customLong("max-files"),
        help: ArgumentHelp("With --max-size: keep only the newest N files.", valueName: "n")
    )
    var maxFiles: Int?

    func validate() throws {
        if case .failure(let error) = LiveSource.parse(source, follow: follow) {
            throw ValidationError(error.message)
        }
        if let duration, !(duration > 0 && duration < 1e9) {
            throw ValidationError("--duration takes a number of seconds above 0.")
        }
        if maxSize != nil || maxFiles != nil {
            guard let w = frameOutput.w else { throw ValidationError("--max-size and --max-files go with -w FILE.") }
            if w == "-" { throw ValidationError("A ring buffer needs a file: -w - cannot rotate.") }
        }
        if let maxSize, Self.parseSize(maxSize) == nil {
            throw ValidationError("--max-size '\(maxSize)' is not a size: write for example 1000000, 500k, 10M or 1G.")
        }
        if let maxFiles {
            guard maxSize != nil else { throw ValidationError("--max-files goes with --max-size.") }
            if maxFiles < 1 { throw ValidationError("--max-files takes 1 or more.") }
        }
    }

    /// Bytes, or a number with k, M or G (powers of 1024).
    static func parseSize(_ text: String) -> Int64? {
        var digits = Substring(text)
        var scale: Int64 = 1
        switch text.last {
        case "k", "K": scale = 1 << 10
        case "m", "M": scale = 1 << 20
        case "g", "G": scale = 1 << 30
        default: break
        }
        if scale > 1 { digits = digits.dropLast() }
        guard let n = Int64(digits), n > 0 else { return nil }
        let (bytes, overflow) = n.multipliedReportingOverflow(by: scale)
        return overflow ? nil : bytes
    }

    func run(with toolkit: Toolkit) throws {
        guard case .success(let parsed) = LiveSource.parse(source, follow: follow) else {
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        var options = LiveOptions(source: parsed)
        frameOutput.apply(to: &options.read)
        let session = try frameOutput.session(toolkit)
        options.duration = duration
        if let maxSize, let bytes = Self.parseSize(maxSize) {
            options.rotation = CaptureRotation(maxBytes: bytes, maxFiles: maxFiles)
        }
        let stop = try LiveStop.catchingSignals()
        let runner = LiveRunner(
            session: session,
            options: options,
            output: OutputSink(fd: 1, ownsDescriptor: false),
            errorOutput: { message in StandardError.print(message) },
            stop: stop
        )
        let status = runner.run()
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
