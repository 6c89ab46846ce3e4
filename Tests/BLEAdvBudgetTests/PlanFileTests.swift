import BLEAdvBudget
import BLEInspectCore
import Foundation
import Testing

/// Plan files: the schema of docs/ADV-BUDGET.md in YAML and JSON, and the errors for bad files.
@Suite("plan files")
struct PlanFileTests {
    static let yaml = """
        version: 1
        adverts:
          - id: heart-rate
            local_name: "HR Sensor"
            service_uuids: [180D, "0000FEF3", 4BBA6CAA-BFC8-46A6-AB3D-CFCA5C96D39E]
            manufacturer_data:
              - company: 0x0059
                data: "01 02:03-04"
            service_data:
              - uuid: FEAA
                data: 0x00E2
            tx_power: -4
            appearance: 0x0340
            flags: 0x06
            connectable: true
            discoverable: false
            platforms: [android, legacy]
            scan_response:
              local_name: HR
              tx_power: 0
          - id: beacon
            connectable: false
            ibeacon: {uuid: E2C56DB5-DFFB-48D2-B060-D0F5A71096E0, major: 1, minor: 2, measured_power: -59}
          - id: eddystone-url
            eddystone:
              url: {tx_power: -21, url: "https://google.com"}
            source: {file: App/Advertiser.swift, line: 42, column: 9}
        """

    /// The same plan as JSON (company as a quoted hex string: JSON has no hex numbers).
    static let json = """
        {
          "version": 1,
          "adverts": [
            {
              "id": "heart-rate",
              "local_name": "HR Sensor",
              "service_uuids": ["180D", "0000FEF3", "4BBA6CAA-BFC8-46A6-AB3D-CFCA5C96D39E"],
              "manufacturer_data": [{"company": "0x0059", "data": "01020304"}],
              "service_data": [{"uuid": "FEAA", "data": "00E2"}],
              "tx_power": -4, "appearance": 832, "flags": 6,
              "connectable": true, "discoverable": false,
              "platforms": ["android", "legacy"],
              "scan_response": {"local_name": "HR", "tx_power": 0}
            },
        \t{"id": "beacon", "connectable": false,
             "ibeacon": {"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 2, "measured_power": -59}},
            {"id": "eddystone-url", "eddystone": {"url": {"tx_power": -21, "url": "https://google.com"}},
             "source": {"file": "App/Advertiser.swift", "line": 42, "column": 9}}
          ]
        }
        """

    static func expected() -> [AdvertPlan] {
        var hr = AdvertPlan(id: "heart-rate")
        hr.data = AdvertFields(
            localName: "HR Sensor",
            serviceUUIDs: [uuid("180D"), uuid("0000FEF3"), uuid("4BBA6CAA-BFC8-46A6-AB3D-CFCA5C96D39E")],
            manufacturerData: [ManufacturerData(company: 0x0059, data: [1, 2, 3, 4])],
            serviceData: [ServiceData(uuid: uuid("FEAA"), data: [0x00, 0xE2])],
            txPower: -4,
            appearance: 0x0340
        )
        hr.flags = 6
        hr.discoverable = false
        hr.platforms = [.android, .legacy]
        hr.scanResponse = AdvertFields(localName: "HR", txPower: 0)
        var beacon = AdvertPlan(id: "beacon", connectable: false)
        beacon.iBeacon = IBeacon(
            uuid: uuid("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"),
            major: 1,
            minor: 2,
            measuredPower: -59
        )
        var url = AdvertPlan(id: "eddystone-url")
        url.eddystone = .url(txPower: -21, url: "https://google.com")
        url.source = SourceLocation(file: "App/Advertiser.swift", line: 42, column: 9)
        return [hr, beacon, url]
    }

    /// The plans without the plan-file positions (which differ between the two texts).
    static func withoutPlanPositions(_ plans: [AdvertPlan]) -> [AdvertPlan] {
        plans.map { p in
            var p = p
            if p.source?.file.hasSuffix(".yaml") == true || p.source?.file.hasSuffix(".json") == true { p.source = nil }
            return p
        }
    }

    @Test("YAML and JSON forms give the same plans")
    func yamlAndJSON() throws {
        let fromYAML = try PlanFile.parse(Self.yaml, file: "plan.yaml")
        let fromJSON = try PlanFile.parse(Self.json, file: "plan.json")
        #expect(Self.withoutPlanPositions(fromYAML) == Self.expected())
        #expect(Self.withoutPlanPositions(fromJSON) == Self.expected())
        // Adverts without `source` point at their entry in the plan file (for annotations).
        #expect(fromYAML[0].source == SourceLocation(file: "plan.yaml", line: 3, column: 5))
        #expect(fromYAML[2].source == SourceLocation(file: "App/Advertiser.swift", line: 42, column: 9))
    }

