import BLEInspectCore
import Foundation

/// JSON, schema `bleinspect.adv-budget/2` (docs/ADV-BUDGET.md). Bytes are upper-case hex strings;
/// text fields carry the raw text (JSON escapes it); messages are already escaped.
enum JSONReport {
    static let schema = "bleinspect.adv-budget/2"

    struct Document: Encodable {
        var schema: String
        var failOn: Severity
        var failed: Bool
        var summary: Summary
        /// Nothing was checked: no advert in the plans, sources or captures.
        var nothingChecked: Bool
        /// Findings about the run: source files not read, no call found.
        var notes: [Finding]
        var results: [Result]
    }

    struct Summary: Encodable {
        var checks: Int
        var errors: Int
        var warnings: Int
        var infos: Int
    }

    struct Result: Encodable {
        var advert: String
        var variant: String?
        var profile: String
        var source: SourceLocation?
        var passed: Bool
        var advertisingData: Payload
        var scanResponse: Payload
        var overflowArea: Overflow?
        var localName: Name?
        var serviceUUIDs: [UUIDEntry]
        var findings: [Finding]
    }

    struct Payload: Encodable {
        var pdu: String
        var capacity: Int
        var used: Int
        var counted: Int?
        var left: Int
        /// `??` for bytes whose values are not known.
        var hex: String
        /// Set when the layout is one case of values the sources do not fix: which case.
        var partial: String?
        var structures: [Structure]
        var unparsedHex: String?
    }

    struct Structure: Encodable {
        var offset: Int
        var length: Int
        var type: Int
        var typeName: String?
        var hex: String
        var description: String
    }

    struct Overflow: Encodable {
        var placement: PayloadKind
        var offset: Int
        var bitOrder: OverflowBitOrder
        /// Nil when UUIDs the sources do not fix are in the area.
        var bitmap: String?
        var uuids: [OverflowBit]
    }

    struct Name: Encodable {
        var requested: String
        var onAir: String?
        var onAirHex: String?
        var type: Int?
        var placement: PayloadKind?
        /// `always`, `never` or `unknown` over every value the sources leave open.
        var cut: CutVerdict
        /// The name's expression when the sources do not fix it.
        var expression: String?
        /// The most name bytes on air in any case, when the name or the UUIDs are not fixed.
        var maximumBytesOnAir: Int?
        var verdict: String?
    }

    struct UUIDEntry: Encodable {
        /// Nil when the sources do not fix the UUID; `expression` names it.
        var uuid: String?
        var expression: String?
        var verdict: String?
        var placement: UUIDPlacement.Place
        var width: Int?
        var seenByIOSFilteringScanner: Bool
        var seenByOtherScanners: Bool
    }

