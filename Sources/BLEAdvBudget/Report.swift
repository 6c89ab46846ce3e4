import Foundation

/// The results of one run and the threshold that decides its exit status.
public struct BudgetReport: Hashable, Sendable {
    public var results: [AdvertResult]
    /// Findings about the run rather than one advert: source files not read, no call found.
    public var notes: [Finding]
    /// Findings at or above this severity fail the run (`--fail-on`, default error).
    public var failOn: Severity

    public init(results: [AdvertResult], notes: [Finding] = [], failOn: Severity = .error) {
        self.results = results
        self.notes = notes
        self.failOn = failOn
    }

    /// Whether any finding reaches the threshold.
    public var failed: Bool {
        results.contains { $0.reaches(failOn) } || notes.contains { $0.severity >= failOn }
    }

    /// The number of findings of `severity`, the run's notes included.
    public func count(_ severity: Severity) -> Int {
        results.reduce(notes.filter { $0.severity == severity }.count) {
            $0 + $1.findings.filter { $0.severity == severity }.count
        }
    }
}

/// `--format`.
public enum ReportFormat: String, CaseIterable, Hashable, Sendable {
    /// Layouts and findings for people.
    case text
    /// One document, schema `bleinspect.adv-budget/1` (docs/ADV-BUDGET.md).
    case json
    /// GitHub workflow annotations, one line per finding.
    case github
    /// JUnit XML: one test case per advert and profile.
    case junit
}

extension BudgetReport {
    /// The report in `format`, ending with a newline.
    public func rendered(_ format: ReportFormat) -> String {
        switch format {
        case .text: TextReport.render(self)
        case .json: JSONReport.render(self)
        case .github: GitHubReport.render(self)
        case .junit: JUnitReport.render(self)
        }
    }
}

/// Text for people: per advert and profile, the byte layouts with offsets, the name and UUID
/// outcomes, the overflow area and the findings. Untrusted text is escaped.
enum TextReport {
    static func render(_ report: BudgetReport) -> String {
        var out = ""
        for result in report.results {
            render(result, into: &out)
            out += "\n"
        }
        if !report.notes.isEmpty {
            out += "== the run\n"
            for f in report.notes.sorted(by: { $0.severity > $1.severity }) {
                out += "  " + findingLine(f) + "\n"
            }
            out += "\n"
        }
        let errors = report.count(.error)
        let warnings = report.count(.warning)
        let infos = report.count(.info)
        out += "\(report.results.count) check(s): \(errors) error(s), \(warnings) warning(s), \(infos) note(s); "
        let verdict = report.failed ? "FAILED" : report.results.isEmpty ? "NOTHING CHECKED" : "passed"
        out += "\(verdict) (--fail-on \(report.failOn.rawValue))\n"
        return out
    }

    static func render(_ r: AdvertResult, into out: inout String) {
        out += "== \(Quote.text(r.advertID))"
        if let source = r.source { out += " (\(location(source)))" }
        out += " · \(r.profile.title)\n"
        payload(r.advertisingData, overflow: r.overflow, into: &out)
        payload(r.scanResponse, overflow: r.overflow, into: &out)
        if let overflow = r.overflow { overflowArea(overflow, into: &out) }
        if let name = r.name {
            out += "  local name: " + nameText(name) + "\n"
        }
        if !r.uuids.isEmpty {
            out += "  service UUIDs:\n"
            for u in r.uuids { out += "    " + uuidText(u) + "\n" }
        }
        if r.findings.isEmpty {
            out += "  findings: none\n"
        } else {
            out += "  findings:\n"
            for f in r.findings.sorted(by: { $0.severity > $1.severity }) {
                out += "    " + findingLine(f) + "\n"
            }
        }
    }

