import BLECapture
import BLEInspectPipeline
import BLEInspectRender
import BLEInspectSession
import BLEInspectTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What `bleinspect read -Y FILTER -T fields -e frame.number CAPTURE` gives: the frames the
/// filter matches, or the message of its rejection (exit status 64).
enum BleinspectAnswer: Sendable, Equatable {
    case frames([Int])
    case rejected(String)
}

/// Runs `read` in-process, exactly as the command line does after parsing its arguments: the
/// filter is compiled by the read itself, and frames are filtered by the read loop, so filters
/// that depend on the frames shown before (frame.time_delta_displayed) see what `read -Y` sees.
enum BleinspectFilters {
    static func answer(_ path: String, _ filter: String, scratch: TemporaryDirectory) throws -> BleinspectAnswer {
        let outPath = scratch.path("read-\(UUID().uuidString).txt")
        let fd = open(outPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        var options = ReadOptions(paths: [path])
        options.filter = filter
        options.output = .fields(["frame.number"])
        options.color = .never
        options.progress = false
        let errors = ErrorLines()
        let status = ReadRunner(
            session: try Toolkit().session(),
            options: options,
            output: OutputSink(fd: fd, ownsDescriptor: true),
            errorOutput: { errors.append($0) }
        ).run()
        defer { try? FileManager.default.removeItem(atPath: outPath) }
        if status == .usage { return .rejected(errors.lastMessage) }
        let text = try String(contentsOfFile: outPath, encoding: .utf8)
        return .frames(text.split(separator: "\n").compactMap { Int($0) })
    }
}

/// What a read wrote to standard error.
private final class ErrorLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.withLock { lines.append(line) }
    }

    /// The message of the last report: a rendered filter error ends with its message (and a
    /// suggestion), after the filter and the caret line.
    var lastMessage: String {
        let last = lock.withLock { lines.last } ?? "rejected"
        let parts = last.split(separator: "\n").map(String.init)
        return parts.count > 3 ? parts.suffix(from: 3).joined(separator: " ") : (parts.last ?? last)
    }
}
