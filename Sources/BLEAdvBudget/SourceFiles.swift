#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finding and reading an app's source files with the C library, for both source readers and
/// `--sources`.
public enum SourceFiles {
    /// A path (given, or found in a directory given) that could not be read; `reason` is the
    /// system's.
    public struct Unreadable: Error, Hashable, CustomStringConvertible {
        public var path: String
        public var reason: String

        public var description: String { "cannot read \(path): \(reason)" }
    }

    /// The files of `paths`, in order: a file path as given (whatever its name), a directory
    /// searched recursively with its entries sorted by name, keeping the files whose name `keep`
    /// accepts. Entries whose name starts with a dot (hidden files and directories, `.build`,
    /// `.git`, `.swiftpm`) or is in `skipping` are skipped; a directory reached twice through
    /// symbolic links is read once. A path given twice, or a file given and also found in a
    /// directory given, is listed once.
    public static func files(
        in paths: [String],
        skipping: Set<String> = [],
        keep: (String) -> Bool
    ) throws(Unreadable) -> [String] {
        var walk = Walk(skipping: skipping)
        for path in paths {
            guard let status = fileStatus(path, followLinks: true) else {
                throw Unreadable(path: path, reason: lastError())
            }
            if isDirectory(status) {
                try walk.collect(directory: path, keep: keep)
            } else if walk.seenFiles.insert(canonicalPath(path)).inserted {
                walk.result.append(path)
            }
        }
        return walk.result
    }

    /// One walk's state.
    private struct Walk {
        let skipping: Set<String>
        var result: [String] = []
        var seenFiles = Set<String>()
        var seenDirectories = Set<String>()

        mutating func collect(directory: String, keep: (String) -> Bool) throws(Unreadable) {
            guard seenDirectories.insert(SourceFiles.canonicalPath(directory)).inserted else { return }
            for name in try SourceFiles.entries(of: directory) where !name.hasPrefix(".") && !skipping.contains(name) {
                let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
                guard let status = SourceFiles.fileStatus(path, followLinks: true) else {
                    // A dangling symbolic link is not a source file; anything else unreadable is an error.
                    if let linkStatus = SourceFiles.fileStatus(path, followLinks: false),
                        SourceFiles.isSymbolicLink(linkStatus)
                    {
                        continue
                    }
                    throw Unreadable(path: path, reason: SourceFiles.lastError())
                }
                if SourceFiles.isDirectory(status) {
                    try collect(directory: path, keep: keep)
                } else if keep(name), SourceFiles.isRegularFile(status),
                    seenFiles.insert(SourceFiles.canonicalPath(path)).inserted
                {
                    result.append(path)
                }
            }
        }
    }

    /// The names in `directory`, sorted by their UTF-8 bytes, without `.` and `..`.
    private static func entries(of directory: String) throws(Unreadable) -> [String] {
        guard let handle = opendir(directory) else {
            throw Unreadable(path: directory, reason: lastError())
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: pointer.pointee)) {
                    String(cString: $0)
                }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// The bytes of the file at `path`.
    public static func contents(of path: String) throws(Unreadable) -> [UInt8] {
        guard let status = fileStatus(path, followLinks: true) else {
            throw Unreadable(path: path, reason: lastError())
        }
        if isDirectory(status) {
            throw Unreadable(path: path, reason: "is a directory")
        }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw Unreadable(path: path, reason: lastError()) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                systemRead(fd, buffer.baseAddress, buffer.count)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw Unreadable(path: path, reason: lastError())
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    private static func fileStatus(_ path: String, followLinks: Bool) -> stat? {
        var status = stat()
        let result = followLinks ? stat(path, &status) : lstat(path, &status)
        return result == 0 ? status : nil
    }

    private static func isDirectory(_ status: stat) -> Bool { (status.st_mode & S_IFMT) == S_IFDIR }
    private static func isRegularFile(_ status: stat) -> Bool { (status.st_mode & S_IFMT) == S_IFREG }
    private static func isSymbolicLink(_ status: stat) -> Bool { (status.st_mode & S_IFMT) == S_IFLNK }

    /// The path with symbolic links resolved, or the path itself when that fails.
    private static func canonicalPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func lastError() -> String {
        guard let message = strerror(errno) else { return "error \(errno)" }
        return String(cString: message)
    }
}

private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
