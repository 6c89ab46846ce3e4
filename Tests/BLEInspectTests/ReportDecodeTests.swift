import BLECapture
import BLECaptureIO
import BLECaptureTestSupport
import BLEDissectorTestSupport
import Foundation
import Testing

/// What a click on one frame control did in the browser: the frame the panel shows, its text,
/// where the focus went, and whether Escape hid the panel and gave the focus back.
struct ReportClick {
    var control: Int?
    var shown: Int?
    var text: String
    var focus: String
    var hidden: Bool
    var focusBack: Bool
}

extension Chromium {
    /// Opens `html` with a script added at the end of its body that clicks, in turn, the control
    /// `querySelectorAll(selector)[index]` of each pair (a negative index counts from the end),
    /// after opening the `<details>` it is in, copies what the decode panel then shows into the page, and presses Escape.
    static func click(_ html: String, _ controls: [(selector: String, index: Int)]) throws -> (
        clicks: [ReportClick], dom: ReportDOM, log: String
    ) {
        let list = controls.map { "[\(jsString($0.selector)), \($0.index)]" }.joined(separator: ", ")
        let script = """
            <script id="test-clicks">
            (function () {
              var out = document.createElement("div"); out.id = "test-results"; document.body.appendChild(out);
              [\(list)].forEach(function (w) {
                var all = document.querySelectorAll(w[0]);
                var c = all[w[1] < 0 ? all.length + w[1] : w[1]];
                var r = document.createElement("pre"); r.className = "test-result";
                if (c) {
                  // As a reader would: open the table the control is in first.
                  for (var d = c.closest("details"); d; d = d.parentElement.closest("details")) d.open = true;
                  c.dispatchEvent(new MouseEvent("click", {bubbles: true, cancelable: true}));
                  var panel = document.getElementById("decode");
                  r.setAttribute("data-control", c.getAttribute("data-frame"));
                  r.setAttribute("data-shown", panel.getAttribute("data-frame"));
                  r.setAttribute("data-focus", document.activeElement ? document.activeElement.id : "");
                  r.textContent = document.getElementById("decode-text").textContent;
                  document.dispatchEvent(new KeyboardEvent("keydown", {key: "Escape", bubbles: true}));
                  r.setAttribute("data-hidden", panel.hidden ? "yes" : "no");
                  r.setAttribute("data-back", document.activeElement === c ? "yes" : "no");
                }
                out.appendChild(r);
              });
            })();
            </script>
            """
        let (dom, log) = try dumpDOM(html, adding: script)
        let clicks = dom.matches(of: /<pre class="test-result"([^>]*)>((?s).*?)<\/pre>/).map { m in
            let tag = String(m.output.1)
            return ReportClick(
                control: ReportDOM.value(tag, "data-control").map(Int.init),
                shown: ReportDOM.value(tag, "data-shown").map(Int.init),
                text: unescape(String(m.output.2)),
                focus: attribute(tag, "data-focus") ?? "",
                hidden: attribute(tag, "data-hidden") == "yes",
                focusBack: attribute(tag, "data-back") == "yes"
            )
        }
        return (clicks, ReportDOM(dom: dom), log)
    }

    /// The DOM of `html` with `script` added at the end of its body, after the scripts ran.
    static func dumpDOM(_ html: String, adding script: String) throws -> (dom: String, log: String) {
        let page = try String(contentsOfFile: html, encoding: .utf8)
        guard let end = page.range(of: "</body>", options: .backwards) else { return ("", "") }
        let changed = html + ".test.html"
        try (page[..<end.lowerBound] + script + page[end.lowerBound...]).write(
            toFile: changed,
            atomically: true,
            encoding: .utf8
        )
        return try dumpDOM(changed)
    }

    static func jsString(_ s: String) -> String {
        "\"" + s.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }

    static func attribute(_ tag: String, _ name: String) -> String? {
        guard let r = tag.range(of: " " + name + "=\"") else { return nil }
        return String(tag[r.upperBound...].prefix { $0 != "\"" })
    }

