import BLEInspectCore

/// "Did you mean" for unknown field names and bad value names.
enum Suggestions {
    /// Levenshtein distance between `a` and `b`.
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int { EditDistance.levenshtein(a, b) }

    /// The known field name nearest to `name`: the same name in another case; else the shortest
    /// name that `name` begins; else the closest by edit distance (a few edits at most); else the
    /// longest known name that `name` extends (`btatt.value.len` → `btatt.value`).
    static func field(for name: String, in keys: some Collection<String>) -> String? {
        let lower = name.lowercased()
        let sorted = keys.sorted()
        if let same = sorted.first(where: { $0.lowercased() == lower }) { return same }
        if lower.count >= 3 {
            let extensions = sorted.filter { $0.hasPrefix(lower) }
            if let shortest = extensions.min(by: { ($0.count, $0) < ($1.count, $1) }) { return shortest }
        }
        let typed = Array(lower.utf8)
        let limit = max(1, min(4, typed.count / 4))
        var best: (distance: Int, name: String)? = nil
        let typedProtocol = lower.split(separator: ".").first.map(String.init) ?? lower
        for key in sorted {
            let candidate = Array(key.lowercased().utf8)
            guard abs(candidate.count - typed.count) <= limit else { continue }
            var d = distance(typed, candidate)
            guard d <= limit else { continue }
            // Prefer names of the protocol the user typed.
            let sameProtocol = key.split(separator: ".").first.map(String.init) == typedProtocol
            d = d * 2 + (sameProtocol ? 0 : 1)
            if best == nil || d < (best?.distance ?? Int.max) { best = (d, key) }
        }
        if let best { return best.name }
        let prefixes = sorted.filter { lower.hasPrefix($0.lowercased() + ".") }
        return prefixes.max(by: { $0.count < $1.count })
    }

    /// The `count` names nearest to `text` (case-insensitive), nearest first.
    static func nearest(_ text: String, among names: [String], count: Int) -> [String] {
        // Long input is scored on its start, which keeps a 64 KiB literal cheap.
        let typed = Array(text.lowercased().utf8.prefix(64))
        var seen: Set<String> = []
        var scored: [(Int, String)] = []
        for n in names where seen.insert(n).inserted {
            let candidate = Array(n.lowercased().utf8)
            let containsTyped = !typed.isEmpty && n.lowercased().contains(text.lowercased())
            scored.append((containsTyped ? 0 : distance(typed, candidate) + 1, n))
        }
        scored.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        return scored.prefix(count).map(\.1)
    }
}
