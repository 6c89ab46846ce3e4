import BLECapture
import BLECaptureIO
import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

@testable import BLEInspectViews

@Suite("report: RSSI and advertising interval per device")
struct ReportDevicesTests {
    /// Per device (its identity address, else its address, upper case), from `read -T fields`
    /// of the advertising reports with an RSSI: [adverts, minimum, maximum] and the median time
    /// between the first 1,025 adverts, as the table writes it.
    static func expected(_ capture: String) throws -> [String: (counts: [Int], interval: String)] {
        let read = try Run.bleinspect([
            "read", "-Y", "bthci_evt.rssi && bthci_evt.le_meta_subevent", "-T", "fields", "-e", "device.addr", "-e",
            "device.identity_addr", "-e", "bthci_evt.rssi", "-e", "frame.time_epoch", capture,
        ])
        #expect(read.status == 0)
        var rssi: [String: [Int]] = [:]
        var times: [String: [Int64]] = [:]
        for line in read.stdoutText.split(separator: "\n") {
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard cells.count == 4, let address = cells[0].split(separator: ",").first,
                let value = cells[2].split(separator: ",").first.flatMap({ Int($0) }), value != 127
            else { continue }
            let key = (cells[1].isEmpty ? String(address) : cells[1]).uppercased()
            rssi[key, default: []].append(value)
            let parts = cells[3].split(separator: ".")
            if parts.count == 2, let s = Int64(parts[0]), let f = Int64(parts[1].prefix(6)) {
                times[key, default: []].append(s * 1_000_000 + f)
            }
        }
        return rssi.mapValues { _ in ([], "") }.reduce(into: [:]) { out, entry in
            let values = rssi[entry.key] ?? []
            let t = Array((times[entry.key] ?? []).prefix(1025))
            let gaps = zip(t.dropFirst(), t).map { $0 - $1 }.sorted()
            out[entry.key] = (
                [values.count, values.min() ?? 0, values.max() ?? 0],
                gaps.isEmpty ? "" : ConnsTime.short(gaps[gaps.count / 2])
            )
        }
    }

    @Test(
        "the devices table's adverts, RSSI range and advertising interval equal read's, for each device of a shared capture",
        .enabled(if: TestPaths.sharedCapturesAvailable, "../shared/captures is absent")
    )
    func sharedCapture() throws {
        let dir = TemporaryDirectory()
        let out = dir.path("report.html")
        #expect(try Run.bleinspect(["report", ReportBrowserTests.blefun, "-o", out]).status == 0)
        let html = try String(contentsOfFile: out, encoding: .utf8)
        let expected = try Self.expected(ReportBrowserTests.blefun)
        #expect(expected.count == 5)
        let rows = html.matches(
            of:
                /<tr><td>([0-9A-F:]{17})<\/td><td>[^<]*<\/td><td>\d+<\/td><td><button[^>]*>\d+<\/button><\/td><td>(\d+)<\/td><td>(-?\d+) \/ [-0-9.]+ \/ (-?\d+)<\/td><td>([^<]*)<\/td><\/tr>/
        )
        #expect(rows.count == expected.count)
        for row in rows {
            let e = try #require(expected[String(row.output.1)])
            #expect([Int(row.output.2), Int(row.output.3), Int(row.output.4)] == e.counts.map { Optional($0) })
            #expect(String(row.output.5) == e.interval)
        }
        // One RSSI chart per device heard twice or more, the busiest first, downsampled and said so.
        #expect(html.matches(of: /<svg [^>]*class="rssi-chart"/).count == 4)
        #expect(html.contains("286 adverts; RSSI min / mean / max -68 / -55.8 / -44 dBm"))
        #expect(html.contains("each point is the mean of up to 4 adverts"))
    }

    @Test("an advertising report event with two reports: the page says it counted the first only")
    func severalReports() throws {
        let dir = TemporaryDirectory()
        let capture = dir.path("two-reports.btsnoop")
        // Two reports in one LE Advertising Report event, each whole in turn (as controllers
        // send them and Wireshark reads them): c0:de:c0:de:00:01 at -60 dBm, :02 at -70 dBm.
        func report(_ n: UInt8, rssi: UInt8) -> [UInt8] {
            [0x00, 0x01, n, 0x00, 0xDE, 0xC0, 0xDE, 0xC0, 0x03, 0x02, 0x01, 0x06, rssi]
        }
        let body: [UInt8] = [0x02, 0x02] + report(1, rssi: 0xC4) + report(2, rssi: 0xBA)
        var two = StatelessFrameTests.frame(.hciEvent, [0x3E, UInt8(body.count)] + body)
        two.number = 2
        two.timestamp = Timestamp(seconds: 1_735_689_602, nanoseconds: 0, precision: .microseconds)
        try CaptureFiles.write(
            [ReportBrowserTests.advert(3, name: "one", frame: 1), two],
            to: capture,
            format: .btsnoop
        )
        let read = try Run.bleinspect([
            "read", "-Y", "bthci_evt.le_num_reports == 2 && !_ws.malformed", "--count", capture,
        ])
        #expect(read.stdoutText == "1\n", "the event must decode whole, with its two reports")
        let out = dir.path("report.html")
        #expect(try Run.bleinspect(["report", capture, "-o", out]).status == 0)
        let html = try String(contentsOfFile: out, encoding: .utf8)
        #expect(html.contains("an advertising report event carried several reports"))
        let single = dir.path("single.btsnoop")
        try CaptureFiles.write([ReportBrowserTests.advert(3, name: "one", frame: 1)], to: single, format: .btsnoop)
        #expect(try Run.bleinspect(["report", single, "-o", out]).status == 0)
        #expect(!(try String(contentsOfFile: out, encoding: .utf8)).contains("carried several reports"))
    }

    @Test("SDU bytes fall in buckets of 10 ms that double in width to fit the span, no byte lost")
    func rate() {
        var r = ReportRate()
        r.add(1_000_000, bytes: 100)
        r.add(1_005_000, bytes: 20)
        r.add(1_015_000, bytes: 7)
        #expect(r.width == 10_000 && r.buckets == [120, 7])
        // 3 s later: past 256 buckets of 10 ms, so 20 ms, 40 ms, … until it fits.
        r.add(4_000_000, bytes: 1)
        #expect(r.width == 20_000 && r.buckets.count == 151 && r.buckets.first == 127 && r.buckets.last == 1)
        #expect(r.total == 128 && r.buckets.reduce(0, +) == 128)
        r.add(0, bytes: 5)
        #expect(r.buckets.first == 132)
    }

    @Test("a long series is downsampled evenly: bounded points, every sample counted, means and ranges kept")
    func series() {
        var s = ReportSeries(limit: 4)
        for k in 0..<10 { s.add(time: Int64(k) * 10, value: Int64(k)) }
        #expect(s.points.count <= 4 && s.samples == 10 && s.points.reduce(0) { $0 + $1.count } == 10)
        #expect(s.downsampled && s.perPoint == 4)
        #expect(s.points.map(\.time) == [0, 40, 80])
        #expect(s.points.map(\.mean) == [1.5, 5.5, 8.5])
        #expect(s.points.map(\.low) == [0, 4, 8] && s.points.map(\.high) == [3, 7, 9])
        var flat = ReportSeries(limit: 8)
        for k in 0..<5 { flat.add(time: Int64(k), value: -50) }
        #expect(flat.points.count == 5 && !flat.downsampled)
    }
}
