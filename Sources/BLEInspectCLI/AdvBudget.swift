import ArgumentParser
import BLEAdvBudget
import BLEAdvBudgetSwift
import BLECapture
import BLEInspect
import BLEInspectCore

extension ReportFormat: ExpressibleByArgument {}
extension Severity: ExpressibleByArgument {
    /// `--fail-on` takes warning or error (info never fails a run).
    public static var allValueStrings: [String] { ["warning", "error"] }
}
extension OverflowBitOrder: ExpressibleByArgument {}

struct AdvBudget: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adv-budget",
        abstract: "Check advertising payloads against the byte budgets of iOS, Android and the Bluetooth spec.",
        discussion: """
            Reads plan files (YAML or JSON; schema in docs/ADV-BUDGET.md) describing
            adverts. For each advert and platform profile it shows the bytes that go on
            air with their offsets, what is cut ("com.example.corebluetooth" →
            "com.exam" (0x08)), which service UUIDs go to Apple's overflow area and
            who still sees them, and the bytes left. Every finding has a rule id and
            a severity; facts that are not established give warnings, never errors.

            Profiles (--platform, comma-separated or repeated; default: each advert's
            own `platforms`, else ios,android):
              ios       iOS foreground and background (startAdvertising)
              android   BluetoothLeAdvertiser.startAdvertising, legacy
              legacy    the plan as written, 31 + 31 bytes
              extended  the plan as written, 254 bytes per PDU, 1650 in total
                        or --controller-max

            Examples:
              bleinspect adv-budget adverts.yaml
              bleinspect adv-budget adverts.yaml --platform ios,android --format github
              bleinspect adv-budget beacon.json --platform legacy,extended
              bleinspect adv-budget adverts.yaml --format junit > adv-budget.xml

            Exit status: 0 no finding at or above --fail-on, 1 some finding reaches
            it, 64 usage error, 65 invalid plan file, 66 unreadable plan file.
            """
    )

    @Argument(help: "Plan files (YAML or JSON).")
    var plans: [String] = []

    @Option(
        name: .long,
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "Swift sources to read for startAdvertising calls (files or directories); checked with the ios profile.",
            valueName: "path"
        )
    )
    var swift: [String] = []

    @Option(
        name: .long,
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "Captures to read for the adverts a host set (LE Set Advertising / Scan Response Data, extended forms) or received; each is checked against the legacy or extended limits.",
            valueName: "file"
        )
    )
    var capture: [String] = []

    @Option(
        name: .long,
        parsing: .singleValue,
        help: "Profiles to check: ios, android, legacy, extended (comma-separated or repeated)."
    )
    var platform: [String] = []

    @Option(help: "Output: text, json, github (workflow annotations) or junit (XML).")
    var format: ReportFormat = .text

    @Option(name: .customLong("fail-on"), help: "Fail (exit 1) when a finding is at least: warning or error.")
    var failOn: Severity = .error

    @Option(
        name: .customLong("controller-max"),
        help: "The controller's maximum advertising data length for --platform extended (31...1650)."
    )
    var controllerMax: Int = 1650

    @Option(
        name: .customLong("overflow-bit-order"),
        help: "Bit order of the overflow bitmap bytes in layouts: msb-first (iOS 13/14) or lsb-first (iOS 11)."
    )
    var overflowBitOrder: OverflowBitOrder = .msbFirst

    func validate() throws {
        guard !plans.isEmpty || !swift.isEmpty || !capture.isEmpty else {
            throw ValidationError(
                "Give at least one plan file, Swift sources with --swift, or captures with --capture."
            )
        }
        guard failOn != .info else { throw ValidationError("--fail-on takes warning or error.") }
        guard CheckOptions.extendedMaximumRange.contains(controllerMax) else {
            throw ValidationError(
                "--controller-max must be in 31...1650 (HCI_LE_Read_Maximum_Advertising_Data_Length)."
            )
        }
        _ = try platforms()
    }

    /// The platforms named by `--platform`, nil when none was given.
    func platforms() throws -> [Platform]? {
        var names: [String] = []
        for option in platform {
            for part in option.split(separator: ",") {
                let name = String(part.filter { $0 != " " })
                if !name.isEmpty { names.append(name) }
            }
        }
        guard !names.isEmpty else { return nil }
        return try names.map { name in
            guard let p = Platform(rawValue: name) else {
                let known = Platform.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("Unknown platform '\(name)'; expected one of: \(known).")
            }
            return p
        }
    }

    func run() throws {
        var captureStatus = ExitStatus.success
        var extra: [AdvertPlan] = []
        if !swift.isEmpty {
            switch AdvBudgetSources.adverts(swift) {
            case .success(let adverts): extra = adverts.map(AdvertPlan.init(source:))
            case .failure(let error):
                StandardError.print("bleinspect: \(TerminalSafeText.escape(error.description))")
                throw ExitCode(66)
            }
        }
        var raw: [RawAdvert] = []
        if !capture.isEmpty {
            let read = CapturedAdverts.read(CaptureScan(paths: capture) { StandardError.print($0) })
            // A damaged capture: its adverts before the damage are still checked, and the exit
            // status says the input was damaged unless a finding fails the check.
            if read.status != .success && read.status != .damagedInput { throw ExitCode(read.status.rawValue) }
            captureStatus = read.status
            raw = read.adverts
        }
        let outcome = AdvBudgetRunner.run(
            planPaths: plans,
            extraPlans: extra,
            raw: raw,
            platforms: try platforms(),
            options: CheckOptions(extendedMaximum: controllerMax, overflowBitOrder: overflowBitOrder),
            format: format,
            failOn: failOn
        )
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
