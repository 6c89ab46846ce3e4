#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finding and reading Swift files with the C library (the project's sources use no Foundation).
enum SourceFiles {
    /// The `.swift` files of `paths`, in order: a file path as given (whatever its extension), a
    /// directory searched recursively with its entries sorted by name. Entries whose name starts
    /// with a dot (hidden files and directories, `.build`, `.git`, `.swiftpm`) are skipped; a
    /// directory reached twice through symbolic links is read once. A path given twice, or a file
    /// given and also found in a directory given, is listed once.
    static func swiftFiles(in paths: [String]) throws(SwiftAdvertisingScanError) -> [String] {
        var result: [String] = []
        var seenFiles = Set<String>()
        var seenDirectories = Set<String>()
        for path in paths {
            guard let status = fileStatus(path, followLinks: true) else {
                throw .unreadable(path: path, reason: lastError())
            }
            if isDirectory(status) {
                try collect(directory: path, into: &result, seenFiles: &seenFiles, seenDirectories: &seenDirectories)
            } else if seenFiles.insert(canonicalPath(path)).inserted {
                result.append(path)
            }
        }
        return result
    }

    private static func collect(
        directory: String,
        into result: inout [String],
        seenFiles: inout Set<String>,
        seenDirectories: inout Set<String>
    ) throws(SwiftAdvertisingScanError) {
        guard seenDirectories.insert(canonicalPath(directory)).inserted else { return }
        for name in try entries(of: directory) where !name.hasPrefix(".") {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            guard let status = fileStatus(path, followLinks: true) else {
                // A dangling symbolic link is not a source file; anything else unreadable is an error.
                if let linkStatus = fileStatus(path, followLinks: false), isSymbolicLink(linkStatus) { continue }
                throw .unreadable(path: path, reason: lastError())
            }
            if isDirectory(status) {
                try collect(directory: path, into: &result, seenFiles: &seenFiles, seenDirectories: &seenDirectories)
            } else if name.hasSuffix(".swift"), isRegularFile(status), seenFiles.insert(canonicalPath(path)).inserted {
                result.append(path)
            }
        }
    }

    /// The names in `directory`, sorted by their UTF-8 bytes, without `.` and `..`.
    private static func entries(of directory: String) throws(SwiftAdvertisingScanError) -> [String] {
        guard let handle = opendir(directory) else {
            throw .unreadable(path: directory, reason: lastError())
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
    static func contents(of path: String) throws(SwiftAdvertisingScanError) -> [UInt8] {
        guard let status = fileStatus(path, followLinks: true) else {
            throw .unreadable(path: path, reason: lastError())
        }
        if isDirectory(status) {
            throw .unreadable(path: path, reason: "is a directory")
        }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw .unreadable(path: path, reason: lastError()) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                systemRead(fd, buffer.baseAddress, buffer.count)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, reason: lastError())
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
