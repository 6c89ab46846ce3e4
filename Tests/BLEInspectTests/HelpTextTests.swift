import ArgumentParser
import BLEAdvBudgetCommand
import Testing

@testable import BLEInspectCLI

/// Every command's `--help` as ArgumentParser renders it at 80 columns: the prose is wrapped once
/// (by ArgumentParser, not also by hand, which leaves short lines inside paragraphs), and every
/// example command is on a line of its own, whole, so that it can be copied.
@Suite("help at 80 columns")
struct HelpTextTests {
    static let width = 80

    /// The commands checked: `bleinspect`, each of its subcommands, and `bleinspect-adv`.
    static let names = ["bleinspect"] + subcommands.map { "bleinspect " + $0.name } + ["bleinspect-adv"]

    static var subcommands: [(name: String, type: any ParsableCommand.Type)] {
        BLEInspectCommand.configuration.subcommands.map { ($0.configuration.commandName ?? "", $0) }
    }

    /// The help screen of `name` and its command's discussion as written.
    static func help(_ name: String) -> (screen: String, discussion: String) {
        if name == "bleinspect" {
            return (BLEInspectCommand.helpMessage(columns: width), BLEInspectCommand.configuration.discussion)
        }
        if name == "bleinspect-adv" {
            return (AdvBudgetCommand.helpMessage(columns: width), AdvBudgetCommand.configuration.discussion)
        }
        let type = subcommands.first { "bleinspect " + $0.name == name }?.type ?? BLEInspectCommand.self
        return (BLEInspectCommand.helpMessage(for: type, columns: width), type.configuration.discussion)
    }

    /// The overview and discussion of a help screen: its lines before `USAGE:`.
    static func prose(_ screen: String) -> [Substring] {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        return Array(lines.prefix { !$0.hasPrefix("USAGE:") })
    }

    /// The lines of the section headed `Examples:` (up to the next blank line).
    static func examples(_ lines: [Substring]) -> [Substring] {
        guard let heading = lines.firstIndex(where: { $0 == "Examples:" }) else { return [] }
        return Array(lines[(heading + 1)...].prefix { !$0.isEmpty })
    }

    @Test("the subcommands are all checked")
    func everySubcommand() {
        #expect(Self.subcommands.count == BLEInspectCommand.configuration.subcommands.count)
        #expect(Self.names.contains("bleinspect follow"))
        #expect(Self.names.allSatisfy { !$0.hasSuffix(" ") })
    }

    @Test("every example command is whole on one line", arguments: names)
    func examplesNotSplit(_ name: String) {
        let (screen, discussion) = Self.help(name)
        let rendered = Self.examples(Self.prose(screen))
        for line in rendered {
            // A line of the list is indented; a line ArgumentParser wrapped starts at column 0.
            #expect(line.hasPrefix("  "), "\(name): an example is split before '\(line)'")
            let command = line.drop { $0 == " " }
            guard command.hasPrefix("bleinspect") else { continue }
            let text = command.split(separator: "#", maxSplits: 1)[0]
            #expect(text.filter { $0 == "'" }.count % 2 == 0, "\(name): unbalanced quotes in '\(line)'")
            #expect(text.filter { $0 == "\"" }.count % 2 == 0, "\(name): unbalanced quotes in '\(line)'")
            #expect(!text.hasSuffix("\\") && !text.hasSuffix("\\ "), "\(name): '\(line)' continues")
        }
        // Each example as written is a line of the screen, whole.
        let written = Self.examples(discussion.split(separator: "\n", omittingEmptySubsequences: false))
        let lines = Set(screen.split(separator: "\n"))
        for example in written {
            let whole = lines.contains(example)
            #expect(whole, "\(name): the example '\(example)' is not one line at 80 columns")
        }
    }

    @Test("no prose line is ragged: a short line is the last of its paragraph", arguments: names)
    func proseNotRagged(_ name: String) {
        let lines = Self.prose(Self.help(name).screen)
        for (line, next) in zip(lines, lines.dropFirst()) {
            // A list or an example (indented) may be short; a heading ends with a colon.
            if line.isEmpty || line.hasPrefix(" ") || line.hasSuffix(":") { continue }
            if next.isEmpty || next.hasPrefix(" ") { continue }
            #expect(line.count >= Self.width / 2, "\(name): a short line inside a paragraph: '\(line)' / '\(next)'")
        }
        // An indented line (a list item or an example) is never continued at column 0.
        for (line, next) in zip(lines, lines.dropFirst()) where line.hasPrefix(" ") {
            #expect(next.isEmpty || next.hasPrefix(" "), "\(name): '\(line)' is continued by '\(next)'")
        }
    }

    @Test("the discussion as written has no line break inside a paragraph", arguments: names)
    func noHardBreaks(_ name: String) {
        let lines = Self.help(name).discussion.split(separator: "\n", omittingEmptySubsequences: false)
        // Only a heading (ending with a colon) or a list item (indented) may be followed by a line.
        for (line, next) in zip(lines, lines.dropFirst()) where !line.isEmpty && !next.isEmpty {
            if line.hasSuffix(":") || next.hasPrefix(" ") { continue }
            Issue.record("\(name): a line break inside a paragraph: '\(line)' / '\(next)'")
        }
    }

    @Test("no line but the usage line is wider than 80 columns", arguments: names)
    func width(_ name: String) {
        for line in Self.help(name).screen.split(separator: "\n") where !line.hasPrefix("USAGE:") {
            #expect(line.count <= Self.width, "\(name): '\(line)'")
        }
    }
}
