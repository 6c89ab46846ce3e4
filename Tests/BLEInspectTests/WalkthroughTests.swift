import BLEInspectTestSupport
import Foundation
import Testing

/// The walkthroughs in docs/ show commands with their output. Each command is run here, from the
/// repository's root as the page says, and its output must be the one written under it
/// (`scripts/doc-outputs` writes them).
@Suite("walkthroughs")
struct WalkthroughTests {
    struct Example: CustomStringConvertible {
        let line: Int
        let command: String
        let output: String
        var description: String { "line \(line): \(command)" }
    }

    /// The `$ command` lines of the ```console blocks in `doc`, each with the lines under it.
    static func examples(_ doc: String) throws -> [Example] {
        let url = TestPaths.repositoryRoot.appendingPathComponent(doc)
        let lines = try String(contentsOf: url, encoding: .utf8).split(
            separator: "\n",
            omittingEmptySubsequences: false
        )
        var examples: [Example] = []
        var inBlock = false
        var current: (Int, String, [Substring])? = nil
        func close() {
            if let (line, command, output) = current {
                examples.append(Example(line: line, command: command, output: output.joined(separator: "\n")))
            }
            current = nil
        }
        for (n, line) in lines.enumerated() {
            if !inBlock {
                inBlock = line.trimmingCharacters(in: .whitespaces) == "```console"
                continue
            }
            if line.trimmingCharacters(in: .whitespaces) == "```" {
                close()
                inBlock = false
            } else if line.hasPrefix("$ ") {
                close()
                current = (n + 1, String(line.dropFirst(2)), [])
            } else {
                current?.2.append(line)
            }
        }
        return examples
    }

    /// `text` split into words as a POSIX shell splits them: single and double quotes and
    /// backslash escapes; nothing else of the shell.
    static func words(_ text: String) throws -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character? = nil
        var escaped = false
        for c in text {
            if escaped {
                word.append(c)
                escaped = false
            } else if let q = quote {
                if c == q { quote = nil } else if c == "\\" && q == "\"" { escaped = true } else { word.append(c) }
            } else if c == "'" || c == "\"" {
                quote = c
                inWord = true
            } else if c == "\\" {
                escaped = true
                inWord = true
            } else if c == " " {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(c)
                inWord = true
            }
        }
        try #require(quote == nil && !escaped, "unbalanced quoting in \(text)")
        if inWord { words.append(word) }
        return words
    }

    static let docs = ["docs/COREBLUETOOTH.md"]

    @Test("each walkthrough has its examples", arguments: docs)
    func hasExamples(_ doc: String) throws {
        #expect(try Self.examples(doc).count >= 10)
    }

    @Test("every command in a walkthrough prints the output shown under it", arguments: docs)
    func outputsAsShown(_ doc: String) throws {
        for example in try Self.examples(doc) {
            let argv = try Self.words(example.command)
            try #require(argv.first == "bleinspect", "\(example)")
            let result = try Run.program(
                TestPaths.bleinspectBinary,
                Array(argv.dropFirst()),
                stdinPath: nil,
                workingDirectory: TestPaths.repositoryRoot
            )
            #expect(result.status == 0, "\(example): \(result.stderr)")
            #expect(result.stderr.isEmpty, "\(example): \(result.stderr)")
            var shown = Substring(result.stdoutText)
            while shown.hasSuffix("\n") { shown = shown.dropLast() }
            #expect(shown == example.output, "\(doc) \(example): the output differs")
        }
    }
}
