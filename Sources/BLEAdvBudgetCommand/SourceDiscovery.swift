import Foundation

/// The source files under the paths given to `--sources` (or `--swift`), sorted by language.
///
/// A file given by path is taken whatever its extension; a directory is searched recursively,
/// its entries sorted, skipping hidden entries (`.build`, `.git`) and the build folders of Xcode
/// and CocoaPods (`DerivedData`, `Pods`, `Carthage`). Files that are source code in a language
/// the checker does not read (Kotlin, Java, C, C++, Dart, JavaScript…) are listed so the report
/// can name them.
struct SourceDiscovery: Hashable, Sendable {
    var swiftFiles: [String] = []
    /// `.m` and `.mm`: the translation units clang parses.
    var objcFiles: [String] = []
    /// `.h` files: read through the files that include them; their directories are searched.
    var headers: [String] = []
    /// Source files in languages not read.
    var notRead: [String] = []

    /// Extensions of source files the checker knows it does not read.
    static let otherSourceExtensions: Set<String> = [
        "c", "cc", "cpp", "cxx", "hpp", "kt", "kts", "java", "dart", "js", "jsx", "ts", "tsx", "cs", "py", "rb",
        "go", "rs",
    ]

    /// The directories of the headers found, in order, once each: the `-I` paths for clang.
    var headerDirectories: [String] {
        var seen = Set<String>()
        return headers.map { ($0 as NSString).deletingLastPathComponent }.map { $0.isEmpty ? "." : $0 }
            .filter { seen.insert($0).inserted }
    }

    enum Failure: Error, Hashable, CustomStringConvertible {
        case unreadable(path: String, reason: String)

        var description: String {
            switch self {
            case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
            }
        }
    }

    static let skippedDirectories: Set<String> = ["DerivedData", "Pods", "Carthage"]

    static func find(_ paths: [String]) throws(Failure) -> SourceDiscovery {
        var found = SourceDiscovery()
        var seen = Set<String>()
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw .unreadable(path: path, reason: "No such file or directory")
            }
            if isDirectory.boolValue {
                try found.collect(directory: path, seen: &seen, manager: manager)
            } else if seen.insert(canonical(path)).inserted {
                found.add(path, given: true)
            }
        }
        return found
    }

    private mutating func collect(directory: String, seen: inout Set<String>, manager: FileManager) throws(Failure) {
        guard seen.insert(canonical(directory) + "/").inserted else { return }
        let names: [String]
        do {
            names = try manager.contentsOfDirectory(atPath: directory)
        } catch {
            throw .unreadable(path: directory, reason: "the directory cannot be listed")
        }
        for name in names.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        where !name.hasPrefix(".") && !Self.skippedDirectories.contains(name) {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var isDirectory: ObjCBool = false
            // A dangling symbolic link is not a source file.
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                try collect(directory: path, seen: &seen, manager: manager)
            } else if seen.insert(Self.canonical(path)).inserted {
                add(path, given: false)
            }
        }
    }

    private mutating func add(_ path: String, given: Bool) {
        switch (path as NSString).pathExtension.lowercased() {
        case "swift": swiftFiles.append(path)
        case "m", "mm": objcFiles.append(path)
        case "h": headers.append(path)
        case let other where Self.otherSourceExtensions.contains(other): notRead.append(path)
        default:
            // A file named on the command line is read as Swift whatever its name, as before.
            if given { swiftFiles.append(path) }
        }
    }

    private func canonical(_ path: String) -> String { Self.canonical(path) }

    private static func canonical(_ path: String) -> String {
        (path as NSString).resolvingSymlinksInPath
    }
}
