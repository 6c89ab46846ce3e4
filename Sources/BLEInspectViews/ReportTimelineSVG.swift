extension ReportTimeline {
    /// The chart's height for its lanes.
    var height: Double {
        let events = Double(eventRows.count) * Self.rowHeight + Self.gap
        let latency = hasLatency ? Self.latencyHeight + Self.gap : 0
        return events + latency + Double(creditLanes.count) * (Self.creditHeight + Self.gap)
            + Double(rateLanes.count) * (Self.rateHeight + Self.gap) + 30
    }

    /// The SVG, with a `<title>` and `<desc>` naming what it shows; `id` makes their ids unique.
    func svg(id: String) -> String {
        var body = ""
        var y = 4.0
        let top = y
        for row in eventRows {
            body += events(row, y: y)
            y += Self.rowHeight
        }
        y += Self.gap
        if hasLatency {
            body += latency(y: y)
            y += Self.latencyHeight + Self.gap
        }
        for lane in creditLanes {
            body += credits(lane.channel, lane.side, lane.steps, y: y)
            y += Self.creditHeight + Self.gap
        }
        let rates = rateLanes
        for lane in rates {
            body += rateLane(lane.channel, lane.side, lane.rate, y: y)
            y += Self.rateHeight + Self.gap
        }
        body += bounds(top: top, bottom: y)
        body += axis(y: y)
        let title = "Timeline of connection \(record.number)"
        let desc =
            "Connection events, \(record.latencyPoints?.items.count ?? 0) ATT response times"
            + (record.latencyPoints?.thinned == true ? " (one in \(record.latencyPoints?.stride ?? 1))" : "")
            + ", \(creditLanes.count) credit lines" + Self.thinnedNote(creditLanes)
            + " and \(rates.count) SDU throughput lanes over "
            + ConnsTime.seconds(ReportScale.integer(time.high - time.low)) + "; the table below holds the same events."
        return Markup.chart(
            id: id,
            class: "timeline",
            width: Self.width,
            height: height,
            title: title,
            desc: desc,
            body
        )
    }

    /// Whether there are response times to draw: a connection without them has no latency lane.
    var hasLatency: Bool { !(record.latencyPoints?.isEmpty ?? true) }

    private func label(_ text: String, y: Double) -> String {
        Markup.element(
            "text",
            [("x", Markup.number(Self.left - 6)), ("y", Markup.number(y)), ("class", "label")],
            Markup.text(text)
        )
    }

    private func events(_ row: EventRow, y: Double) -> String {
        var out = label(row.label, y: y + Self.rowHeight - 5)
        for e in row.events {
            guard let x = x(e.moment) else { continue }
            let tip = offset(e.moment) + " " + e.text + " (frame \(e.moment.frame))"
            out += frames.svgLink(
                e.moment.frame,
                .primary,
                Markup.element(
                    "rect",
                    [
                        ("class", "event " + row.kind), ("x", Markup.number(x - 2)), ("y", Markup.number(y + 2)),
                        ("width", "4"), ("height", Markup.number(Self.rowHeight - 4)),
                    ],
                    Markup.element("title", [], Markup.text(tip))
                )
            )
        }
        return out
    }

    private func latency(y: Double) -> String {
        let points = record.latencyPoints?.items ?? []
        let top = Double(points.map(\.microseconds).max() ?? 1000)
        let scale = ReportScale(domain: 0, top, pixels: y + Self.latencyHeight, y + 20)
        var out = Markup.element(
            "text",
            [("x", Markup.number(Self.left + 4)), ("y", Markup.number(y + 10)), ("class", "lane")],
            Markup.text("ATT request→response time")
        )
        for t in scale.ticks(count: 3) {
            out += Markup.element(
                "line",
                [("class", "grid")] + line(Self.left, scale(t), Self.width - Self.right, scale(t))
            )
            out += label(ConnsTime.short(ReportScale.integer(t)), y: scale(t) + 4)
        }
        for p in points {
            guard let x = x(p.moment) else { continue }
            let cy = scale(Double(p.microseconds))
            let tip =
                offset(p.moment) + (p.error ? " error response after " : " response after ")
                + ConnsTime.short(p.microseconds) + " (frame \(p.moment.frame))"
            let shape =
                p.error
                ? Markup.element(
                    "rect",
                    [
                        ("class", "att-error"), ("x", Markup.number(x - 4)), ("y", Markup.number(cy - 4)),
                        ("width", "8"),
                        ("height", "8"),
                    ],
                    Markup.element("title", [], Markup.text(tip))
                )
                : Markup.element(
                    "circle",
                    [("class", "att"), ("cx", Markup.number(x)), ("cy", Markup.number(cy)), ("r", "3")],
                    Markup.element("title", [], Markup.text(tip))
                )
            out += frames.svgLink(p.moment.frame, .point, focusable: false, shape)
        }
        return out
    }

    private func credits(_ c: ConnsChannel, _ side: Int, _ steps: [ConnsCreditStep], y: Double) -> String {
        let who = side == 0 ? "local host" : "peer"
        let most = steps.map(\.high).max() ?? 1
        let top = Double(most)
        let scale = ReportScale(domain: 0, top, pixels: y + Self.creditHeight, y + 4)
        let end = time.to
        var out = label("ch \(c.number) \(side == 0 ? "sent" : "received")", y: y + 12)
        out += label("\(most) credit" + (most == 1 ? "" : "s"), y: y + 26)
        out += label("0", y: y + Self.creditHeight)
        for s in c.sides[side].stalls.items {
            guard let x0 = x(s.start) else { continue }
            let x1 = s.end.flatMap(x) ?? end
            let tip =
                "\(who) stalled at 0 credits " + offset(s.start) + " for "
                + (s.end.flatMap { $0.since(s.start) }.map(ConnsTime.short) ?? "?")
                + " (frames \(s.start.frame)→" + (s.end.map { "\($0.frame)" } ?? "?") + ")"
            out += frames.svgLink(
                s.start.frame,
                .primary,
                Markup.element(
                    "rect",
                    [
                        ("class", "stall"), ("x", Markup.number(x0)), ("y", Markup.number(y)),
                        ("width", Markup.number(max(x1 - x0, 1))), ("height", Markup.number(Self.creditHeight)),
                        ("data-channel", "\(c.number)"), ("data-side", side == 0 ? "sent" : "received"),
                        ("data-start", s.start.time.map { "\($0)" } ?? ""),
                        ("data-end", s.end?.time.map { "\($0)" } ?? ""),
                    ],
                    Markup.element("title", [], Markup.text(tip))
                )
            )
        }
        // A merged step (the series thinned) draws its range at its moment, then its last balance.
        let points = steps.flatMap { s -> [(x: Double, y: Double)] in
            guard let px = x(s.moment) else { return [] }
            let levels = s.low == s.high ? [s.credits] : [s.high, s.low, s.credits]
            return levels.map { (x: px, y: scale(Double($0))) }
        }
        guard !points.isEmpty else { return out }
        out += Markup.element(
            "path",
            [
                ("class", "credits " + (side == 0 ? "sent" : "received")),
                ("d", ReportStepLine.path(ReportStepLine.corners(points, endX: end))),
            ],
            Markup.element(
                "title",
                [],
                Markup.text(
                    "credits the \(who) held on channel \(c.number)"
                        + Self.thinnedNote([(c, side, steps)])
                )
            )
        )
        return out
    }

    /// What the page says of credit lines that were thinned (`ConnsCreditSeries`): nothing when
    /// none was.
    static func thinnedNote(_ lanes: [(channel: ConnsChannel, side: Int, steps: [ConnsCreditStep])]) -> String {
        let strides = lanes.compactMap { $0.channel.sides[$0.side].creditSteps }.filter(\.downsampled).map(\.perPoint)
        guard let most = strides.max() else { return "" }
        return " (\(strides.count == 1 ? "one" : "\(strides.count)") thinned past \(ConnsSeries.limit) steps:"
            + " a step stands for up to \(most) balances, drawn as a bar from the lowest to the highest)"
    }

    /// The connection's start and end as vertical lines.
    private func bounds(top: Double, bottom: Double) -> String {
        var out = ""
        if let start = record.start, let x = x(start) {
            out += Markup.element(
                "line",
                [("class", "bound")] + line(x, top, x, bottom),
                Markup.element("title", [], Markup.text("connection start (frame \(start.frame))"))
            )
        }
        if let end = record.end, let x = x(end) {
            let why = record.ending?.rawValue.replacing("_", with: " ") ?? "end"
            out += Markup.element(
                "line",
                [("class", "bound")] + line(x, top, x, bottom),
                Markup.element("title", [], Markup.text("connection end: \(why) (frame \(end.frame))"))
            )
        }
        return out
    }

    private func axis(y: Double) -> String {
        var out = Markup.element("line", [("class", "axis")] + line(Self.left, y, Self.width - Self.right, y))
        for t in time.ticks(count: 8) {
            let x = time(t)
            out += Markup.element("line", [("class", "axis")] + line(x, y, x, y + 5))
            out += Markup.element(
                "text",
                [("x", Markup.number(x)), ("y", Markup.number(y + 18)), ("class", "tick")],
                Markup.text("+" + ConnsTime.seconds(ReportScale.integer(t)))
            )
        }
        return out
    }

    private func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> [(String, String)] {
        [("x1", Markup.number(x1)), ("y1", Markup.number(y1)), ("x2", Markup.number(x2)), ("y2", Markup.number(y2))]
    }
}
