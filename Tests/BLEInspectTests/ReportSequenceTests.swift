import BLEDissectorTestSupport
import Foundation
import Testing

@Suite(
    "report: the sequence charts, in a real browser",
    .enabled(if: Chromium.path != nil, "chromium is not installed")
)
struct ReportSequenceTests {
    /// Per connection of `conns --json`, the messages `read` finds on it by the L2CAP channel
    /// of each frame: [ATT, signalling, SMP, K-frames], counted from `-T fields` of frame
    /// number, connection handle and CID, within the connection's frames and handle.
    static func expected(_ capture: String) throws -> [[Int]] {
        let read = try Run.bleinspect([
            "read", "-Y", "btatt || btl2cap.cid == 5 || btsmp || btl2cap.cid >= 0x40", "-T", "fields", "-e",
            "frame.number", "-e", "bthci_acl.chandle", "-e", "btl2cap.cid", capture,
        ])
        #expect(read.status == 0)
        let frames: [(frame: Int, handle: Int, cid: Int)] = read.stdoutText.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard cells.count == 3, let n = Int(cells[0]), let h = Int(cells[1].dropFirst(2), radix: 16),
                let cid = cells[2].split(separator: ",").first.flatMap({ Int($0.dropFirst(2), radix: 16) })
            else { return nil }
            return (n, h, cid)
        }
        return try ReportBrowserTests.conns(capture).map { c in
            let first = ((c["first_frame"] as? [String: Any])?["frame"] as? Int) ?? 0
            let last = ((c["end"] as? [String: Any])?["frame"] as? Int) ?? Int.max
            let handle = c["handle"] as? Int ?? -1
            let mine = frames.filter { $0.handle == handle && $0.frame >= first && $0.frame <= last }
            return [
                mine.count { $0.cid == 4 }, mine.count { $0.cid == 5 }, mine.count { $0.cid == 6 },
                mine.count { $0.cid >= 0x40 },
            ]
        }
    }

    /// Per connection section of the report's DOM: [ATT, signalling, SMP, K-frames] summed over
    /// the arrows' `data-count` (a folded run counts its messages), the chart's total and what
    /// it did not draw.
    static func drawn(_ capture: String) throws -> [(kinds: [Int], total: Int, dropped: Int)] {
        let dir = TemporaryDirectory()
        let (report, log) = try ReportBrowserTests.open([capture], in: dir)
        #expect(Chromium.consoleErrors(log).isEmpty, "\(Chromium.consoleErrors(log))")
        #expect(report.scriptRanCleanly)
        return report.dom.split(separator: "<section id=\"conn-").dropFirst().map { section in
            var kinds = [0, 0, 0, 0]
            for m in section.matches(of: /<li class="(?:msg|run) [^"]*" data-kind="([a-z-]+)" data-count="(\d+)"/) {
                let k = ["att", "signalling", "smp", "k-frame"].firstIndex(of: String(m.output.1))
                if let k { kinds[k] += Int(m.output.2) ?? 0 }
            }
            let chart = section.firstMatch(of: /<ol class="sequence"[^>]*data-messages="(\d+)" data-dropped="(\d+)"/)
            return (kinds, chart.flatMap { Int($0.output.1) } ?? 0, chart.flatMap { Int($0.output.2) } ?? 0)
        }
    }

    @Test("le-coc-stall: every ATT, signalling and SMP message and K-frame once, as read counts them")
    func stallCapture() throws {
        let capture = TestPaths.projectCapture("le-coc-stall.btsnoop")
        let expected = try Self.expected(capture)
        let drawn = try Self.drawn(capture)
        #expect(expected == [[0, 11, 0, 19]])
        #expect(drawn.map(\.kinds) == expected)
        #expect(drawn.map(\.total) == [30] && drawn.map(\.dropped) == [0])
    }

    @Test("a folded run unfolds on a click on its arrow, and a click on its frame number shows the decode instead")
    func unfold() throws {
        let dir = TemporaryDirectory()
        let out = dir.path("report.html")
        #expect(
            try Run.bleinspect(["report", TestPaths.projectCapture("le-coc-stall.btsnoop"), "-o", out]).status == 0
        )
        let script = """
            <script id="test-unfold">
            (function () {
              var runs = document.querySelectorAll("li.run > details");
              var r = document.createElement("p"); r.id = "test-result"; document.body.appendChild(r);
              var first = runs[0], second = runs[1];
              var shown = function (d) {
                return Array.prototype.filter.call(d.querySelectorAll("ol.members > li"), function (li) {
                  return li.checkVisibility(); }).length;
              };
              var before = shown(first);
              first.querySelector("summary").click();
              second.querySelector("summary button.frame").click();
              r.setAttribute("data-runs", runs.length);
              r.setAttribute("data-before", before);
              r.setAttribute("data-open", first.open ? "yes" : "no");
              r.setAttribute("data-shown", shown(first));
              r.setAttribute("data-count", first.parentElement.getAttribute("data-count"));
              r.setAttribute("data-second-open", second.open ? "yes" : "no");
              r.setAttribute("data-decode", document.getElementById("decode").getAttribute("data-frame"));
            })();
            </script>
            """
        let (dom, log) = try Chromium.dumpDOM(out, adding: script)
        let tag = try #require(dom.firstMatch(of: /<p id="test-result"[^>]*>/).map { String($0.output) })
        let value = { (name: String) in Chromium.attribute(tag, name) ?? "" }
        // le-coc-stall's chart folds four runs of K-frames (4, 4, 4 and 3 frames).
        #expect(value("data-runs") == "4")
        #expect(value("data-before") == "0" && value("data-open") == "yes")
        #expect(value("data-shown") == value("data-count") && value("data-count") == "4")
        #expect(value("data-second-open") == "no" && value("data-decode") == "86")
        #expect(Chromium.consoleErrors(log).isEmpty, "\(Chromium.consoleErrors(log))")
    }

    @Test(
        "a shared capture with twelve connections: per connection, the arrows' counts and what is not drawn add up to read's count",
        .enabled(if: TestPaths.sharedCapturesAvailable, "../shared/captures is absent")
    )
    func manyConnections() throws {
        let capture = ReportBrowserTests.blefun
        let expected = try Self.expected(capture)
        let drawn = try Self.drawn(capture)
        #expect(drawn.count == 12 && expected.count == 12)
        for (d, e) in zip(drawn, expected) {
            #expect(d.total == e.reduce(0, +))
            #expect(d.kinds.reduce(0, +) + d.dropped == d.total)
            // Where nothing was left out, each kind as read counts it.
            if d.dropped == 0 { #expect(d.kinds == e) }
        }
        #expect(drawn.contains { $0.dropped > 0 } && drawn.contains { $0.dropped == 0 && $0.total > 0 })
    }
}