    /// Text as chromium serializes it: `&`, `<`, `>` and no-break spaces as references.
    static func unescape(_ s: String) -> String {
        s.replacing("&lt;", with: "<").replacing("&gt;", with: ">").replacing("&nbsp;", with: "\u{A0}")
            .replacing("&amp;", with: "&")
    }
}

@Suite(
    "report: frame decodes on click, in a real browser",
    .enabled(if: Chromium.path != nil, "chromium is not installed")
)
struct ReportDecodeTests {
    /// `read -V` of frame `n` of `capture`, the independent path: the last frame `read -V -c n`
    /// prints.
    static func readDecode(_ capture: String, _ n: Int) throws -> String {
        let result = try Run.bleinspect(["read", "-V", "-c", "\(n)", capture])
        #expect(result.status == 0)
        let blocks = result.stdoutText.split(separator: "\n\n", omittingEmptySubsequences: true)
        return blocks.last.map { String($0).trimmingCharacters(in: .newlines) } ?? ""
    }

    /// Writes the report of `capture`, clicks `controls`, and checks each shows `read -V`'s
    /// decode of its frame, takes the focus and gives it back on Escape. Returns the clicks and
    /// the page after them.
    static func check(_ capture: String, _ controls: [(selector: String, index: Int)]) throws -> (
        [ReportClick], ReportDOM
    ) {
        let dir = TemporaryDirectory()
        let out = dir.path("report.html")
        let result = try Run.bleinspect(["report", capture, "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let (clicks, dom, log) = try Chromium.click(out, controls)
        #expect(clicks.count == controls.count)
        for click in clicks {
            let n = try #require(click.control)
            #expect(click.shown == n)
            #expect(click.text.trimmingCharacters(in: .newlines) == (try readDecode(capture, n)))
            #expect(click.focus == "decode-heading")
            #expect(click.hidden && click.focusBack)
        }
        #expect(Chromium.consoleErrors(log).isEmpty, "\(Chromium.consoleErrors(log))")
        #expect(dom.scriptRanCleanly)
        return (clicks, dom)
    }

    @Test("le-coc-stall: a device's first frame, a stall mark and a table row show read -V's decode")
    func stallCapture() throws {
        let capture = TestPaths.projectCapture("le-coc-stall.btsnoop")
        let (clicks, _) = try Self.check(
            capture,
            [
                ("#overview button.frame", 0), ("#conn-1 a.frame:has(> rect.stall)", 0),
                ("#conn-1 table button.frame", -1),
            ]
        )
        // The stall mark is the first stall's start, as `conns --json` gives it.
        let stall = try ReportBrowserTests.conns(capture).first.flatMap { c in
            ((c["channels"] as? [[String: Any]])?.first?["sent"] as? [String: Any])?["stalls"] as? [[String: Any]]
        }
        #expect(clicks.count == 3 && clicks[1].control == stall?.first?["start_frame"] as? Int)
    }

    @Test(
        "a shared capture with twelve connections: frames of the first and the last connection",
        .enabled(if: TestPaths.sharedCapturesAvailable, "../shared/captures is absent")
    )
    func manyConnections() throws {
        let path = ReportBrowserTests.blefun
        _ = try Self.check(
            path,
            [("section.connection button.frame", 0), ("#conn-12 table button.frame", -1)]
        )
    }

    @Test("a decode with <script> in it shows as text, and nothing in it runs")
    func hostileDecode() throws {
        let dir = TemporaryDirectory()
        let capture = dir.path("hostile.btsnoop")
        let name = "<script>alert(1)</script>"
        try CaptureFiles.write([ReportBrowserTests.advert(1, name: name, frame: 1)], to: capture, format: .btsnoop)
        let (clicks, dom) = try Self.check(capture, [("#overview button.frame", 0)])
        #expect(clicks.first?.text.contains(name) == true)
        #expect(dom.dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        // The page's script and the test's: no other.
        #expect(dom.dom.matches(of: /<script/).count == 2)
        #expect(dom.scriptRanCleanly)
    }
}
