/// The frames the page refers to, and the controls that show a frame's decode on click: a
/// `<button class="frame">` in HTML, an `<a class="frame">` around a mark in SVG (both reach the
/// keyboard). The page's script finds the decode by `data-frame` (`ReportDecodes`).
///
/// Each reference has a rank: the decodes embedded, at most `ReportDecodes.limit`, are those of
/// the lowest ranks first, in the order the page first refers to them.
final class ReportFrames {
    enum Rank: Int, Comparable {
        /// Findings, the overview's tables, connection summaries, timeline events and tables.
        case primary = 0
        /// The sequence charts' arrows.
        case sequence = 1
        /// The response-time points, thousands on a busy connection.
        case point = 2

        static func < (a: Rank, b: Rank) -> Bool { a.rawValue < b.rawValue }
    }

    /// The most distinct frames remembered; references past it are counted only.
    static let trackingLimit = 100_000

    /// By frame number: the lowest rank it was referred to with, and when first.
    private var references: [Int: (rank: Rank, order: Int)] = [:]
    /// References to frames past `trackingLimit`.
    private(set) var untracked = 0

    /// Remembers a reference to frame `n`.
    func refer(_ n: Int, _ rank: Rank) {
        if let known = references[n] {
            if rank < known.rank { references[n] = (rank, known.order) }
        } else if references.count < Self.trackingLimit {
            references[n] = (rank, references.count)
        } else {
            untracked &+= 1
        }
    }

    /// Every frame referred to, in the order their decodes are embedded.
    var ordered: [Int] {
        references.sorted { a, b in
            a.value.rank != b.value.rank ? a.value.rank < b.value.rank : a.value.order < b.value.order
        }.map(\.key)
    }

    /// The frames whose one-line summaries the page shows (the sequence charts').
    private(set) var summaries: Set<Int> = []

    /// A placeholder for frame `n`'s one-line summary, filled in by `ReportDecodes.fill`. A
    /// comment: escaped text from a capture cannot make one.
    func summary(_ n: Int) -> String {
        summaries.insert(n)
        return "<!--summary:\(n)-->"
    }

    /// The control for frame `n` in HTML: the number on a button.
    func button(_ n: Int, _ rank: Rank = .primary) -> String {
        refer(n, rank)
        return Markup.element(
            "button",
            [("type", "button"), ("class", "frame"), ("data-frame", "\(n)"), ("aria-describedby", "frame-hint")],
            "\(n)"
        )
    }

    /// `content` (SVG markup) as a link that shows frame `n`'s decode. `focusable` false keeps
    /// dense marks out of the keyboard's tab order (their frames are in the tables).
    func svgLink(_ n: Int, _ rank: Rank, focusable: Bool = true, _ content: String) -> String {
        refer(n, rank)
        var attributes = [("class", "frame"), ("href", "#frame-\(n)"), ("data-frame", "\(n)")]
        if !focusable { attributes.append(("tabindex", "-1")) }
        return Markup.element("a", attributes, content)
    }

    /// `text` escaped, each frame number after "frame" or "frames" (`frame 12`, `frames 3, 4,
    /// …`, `frames 5→9`, `frames 32–97`) or "#" (`gatt`'s `#12`) a button; a number with a decimal point (`frame 7, 748.9 ms`) is not
    /// a frame. The pattern is found in the escaped text, where digits, commas, spaces and arrows
    /// are as written.
    func linked(_ text: String) -> String {
        let escaped = Markup.text(text)
        var out = ""
        out.reserveCapacity(escaped.utf8.count)
        var rest = escaped[...]
        while let word = rest.firstMatch(of: /(?:\bframes? |#)(?<list>\d+(?!\d|\.\d)(?:(?:, |→|–)\d+(?!\d|\.\d))*)/) {
            out += rest[rest.startIndex..<word.range.lowerBound]
            let match = rest[word.range]
            let list = word.output.list
            out += match[match.startIndex..<list.startIndex]
            var last = list.startIndex
            for digits in list.matches(of: /\d+/) {
                out += list[last..<digits.range.lowerBound]
                // A number too long for an Int stays text.
                out += Int(list[digits.range]).map { button($0) } ?? String(list[digits.range])
                last = digits.range.upperBound
            }
            out += list[last...]
            rest = rest[word.range.upperBound...]
        }
        return out + rest
    }
}
