import BLEInspectCore
import BLEInspectSession
import Plot
import Testing

@testable import BLEInspectViews

/// The report's own drawing and escaping code: the scale and ticks, the credits' step line,
/// SVG numbers, and HTML escaping of hostile text.
@Suite("report: scale, step line and escaping")
struct ReportUnitTests {
    @Test("a scale maps its domain onto its pixels, clamps outside it, and survives an empty domain")
    func scale() {
        let s = ReportScale(domain: 0, 2_000_000, pixels: 100, 1100)
        #expect(s(0) == 100)
        #expect(s(2_000_000) == 1100)
        #expect(s(500_000) == 350)
        #expect(s(-5) == 100 && s(9e18) == 1100)
        // A y axis: pixels run upwards.
        let y = ReportScale(domain: 0, 8, pixels: 70, 4)
        #expect(y(8) == 4 && y(0) == 70 && y(4) == 37)
        let empty = ReportScale(domain: 5, 5, pixels: 0, 10)
        #expect(empty(5) == 0 && empty(6) == 10)
        #expect(ReportScale(domain: 0, 10, pixels: 0, 1)(.nan) == 0)
    }

    @Test("ticks are round: 1, 2 or 5 times a power of ten, inside the domain")
    func ticks() {
        #expect(ReportScale(domain: 0, 1, pixels: 0, 1).ticks(count: 5) == [0, 0.2, 0.4, 0.6000000000000001, 0.8, 1])
        #expect(ReportScale(domain: 0, 2_750_200, pixels: 0, 1).ticks(count: 8) == (0...5).map { Double($0) * 500_000 })
        #expect(ReportScale(domain: 0, 102_335, pixels: 0, 1).ticks(count: 3) == [0, 50_000, 100_000])
        #expect(ReportScale(domain: 3, 7, pixels: 0, 1).ticks(count: 4) == [3, 4, 5, 6, 7])
        // Far-apart times from a hostile capture: bounded, finite.
        let wide = ReportScale(domain: -9e18, 9e18, pixels: 0, 1).ticks(count: 5)
        #expect(!wide.isEmpty && wide.count <= 100 && wide.allSatisfy(\.isFinite))
    }

    @Test("the step line holds each value until the next change and to the end")
    func stepLine() {
        let corners = ReportStepLine.corners([(0, 10), (5, 20), (8, 20), (9, 5)], endX: 12)
        #expect(corners.map(\.x) == [0, 5, 5, 9, 9, 12])
        #expect(corners.map(\.y) == [10, 10, 20, 20, 5, 5])
        #expect(ReportStepLine.path(corners) == "M0 10 L5 10 L5 20 L9 20 L9 5 L12 5")
        #expect(ReportStepLine.corners([], endX: 3).isEmpty)
        #expect(ReportStepLine.corners([(2, 1)], endX: 1).map(\.x) == [2])
    }

    @Test("SVG numbers: one decimal at most, no exponent, 0 for what is not finite")
    func numbers() {
        #expect(Markup.number(12) == "12")
        #expect(Markup.number(1.25) == "1.3")
        #expect(Markup.number(-3.04) == "-3")
        #expect(Markup.number(145.66) == "145.7")
        #expect(Markup.number(.infinity) == "0" && Markup.number(.nan) == "0" && Markup.number(1e300) == "0")
        #expect(ReportScale.integer(.nan) == 0 && ReportScale.integer(1e30) == 9_000_000_000_000_000_000)
    }

    @Test("a device named <script>alert(1)</script> is text; quotes cannot end an attribute")
    func escaping() {
        #expect(Markup.text("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;")
        #expect(Markup.text("a & b; &amp;") == "a &amp; b; &amp;amp;")
        #expect(Markup.text("say \"hi\"") == "say \"hi\"")
        #expect(Markup.attribute("\" onmouseover='alert(2)'") == "&quot; onmouseover=&#39;alert(2)&#39;")
        #expect(Markup.text("nul\u{0}") == "nul\u{FFFD}")
        let element = Markup.element("text", [("class", "x\"><script>alert(3)</script>")], Markup.text("<b>"))
        #expect(element == "<text class=\"x&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;\">&lt;b&gt;</text>")
        #expect(Markup.element("rect", [("x", "1")]) == "<rect x=\"1\"/>")
    }

    @Test("the page's text helper escapes what Plot would pass through")
    func pageText() {
        // Plot keeps `&lt;` as written; the report writes what the capture said.
        let node: Node<HTML.BodyContext> = ReportPage.table("<caption>", ["&lt;"], [["<i>"]])
        let html = node.render()
        #expect(html.contains("&lt;caption&gt;"))
        #expect(html.contains("&amp;lt;"))
        #expect(html.contains("&lt;i&gt;") && !html.contains("<i>"))
    }

    @Test(
        "credit lines thin evenly past the limit: steps merge in pairs, keep every dip and peak, end on the last balance"
    )
    func creditThinning() {
        // Balances 4, 3, 0, 4, 2, 1, 0, 5, 3, 3 at frames 1…10; a limit of 4 steps.
        let balances: [UInt64] = [4, 3, 0, 4, 2, 1, 0, 5, 3, 3]
        var s = ConnsCreditSeries(limit: 4)
        for (k, b) in balances.enumerated() {
            s.add(ConnsCreditStep(moment: ConnsMoment(frame: k + 1, time: Int64(k)), credits: b))
            #expect(s.points.count <= 4)
        }
        #expect(s.samples == 10 && s.downsampled && s.perPoint == 4)
        // Steps of four balances: frames 1-4, 5-8, then 9-10 so far.
        #expect(s.points.map(\.moment.frame) == [1, 5, 9])
        #expect(s.points.map(\.low) == [0, 0, 3] && s.points.map(\.high) == [4, 5, 3])
        #expect(s.points.map(\.credits) == [4, 5, 3])
        // Independently: each step's range is that of the balances it stands for.
        for (i, step) in s.points.enumerated() {
            let covered = balances[(i * 4)..<min(i * 4 + 4, balances.count)]
            #expect(step.low == covered.min() && step.high == covered.max() && step.credits == covered.last)
        }
        var short = ConnsCreditSeries(limit: 4)
        for k in 0..<4 { short.add(ConnsCreditStep(moment: ConnsMoment(frame: k, time: nil), credits: 2)) }
        #expect(short.points.count == 4 && !short.downsampled)
    }

