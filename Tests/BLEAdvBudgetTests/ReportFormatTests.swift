import BLEAdvBudget
import BLEInspectCore
import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The four output formats, escaping, the runner's exit statuses, the rule catalog and the
/// Swift-source input hook.
@Suite("report formats")
struct ReportFormatTests {
    /// One advert with an error under iOS foreground (name cut), one that passes, and one whose
    /// id carries control characters and markup, from a Swift source.
    static func results() -> [AdvertResult] {
        var hostile = plan("evil\u{1B}[31m<x>&\"\n::error::", name: "ok")
        hostile.source = SourceLocation(file: "App/Adv,er:tiser.swift", line: 12, column: 5)
        return AdvBudgetEngine.check(
            [
                plan("long", name: "com.example.corebluetooth", uuids: ["4BBA6CAA-BFC8-46A6-AB3D-CFCA5C96D39E"]),
                plan("short", name: "Device", uuids: ["180A"]), hostile,
            ],
            platforms: [.ios]
        )
    }

    @Test("text: layouts with offsets and the cut name, no raw control characters")
    func text() {
        let out = BudgetReport(results: Self.results()).rendered(.text)
        #expect(out.contains("local name: \"com.example.corebluetooth\" → \"com.exam\" (0x08)"))
        #expect(out.contains("+21"))
        #expect(out.contains("error   ios.name.truncated"))
        #expect(!out.contains("\u{1B}"))
        #expect(out.contains("evil\\x1B[31m<x>&\\\"\\n::error::"))
        #expect(out.hasSuffix("FAILED (--fail-on error)\n"))
    }

    @Test("json: parses, with the schema, the bytes and the findings")
    func json() throws {
        let out = BudgetReport(results: Self.results()).rendered(.json)
        let object = try JSONSerialization.jsonObject(with: Data(out.utf8))
        let document = try #require(object as? [String: Any])
        #expect(document["schema"] as? String == "bleinspect.adv-budget/2")
        #expect(document["failed"] as? Bool == true)
        let results = try #require(document["results"] as? [[String: Any]])
        #expect(results.count == 6)
        let first = results[0]
        #expect(first["advert"] as? String == "long")
        #expect(first["profile"] as? String == "ios-foreground")
        let adv = try #require(first["advertisingData"] as? [String: Any])
        #expect(adv["hex"] as? String == "02011A11079ED3965CCACF3DABA646C8BFAA6CBA4B0908636F6D2E6578616D")
        #expect(adv["left"] as? Int == 0)
        let findings = try #require(first["findings"] as? [[String: Any]])
        #expect(findings.first?["rule"] as? String == "ios.name.truncated")
        #expect(findings.first?["severity"] as? String == "error")
        // The hostile id survives as text: JSON escapes it.
        #expect(results[4]["advert"] as? String == "evil\u{1B}[31m<x>&\"\n::error::")
    }

