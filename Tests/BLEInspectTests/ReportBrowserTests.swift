import BLECapture
import BLECaptureIO
import BLECaptureTestSupport
import BLEDissectorTestSupport
import BLEInspectCore
import Foundation
import Testing

/// Debian's headless chromium, which the browser tests open reports in.
enum Chromium {
    static let path: URL? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].map(URL.init(fileURLWithPath:))
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// The DOM of `html` after its scripts ran, and what the browser logged (console messages
    /// included) on standard error.
    static func dumpDOM(_ html: String) throws -> (dom: String, log: String) {
        guard let path else { return ("", "") }
        let profile = TemporaryDirectory()
        let result = try Run.program(
            path,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
                "--user-data-dir=" + profile.url.path, "--dump-dom", URL(fileURLWithPath: html).absoluteString,
            ]
        )
        return (result.stdoutText, result.stderr)
    }

    /// Lines of the log from the page's console: chromium logs every console message, an
    /// uncaught error included, as `INFO:CONSOLE` whatever its level, and the report writes none.
    static func consoleErrors(_ log: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter { $0.contains(":CONSOLE") || $0.contains("Uncaught") }
    }
}

/// What the tests read from a dumped report.
struct ReportDOM {
    let dom: String

    var connectionSections: Int { dom.matches(of: /<section id="conn-\d+" class="connection"/).count }
    var charts: Int { dom.matches(of: /<svg [^>]*class="timeline"/).count }

    /// Each `rect.stall`'s data-start and data-end.
    var stalls: [[Int64?]] {
        dom.matches(of: /<rect class="stall"[^>]*>/).map { m in
            let tag = String(m.output)
            return [Self.value(tag, "data-start"), Self.value(tag, "data-end")]
        }
    }

    static func value(_ tag: String, _ name: String) -> Int64? {
        guard let r = tag.range(of: name + "=\"") else { return nil }
        return Int64(tag[r.upperBound...].prefix { $0 != "\"" })
    }

    /// The response-time marks (dots and error squares) of each connection section, in order.
    var latencyPoints: [Int] {
        dom.split(separator: "<section id=\"conn-").dropFirst().map { section in
            section.matches(of: /<circle class="att"|<rect class="att-error"/).count
        }
    }

    /// The bytes of the SDU throughput bars (`data-bytes`) of each connection section.
    var sduBytes: [Int] {
        dom.split(separator: "<section id=\"conn-").dropFirst().map { section in
            section.matches(of: /<rect class="sdu [^"]*"[^>]*data-bytes="(\d+)"/).reduce(0) {
                $0 + (Int($1.output.1) ?? 0)
            }
        }
    }

    /// The `<html>` start tag, where the page's script leaves its marks.
    var root: String { dom.firstMatch(of: /<html[^>]*>/).map { String($0.output) } ?? "" }

    /// The page's own script ran, reported no error, and nothing called `alert`.
    var scriptRanCleanly: Bool {
        root.contains("data-script=\"ran\"") && !root.contains("data-alert")
            && !dom.contains("<p id=\"report-error\"")
    }
}

extension ReportDOM: CustomStringConvertible {
    /// Short, for failure messages: the root tag and the size.
    var description: String { "ReportDOM(\(root), \(dom.utf8.count) bytes)" }
}

@Suite("report in a real browser", .enabled(if: Chromium.path != nil, "chromium is not installed"))
struct ReportBrowserTests {
    /// The shared capture with twelve connections and a GATT discovery on each.
    static let blefun = TestPaths.sharedCaptures.appendingPathComponent("blefun_btsnoop_hci.log").path

    /// `conns --json` of `capture`: its connections.
    static func conns(_ capture: String) throws -> [[String: Any]] {
        let result = try Run.bleinspect(["conns", "--json", capture])
        let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        return json?["connections"] as? [[String: Any]] ?? []
    }

