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

    mutating func error(_ code: PluginDiagnostic.Code, _ node: Node?, _ message: String) {
        let mark = node?.mark
        error(code, line: mark?.line ?? 0, column: mark?.column ?? 0, message)
    }

    mutating func error(_ code: PluginDiagnostic.Code, line: Int, column: Int, _ message: String) {
        guard diagnostics.count < Self.maximumDiagnostics else { return }
        let d = PluginDiagnostic(code, file: file, line: line, column: column, message: message)
        if !diagnostics.contains(d) { diagnostics.append(d) }
    }

    /// The document's root, or nil after recording the YAML error.
    mutating func parse(_ text: String) -> Node? {
        if let (line, column) = Self.firstAnchorOrAlias(text) {
            error(
                .yaml,
                line: line,
                column: column,
                "YAML anchors and aliases (&name, *name) are not allowed in plugins"
            )
            return nil
        }
        do {
            guard let root = try Yams.compose(yaml: text, .basic) else {
                error(.yaml, line: 1, column: 1, "the file is empty")
                return nil
            }
            return root
        } catch let e as YamlError {
            switch e {
            case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
                .composer(_, let problem, let mark, _):
                error(.yaml, line: mark.line, column: mark.column, "bad YAML: \(problem)")
            case .duplicatedKeysInMapping(let duplicates, let context):
                let mark = context.mark
                error(
                    .yaml,
                    line: mark.line,
                    column: mark.column,
                    "bad YAML: key \(duplicates.map { "'\($0)'" }.joined(separator: ", ")) given twice"
                )
            default:
                error(.yaml, line: 1, column: 1, "bad YAML: \(e)")
            }
            return nil
        } catch {
            self.error(.yaml, line: 1, column: 1, "bad YAML: \(error)")
            return nil
        }
    }

    /// Where the first anchor (`&a`) or alias (`*a`) is, if any: a few lines of them can stand for
    /// an exponentially large tree, so they are refused before the YAML is composed. An anchor or
    /// alias starts a node, so it follows the start of a line, a space or a flow indicator and is
    /// outside quotes and comments; `*` and `&` elsewhere (`m*s`, `"a & b"`) are text.
    static func firstAnchorOrAlias(_ text: String) -> (line: Int, column: Int)? {
        var line = 1
        var column = 0
        var quote: UInt8 = 0
        var inComment = false
        var previous: UInt8 = 0x20
        // The last byte on this line that is not a space (0 at the start of a line): a node starts
        // after nothing, `:`, `-`, `?`, or a flow indicator.
        var lastSignificant: UInt8 = 0
        var pendingIndicator = false
        for b in text.utf8 {
            // Columns count characters: continuation bytes of UTF-8 do not start one.
            if b & 0xC0 != 0x80 { column += 1 }
            let before = previous
            previous = b
            if pendingIndicator {
                pendingIndicator = false
                if b != 0x20 && b != 0x0A && b != 0x0D && b != 0x09 { return (line, column - 1) }
            }
            if b == 0x0A {
                line += 1
                column = 0
                quote = 0
                inComment = false
                previous = 0x20
                lastSignificant = 0
                continue
            }
            if inComment { continue }
            if quote != 0 {
                if b == quote { quote = 0 }
                continue
            }
            let separated = before == 0x20 || before == 0x09 || before == 0x5B || before == 0x7B || before == 0x2C
            let afterIndicator = [0, 0x3A, 0x2D, 0x3F, 0x5B, 0x7B, 0x2C].contains(lastSignificant)
            if b == 0x23 && (before == 0x20 || before == 0x09) {
                inComment = true
            } else if separated && afterIndicator && (b == 0x22 || b == 0x27) {
                quote = b
            } else if separated && afterIndicator && (b == 0x26 || b == 0x2A) {
                pendingIndicator = true
            }
            if b != 0x20 && b != 0x09 { lastSignificant = b }
        }
        return nil
    }

    /// Rejects anchors and aliases: a few lines of them can stand for an exponential tree.
    mutating func plain(_ node: Node) -> Bool {
        if node.anchor != nil {
            error(.yaml, node, "YAML anchors and aliases are not allowed in plugins")
            return false
        }
        if case .alias = node {
            error(.yaml, node, "YAML anchors and aliases are not allowed in plugins")
            return false
        }
        return true
    }

    /// The pairs of a mapping whose keys are all in `allowed` (each unknown key is an error, with
    /// the closest allowed key as a suggestion). Nil (after an error) when `node` is not a mapping.
    mutating func mapping(_ node: Node, _ what: String, allowed: [String]) -> [String: Node]? {
        guard plain(node) else { return nil }
        guard case .mapping(let m) = node else {
            error(.schema, node, "\(what) must be a mapping (key: value lines)")
            return nil
        }
        var pairs: [String: Node] = [:]
        pairs.reserveCapacity(m.count)
        for (k, v) in m {
            guard plain(k), plain(v) else { continue }
            guard case .scalar(let s) = k else {
                error(.schema, k, "keys in \(what) must be plain words")
                continue
            }
            let key = s.string
            if !allowed.contains(key) {
                let hint = Self.closest(key, in: allowed).map { "; did you mean '\($0)'?" } ?? ""
                error(
                    .schema,
                    k,
                    "unknown key '\(key)' in \(what)\(hint) (allowed: \(allowed.joined(separator: ", ")))"
                )
                continue
            }
            pairs[key] = v
        }
        return pairs
    }

    /// The items of a sequence, or nil after an error.
    mutating func sequence(_ node: Node, _ what: String) -> [Node]? {
        guard plain(node) else { return nil }
        guard case .sequence(let s) = node else {
            error(.schema, node, "\(what) must be a list (lines starting with '- ')")
            return nil
        }
        return Array(s)
    }

    /// A scalar's text, or nil after an error.
    mutating func string(_ node: Node, _ what: String) -> String? {
        guard plain(node) else { return nil }
        guard case .scalar(let s) = node else {
            error(.schema, node, "\(what) must be a single value, not a list or mapping")
            return nil
        }
        return s.string
    }

    /// `true` or `false`, or nil after an error.
    mutating func boolean(_ node: Node, _ what: String) -> Bool? {
        guard let text = string(node, what) else { return nil }
        switch text {
        case "true": return true
        case "false": return false
        default:
            error(.schema, node, "\(what) is true or false, not '\(text)'")
            return nil
        }
    }

    /// An integer written in decimal or hex (`0x…`), optionally negative, within `range`.
    mutating func integer(_ node: Node, _ what: String, in range: ClosedRange<Int64>) -> Int64? {
        guard let text = string(node, what) else { return nil }
        guard let v = Self.parseInteger(text) else {
            error(.schema, node, "\(what) must be an integer (decimal or 0x hex), not '\(text)'")
            return nil
        }
        guard range.contains(v) else {
            error(.schema, node, "\(what) \(text) is out of range \(range.lowerBound)…\(range.upperBound)")
            return nil
        }
        return v
    }

    mutating func real(_ node: Node, _ what: String) -> Double? {
        guard let text = string(node, what) else { return nil }
        guard let v = Double(text), v.isFinite else {
            error(.schema, node, "\(what) must be a finite number, not '\(text)'")
            return nil
        }
        return v
    }

    mutating func uuid(_ node: Node, _ what: String) -> BluetoothUUID? {
        guard let text = string(node, what) else { return nil }
        let shapeOK = text.utf8.count == 36 ? Self.isCanonicalUUID(text) : !text.utf8.contains(0x2D)
        guard shapeOK, let uuid = BluetoothUUID(text) else {
            error(
                .schema,
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
                if !failed { error(.schema, node, "\(what) takes one of text: or hex:") }
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
        guard let bytes = HexText.parse(text) else {
            error(.schema, node, "\(what) must be hex bytes such as 'AC 01' (or {text: \"EOF\"}), not '\(text)'")
            return nil
        }
        return bytes
    }

    static func parseInteger(_ text: String) -> Int64? {
        var bytes = Array(text.utf8.filter { $0 != 0x5F })
        var negative = false
        if let first = bytes.first, first == 0x2D || first == 0x2B {
            negative = first == 0x2D
            bytes.removeFirst()
        }
        var radix: UInt64 = 10
        if bytes.count > 2, bytes[0] == 0x30, bytes[1] | 0x20 == 0x78 || bytes[1] | 0x20 == 0x62 {
            radix = bytes[1] | 0x20 == 0x78 ? 16 : 2
            bytes.removeFirst(2)
        }
        guard !bytes.isEmpty else { return nil }
        var m: UInt64 = 0
        for b in bytes {
            let digit: UInt64
            switch b {
            case 0x30...0x39: digit = UInt64(b - 0x30)
            case 0x61...0x66: digit = UInt64(b - 0x61 + 10)
            case 0x41...0x46: digit = UInt64(b - 0x41 + 10)
            default: return nil
            }
            guard digit < radix else { return nil }
            let (times, o1) = m.multipliedReportingOverflow(by: radix)
            let (sum, o2) = times.addingReportingOverflow(digit)
            guard !o1, !o2 else { return nil }
            m = sum
        }
        if negative { return m <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- m) : nil }
        return m <= UInt64(Int64.max) ? Int64(m) : nil
    }

    private static func isCanonicalUUID(_ text: String) -> Bool {
        var dashes: [Int] = []
        for (i, b) in text.utf8.enumerated() where b == 0x2D { dashes.append(i) }
        return dashes == [8, 13, 18, 23]
    }

    /// The allowed word closest to `word` (edit distance at most 2), for "did you mean".
    static func closest(_ word: String, in candidates: [String]) -> String? {
        var best: (String, Int)? = nil
        for c in candidates {
            let d = EditDistance.levenshtein(Array(word.utf8), Array(c.utf8))
            if d <= 2, best.map({ d < $0.1 }) ?? true { best = (c, d) }
        }
        return best?.0
    }
}