    /// `error   rule [section]: message`.
    static func findingLine(_ f: Finding) -> String {
        f.severity.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)
            + " \(f.rule) [\(f.section)]: \(f.message)"
    }

    static func location(_ s: SourceLocation) -> String {
        Quote.safe(s.file) + ":\(s.line)" + (s.column.map { ":\($0)" } ?? "")
    }

    private static func payload(_ p: PayloadLayout, overflow: OverflowLayout?, into out: inout String) {
        out += "  \(p.kind.title) (\(p.pdu)): "
        if let partial = p.partial { out += partial + ": " }
        if p.structures.isEmpty && p.trailing.isEmpty {
            out += "empty, \(p.capacity) bytes left\n"
            return
        }
        out += "\(p.used) of \(p.capacity) bytes"
        if let counted = p.countedSize, counted != p.used { out += " sent, \(counted) counted" }
        out += p.left >= 0 ? ", \(p.left) left\n" : ", \(-p.left) OVER\n"
        out += "    " + p.hex(separator: "") + "\n"
        for placed in p.structures {
            let s = placed.structure
            out += "    +\(placed.offset)".padding(toLength: 10, withPad: " ", startingAt: 0)
            let known = !(placed.offset..<(placed.offset + s.size)).contains(where: p.unknownOffsets.contains)
            out += "len \(s.length) type 0x\(Quote.hexByte(s.type))  \(known ? placed.description : partialText(s))\n"
            let encoded = s.encoded
            for start in stride(from: 0, to: encoded.count, by: 16) {
                let line = encoded[start..<min(start + 16, encoded.count)]
                out += "              " + p.hex(line, from: placed.offset + start) + "\n"
            }
        }
        if !p.trailing.isEmpty {
            out += "    +\(p.used - p.trailing.count)  \(p.trailing.count) unparsed bytes: \(Quote.hex(p.trailing))\n"
        }
    }

    /// A structure holding bytes that are not known: its type, and that `??` are unknown.
    static func partialText(_ s: ADStructure) -> String {
        (ADType.name(s.type) ?? "AD type 0x\(Quote.hexByte(s.type))") + ": ?? bytes not known from the sources"
    }

    private static func overflowArea(_ o: OverflowLayout, into out: inout String) {
        out += "  overflow area (\(o.placement.title), offset \(o.offset), 21 bytes; bitmap \(o.order.rawValue)):\n"
        out +=
            o.bitmapUnknown
            ? "    bitmap not known: it holds the bits of UUIDs the sources do not fix\n"
            : "    bitmap " + Quote.hex(o.bitmap) + "\n"
        for bit in o.bits { out += "    " + IOSProfile.uuidBitText(bit) + "\n" }
    }

    static func nameText(_ n: NameOutcome) -> String {
        if let bounds = n.bounds {
            return "\(bounds.expression.map(Quote.code) ?? Quote.text(n.requested)) → \(bounds.summary)"
        }
        guard let onAir = n.onAir, let type = n.type, let place = n.placement else {
            return "\(Quote.text(n.requested)) → not advertised"
        }
        var text = "\(Quote.text(n.requested)) → \(Quote.bytes(onAir)) (0x\(Quote.hexByte(type))) in the \(place.title)"
        text += n.isCut ? ", \(onAir.count) of \(n.requested.utf8.count) bytes" : ", whole"
        return text
    }

    static func uuidText(_ u: UUIDPlacement) -> String {
        if let expression = u.unknownExpression {
            return "\(Quote.code(expression)) (not known from the sources): \(u.verdict ?? "cannot tell where it goes")"
        }
        var text = Describe.uuidText(u.uuid) + ": "
        switch u.place {
        case .advertisingData, .scanResponse:
            let payloadName = u.place == .advertisingData ? "advertising data" : "scan response"
            text += "in the \(payloadName)" + (u.width.map { " (\($0) bytes)" } ?? "")
        case .overflowArea:
            text += "overflow area"
            if let bit = u.overflowBit {
                text += " (hash \(bit.hash), byte \(bit.byte), mask 0x\(Quote.hexByte(bit.msbFirstMask)) MSB-first / "
                text += "0x\(Quote.hexByte(bit.lsbFirstMask)) LSB-first)"
            }
        case .notAdvertised:
            text += "not advertised"
        }
        text += "; iOS app scanning for it (also in the background): \(u.seenByIOSFilteringScanner ? "sees it" : "no")"
        text += "; other scanners (Android, not filtering on it): \(u.seenByOtherScanners ? "see it" : "no")"
        return text
    }
}