    /// Every stall `conns --json` lists, as [start_time_us, end_time_us].
    static func stalls(_ connections: [[String: Any]]) -> [[Int64?]] {
        connections.flatMap { c in
            (c["channels"] as? [[String: Any]] ?? []).flatMap { ch in
                ["sent", "received"].flatMap { side in
                    ((ch[side] as? [String: Any])?["stalls"] as? [[String: Any]] ?? []).map {
                        [($0["start_time_us"] as? NSNumber)?.int64Value, ($0["end_time_us"] as? NSNumber)?.int64Value]
                    }
                }
            }
        }
    }

    /// Writes the report of `captures` and opens it in chromium.
    static func open(_ captures: [String], in dir: TemporaryDirectory) throws -> (ReportDOM, log: String) {
        let out = dir.path("report.html")
        let result = try Run.bleinspect(["report"] + captures + ["-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let (dom, log) = try Chromium.dumpDOM(out)
        return (ReportDOM(dom: dom), log)
    }

    /// The checks every capture gets: one section and one chart per connection of `conns`,
    /// the stalls where `conns --json` puts them, no console errors.
    static func check(_ capture: String) throws -> [[Int64?]] {
        let dir = TemporaryDirectory()
        let (report, log) = try open([capture], in: dir)
        let connections = try conns(capture)
        #expect(!connections.isEmpty)
        #expect(report.connectionSections == connections.count)
        #expect(report.charts == connections.count)
        #expect(report.stalls == stalls(connections))
        // One mark per response time conns counted; past 4,096 a connection's are thinned, to
        // between 2,049 and 4,096 (every error response kept).
        let responses = connections.map {
            ((($0["att"] as? [String: Any])?["response_time_us"] as? [String: Any])?["count"] as? Int) ?? -1
        }
        for (drawn, count) in zip(report.latencyPoints, responses) {
            if count <= 4096 { #expect(drawn == count) } else { #expect((2049...4096).contains(drawn)) }
        }
        #expect(report.latencyPoints.count == responses.count)
        // The throughput bars hold every byte of the SDUs conns counts.
        let sduBytes = connections.map { c in
            (c["channels"] as? [[String: Any]] ?? []).reduce(0) { sum, ch in
                sum + ["sent", "received"].reduce(0) { $0 + (((ch[$1] as? [String: Any])?["sdu_bytes"] as? Int) ?? 0) }
            }
        }
        #expect(report.sduBytes == sduBytes)
        #expect(Chromium.consoleErrors(log).isEmpty, "\(Chromium.consoleErrors(log))")
        #expect(report.scriptRanCleanly)
        return report.stalls
    }

    @Test("le-coc-stall: one connection, its two stalls where conns --json and the fixture put them")
    func stallCapture() throws {
        let drawn = try Self.check(TestPaths.projectCapture("le-coc-stall.btsnoop"))
        let fixture = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: TestPaths.projectCapture("le-coc-stall.stalls.json")))
        )
        let expected = ((fixture as? [String: Any])?["stalls"] as? [[String: Any]] ?? []).map {
            [($0["start_time_us"] as? NSNumber)?.int64Value, ($0["end_time_us"] as? NSNumber)?.int64Value]
        }
        #expect(expected.count == 2)
        #expect(drawn == expected)
    }

    @Test(
        "a shared capture with twelve connections: twelve sections and charts",
        .enabled(if: TestPaths.sharedCapturesAvailable, "../shared/captures is absent")
    )
    func manyConnections() throws {
        let path = ReportBrowserTests.blefun
        _ = try Self.check(path)
        #expect(try Self.conns(path).count == 12)
    }

