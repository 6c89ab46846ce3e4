import Foundation

/// How one case came out.
enum CaseOutcome: Sendable, Equatable {
    case passed
    /// Differs from tshark, and the difference is listed with its reason.
    case deliberate
    case failed
}

/// One case's result: its tags, its outcome, and for each capture where the two tools part,
/// what each gave.
struct CaseResult: Sendable {
    let area: ConformanceArea
    let feature: ConformanceFeature
    let expression: String
    let outcome: CaseOutcome
    /// `capture: bleinspect … / tshark …`, one per capture where they differ.
    let differences: [String]

    init(
        _ area: ConformanceArea,
        _ feature: ConformanceFeature,
        _ expression: String,
        _ outcome: CaseOutcome,
        _ differences: [String]
    ) {
        self.area = area
        self.feature = feature
        self.expression = expression
        self.outcome = outcome
        self.differences = differences
    }
}

/// The pass tables, per feature and per area, in Markdown.
struct ConformanceReport {
    let results: [CaseResult]
    let tsharkVersion: String
    /// Wall-clock time of the whole run, and the time each tool took in all (two captures run
    /// at a time).
    let seconds: (all: Double, bleinspect: Double, tshark: Double)

    private struct Tally {
        var cases = 0
        var passed = 0
        var failed = 0
        var deliberate = 0

        mutating func add(_ outcome: CaseOutcome) {
            cases += 1
            switch outcome {
            case .passed: passed += 1
            case .failed: failed += 1
            case .deliberate: deliberate += 1
            }
        }

        var row: String { "| \(cases) | \(passed) | \(failed) | \(deliberate) |" }
    }

    private func table<Key: Hashable>(
        _ title: String,
        _ keys: [Key],
        _ name: (Key) -> String,
        _ key: (CaseResult) -> Key
    )
        -> [String]
    {
        var tallies: [Key: Tally] = [:]
        var total = Tally()
        for r in results {
            tallies[key(r), default: Tally()].add(r.outcome)
            total.add(r.outcome)
        }
        var lines = ["| \(title) | Cases | Passed | Failed | Deliberate differences |", "|---|---:|---:|---:|---:|"]
        for k in keys {
            guard let t = tallies[k] else { continue }
            lines.append("| \(name(k)) " + t.row)
        }
        lines.append("| **All** " + total.row)
        return lines
    }

    var markdown: String {
        let compared = results.filter { $0.feature != .mustReject }.count
        let failed = results.filter { $0.outcome == .failed }
        var lines = [
            "## Display-filter conformance with \(tsharkVersion)",
            "",
            "\(results.count) cases: \(compared) expressions whose frames are compared with tshark's on real captures, "
                + "\(results.count - compared) expressions tshark rejects. "
                + "\(results.filter { $0.outcome == .passed }.count) pass, \(failed.count) fail, "
                + "\(results.filter { $0.outcome == .deliberate }.count) differ on purpose "
                + "(\(Self.rounded(seconds.all)) s; tshark \(Self.rounded(seconds.tshark)) s and bleinspect "
                + "\(Self.rounded(seconds.bleinspect)) s in all, two captures at a time).",
            "",
            "### By feature",
            "",
        ]
        lines += table("Feature", ConformanceFeature.allCases, \.rawValue, \.feature)
        lines += ["", "### By area", ""]
        lines += table("Area", ConformanceArea.allCases, \.rawValue, \.area)
        if !failed.isEmpty {
            lines += [
                "", "### Failing cases", "", "| Area | Feature | Expression | bleinspect / tshark |",
                "|---|---|---|---|",
            ]
            for r in failed {
                let cells = [
                    r.area.rawValue, r.feature.rawValue, "`\(r.expression)`", r.differences.joined(separator: "<br>"),
                ]
                lines.append("| " + cells.map(Self.cell).joined(separator: " | ") + " |")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func rounded(_ seconds: Double) -> String { String(format: "%.0f", seconds) }

    /// Text safe in a Markdown table cell.
    private static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
