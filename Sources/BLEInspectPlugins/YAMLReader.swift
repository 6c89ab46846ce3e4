import BLEInspectCore
import Foundation
import Yams

/// Reads a plugin file's YAML nodes, keeping every mistake with its line and column. Values are
/// read from the scalars' text, not through YAML's own typing, so that `0x0081` is a number and
/// `on` is a word.
struct YAMLReader {
    let file: String
    private(set) var diagnostics: [PluginDiagnostic] = []
    /// Past this many diagnostics the rest are not worth reading.
    static let maximumDiagnostics = 20

    init(file: String) { self.file = file }

    var failed: Bool { !diagnostics.isEmpty }

    mutating func error(_ node: Node?, _ message: String) {
        let mark = node?.mark
        error(line: mark?.line ?? 0, column: mark?.column ?? 0, message)
    }

    mutating func error(line: Int, column: Int, _ message: String) {
        guard diagnostics.count < Self.maximumDiagnostics else { return }
        let d = PluginDiagnostic(file: file, line: line, column: column, message: message)
        if !diagnostics.contains(d) { diagnostics.append(d) }
    }

    /// The document's root, or nil after recording the YAML error.
    mutating func parse(_ text: String) -> Node? {
        if let (line, column) = Self.firstAnchorOrAlias(text) {
            error(line: line, column: column, "YAML anchors and aliases (&name, *name) are not allowed in plugins")
            return nil
        }
        do {
            guard let root = try Yams.compose(yaml: text) else {
                error(line: 1, column: 1, "the file is empty")
                return nil
            }
            return root
        } catch let e as YamlError {
            switch e {
            case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
                .composer(_, let problem, let mark, _):
                error(line: mark.line, column: mark.column, "bad YAML: \(problem)")
            case .duplicatedKeysInMapping(let duplicates, let context):
                let mark = context.mark
                error(
                    line: mark.line,
                    column: mark.column,
                    "bad YAML: key \(duplicates.map { "'\($0)'" }.joined(separator: ", ")) given twice"
                )
            default:
                error(line: 1, column: 1, "bad YAML: \(e)")
            }
            return nil
        } catch {
            self.error(line: 1, column: 1, "bad YAML: \(error)")
            return nil
        }
    }

