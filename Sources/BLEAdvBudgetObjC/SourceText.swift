import BLEAdvBudget
import Foundation

/// The bytes of the files one translation unit reads, for the source text of expressions and
/// for lines and columns (clang's JSON gives byte offsets). One per scan; not shared.
final class SourceText {
    private var files: [String: [UInt8]] = [:]

    /// The file's bytes, read once; nil when it cannot be read.
    func bytes(of file: String) -> [UInt8]? {
        if let cached = files[file] { return cached }
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        let bytes = [UInt8](data)
        files[file] = bytes
        return bytes
    }

    /// The text from `begin` to the end of the token at `end`, as written; nil when they are in
    /// different files or out of range.
    func text(from begin: ASTLocation, to end: ASTLocation) -> String? {
        guard begin.file == end.file, let bytes = bytes(of: begin.file) else { return nil }
        let (stop, overflow) = end.offset.addingReportingOverflow(max(0, end.length))
        guard !overflow, begin.offset >= 0, begin.offset <= stop, stop <= bytes.count else { return nil }
        return String(decoding: bytes[begin.offset..<stop], as: UTF8.self)
    }

    /// The 1-based line and byte column of an offset.
    func lineAndColumn(file: String, offset: Int) -> (line: Int, column: Int)? {
        guard let bytes = bytes(of: file), offset >= 0, offset <= bytes.count else { return nil }
        var line = 1
        var lineStart = 0
        for index in 0..<offset where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        return (line, offset - lineStart + 1)
    }

    func location(_ location: ASTLocation) -> SourceLocation {
        let place = lineAndColumn(file: location.file, offset: location.offset)
        return SourceLocation(file: location.file, line: place?.line ?? 1, column: place?.column)
    }

    /// The offset of the last `word` between two offsets of a file, for a token clang's JSON does
    /// not locate (the selector of a message).
    func lastOccurrence(of word: String, in file: String, from start: Int, to stop: Int) -> Int? {
        guard let bytes = bytes(of: file), start >= 0, start <= stop, stop <= bytes.count else { return nil }
        let needle = Array(word.utf8)
        guard !needle.isEmpty, stop - start >= needle.count else { return nil }
        var index = stop - needle.count
        while index >= start {
            if bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index -= 1
        }
        return nil
    }
}
