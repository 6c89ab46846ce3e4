/// The ini-style text of BlueZ's info files and Android's bt_config.conf: `[section]` lines and
/// `key=value` lines (spaces around `=` allowed), `#` or `;` starting a comment line.
struct IniText {
    struct Entry {
        let line: KeyLine
        let section: Substring
        let key: Substring
        let value: Substring
    }

    struct Section {
        let line: KeyLine
        let name: Substring
        /// Its entries' positions in `entries`.
        var entries: Range<Int>
    }

    var sections: [Section] = []
    var entries: [Entry] = []

    init(_ text: String, source: String) throws(KeyError) {
        var section: Substring = ""
        for line in KeyLine.lines(of: text, source: source) {
            let trimmed = line.text.drop { $0 == " " || $0 == "\t" }
            guard let first = trimmed.first, first != "#", first != ";" else { continue }
            if first == "[" {
                guard let close = trimmed.lastIndex(of: "]") else {
                    throw line.error(.syntax, at: trimmed.startIndex, "a section name needs a closing ']'")
                }
                section = trimmed[trimmed.index(after: trimmed.startIndex)..<close]
                sections.append(Section(line: line, name: section, entries: entries.count..<entries.count))
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw line.error(.syntax, at: trimmed.startIndex, "a line is '[section]' or 'key=value'")
            }
            let key = trimmed[..<equals].trimmingSpaces
            let value = trimmed[trimmed.index(after: equals)...].trimmingSpaces
            entries.append(Entry(line: line, section: section, key: key, value: value))
            if let last = sections.indices.last {
                sections[last].entries = sections[last].entries.lowerBound..<entries.count
            }
        }
    }

    /// The entries of `section`.
    func entries(of section: Section) -> ArraySlice<Entry> { entries[section.entries] }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: Substring {
        let start = drop { $0 == " " || $0 == "\t" }
        var end = start.endIndex
        while end > start.startIndex, [" ", "\t"].contains(start[start.index(before: end)]) {
            end = start.index(before: end)
        }
        return start[..<end]
    }
}
