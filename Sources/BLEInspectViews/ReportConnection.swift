import Plot

/// One connection's section: what `conns` says of it in short, its timeline, and the timeline's
/// events as a table (the chart's text alternative).
extension ReportPage {
    func connection(_ r: ConnsRecord) -> Node<HTML.BodyContext> {
        let id = Self.anchor(r.number)
        let chart = ReportTimeline(r, names, frames)
        return .section(
            .id(id),
            .class("connection"),
            .attribute(named: "aria-labelledby", value: id + "-heading"),
            .h2(.id(id + "-heading"), Self.text(Self.heading(r, names))),
            .dl(.forEach(summary(r)) { .group(.dt(Self.text($0.0)), .dd(.raw(frames.linked($0.1)))) }),
            chart.map { c in
                .element(
                    named: "figure",
                    nodes: [
                        .raw(c.svg(id: id + "-chart")),
                        .element(named: "figcaption", nodes: [Self.legend]),
                    ]
                )
            } ?? .p("No timeline: the capture has no times for this connection."),
            r.latencyPoints.map { p in
                p.thinned || p.errorsDropped > 0
                    ? .p(
                        .class("note"),
                        Self.text(
                            "Downsampled: the chart draws one ATT response time in \(p.stride) (\(p.items.count) points of \(p.responses) responses, every error response"
                                + (p.errorsDropped > 0 ? " but \(p.errorsDropped) past \(p.limit) points" : "")
                                + "); the summary's minimum, median and maximum are over all."
                        )
                    ) : .empty
            } ?? .empty,
            chart.map { c in
                .details(
                    .summary(.text("Timeline as a table")),
                    Self.table(
                        "Events of connection \(r.number)",
                        ["time", "lane", "event", "frame"],
                        markup: cells(c)
                    )
                )
            } ?? .empty,
            .h3(.id(id + "-sequence"), .text("Sequence chart")),
            capture.sequences[r.number].map { s in
                .raw(ReportSequenceChart(record: r, sequence: s, frames: frames, budget: capture.messageBudget).html)
            } ?? .p("No ATT, L2CAP signalling, SMP, link layer control or K-frames on this connection."),
            .p(.a(.href("#overview"), .text("Back to the overview")))
        )
    }

    /// The key to the chart's marks: shapes as well as colours.
    static var legend: Node<HTML.BodyContext> {
        .ul(
            .class("legend"),
            .li(.span(.class("key event")), .text("connection event (hover for details)")),
            .li(.span(.class("key att")), .text("ATT response time")),
            .li(.span(.class("key att-error")), .text("ATT error response (square)")),
            .li(.span(.class("key credits")), .text("credits held by the sender")),
            .li(.span(.class("key stall")), .text("stalled at 0 credits with an SDU unfinished")),
            .li(.span(.class("key sdu")), .text("bytes of the SDUs finished, a second (SDU throughput)"))
        )
    }

    /// Label and value pairs, from the same record `conns` prints.
    func summary(_ r: ConnsRecord) -> [(String, String)] {
        var out: [(String, String)] = []
        switch r.localIsCentral {
        case _ where r.sniffed: out.append(("role", "sniffed over the air"))
        case true?: out.append(("role", "local host central, peer peripheral"))
        case false?: out.append(("role", "local host peripheral, peer central"))
        case nil: out.append(("role", "not known"))
        }
        out.append(("start", r.start.map { ConnsTime.absolute($0) + " (frame \($0.frame))" } ?? "before the capture"))
        out.append(("end", ConnsText.ending(r, names)))
        if let end = r.end, let d = end.since(r.origin) { out.append(("duration", ConnsTime.seconds(d))) }
        let l = r.latency
        if let lo = l.minimum, let hi = l.maximum, let median = l.median {
            out.append(
                (
                    "ATT latency",
                    "min \(ConnsTime.short(lo)), median \(ConnsTime.short(median)), max \(ConnsTime.short(hi)) over \(l.count) responses"
                )
            )
        }
        out.append(("ATT", "sent " + ConnsText.counts(r.att[0]) + "; received " + ConnsText.counts(r.att[1])))
        out.append(("pairing", ConnsText.pairing(r, r.origin, names)))
        return out
    }

    /// The table's cells as markup: the text, and the frame as a button.
    func cells(_ c: ReportTimeline) -> [[String]] {
        rows(c).map { row in
            var cells: [String] = row.cells.map { frames.linked($0) }
            cells.append(frames.button(row.frame))
            return cells
        }
    }

    /// The table's rows: every mark of the chart but the response times, which the summary sums;
    /// the cells as text, and the frame.
    func rows(_ c: ReportTimeline) -> [(cells: [String], frame: Int)] {
        var rows: [(ConnsMoment, [String])] = []
        for row in c.eventRows {
            for e in row.events {
                rows.append((e.moment, [c.offset(e.moment), row.label, e.text]))
            }
        }
        for lane in c.creditLanes {
            for s in lane.channel.sides[lane.side].stalls.items {
                let who = lane.side == 0 ? "local host" : "peer"
                let until = s.end.map { " until frame \($0.frame), " } ?? " until the end, "
                let d = s.end.flatMap { $0.since(s.start) }.map(ConnsTime.short) ?? "?"
                rows.append(
                    (
                        s.start,
                        [c.offset(s.start), "channel \(lane.channel.number)", "\(who) stalled" + until + d]
                    )
                )
            }
        }
        return rows.sorted { $0.0.frame < $1.0.frame }.map { ($0.1, $0.0.frame) }
    }
}
