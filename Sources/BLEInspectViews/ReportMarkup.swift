/// Escaping for the report's HTML and SVG: everything from a capture (device names, values,
/// UUID names) is untrusted and goes through here before it reaches the page.
enum Markup {
    /// Text for an element's content: `&`, `<` and `>` as character references. A NUL, which
    /// HTML parsers drop or replace, becomes U+FFFD.
    static func text(_ s: String) -> String { escape(s, quotes: false) }

    /// Text for an attribute value in double or single quotes: also `"` and `'`.
    static func attribute(_ s: String) -> String { escape(s, quotes: true) }

    private static func escape(_ s: String, quotes: Bool) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where quotes: out += "&quot;"
            case "'" where quotes: out += "&#39;"
            case "\0": out += "\u{FFFD}"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// An element: `name` and the attribute names are the report's own; the attribute values
    /// are escaped here; `content` is markup already (escape text with `text(_:)`).
    static func element(_ name: String, _ attributes: [(String, String)], _ content: String? = nil) -> String {
        var out = "<" + name
        for (key, value) in attributes { out += " " + key + "=\"" + attribute(value) + "\"" }
        guard let content else { return out + "/>" }
        return out + ">" + content + "</" + name + ">"
    }

    /// A chart: an `<svg role="img">` of `width` by `height`, named by its `<title>` and `<desc>`
    /// (their ids made from `id`), around `body` (markup).
    static func chart(
        id: String,
        class name: String,
        width: Double,
        height: Double,
        title: String,
        desc: String,
        _ body: String
    ) -> String {
        element(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("class", name), ("role", "img"),
                ("viewBox", "0 0 \(number(width)) \(number(height))"), ("aria-labelledby", "\(id)-title \(id)-desc"),
            ],
            element("title", [("id", "\(id)-title")], text(title)) + element("desc", [("id", "\(id)-desc")], text(desc))
                + body
        )
    }

    /// A coordinate or length for SVG: at most one decimal, no exponent, `0` for non-finite values.
    static func number(_ v: Double) -> String {
        guard v.isFinite else { return "0" }
        let tenths = (v * 10).rounded()
        guard tenths.magnitude < 1e15 else { return "0" }
        let t = Int64(tenths)
        let sign = t < 0 ? "-" : ""
        let m = t.magnitude
        return sign + String(m / 10) + (m % 10 == 0 ? "" : "." + String(m % 10))
    }
}
