import BLEInspectTestSupport
import Foundation
import Testing

/// The display-filter conformance suite: every case of ConformanceCases.swift through
/// `bleinspect read -Y` and through tshark 4.0 on the same shared captures, compared frame for
/// frame; the must-reject cases through both, where both must reject. Prints the pass tables
/// (and writes them to the file BLEINSPECT_CONFORMANCE_TABLE names), then fails on any
/// difference that is not listed as deliberate.
@Suite(
    "display filters conform to tshark 4.0 (Conformance)",
    .enabled(if: Run.tshark != nil && TestPaths.sharedCapturesAvailable, "needs tshark and ../shared/captures")
)
struct ConformanceTests {
    /// Cases run on one capture: compared cases (indices into `conformanceCases`) or the
    /// must-reject cases (indices into `mustRejectCases`).
    struct Job: Sendable {
        let capture: SharedCapture
        let indices: [Int]
        let expressions: [String]
        let rejects: Bool
    }

    /// Both tools' answers for a job's cases, in the job's order, and the time each took.
    struct Answers: Sendable {
        let job: Job
        let ours: [BleinspectAnswer]
        let theirs: [TsharkAnswer]
        let seconds: (bleinspect: Double, tshark: Double)

        /// Both answers for case `index` of the job's list, if the job ran it.
        func answers(_ index: Int) -> (BleinspectAnswer, TsharkAnswer)? {
            job.indices.firstIndex(of: index).map { (ours[$0], theirs[$0]) }
        }
    }

    /// The must-reject cases need no frames: they run on a capture of six.
    static let rejectCapture = SharedCapture.batteread

    /// A job for each capture some case names, and one for the must-reject cases.
    static var jobs: [Job] {
        var jobs: [Job] = SharedCapture.allCases.compactMap { capture in
            let indices = conformanceCases.indices.filter { conformanceCases[$0].captures.contains(capture) }
            guard !indices.isEmpty else { return nil }
            let expressions = indices.map { conformanceCases[$0].expression }
            return Job(capture: capture, indices: indices, expressions: expressions, rejects: false)
        }
        let expressions = mustRejectCases.map(\.expression)
        jobs.append(
            Job(
                capture: rejectCapture,
                indices: Array(mustRejectCases.indices),
                expressions: expressions,
                rejects: true
            )
        )
        return jobs
    }

    static func run(_ job: Job, scratch: TemporaryDirectory) throws -> Answers {
        let path = TestPaths.sharedCaptures.appendingPathComponent(job.capture.rawValue).path
        let started = Date()
        let theirs = try TsharkFilters.answers(path, job.expressions, scratch: scratch)
        let tsharkDone = Date()
        let ours = try job.expressions.map { try BleinspectFilters.answer(path, $0, scratch: scratch) }
        let seconds = (Date().timeIntervalSince(tsharkDone), tsharkDone.timeIntervalSince(started))
        return Answers(job: job, ours: ours, theirs: theirs, seconds: seconds)
    }

    /// "12 frames", or the rejection.
    static func describe(_ answer: BleinspectAnswer) -> String {
        switch answer {
        case .frames(let f): "\(f.count) frames"
        case .rejected(let message): "rejects: \(message)"
        }
    }

    /// The compared cases' results, and what is wrong with the cases themselves.
    static func judgeCompared(_ runs: [Answers]) -> (results: [CaseResult], problems: [String]) {
        let frameCounts = Dictionary(ManifestEntry.all().map { ($0.name, $0.packetCount) }) { a, _ in a }
        var results: [CaseResult] = []
        var problems: [String] = []
        for (i, c) in conformanceCases.enumerated() {
            var differences: [String] = []
            // Some capture where tshark matches some frames but not all: else the case tells nothing.
            var telling = false
            for capture in c.captures {
                guard let (ours, theirs) = runs.first(where: { $0.job.capture == capture })?.answers(i) else {
                    continue
                }
                guard case .frames(let t) = theirs else {
                    problems.append("tshark rejects the compared case `\(c.expression)` on \(capture.rawValue)")
                    continue
                }
                if !t.isEmpty && t.count < frameCounts[capture.rawValue, default: Int.max] { telling = true }
                guard ours != .frames(t) else { continue }
                var text = "\(capture.rawValue): bleinspect \(describe(ours)) / tshark \(t.count) frames"
                if case .frames(let o) = ours { text += " (\(CaptureComparison.framesApart(o, t)))" }
                differences.append(text)
            }
            if !telling {
                problems.append("`\(c.expression)` matches no frame, or every frame, on each of its captures in tshark")
            }
            let listed = deliberateDifferences[c.expression] != nil
            if listed && differences.isEmpty {
                problems.append("`\(c.expression)` agrees with tshark: take it out of deliberateDifferences")
            }
            let outcome: CaseOutcome = differences.isEmpty ? .passed : (listed ? .deliberate : .failed)
            results.append(CaseResult(c.area, c.feature, c.expression, outcome, differences))
        }
        return (results, problems)
    }

