/// The exit statuses of `bleinspect adv-budget`.
public enum AdvBudgetExit: Int32, Hashable, Sendable {
    /// No finding reached `--fail-on`.
    case passed = 0
    /// A finding reached `--fail-on`.
    case failed = 1
    /// Nothing was checked: no advert in the plans, sources or captures (no `startAdvertising`
    /// call found, no source readable), and no finding reached `--fail-on`.
    case nothingChecked = 2
    /// The command line was wrong.
    case usage = 64
    /// A plan file was read but is not a valid plan (bad YAML/JSON, unknown key, bad value).
    case invalidPlan = 65
    /// A plan file could not be read (missing, a directory, no permission).
    case unreadablePlan = 66
}

/// What the command does, without the command line: load, check, render, decide the status.
public enum AdvBudgetRunner {
    public struct Outcome: Hashable, Sendable {
        /// The report, for standard output; empty when plans could not be loaded.
        public var output: String
        /// Messages for standard error.
        public var errors: [String]
        public var status: AdvBudgetExit

        public init(output: String, errors: [String], status: AdvBudgetExit) {
            self.output = output
            self.errors = errors
            self.status = status
        }
    }

    /// Loads every plan file, then checks all adverts in one report: the files' plans, then `plans`
    /// from any other producer (e.g. Swift sources), then `raw` adverts (captures), with the
    /// producers' notes on the run (`notes`: files not read, no call found). Any file that cannot
    /// be loaded stops the run with its error(s) and no report: 66 if one was unreadable, else 65.
    public static func run(
        planPaths: [String] = [],
        plans: [AdvertPlan] = [],
        raw: [RawAdvert] = [],
        notes: [Finding] = [],
        platforms: [Platform]?,
        options: CheckOptions = CheckOptions(),
        format: ReportFormat = .text,
        failOn: Severity = .error
    ) -> Outcome {
        var loaded: [AdvertPlan] = []
        var errors: [String] = []
        var unreadable = false
        for path in planPaths {
            do throws(PlanLoadError) {
                loaded += try PlanFile.load(path: path)
            } catch {
                if case .unreadable = error { unreadable = true }
                errors.append("bleinspect adv-budget: " + error.description)
            }
        }
        guard errors.isEmpty else {
            return Outcome(output: "", errors: errors, status: unreadable ? .unreadablePlan : .invalidPlan)
        }
        var results = AdvBudgetEngine.check(loaded + plans, platforms: platforms, options: options)
        results += raw.map { AdvBudgetEngine.check(raw: $0, options: options) }
        let report = BudgetReport(results: results, notes: notes, failOn: failOn)
        let status: AdvBudgetExit = report.failed ? .failed : results.isEmpty ? .nothingChecked : .passed
        return Outcome(output: report.rendered(format), errors: [], status: status)
    }
}
