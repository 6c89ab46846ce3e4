import ArgumentParser
import BLECapture
import BLEInspectSession
import BLEInspectViews

struct Report: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract:
            "Write a self-contained HTML report of a capture: overview, findings, timelines, sequence charts, GATT.",
        discussion: """
            One HTML file that needs no network: an overview (the capture's span, frames by \
            protocol, devices, connections and findings: stalls, ATT errors, failed pairings, \
            malformed frames, warnings, dual-role channels, each linking to its connection), and \
            per connection a timeline on one time axis: parameter updates, ATT MTU, PHY, data \
            length and encryption; ATT request→response times (errors as red squares); each \
            credit-based channel's credits and SDU throughput per direction, with stalls \
            shaded. Each device's adverts: RSSI over time and advertising interval. Each chart has a \
            table with the same events. The numbers are those of `conns`. Each device's GATT \
            database as `gatt` rebuilds it; per connection a sequence chart (ATT, L2CAP \
            signalling, SMP, LL control, K-frames; runs folded). Every frame number \
            shown opens that frame's decode, as `read -V` prints it (at most 2,000 are \
            embedded). See docs/REPORT.md.

            Examples:
              bleinspect report btsnoop_hci.log -o report.html
              bleinspect report -o polar.html -Y 'device.name contains "Polar"' capture.pklg
            """
    )

    @OptionGroup var input: ViewInput

    @Option(name: .customShort("o"), help: ArgumentHelp("The HTML file to write.", valueName: "path"))
    var output: String

    func validate() throws {
        try ViewArguments.validate(files: input.files, count: input.frames.count)
        if output.isEmpty { throw ValidationError("-o takes the path of the HTML file to write.") }
    }

    func run(with toolkit: Toolkit) throws {
        let status = ReportCommandRunner.run(
            scan: try input.frames.scan(input.files, toolkit),
            outputPath: output,
            errorOutput: { StandardError.print($0) }
        )
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