    /// The must-reject cases' results, and what is wrong with the cases themselves.
    static func judgeRejects(_ run: Answers?) -> (results: [CaseResult], problems: [String]) {
        var results: [CaseResult] = []
        var problems: [String] = []
        for (i, c) in mustRejectCases.enumerated() {
            guard let (ours, theirs) = run?.answers(i) else { continue }
            guard case .rejected(let reason) = theirs else {
                problems.append("tshark accepts the must-reject case `\(c.expression)`")
                continue
            }
            guard case .frames = ours else {
                results.append(CaseResult(c.area, .mustReject, c.expression, .passed, []))
                continue
            }
            // An accepted extension may be accepted; rejecting it as tshark does is no fault.
            let outcome: CaseOutcome = acceptedExtensions[c.expression] != nil ? .deliberate : .failed
            let difference = "bleinspect accepts (\(describe(ours))) / tshark rejects: \(reason)"
            results.append(CaseResult(c.area, .mustReject, c.expression, outcome, [difference]))
        }
        return (results, problems)
    }

    /// Deliberate entries that name no case.
    static var strayListEntries: [String] {
        let compared = Set(conformanceCases.map(\.expression))
        let rejected = Set(mustRejectCases.map(\.expression))
        return deliberateDifferences.keys.filter { !compared.contains($0) }.map {
            "deliberateDifferences lists `\($0)`, which is no compared case"
        }
            + acceptedExtensions.keys.filter { !rejected.contains($0) }.map {
                "acceptedExtensions lists `\($0)`, which is no must-reject case"
            }
    }

    static var tsharkVersion: String {
        guard let tshark = Run.tshark, let result = try? Run.program(tshark, ["--version"]),
            let first = result.stdoutText.split(separator: "\n").first
        else { return "tshark" }
        // "TShark (Wireshark) 4.0.17 (Git v4.0.17 packaged as …)"
        return first.replacingOccurrences(of: "TShark (Wireshark)", with: "tshark").components(separatedBy: " (")[0]
    }

    @Test("every case gives tshark's frames, every must-reject case is rejected; prints the pass tables")
    func conformance() async throws {
        let started = Date()
        let scratch = TemporaryDirectory()
        let jobs = Self.jobs
        let runs = try await CaptureComparison.twoAtATime(jobs) { try Self.run($0, scratch: scratch) }
        let compared = Self.judgeCompared(runs.filter { !$0.job.rejects })
        let rejected = Self.judgeRejects(runs.first { $0.job.rejects })
        let results = compared.results + rejected.results

        let report = ConformanceReport(
            results: results,
            tsharkVersion: Self.tsharkVersion,
            seconds: (
                all: Date().timeIntervalSince(started),
                bleinspect: runs.map(\.seconds.bleinspect).reduce(0, +),
                tshark: runs.map(\.seconds.tshark).reduce(0, +)
            )
        )
        print(report.markdown)
        if let path = ProcessInfo.processInfo.environment["BLEINSPECT_CONFORMANCE_TABLE"], !path.isEmpty {
            try report.markdown.write(toFile: path, atomically: true, encoding: .utf8)
        }

        let problems = compared.problems + rejected.problems + Self.strayListEntries
        #expect(problems.isEmpty, "the cases themselves:\n\(problems.joined(separator: "\n"))")
        let failures = results.filter { $0.outcome == .failed }.map(\.expression)
        let failed = failures.count
        #expect(
            failed == 0,
            "\(failed) of \(results.count) cases differ from tshark (see the table above):\n\(failures.joined(separator: "\n"))"
        )
        #expect(results.count == conformanceCases.count + mustRejectCases.count - rejected.problems.count)
        #expect(conformanceCases.count >= 180)
        #expect(mustRejectCases.count >= 25)
        #expect(Set(conformanceCases.map(\.expression)).count == conformanceCases.count, "a compared case twice")
        #expect(Set(mustRejectCases.map(\.expression)).count == mustRejectCases.count, "a must-reject case twice")
    }
}
