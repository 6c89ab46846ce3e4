import Foundation

/// Paths the tests use: the repository, its own captures, and the shared real-world captures
/// beside the checkout (absent on some machines: tests that need them skip).
public enum TestPaths {
    public static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // Tests/Support/TestSupport.swift
        return url
    }()

    public static let projectCaptures = repositoryRoot.appendingPathComponent("captures")

    /// The path of the file `name` in the project's own `captures/`.
    public static func projectCapture(_ name: String) -> String {
        projectCaptures.appendingPathComponent(name).path
    }

    public static let sharedCaptures = repositoryRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/captures")

    public static var sharedCapturesAvailable: Bool {
        FileManager.default.fileExists(atPath: sharedCaptures.appendingPathComponent("MANIFEST.tsv").path)
    }

    /// Files in the project's own `captures/` with one of `extensions`, sorted.
    public static func projectCaptureFiles(extensions: Set<String>) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: projectCaptures.path)) ?? []
        return names.sorted().map { projectCaptures.appendingPathComponent($0) }
            .filter { extensions.contains($0.pathExtension) }
    }

    /// The built `bleinspect` executable, beside the test bundle.
    public static var bleinspectBinary: URL {
        let exe =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("bleinspect")
    }
}

/// One row of the shared captures' MANIFEST.tsv.
public struct ManifestEntry: Sendable {
    public var name: String
    public var format: String
    public var linkType: String
    public var packetCount: Int
    /// The ATT PDUs the manifest counted (its `att_pdus` column), if it has the column.
    public var attPDUs: Int?
    public var url: URL { TestPaths.sharedCaptures.appendingPathComponent(name) }

    /// All rows, or none when the shared captures are absent.
    public static func all() -> [ManifestEntry] {
        let url = TestPaths.sharedCaptures.appendingPathComponent("MANIFEST.tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard !lines.isEmpty else { return [] }
        let header = lines.removeFirst().split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard let name = header.firstIndex(of: "local_name"), let format = header.firstIndex(of: "format"),
            let link = header.firstIndex(of: "link_type"), let count = header.firstIndex(of: "packet_count")
        else { return [] }
        let att = header.firstIndex(of: "att_pdus")
        return lines.compactMap { line in
            let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard cols.count > max(name, format, link, count), let n = Int(cols[count]) else { return nil }
            let attPDUs = att.flatMap { $0 < cols.count ? Int(cols[$0]) : nil }
            return ManifestEntry(
                name: cols[name],
                format: cols[format],
                linkType: cols[link],
                packetCount: n,
                attPDUs: attPDUs
            )
        }
    }
}

/// A scratch directory removed when the value is released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL

    public init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("bleinspect-test-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `bytes` to a file named `name` and returns its path.
    @discardableResult
    public func write(_ bytes: [UInt8], to name: String) -> String {
        let p = path(name)
        FileManager.default.createFile(atPath: p, contents: Data(bytes))
        return p
    }
}

/// The result of running a program.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: Data
    public var stderr: String
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs external programs: the built bleinspect, and tshark as the independent decoder.
public enum Run {
    /// Runs `executable` with `arguments` (in `workingDirectory`, else this process's), feeding it
    /// the file at `stdinPath` (or nothing).
    public static func program(_ executable: URL, _ arguments: [String], stdinPath: String? = nil) throws
        -> ProcessResult
    {
        try program(executable, arguments, stdinPath: stdinPath, workingDirectory: nil)
    }

    public static func program(
        _ executable: URL,
        _ arguments: [String],
        stdinPath: String?,
        workingDirectory: URL?
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        if let stdinPath {
            process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: stdinPath))
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        // Drain both pipes concurrently so neither fills up and blocks the child.
        let errBox = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errBox.data = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus,
            stdout: stdout,
            stderr: String(decoding: errBox.data, as: UTF8.self)
        )
    }

    /// Runs the built bleinspect.
    public static func bleinspect(_ arguments: [String], stdinPath: String? = nil) throws -> ProcessResult {
        try program(TestPaths.bleinspectBinary, arguments, stdinPath: stdinPath)
    }

    /// tshark's path when it is installed.
    public static let tshark: URL? = {
        for dir in ["/usr/bin", "/usr/local/bin", "/bin"] {
            let url = URL(fileURLWithPath: dir).appendingPathComponent("tshark")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }()

    /// The frame numbers tshark's display filter `expression` selects in `path`.
    public static func tsharkFilter(_ path: String, _ expression: String) throws -> [Int] {
        guard let tshark else { return [] }
        let result = try program(tshark, ["-r", path, "-Y", expression, "-T", "fields", "-e", "frame.number"])
        return result.stdoutText.split(separator: "\n").compactMap { Int($0) }
    }

    /// tshark's `-T fields` output for `path`: one array of values per frame.
    public static func tsharkFields(_ path: String, _ fields: [String]) throws -> [[String]] {
        guard let tshark else { return [] }
        var args = ["-r", path, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a"]
        for f in fields { args += ["-e", f] }
        let result = try program(tshark, args)
        return result.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }
}

private final class DataBox: @unchecked Sendable {
    var data = Data()
}
