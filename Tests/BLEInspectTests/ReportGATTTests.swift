import BLEDissectorTestSupport
import Foundation
import Testing

@Suite("report: the GATT databases, in a real browser", .enabled(if: Chromium.path != nil, "chromium is not installed"))
struct ReportGATTTests {
    /// Per device of `gatt --json`: its services, characteristics and attributes outside any service.
    static func counts(_ capture: String) throws -> [[Int]] {
        let result = try Run.bleinspect(["gatt", "--json", capture])
        #expect(result.status == 0)
        let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        return (json?["devices"] as? [[String: Any]] ?? []).map { d in
            let services = d["services"] as? [[String: Any]] ?? []
            return [
                services.count,
                services.reduce(0) { $0 + (($1["characteristics"] as? [Any])?.count ?? 0) },
                (d["other_attributes"] as? [Any])?.count ?? 0,
            ]
        }
    }

    /// The same counts in the report's DOM, per `section.gatt-device`.
    static func drawn(_ capture: String) throws -> [[Int]] {
        let dir = TemporaryDirectory()
        let (report, log) = try ReportBrowserTests.open([capture], in: dir)
        #expect(Chromium.consoleErrors(log).isEmpty, "\(Chromium.consoleErrors(log))")
        #expect(report.scriptRanCleanly)
        let devices = report.dom.split(separator: "<section class=\"gatt-device\"").dropFirst()
        return devices.map { d in
            let outside = d.split(separator: "Attributes outside the discovered services:").dropFirst().first ?? ""
            return [
                d.matches(of: /<li class="gatt-service"/).count,
                d.matches(of: /<li class="gatt-characteristic"/).count,
                outside.matches(of: /<li class="gatt-attribute"/).count,
            ]
        }
    }

    @Test("gatt-discovery: one device, its services and characteristics as gatt --json counts them")
    func projectCapture() throws {
        let capture = TestPaths.projectCapture("gatt-discovery.btsnoop")
        let expected = try Self.counts(capture)
        #expect(expected.count == 1 && (expected.first?[0] ?? 0) >= 5)
        #expect(try Self.drawn(capture) == expected)
    }

    @Test(
        "a shared capture with fifteen discoveries: the same services and characteristics as gatt --json",
        .enabled(if: TestPaths.sharedCapturesAvailable, "../shared/captures is absent")
    )
    func sharedCapture() throws {
        let expected = try Self.counts(ReportBrowserTests.blefun)
        #expect(expected == [[5, 11, 0]])
        #expect(try Self.drawn(ReportBrowserTests.blefun) == expected)
    }
}
