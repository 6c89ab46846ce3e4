/// A connection's sequence chart: the central and the peripheral as two lifelines (the local
/// host and the peer when the roles are not known), one arrow a message, each with its time,
/// its frame (a decode control) and the frame's one-line summary, as `read` prints it. A run of
/// notifications, write commands or K-frames in one direction is one arrow with its count, a
/// `<details>` that unfolds to its first members on click or with the keyboard.
///
/// Markup, with every value escaped; the summaries are placeholders (`ReportFrames.summary`)
/// filled in once the second reading has them.
struct ReportSequenceChart {
    /// A run this long or longer is folded.
    static let foldAt = 3

    let record: ConnsRecord
    let sequence: ReportSequence
    let frames: ReportFrames
    /// The most messages the report's charts keep in all (`ReportCapture.messageBudget`).
    let budget: Int

    /// Whether the left lifeline is the local host: the central's unless the host is the peripheral.
    private var leftIsLocal: Bool { record.localIsCentral ?? true }

    private var names: (left: String, right: String) {
        if record.sniffed { return ("central", "peripheral") }
        switch record.localIsCentral {
        case true?: return ("central (local host)", "peripheral (peer)")
        case false?: return ("central (peer)", "peripheral (local host)")
        case nil: return ("local host", "peer")
        }
    }

    var html: String {
        let (left, right) = names
        var rows = ""
        for row in sequence.rows {
            if row.count >= Self.foldAt || row.members.count < row.count {
                rows += run(row)
            } else {
                rows += row.members.map { message($0, counted: true) }.joined()
            }
        }
        let kinds = "ATT, L2CAP signalling, SMP, link layer control and K-frames"
        var note = "\(sequence.total) message" + (sequence.total == 1 ? "" : "s") + " (\(kinds))"
        note += ", \(sequence.rows.count) arrow" + (sequence.rows.count == 1 ? "" : "s") + " after folding"
        note += " runs of notifications, write commands and K-frames (click a run to unfold it)."
        if sequence.dropped > 0 {
            note +=
                " \(sequence.dropped) later messages are not drawn: a chart holds at most \(ReportSequence.rowLimit) arrows, the report \(budget) messages in all."
        }
        return Markup.element("p", [], Markup.text(note))
            + Markup.element(
                "div",
                [("class", "lifelines"), ("aria-hidden", "true")],
                Markup.element("span", [], Markup.text(left)) + Markup.element("span", [], "")
                    + Markup.element("span", [], Markup.text(right))
            )
            + Markup.element(
                "ol",
                [
                    ("class", "sequence"), ("aria-label", "Sequence chart of connection \(record.number)"),
                    ("data-messages", "\(sequence.total)"), ("data-dropped", "\(sequence.dropped)"),
                ],
                rows
            )
    }

    /// Where a message goes, for the arrow's class and its text alternative.
    private func direction(_ m: ReportMessage) -> (class: String, text: String) {
        let (left, right) = names
        return m.local == leftIsLocal ? ("rightward", left + " to " + right) : ("leftward", right + " to " + left)
    }

    private func arrow(_ m: ReportMessage) -> String {
        Markup.element(
            "span",
            [("class", "arrow")],
            Markup.element("span", [("class", "sr")], Markup.text(direction(m).text + ":"))
        )
    }

    private func time(_ m: ReportMessage) -> String {
        Markup.element("span", [("class", "time")], Markup.text(ConnsTime.offset(m.moment, from: record.origin)))
    }

    /// One message's row; `counted` rows carry `data-count` (members of a run do not).
    private func message(_ m: ReportMessage, counted: Bool) -> String {
        var attributes = [("class", "msg \(m.kind.rawValue) \(direction(m).class)")]
        if counted { attributes += [("data-kind", m.kind.rawValue), ("data-count", "1")] }
        return Markup.element(
            "li",
            attributes,
            time(m) + arrow(m)
                + Markup.element(
                    "span",
                    [("class", "what")],
                    frames.button(m.moment.frame, .sequence) + " " + frames.summary(m.moment.frame)
                )
        )
    }

    /// A folded run: its count, first and last frames and the first one's summary; unfolded,
    /// its first members.
    private func run(_ row: ReportSequence.Row) -> String {
        let m = row.first
        let what =
            Markup.element("strong", [], "\(row.count) ×") + " frames " + frames.button(m.moment.frame, .sequence) + "–"
            + frames.button(row.last.moment.frame, .sequence) + ": " + frames.summary(m.moment.frame)
        var members = row.members.map { message($0, counted: false) }.joined()
        if row.count > row.members.count {
            members += Markup.element(
                "li",
                [("class", "more")],
                Markup.text("and \(row.count - row.members.count) more, up to frame ")
                    + frames.button(row.last.moment.frame, .sequence)
            )
        }
        return Markup.element(
            "li",
            [
                ("class", "run \(m.kind.rawValue) \(direction(m).class)"), ("data-kind", m.kind.rawValue),
                ("data-count", "\(row.count)"),
            ],
            Markup.element(
                "details",
                [],
                Markup.element("summary", [], time(m) + arrow(m) + Markup.element("span", [("class", "what")], what))
                    + Markup.element("ol", [("class", "sequence members")], members)
            )
        )
    }
}
