public import ArgumentParser
public import BLEAdvBudget

extension ReportFormat: ExpressibleByArgument {}
extension Severity: ExpressibleByArgument {
    /// `--fail-on` takes warning or error (info never fails a run).
    public static var allValueStrings: [String] { ["warning", "error"] }
}
extension OverflowBitOrder: ExpressibleByArgument {}

/// The options of `adv-budget` that do not involve captures, shared by `bleinspect adv-budget`
/// and `bleinspect-adv`.
public struct AdvBudgetOptions: ParsableArguments {
    public init() {}

    @Argument(help: "Plan files (YAML or JSON).")
    public var plans: [String] = []

    @Option(
        name: .long,
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "Swift and Objective-C sources to read for startAdvertising calls (files or directories); checked with the ios profile.",
            valueName: "path"
        )
    )
    public var sources: [String] = []

    @Option(
        name: .long,
        parsing: .upToNextOption,
        help: ArgumentHelp("The same as --sources (Objective-C files found are read too).", valueName: "path")
    )
    public var swift: [String] = []

    @Option(
        help: ArgumentHelp(
            "The clang that reads Objective-C (default: $BLEINSPECT_CLANG, else clang on PATH).",
            valueName: "path"
        )
    )
    public var clang: String?

    @Option(
        name: .long,
        parsing: .singleValue,
        help: "Profiles to check: ios, android, legacy, extended (comma-separated or repeated)."
    )
    public var platform: [String] = []

    @Option(help: "Output: text, json, github (workflow annotations) or junit (XML).")
    public var format: ReportFormat = .text

    @Option(name: .customLong("fail-on"), help: "Fail (exit 1) when a finding is at least: warning or error.")
    public var failOn: Severity = .error

    @Option(
        name: .customLong("controller-max"),
        help: "The controller's maximum advertising data length for --platform extended (31...1650)."
    )
    public var controllerMax: Int = 1650

    @Option(
        name: .customLong("overflow-bit-order"),
        help: "Bit order of the overflow bitmap bytes in layouts: msb-first (iOS 13/14) or lsb-first (iOS 11)."
    )
    public var overflowBitOrder: OverflowBitOrder = .msbFirst

    /// Every source path, `--sources` then `--swift`.
    public var sourcePaths: [String] { sources + swift }

    /// Checks the options. `otherInput` is true when the caller was given inputs of its own
    /// (captures), and `otherInputHelp` names them for the error when nothing was given.
    public func validate(otherInput: Bool = false, otherInputHelp: String? = nil) throws {
        guard !plans.isEmpty || !sourcePaths.isEmpty || otherInput else {
            let other = otherInputHelp.map { ", or \($0)" } ?? ""
            throw ValidationError("Give at least one plan file, sources with --sources\(other).")
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
    public func platforms() throws -> [Platform]? {
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

    /// Reads the sources and plan files and checks everything with the `raw` adverts of the
    /// caller, whose `notes` on the run (captures) come first in the report. Sources that cannot be found are an error on standard error and status 66.
    public func outcome(raw: [RawAdvert] = [], notes callerNotes: [Finding] = []) throws -> AdvBudgetRunner.Outcome {
        var extra: [AdvertPlan] = []
        var notes = callerNotes
        if !sourcePaths.isEmpty {
            switch SourceReading.read(sourcePaths, clang: clang) {
            case .success(let read):
                extra = read.adverts.map(AdvertPlan.init(source:))
                notes += read.notes
            case .failure(let failure):
                return AdvBudgetRunner.Outcome(
                    output: "",
                    errors: ["bleinspect adv-budget: " + Quote.safe(failure.description)],
                    status: .unreadablePlan
                )
            }
        }
        return AdvBudgetRunner.run(
            planPaths: plans,
            plans: extra,
            raw: raw,
            notes: notes,
            platforms: try platforms(),
            options: CheckOptions(extendedMaximum: controllerMax, overflowBitOrder: overflowBitOrder),
            format: format,
            failOn: failOn
        )
    }
}