    @Test("github: one command per line, file and line from the source, properties escaped")
    func github() {
        let out = BudgetReport(results: Self.results()).rendered(.github)
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(
            lines.allSatisfy { $0.hasPrefix("::error ") || $0.hasPrefix("::warning ") || $0.hasPrefix("::notice ") }
        )
        #expect(
            lines.contains {
                $0.hasPrefix("::error title=ios.name.truncated::long [ios-foreground]: ")
            }
        )
        // The Swift-source advert carries file, line and column; ',' and ':' are percent-encoded.
        #expect(
            lines.contains {
                $0.hasPrefix(
                    "::warning file=App/Adv%2Cer%3Atiser.swift,line=12,col=5,title=ios.background.name-not-advertised"
                )
            }
        )
        #expect(!out.contains("\u{1B}"))
        #expect(lines.last?.hasPrefix("::error title=adv-budget::") == true)
    }

    @Test("junit: well-formed XML, one test case per advert × profile, failures at the threshold")
    func junit() throws {
        let out = BudgetReport(results: Self.results()).rendered(.junit)
        let counter = XMLCounter()
        let parser = XMLParser(data: Data(out.utf8))
        parser.delegate = counter
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(counter.counts["testcase"] == 6)
        #expect(counter.counts["testsuite"] == 2)
        #expect(counter.counts["failure"] == 1)  // only "long" in the foreground has an error
        #expect(counter.names.contains("evil\\x1B[31m<x>&\"\n::error::") == false)
        #expect(counter.names.contains("evil\\u{1B}[31m<x>&\"\n::error::"))
        // With --fail-on warning the background cases fail too.
        let strict = BudgetReport(results: Self.results(), failOn: .warning).rendered(.junit)
        #expect(strict.contains("failures=\"4\""))
    }

    @Test("runner: exit statuses 0, 1, 65 and 66")
    func runnerStatuses() {
        let dir = ScratchDirectory()
        let passing = dir.write(
            "adverts:\n  - id: a\n    local_name: Device\n    service_uuids: [180A]\n",
            to: "ok.yaml"
        )
        let failing = dir.write("adverts:\n  - id: b\n    local_name: com.example.corebluetooth.app\n", to: "long.yaml")
        let invalid = dir.write("adverts:\n  - id: c\n    colour: red\n", to: "bad.yaml")
        // Foreground passes; the background has warnings only.
        #expect(AdvBudgetRunner.run(planPaths: [passing], platforms: [.ios]).status == .passed)
        #expect(AdvBudgetRunner.run(planPaths: [passing], platforms: [.ios], failOn: .warning).status == .failed)
        // No UUIDs: 2 + 29 name bytes > 28 → cut to 26 → error (§2.4 table). Every file is checked.
        #expect(AdvBudgetRunner.run(planPaths: [passing, failing], platforms: [.ios]).status == .failed)
        let bad = AdvBudgetRunner.run(planPaths: [passing, invalid], platforms: [.ios])
        #expect(bad.status == .invalidPlan)
        #expect(bad.output.isEmpty)
        #expect(bad.errors.count == 1 && bad.errors[0].contains("bad.yaml:3:5: adverts[0]: unknown key `colour`"))
        let missing = AdvBudgetRunner.run(planPaths: [dir.url.path + "/nope.yaml", invalid], platforms: nil)
        #expect(missing.status == .unreadablePlan)
        #expect(missing.errors.count == 2)
    }

    @Test("every rule is documented in docs/ADV-BUDGET.md with its severity; uncertain rules are never errors")
    func ruleCatalog() throws {
        let doc = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/ADV-BUDGET.md"), encoding: .utf8)
        #expect(Set(Rules.all.map(\.id)).count == Rules.all.count)
        for rule in Rules.all {
            #expect(doc.contains("| `\(rule.id)` | \(rule.severity.rawValue) |"), "\(rule.id)")
            // §5 lists what is uncertain: such rules give warnings, never errors.
            if rule.section.contains("§5") { #expect(rule.severity != .error, "\(rule.id)") }
        }
        // Every finding the engine produced in these results belongs to the catalog.
        let ids = Set(Rules.all.map(\.id))
        for r in Self.results() { for f in r.findings { #expect(ids.contains(f.rule), "\(f.rule)") } }
    }

    @Test("Swift-source hook: unresolved values are warnings naming the expression; bad UUID strings are errors")
    func sourceHook() throws {
        let source = SourceAdvertisement(
            location: SourceLocation(file: "App/Peripheral.swift", line: 31, column: 9),
            localName: .unresolved(expression: "Config.deviceName"),
            serviceUUIDs: [.resolved("180A"), .unresolved(expression: "Services.all"), .resolved("not-a-uuid")],
            otherKeys: ["CBAdvertisementDataManufacturerDataKey"]
        )
        let p = AdvertPlan(source: source)
        #expect(p.id == "App/Peripheral.swift:31")
        #expect(p.data.localName == nil)
        #expect(p.data.serviceUUIDs == [uuid("180A")])
        #expect(p.platforms == [.ios])
        let r = AdvBudgetEngine.check(p, profile: .iosForeground)
        let unresolved = r.findings("source.unresolved")
        #expect(unresolved.count == 2)
        #expect(unresolved.allSatisfy { $0.severity == .warning })
        #expect(unresolved[0].message.contains("`Config.deviceName`"))
        #expect(unresolved[1].message.contains("`Services.all`"))
        #expect(r.findings("source.uuid.invalid").first?.severity == .error)
        #expect(r.findings("ios.key.dropped").count == 1)
        #expect(r.source == SourceLocation(file: "App/Peripheral.swift", line: 31, column: 9))
        // Plan files, source plans and raw adverts in one run: the source plan's own platform
        // (ios: 2 profiles), the file's advert (ios, android: 3) and the raw advert (1).
        let dir = ScratchDirectory()
        let file = dir.write("adverts:\n  - id: a\n    local_name: A\n", to: "a.yaml")
        let raw = RawAdvert(label: "frame 1", kind: .legacy, advertisingData: bytes("020106"))
        let combined = AdvBudgetRunner.run(
            planPaths: [file],
            plans: [p],
            raw: [raw],
            platforms: nil,
            format: .json
        )
        #expect(combined.output.components(separatedBy: "\"profile\" :").count - 1 == 6)
        #expect(combined.status == .failed)  // source.uuid.invalid is an error
        let github = BudgetReport(results: [r]).rendered(.github)
        #expect(
            github.contains(
                "::warning file=App/Peripheral.swift,line=31,col=9,title=source.unresolved::"
            )
        )
    }
}

/// Counts elements and collects `name` attributes of a parsed XML document.
private final class XMLCounter: NSObject, XMLParserDelegate, @unchecked Sendable {
    var counts: [String: Int] = [:]
    var names: [String] = []

    func parser(
        _ parser: XMLParser,
        didStartElement element: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        counts[element, default: 0] += 1
        if element == "testcase", let name = attributes["name"] { names.append(name) }
    }
}
