import Foundation

/// Headers a file includes that are not among the sources (a CocoaPods or vendor header, the
/// app's bridging header kept elsewhere). clang stops at the first one; the scan gives it an
/// empty stand-in and parses again, so that a file that needs nothing from such a header is
/// still read. What the header would have declared is then missing: a name it declares is an
/// error clang reports (and the file stays a problem), while a macro of it that decides an `#if`
/// is not seen, which the note on every call of the file says.
enum MissingHeaders {
    /// At most this many stand-ins for one file.
    static let maximum = 16

    /// The header of clang's "fatal error: 'X' file not found", when that is what stopped it.
    static func missing(in diagnostics: String) -> String? {
        for line in diagnostics.split(whereSeparator: \.isNewline) {
            guard let error = line.range(of: "fatal error: '"), line.hasSuffix("' file not found") else { continue }
            let name = line[error.upperBound...].dropLast("' file not found".count)
            return String(name)
        }
        return nil
    }

    /// Writes an empty `header` under `directory`. False when the name is not a plain relative
    /// path (absolute, or with `..`), or the file cannot be written.
    static func standIn(_ header: String, in directory: URL) -> Bool {
        let parts = header.split(separator: "/", omittingEmptySubsequences: false)
        guard !header.hasPrefix("/"), !parts.isEmpty, !parts.contains(where: { $0.isEmpty || $0 == ".." || $0 == "." })
        else { return false }
        let url = parts.reduce(directory) { $0.appendingPathComponent(String($1)) }
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
        } catch {
            return false
        }
        return FileManager.default.createFile(atPath: url.path, contents: Data())
    }

    /// The class of clang's "cannot find interface declaration for 'X'": a class whose own header
    /// (with its `@interface`) is among the headers not found.
    static func missingInterface(in diagnostics: String) -> String? {
        let marker = "cannot find interface declaration for '"
        for line in diagnostics.split(whereSeparator: \.isNewline) {
            guard let start = line.range(of: marker) else { continue }
            let rest = line[start.upperBound...]
            guard let end = rest.firstIndex(of: "'") else { continue }
            let name = rest[..<end]
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { continue }
            return String(name)
        }
        return nil
    }

    /// Declares `className` in the stand-in of the header named after it (`X.h`), else in the
    /// first stand-in: a view controller's as a `UIViewController`, any other as an `NSObject`.
    static func declare(_ className: String, standIns headers: [String], in directory: URL) -> Bool {
        let own = headers.first { ($0.split(separator: "/").last ?? "") == "\(className).h" } ?? headers.first
        guard let own else { return false }
        let url = own.split(separator: "/").reduce(directory) { $0.appendingPathComponent(String($1)) }
        let superclass = className.hasSuffix("Controller") ? "UIViewController" : "NSObject"
        let declaration = "#import <UIKit/UIKit.h>\n@interface \(className) : \(superclass)\n@end\n"
        guard let handle = FileHandle(forWritingAtPath: url.path) else { return false }
        defer { try? handle.close() }
        handle.seekToEndOfFile()
        handle.write(Data(declaration.utf8))
        return true
    }
}