    @Test("response times thin evenly past the limit, one in 2, 4, …, and error responses stay")
    func latencyThinning() {
        var s = ConnsLatencySeries(limit: 4)
        let point = { (k: Int, error: Bool) in
            ConnsLatencyPoint(moment: ConnsMoment(frame: k, time: Int64(k)), microseconds: 10, error: error)
        }
        for k in 0..<4 { s.append(point(k, false)) }
        #expect(s.items.map(\.moment.frame) == [0, 1, 2, 3] && !s.thinned)
        s.append(point(4, false))
        #expect(s.items.map(\.moment.frame) == [0, 2, 4] && s.stride == 2)
        s.append(point(5, true))
        s.append(point(6, false))
        #expect(s.items.map(\.moment.frame) == [0, 2, 4, 5])
        for k in 7..<13 { s.append(point(k, false)) }
        // The responses numbered 0, 4 and 8 (one in four: frames 0, 4 and 9) and the error in frame 5.
        #expect(s.items.map(\.moment.frame) == [0, 4, 5, 9] && s.stride == 4 && s.responses == 12)
        var errors = ConnsLatencySeries(limit: 2)
        for k in 0..<4 { errors.append(point(k, true)) }
        #expect(errors.items.count == 2 && errors.errorsDropped == 2)
    }

    @Test("past the point budget a connection keeps its stalls but not its series")
    func pointBudget() throws {
        let capture = ReportCapture(registry: try StandardModules.registry())
        capture.pointBudget = 5
        func record(_ n: Int, points: Int) -> ConnsRecord {
            let r = ConnsRecord(number: n, controller: nil, handle: 1, first: ConnsMoment(frame: 1, time: 0))
            r.latencyPoints = ConnsLatencySeries(limit: ConnsSeries.limit)
            for k in 0..<points {
                r.latencyPoints?.append(
                    ConnsLatencyPoint(moment: ConnsMoment(frame: k, time: Int64(k)), microseconds: 10, error: false)
                )
            }
            return r
        }
        let (a, b, c) = (record(1, points: 3), record(2, points: 3), record(3, points: 2))
        for r in [a, b, c] { capture.take(r) }
        #expect(a.latencyPoints?.items.count == 3)
        #expect(b.latencyPoints == nil)
        #expect(c.latencyPoints?.items.count == 2)
        #expect(capture.seriesDropped == 1 && capture.sorted.map(\.number) == [1, 2, 3])
    }
}

@Suite("report: frame controls")
struct ReportFramesTests {
    @Test("frame numbers in text become buttons; times, other numbers and markup do not")
    func linked() {
        let frames = ReportFrames()
        let button = { (n: Int) in
            "<button type=\"button\" class=\"frame\" data-frame=\"\(n)\" aria-describedby=\"frame-hint\">\(n)</button>"
        }
        #expect(frames.linked("failed: reason (frame 12)") == "failed: reason (frame \(button(12)))")
        #expect(
            frames.linked("3 malformed frames (frames 3, 4, …)")
                == "3 malformed frames (frames \(button(3)), \(button(4)), …)"
        )
        #expect(frames.linked("frames 117→130") == "frames \(button(117))→\(button(130))")
        #expect(frames.linked("until frame 130, 748.900 ms") == "until frame \(button(130)), 748.900 ms")
        #expect(frames.linked("<b>frame 5</b> 7 frames") == "&lt;b&gt;frame \(button(5))&lt;/b&gt; 7 frames")
        #expect(frames.linked("frame 99999999999999999999") == "frame 99999999999999999999")
        #expect(
            frames.linked("frames 32–97; discovery in #37")
                == "frames \(button(32))–\(button(97)); discovery in #\(button(37))"
        )
        #expect(frames.ordered == [12, 3, 4, 117, 130, 5, 32, 97, 37])
    }

    @Test("decodes are embedded by rank (the lowest a frame had), then in the order the page first refers to them")
    func ranks() {
        let frames = ReportFrames()
        _ = frames.svgLink(40, .point, focusable: false, "")
        _ = frames.button(7)
        _ = frames.svgLink(9, .sequence, "")
        _ = frames.button(40)
        _ = frames.svgLink(8, .sequence, "")
        #expect(frames.ordered == [40, 7, 9, 8])
        #expect(
            frames.svgLink(1, .point, focusable: false, "x")
                == "<a class=\"frame\" href=\"#frame-1\" data-frame=\"1\" tabindex=\"-1\">x</a>"
        )
    }

    @Test("the page says how many decodes it holds and names frames without one")
    func note() {
        var decodes = ReportDecodes(texts: [1: "a", 2: "<b>"])
        #expect(decodes.note.hasSuffix("2 decodes are embedded, one for every frame the report refers to."))
        decodes.missing = [5, 6]
        #expect(
            decodes.note.hasSuffix(
                "2 frames the report refers to have none: the report embeds at most 2000 decodes. Without a decode: 5, 6."
            )
        )
        #expect(
            decodes.store
                == "<div id=\"decodes-store\" hidden><template id=\"decode-1\">a</template><template id=\"decode-2\">&lt;b&gt;</template></div>"
        )
    }
}
