import ArgumentParser
import BLEAdvBudget
import BLEAdvBudgetCapture
import BLEAdvBudgetCommand
import BLECapture
import BLEInspectCore
import BLEInspectPlugins
import BLEInspectSession
import BLEInspectViews

struct AdvBudget: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "adv-budget",
        abstract: "Check advertising payloads against the byte budgets of iOS, Android and the Bluetooth spec.",
        discussion: AdvBudgetHelp.discussion + """


            --capture reads the adverts a host set or received from captures and \
            checks them against the legacy or extended limits. The same check without \
            captures is `bleinspect-adv`, which builds on macOS.
            """
    )

    @OptionGroup var options: AdvBudgetOptions

    @Option(
        name: .long,
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "Captures to read for the adverts a host set (LE Set Advertising / Scan Response Data, extended forms) or received; each is checked against the legacy or extended limits.",
            valueName: "file"
        )
    )
    var capture: [String] = []

    func validate() throws {
        try options.validate(otherInput: !capture.isEmpty, otherInputHelp: "captures with --capture")
    }

    func run(with toolkit: Toolkit) throws {
        var captureStatus = ExitStatus.success
        var raw: [RawAdvert] = []
        var notes: [Finding] = []
        if !capture.isEmpty {
            let session = try SessionSetup.session(toolkit, plugins: .empty)
            let read = CapturedAdverts.read(CaptureScan(session: session, paths: capture) { StandardError.print($0) })
            // A damaged capture: its adverts before the damage are still checked, and the exit
            // status says the input was damaged unless a finding fails the check.
            if read.status != .success && read.status != .damagedInput { throw ExitCode(read.status.rawValue) }
            captureStatus = read.status
            raw = read.adverts
            if read.linkLayerFrames > 0 {
                notes.append(
                    Rules.captureLinkLayer.finding(
                        "\(read.linkLayerFrames) link-layer frame(s) of an air sniffer were not read: --capture checks "
                            + "the adverts a host sets or receives over HCI, so the adverts sniffed on air are not checked"
                    )
                )
            }
        }
        let outcome = try options.outcome(raw: raw, notes: notes)
        for line in outcome.errors { StandardError.print(line) }
        if !outcome.output.isEmpty {
            let out = OutputSink(fd: 1, ownsDescriptor: false)
            out.append(outcome.output)
            out.flush()
        }
        if outcome.status != .passed { throw ExitCode(outcome.status.rawValue) }
        if captureStatus != .success { throw ExitCode(captureStatus.rawValue) }
    }
}
