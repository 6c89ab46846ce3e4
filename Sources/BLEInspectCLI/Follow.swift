import ArgumentParser
import BLECapture
import BLEInspectSession
import BLEInspectViews

extension FollowDirection: ExpressibleByArgument {}

struct Follow: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Follow one L2CAP credit-based channel's SDUs or one attribute's values through a capture.",
        discussion: """
            With --l2cap or --psm: the SDUs of LE (and enhanced) credit-based channels, as the \
            L2CAP dissector reassembled them, in capture order. With --att: the values of one \
            attribute, in order: read responses, writes (Write Request, Write Command, Signed \
            Write), notifications and indications. Each item names its frame, its time, its \
            direction (sent: from the capturing host; received: to it) and, when the connection's \
            roles are known, central and peripheral.

            HANDLE, CID and PSM are hex with 0x, or decimal. --att takes a handle (0x0010, 16), \
            a 16-bit UUID as four hex digits without 0x (2A19), a 128-bit UUID, or handle:N or \
            uuid:U to say which.

            With a plugin whose framing: is bound to the channel's PSM (--plugin), the SDUs are \
            shown as the plugin's messages, each once, in the frame where it completes, without \
            its delimiter and padding. --text leaves out the spaces and NULs that end an item and \
            says how many. An item whose plugin counter has a sequence gap, repeat or step back \
            says so.

            --raw writes the bytes alone (the SDUs, even with a plugin); with both directions they \
            are concatenated in capture order, so give --direction to get one side's stream.

            Examples:
              bleinspect follow --psm 0x0085 btsnoop_hci.log
              bleinspect follow --psm 0x0081 --plugin chat.yaml --text chat.btsnoop
              bleinspect follow --l2cap 1:0x40 --direction sent --raw sent.bin coc.btsnoop
              bleinspect follow --att 0x0010 --text capture.pklg
              bleinspect follow --att 2A37 --json -Y 'device.name == "Polar H10"' h10.log
            """
    )

    @Argument(help: "Capture files to read, in order; - reads standard input.")
    var files: [String]

    @Option(
        help: ArgumentHelp(
            "Follow the credit-based channel on this ACL connection with this CID at either end.",
            valueName: "handle:cid"
        )
    )
    var l2cap: String?

    @Option(help: ArgumentHelp("Follow every credit-based channel opened on this PSM.", valueName: "psm"))
    var psm: String?

    @Option(
        help: ArgumentHelp(
            "Follow the values of the attribute at this handle, or of the attributes of this UUID.",
            valueName: "handle|uuid"
        )
    )
    var att: String?

    @Option(help: "Which direction to show: sent (from the capturing host), received, or both.")
    var direction: FollowDirection = .both

    @Flag(help: "Show each item as text, control characters escaped, trailing padding trimmed, instead of a hex dump.")
    var text = false

    @Flag(help: "Write one JSON object per item (schema bleinspect.follow/1, see docs/VIEWS.md).")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Write the bytes alone to this file (- for standard output), in capture order.",
            valueName: "out"
        )
    )
    var raw: String?

    @OptionGroup var frames: ViewFrameOptions

    func validate() throws {
        try ViewArguments.validate(files: files, count: frames.count)
        _ = try selector()
        if [text, json, raw != nil].filter({ $0 }).count > 1 {
            throw ValidationError("Choose one of --text, --json and --raw.")
        }
    }

    /// The one selection given, or the usage error that says what is wrong.
    func selector() throws -> FollowSelector {
        let given = [l2cap, psm, att].compactMap { $0 }
        if given.isEmpty {
            throw ValidationError("Say what to follow: --l2cap HANDLE:CID, --psm PSM or --att HANDLE|UUID.")
        }
        if given.count > 1 { throw ValidationError("Give only one of --l2cap, --psm and --att.") }
        if let l2cap {
            guard let s = FollowSelector.l2cap(l2cap) else {
                throw ValidationError(
                    "--l2cap takes HANDLE:CID, each hex with 0x or decimal, the handle at most 0x0EFF "
                        + "(for example 0x0001:0x0040); got '\(l2cap)'."
                )
            }
            return s
        }
        if let psm {
            guard let s = FollowSelector.psm(psm) else {
                throw ValidationError("--psm takes a PSM, hex with 0x or decimal (for example 0x0085); got '\(psm)'.")
            }
            return s
        }
        let text = att ?? ""
        guard let s = FollowSelector.att(text) else {
            throw ValidationError(
                "--att takes a handle (0x0010 or 16), a UUID (2A19, or 128-bit), or handle:N or uuid:U; got '\(text)'."
            )
        }
        return s
    }

    func run(with toolkit: Toolkit) throws {
        let scan = try frames.scan(files, toolkit)
        let format: FollowFormat = raw.map { .raw(path: $0) } ?? (json ? .json : (text ? .text : .hexDump))
        let status = FollowCommandRunner.run(
            scan: scan,
            selector: try selector(),
            direction: direction,
            format: format,
            output: OutputSink(fd: 1, ownsDescriptor: false),
            errorOutput: { StandardError.print($0) }
        )
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