    /// Where the first anchor (`&a`) or alias (`*a`) is, if any: a few lines of them can stand for
    /// an exponentially large tree, so they are refused before the YAML is composed. An anchor or
    /// alias starts a node, so it follows the start of a line, a space or a flow indicator and is
    /// outside quotes and comments; `*` and `&` elsewhere (`m*s`, `"a & b"`) are text.
    static func firstAnchorOrAlias(_ text: String) -> (line: Int, column: Int)? {
        var line = 1
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            defer { line += 1 }
            let chars = Array(raw.unicodeScalars)
            var quote: Unicode.Scalar? = nil
            var previous: Unicode.Scalar = " "
            for (i, ch) in chars.enumerated() {
                defer { previous = ch }
                if let q = quote {
                    if ch == q { quote = nil }
                    continue
                }
                let startsToken = previous == " " || previous == "\t" || "[{,-:".unicodeScalars.contains(previous)
                if ch == "#" && (previous == " " || previous == "\t" || i == 0) { break }
                if (ch == "\"" || ch == "'") && startsToken { quote = ch; continue }
                if (ch == "&" || ch == "*") && startsToken, i + 1 < chars.count, chars[i + 1] != " " {
                    return (line, i + 1)
                }
            }
        }
        return nil
    }

    /// Rejects anchors and aliases: a few lines of them can stand for an exponential tree.
    mutating func plain(_ node: Node) -> Bool {
        if node.anchor != nil {
            error(node, "YAML anchors and aliases are not allowed in plugins")
            return false
        }
        if case .alias = node {
            error(node, "YAML anchors and aliases are not allowed in plugins")
            return false
        }
        return true
    }

    /// The pairs of a mapping whose keys are all in `allowed` (each unknown key is an error, with
    /// the closest allowed key as a suggestion). Nil (after an error) when `node` is not a mapping.
    mutating func mapping(_ node: Node, _ what: String, allowed: [String]) -> [(
        key: String, keyNode: Node, value: Node
    )]? {
        guard plain(node) else { return nil }
        guard case .mapping(let m) = node else {
            error(node, "\(what) must be a mapping (key: value lines)")
            return nil
        }
        var pairs: [(key: String, keyNode: Node, value: Node)] = []
        for (k, v) in m {
            guard plain(k), plain(v) else { continue }
            guard case .scalar(let s) = k else {
                error(k, "keys in \(what) must be plain words")
                continue
            }
            let key = s.string
            if !allowed.contains(key) {
                let hint = Self.closest(key, in: allowed).map { "; did you mean '\($0)'?" } ?? ""
                error(k, "unknown key '\(key)' in \(what)\(hint) (allowed: \(allowed.joined(separator: ", ")))")
                continue
            }
            pairs.append((key, k, v))
        }
        return pairs
    }

    /// The items of a sequence, or nil after an error.
    mutating func sequence(_ node: Node, _ what: String) -> [Node]? {
        guard plain(node) else { return nil }
        guard case .sequence(let s) = node else {
            error(node, "\(what) must be a list (lines starting with '- ')")
            return nil
        }
        return Array(s)
    }

    /// A scalar's text, or nil after an error.
    mutating func string(_ node: Node, _ what: String) -> String? {
        guard plain(node) else { return nil }
        guard case .scalar(let s) = node else {
            error(node, "\(what) must be a single value, not a list or mapping")
            return nil
        }
        return s.string
    }

    /// An integer written in decimal or hex (`0x…`), optionally negative, within `range`.
    mutating func integer(_ node: Node, _ what: String, in range: ClosedRange<Int64>) -> Int64? {
        guard let text = string(node, what) else { return nil }
        guard let v = Self.parseInteger(text) else {
            error(node, "\(what) must be an integer (decimal or 0x hex), not '\(text)'")
            return nil
        }
        guard range.contains(v) else {
            error(node, "\(what) \(text) is out of range \(range.lowerBound)…\(range.upperBound)")
            return nil
        }
        return v
    }

    mutating func real(_ node: Node, _ what: String) -> Double? {
        guard let text = string(node, what) else { return nil }
        guard let v = Double(text), v.isFinite else {
            error(node, "\(what) must be a finite number, not '\(text)'")
            return nil
        }
        return v
    }

    mutating func uuid(_ node: Node, _ what: String) -> BluetoothUUID? {
        guard let text = string(node, what) else { return nil }
        let digits = text.lowercased().replacingOccurrences(of: "-", with: "")
        let shapeOK = text.count == 36 ? Self.isCanonicalUUID(text) : !text.contains("-")
        guard shapeOK, let uuid = BluetoothUUID(text), !digits.isEmpty else {
            error(
                node,
                "bad UUID '\(text)': write 16 bits as 0x180F, 32 bits as 8 hex digits, 128 bits as 8-4-4-4-12 hex digits"
            )
            return nil
        }
        return uuid
    }

    /// Bytes written as hex pairs (`AC 01`, `ac01`, `0xAC01`) or, with `text:` quoting, as UTF-8.
    mutating func bytes(_ node: Node, _ what: String) -> [UInt8]? {
        if case .mapping = node {
            guard let pairs = mapping(node, what, allowed: ["text", "hex"]), let only = pairs.first,
                pairs.count == 1
            else {
                if !failed { error(node, "\(what) takes one of text: or hex:") }
                return nil
            }
            guard let s = string(only.value, what) else { return nil }
            if only.key == "text" { return Array(s.utf8) }
            return hexBytes(s, only.value, what)
        }
        guard let s = string(node, what) else { return nil }
        return hexBytes(s, node, what)
    }

    private mutating func hexBytes(_ text: String, _ node: Node, _ what: String) -> [UInt8]? {
        var t = text.lowercased()
        if t.hasPrefix("0x") { t.removeFirst(2) }
        t.removeAll { $0 == " " || $0 == ":" || $0 == "-" }
        guard t.count % 2 == 0, t.allSatisfy(\.isHexDigit) else {
            error(node, "\(what) must be hex bytes such as 'AC 01' (or {text: \"EOF\"}), not '\(text)'")
            return nil
        }
        var out: [UInt8] = []
        var i = t.startIndex
        while i < t.endIndex {
            let j = t.index(i, offsetBy: 2)
            guard let b = UInt8(t[i..<j], radix: 16) else { return nil }
            out.append(b)
            i = j
        }
        return out
    }

    static func parseInteger(_ text: String) -> Int64? {
        var t = Substring(text.replacingOccurrences(of: "_", with: ""))
        var negative = false
        if t.hasPrefix("-") {
            negative = true
            t = t.dropFirst()
        } else if t.hasPrefix("+") {
            t = t.dropFirst()
        }
        let magnitude: UInt64?
        if t.lowercased().hasPrefix("0x") {
            magnitude = UInt64(t.dropFirst(2), radix: 16)
        } else if t.lowercased().hasPrefix("0b") {
            magnitude = UInt64(t.dropFirst(2), radix: 2)
        } else {
            magnitude = UInt64(t, radix: 10)
        }
        guard let m = magnitude, !t.isEmpty else { return nil }
        if negative { return m <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- m) : nil }
        return m <= UInt64(Int64.max) ? Int64(m) : nil
    }

    private static func isCanonicalUUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
        return groups == [8, 4, 4, 4, 12]
    }

    /// The allowed word closest to `word` (edit distance at most 2), for "did you mean".
    static func closest(_ word: String, in candidates: [String]) -> String? {
        var best: (String, Int)? = nil
        for c in candidates {
            let d = distance(Array(word), Array(c))
            if d <= 2, best.map({ d < $0.1 }) ?? true { best = (c, d) }
        }
        return best?.0
    }

    private static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = row
        }
        return previous[b.count]
    }
}