    @Test(
        "bad plans name the file, the line and the key",
        arguments: [
            // (text, expected description)
            (
                "adverts:\n  - id: a\n    local_nmae: x\n",
                "bad.yaml:3:5: adverts[0]: unknown key `local_nmae` (expected one of: appearance, connectable, "
                    + "discoverable, eddystone, flags, ibeacon, id, local_name, manufacturer_data, platforms, "
                    + "scan_response, service_data, service_uuids, source, tx_power)"
            ),
            (
                "adverts:\n  - id: a\n    service_uuids: [180A, XYZ]\n",
                "bad.yaml:3:27: adverts[0].service_uuids[1]: \"XYZ\" is not a UUID (4, 8 or 32 hex digits, dashes allowed)"
            ),
            (
                "adverts:\n  - id: a\n    tx_power: 300\n",
                "bad.yaml:3:15: adverts[0].tx_power: expected an integer in -128...127, got 300"
            ),
            (
                "adverts:\n  - id: a\n    manufacturer_data: [{company: 76, data: ABC}]\n",
                "bad.yaml:3:45: adverts[0].manufacturer_data[0].data: an odd number of hex digits"
            ),
            (
                "adverts:\n  - id: a\n  - id: a\n",
                "bad.yaml:3:5: adverts[1].id: the id \"a\" is already used by the advert at line 2"
            ),
            ("adverts: []\n", "bad.yaml:1:10: adverts: expected a non-empty list of adverts"),
            (
                "advert:\n  - id: a\n",
                "bad.yaml:1:1: (top level): unknown key `advert` (expected one of: adverts, version)"
            ),
            (
                "adverts:\n  - local_name: x\n",
                "bad.yaml:2:5: adverts[0]: missing key `id` (the advert's name in reports)"
            ),
            (
                "adverts:\n  - id: a\n    platforms: [ios, windows]\n",
                "bad.yaml:3:22: adverts[0].platforms[1]: unknown platform \"windows\" (expected one of: ios, android, legacy, extended)"
            ),
            (
                "adverts:\n  - id: a\n    eddystone: {url: {tx_power: 0, url: \"ftp://x\"}}\n",
                "bad.yaml:3:41: adverts[0].eddystone.url.url: the Eddystone-URL \"ftp://x\" must start with http://www., https://www., http:// or https://"
            ),
            ("", "bad.yaml: the plan is empty; it needs an `adverts` list"),
        ]
    )
    func badPlans(text: String, expected: String) {
        #expect(throws: PlanError.self) { try PlanFile.parse(text, file: "bad.yaml") }
        do {
            _ = try PlanFile.parse(text, file: "bad.yaml")
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test("YAML syntax errors and duplicate keys carry a line")
    func syntaxErrors() {
        for (text, line) in [("adverts:\n  - id: [unclosed\n", 3), ("adverts:\n  - id: a\n    id: b\n", 2)] {
            do {
                _ = try PlanFile.parse(text, file: "s.yaml")
                Issue.record("no error for \(text)")
            } catch {
                #expect(error.file == "s.yaml")
                #expect(error.line == line, "\(error)")
            }
        }
    }

    @Test("missing, directory and non-UTF-8 files")
    func unreadable() {
        let dir = ScratchDirectory()
        #expect(throws: PlanLoadError.unreadable(file: dir.url.path + "/none.yaml", reason: "no such file")) {
            try PlanFile.load(path: dir.url.path + "/none.yaml")
        }
        #expect(throws: PlanLoadError.unreadable(file: dir.url.path, reason: "it is a directory")) {
            try PlanFile.load(path: dir.url.path)
        }
        let path = dir.url.appendingPathComponent("latin1.yaml").path
        FileManagerShim.write([0x61, 0x3A, 0x20, 0xE9, 0x0A], to: path)
        #expect(throws: PlanLoadError.invalid(PlanError(file: path, message: "the file is not UTF-8 text"))) {
            try PlanFile.load(path: path)
        }
    }

    @Test("a control character in a bad plan's text is escaped in the error")
    func escapedErrors() {
        do {
            _ = try PlanFile.parse("adverts:\n  - id: a\n    service_uuids: [\"\u{1B}[31m\"]\n", file: "e\u{1B}.yaml")
            Issue.record("no error")
        } catch {
            #expect(!error.description.contains("\u{1B}"))
            #expect(error.description.hasPrefix("e\\x1B.yaml:3:"))
        }
    }

    @Test("untrusted sizes: a 10,000-byte name and 10,000 bytes of data are checked, not trapped")
    func hugeValues() throws {
        let name = String(repeating: "é", count: 5000)
        let data = String(repeating: "AB", count: 10_000)
        let text =
            "adverts:\n  - id: huge\n    local_name: \"\(name)\"\n    service_uuids: [180A]\n"
            + "    manufacturer_data: [{company: 1, data: \"\(data)\"}]\n"
            + "    platforms: [ios, android, legacy, extended]\n"
        let plans = try PlanFile.parse(text, file: "huge.yaml")
        let results = AdvBudgetEngine.check(plans, platforms: nil)
        #expect(results.count == 5)
        for r in results { #expect(!r.errors.isEmpty, "\(r.profile.id)") }
        for format in ReportFormat.allCases { #expect(!BudgetReport(results: results).rendered(format).isEmpty) }
    }
}

enum FileManagerShim {
    static func write(_ bytes: [UInt8], to path: String) {
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }
}