    static func render(_ report: BudgetReport) -> String {
        let document = Document(
            schema: schema,
            failOn: report.failOn,
            failed: report.failed,
            summary: Summary(
                checks: report.results.count,
                errors: report.count(.error),
                warnings: report.count(.warning),
                infos: report.count(.info)
            ),
            nothingChecked: report.results.isEmpty,
            notes: report.notes,
            results: report.results.map { result($0, failOn: report.failOn) }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(document) else { return "{}\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private static func result(_ r: AdvertResult, failOn: Severity) -> Result {
        Result(
            advert: r.advertID,
            variant: r.variant,
            profile: r.profile.id,
            source: r.source,
            passed: !r.reaches(failOn),
            advertisingData: payload(r.advertisingData),
            scanResponse: payload(r.scanResponse),
            overflowArea: r.overflow.map {
                Overflow(
                    placement: $0.placement,
                    offset: $0.offset,
                    bitOrder: $0.order,
                    bitmap: $0.bitmapUnknown ? nil : Quote.hex($0.bitmap, separator: ""),
                    uuids: $0.bits
                )
            },
            localName: r.name.map {
                Name(
                    requested: $0.requested,
                    onAir: $0.onAir.map { String(decoding: $0, as: UTF8.self) },
                    onAirHex: $0.onAir.map { Quote.hex($0, separator: "") },
                    type: $0.type.map(Int.init),
                    placement: $0.placement,
                    cut: $0.cut,
                    expression: $0.bounds?.expression,
                    maximumBytesOnAir: $0.bounds?.maximumOnAir,
                    verdict: $0.bounds?.summary
                )
            },
            serviceUUIDs: r.uuids.map {
                UUIDEntry(
                    uuid: $0.unknownExpression == nil ? $0.uuid.description : nil,
                    expression: $0.unknownExpression,
                    verdict: $0.verdict,
                    placement: $0.place,
                    width: $0.width,
                    seenByIOSFilteringScanner: $0.seenByIOSFilteringScanner,
                    seenByOtherScanners: $0.seenByOtherScanners
                )
            },
            findings: r.findings
        )
    }

    private static func payload(_ p: PayloadLayout) -> Payload {
        Payload(
            pdu: p.pdu,
            capacity: p.capacity,
            used: p.used,
            counted: p.countedSize,
            left: p.left,
            hex: p.hex(separator: ""),
            partial: p.partial,
            structures: p.structures.map {
                Structure(
                    offset: $0.offset,
                    length: $0.structure.length,
                    type: Int($0.structure.type),
                    typeName: ADType.name($0.structure.type),
                    hex: p.hex($0.structure.encoded, from: $0.offset, separator: ""),
                    description: $0.description
                )
            },
            unparsedHex: p.trailing.isEmpty ? nil : Quote.hex(p.trailing, separator: "")
        )
    }
}

/// GitHub workflow commands: `::error file=F,line=L,col=C,title=RULE::message`, one per finding
/// (info → notice). File and line come from the advert's source: the Swift call, or the plan entry.
enum GitHubReport {
    static func render(_ report: BudgetReport) -> String {
        var out = ""
        for r in report.results {
            for f in r.findings {
                let command: String =
                    switch f.severity {
                    case .error: "error"
                    case .warning: "warning"
                    case .info: "notice"
                    }
                var properties: [String] = []
                if let source = r.source {
                    properties.append("file=" + Quote.githubProperty(source.file))
                    properties.append("line=\(source.line)")
                    if let column = source.column { properties.append("col=\(column)") }
                }
                properties.append("title=" + Quote.githubProperty(f.rule))
                let message = "\(Quote.safe(r.advertID)) [\(r.profile.id)]: \(f.message) (ADVERTISING.md \(f.section))"
                out += "::\(command) " + properties.joined(separator: ",") + "::" + Quote.githubData(message) + "\n"
            }
        }
        for f in report.notes {
            let command = f.severity == .error ? "error" : f.severity == .warning ? "warning" : "notice"
            out += "::\(command) title=" + Quote.githubProperty(f.rule) + "::" + Quote.githubData(f.message) + "\n"
        }
        let verdict = report.failed ? "failed" : report.results.isEmpty ? "nothing checked" : "passed"
        let summary =
            "adv-budget: \(report.results.count) check(s), \(report.count(.error)) error(s), "
            + "\(report.count(.warning)) warning(s); " + verdict
            + " (--fail-on \(report.failOn.rawValue))"
        out +=
            (report.failed ? "::error title=adv-budget::" : "::notice title=adv-budget::")
            + Quote.githubData(summary) + "\n"
        return out
    }
}

/// JUnit XML: a test suite per profile, a test case per advert; a `<failure>` when findings reach
/// the threshold (all of them listed in it), every finding in `<system-out>`.
enum JUnitReport {
    static func render(_ report: BudgetReport) -> String {
        var profiles: [String] = []
        var byProfile: [String: [AdvertResult]] = [:]
        for r in report.results {
            if byProfile[r.profile.id] == nil { profiles.append(r.profile.id) }
            byProfile[r.profile.id, default: []].append(r)
        }
        let notesFail = report.notes.contains { $0.severity >= report.failOn }
        let failures = report.results.filter { $0.reaches(report.failOn) }.count + (notesFail ? 1 : 0)
        let tests = report.results.count + (report.notes.isEmpty ? 0 : 1)
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"bleinspect adv-budget\" tests=\"\(tests)\" failures=\"\(failures)\">\n"
        for profile in profiles {
            let results = byProfile[profile] ?? []
            let failed = results.filter { $0.reaches(report.failOn) }.count
            out += "  <testsuite name=\"adv-budget.\(x(profile))\" tests=\"\(results.count)\" failures=\"\(failed)\">\n"
            for r in results {
                out += "    <testcase classname=\"adv-budget.\(x(profile))\" name=\"\(x(r.advertID))\""
                if let source = r.source { out += " file=\"\(x(source.file))\" line=\"\(source.line)\"" }
                out += ">\n"
                let failing = r.findings.filter { $0.severity >= report.failOn }
                if let first = failing.first {
                    let message = failing.count == 1 ? first.message : "\(first.message) (+\(failing.count - 1) more)"
                    out += "      <failure type=\"\(x(first.rule))\" message=\"\(x(message))\">"
                    out += x(failing.map(line).joined(separator: "\n"))
                    out += "</failure>\n"
                }
                var text = ""
                TextReport.render(r, into: &text)
                out += "      <system-out>\(x(text))</system-out>\n"
                out += "    </testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        if !report.notes.isEmpty {
            let failing = report.notes.filter { $0.severity >= report.failOn }
            out += "  <testsuite name=\"adv-budget.run\" tests=\"1\" failures=\"\(failing.isEmpty ? 0 : 1)\">\n"
            out += "    <testcase classname=\"adv-budget.run\" name=\"sources\">\n"
            if let first = failing.first {
                out += "      <failure type=\"\(x(first.rule))\" message=\"\(x(first.message))\">"
                out += x(failing.map(line).joined(separator: "\n")) + "</failure>\n"
            }
            out += "      <system-out>\(x(report.notes.map(line).joined(separator: "\n")))</system-out>\n"
            out += "    </testcase>\n  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    private static func line(_ f: Finding) -> String { "\(f.severity.rawValue) \(f.rule) [\(f.section)]: \(f.message)" }

    private static func x(_ s: String) -> String { Quote.xml(s) }
}