    /// An LE Advertising Report from c0:de:c0:de:00:0N with `name` as its Complete Local Name.
    static func advert(_ n: UInt8, name: String, frame: Int) -> CapturedFrame {
        let nameBytes = Array(name.utf8)
        let ad: [UInt8] = [0x02, 0x01, 0x06, UInt8(nameBytes.count + 1), 0x09] + nameBytes
        let report: [UInt8] = [0x02, 0x01, 0x00, 0x01, n, 0x00, 0xDE, 0xC0, 0xDE, 0xC0, UInt8(ad.count)] + ad + [0xC4]
        let bytes: [UInt8] = [0x3E, UInt8(report.count)] + report
        var f = StatelessFrameTests.frame(.hciEvent, bytes)
        f.number = frame
        f.timestamp = Timestamp(seconds: 1_735_689_600 + Int64(frame), nanoseconds: 0, precision: .microseconds)
        return f
    }

    @Test("hostile names show as text and nothing in them runs")
    func hostileNames() throws {
        let dir = TemporaryDirectory()
        let capture = dir.path("hostile.btsnoop")
        let script = "<script>alert(1)</script>"
        let quotes = "\"><img src=x onerror=alert(2)>'"
        try CaptureFiles.write(
            [Self.advert(1, name: script, frame: 1), Self.advert(2, name: quotes, frame: 2)],
            to: capture,
            format: .btsnoop
        )
        let (report, log) = try Self.open([capture], in: dir)
        // The names are in the devices table, as text.
        #expect(report.dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(report.dom.contains("\"&gt;&lt;img src=x onerror=alert(2)&gt;'"))
        // The page's own script is the only script element, and no image came from a name.
        #expect(report.dom.matches(of: /<script/).count == 1)
        #expect(!report.dom.contains("<img"))
        #expect(report.scriptRanCleanly)
        #expect(Chromium.consoleErrors(log).isEmpty, "\(Chromium.consoleErrors(log))")
    }
}

@Suite("report command")
struct ReportCommandTests {
    @Test("exit statuses as the other views: 64 without -o, 66 for a missing capture, 73 for an unwritable output")
    func exitStatuses() throws {
        let dir = TemporaryDirectory()
        let capture = TestPaths.projectCapture("le-coc-stall.btsnoop")
        #expect(try Run.bleinspect(["report", capture]).status == 64)
        let missing = try Run.bleinspect(["report", dir.path("none.btsnoop"), "-o", dir.path("r.html")])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("none.btsnoop"))
        let unwritable = try Run.bleinspect(["report", capture, "-o", dir.path("no/such/dir/r.html")])
        #expect(unwritable.status == 73)
        #expect(unwritable.stderr.contains("cannot create"))
        let written = try Run.bleinspect(["report", capture, "-o", dir.path("r.html")])
        #expect(written.status == 0 && written.stdout.isEmpty)
        let html = try String(contentsOfFile: dir.path("r.html"), encoding: .utf8)
        // Self-contained: nothing is fetched.
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(
            !html.contains("src=") && !html.contains("<link") && !html.contains("@import") && !html.contains("url(")
        )
        #expect(!html.contains("class=\"problems\""))
    }

    @Test(
        "a capture cut short: exit 65 as read gives, and the page says where it stopped and that it holds only the frames before"
    )
    func damagedInput() throws {
        let dir = TemporaryDirectory()
        let whole = try Data(contentsOf: URL(fileURLWithPath: TestPaths.projectCapture("le-coc-stall.btsnoop")))
        let cut = dir.path("cut.btsnoop")
        try whole.prefix(3000).write(to: URL(fileURLWithPath: cut))
        let read = try Run.bleinspect(["read", cut])
        let report = try Run.bleinspect(["report", cut, "-o", dir.path("r.html")])
        #expect(report.status == 65 && report.status == read.status)
        let html = try String(contentsOfFile: dir.path("r.html"), encoding: .utf8)
        let message = try #require(report.stderr.split(separator: "\n").first.map(String.init))
        #expect(message.contains("byte offset"))
        #expect(html.contains("class=\"problems\""))
        // The message (a path, a frame, an offset) has no character HTML escapes.
        #expect(html.contains(message))
        #expect(html.contains("holds only the frames read before"))
    }
}
