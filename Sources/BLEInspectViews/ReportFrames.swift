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
        let s = Array(Markup.text(text).utf8)
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var i = 0
        while i < s.count {
            guard let listStart = Self.listStart(s, at: i), var end = Self.number(s, at: listStart) else {
                out.append(s[i])
                i += 1
                continue
            }
            out += s[i..<listStart]
            var start = listStart
            while true {
                // A number too long for an Int stays text.
                if let n = Int(String(decoding: s[start..<end], as: UTF8.self)) {
                    out += Array(button(n).utf8)
                } else {
                    out += s[start..<end]
                }
                guard let after = Self.separator(s, at: end), let next = Self.number(s, at: after) else { break }
                out += s[end..<after]
                (start, end) = (after, next)
            }
            i = end
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isWord(_ b: UInt8) -> Bool {
        b >= 0x80 || b == UInt8(ascii: "_") || (0x30...0x39).contains(b) || (0x41...0x5A).contains(b)
            || (0x61...0x7A).contains(b)
    }

    private static func isDigit(_ s: [UInt8], _ i: Int) -> Bool { i < s.count && (0x30...0x39).contains(s[i]) }

    /// Where a list of frame numbers would start after a prefix at `i`: `#`, or `frame ` or
    /// `frames ` starting a word.
    private static func listStart(_ s: [UInt8], at i: Int) -> Int? {
        if s[i] == UInt8(ascii: "#") { return i + 1 }
        guard i == 0 || !isWord(s[i - 1]), s[i...].starts(with: "frame".utf8) else { return nil }
        var k = i + 5
        if k < s.count && s[k] == UInt8(ascii: "s") { k += 1 }
        return k < s.count && s[k] == UInt8(ascii: " ") ? k + 1 : nil
    }

    /// The end of a frame number at `i`: digits not followed by a digit or by a decimal point
    /// and a digit (`748.900 ms` is not a frame).
    private static func number(_ s: [UInt8], at i: Int) -> Int? {
        var k = i
        while isDigit(s, k) { k += 1 }
        guard k > i, !(k < s.count && s[k] == UInt8(ascii: ".") && isDigit(s, k + 1)) else { return nil }
        return k
    }

    /// The end of a separator between numbers at `i`: `, `, `→` or `–`.
    private static func separator(_ s: [UInt8], at i: Int) -> Int? {
        for sep in [", ", "→", "–"] where s[i...].starts(with: sep.utf8) { return i + sep.utf8.count }
        return nil
    }
}
