import BLEAdvBudget

/// The source files under the paths given to `--sources` (or `--swift`), sorted by language.
///
/// A file given by path is taken whatever its extension; a directory is searched recursively
/// (`SourceFiles.files`), its entries sorted, skipping hidden entries (`.build`, `.git`) and the
/// build folders of Xcode and CocoaPods (`DerivedData`, `Pods`, `Carthage`). Files that are source code in a language
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
        return headers.map { header in
            header.lastIndex(of: "/").map { String(header[..<$0]) } ?? "."
        }
        .map { $0.isEmpty ? "/" : $0 }
        .filter { seen.insert($0).inserted }
    }

    static let skippedDirectories: Set<String> = ["DerivedData", "Pods", "Carthage"]

    /// The extensions the discovery keeps in a directory.
    static let keptExtensions: Set<String> = otherSourceExtensions.union(["swift", "m", "mm", "h"])

    static func find(_ paths: [String]) throws(SourceFiles.Unreadable) -> SourceDiscovery {
        let files = try SourceFiles.files(in: paths, skipping: skippedDirectories) {
            keptExtensions.contains(pathExtension($0))
        }
        var found = SourceDiscovery()
        for path in files {
            switch pathExtension(path) {
            case "m", "mm": found.objcFiles.append(path)
            case "h": found.headers.append(path)
            case let other where otherSourceExtensions.contains(other): found.notRead.append(path)
            // A file named on the command line is read as Swift whatever its name, as before.
            default: found.swiftFiles.append(path)
            }
        }
        return found
    }

    /// The lower-cased extension of a path's last component, "" when it has none.
    static func pathExtension(_ path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }
}
