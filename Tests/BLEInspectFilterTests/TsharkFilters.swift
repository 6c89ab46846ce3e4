import BLEInspectTestSupport
import Foundation

/// What tshark's display filter gives on one capture: the numbers of the frames it matches, or
/// its error when it rejects the filter.
enum TsharkAnswer: Sendable, Equatable {
    case frames([Int])
    case rejected(String)

    /// The frames, or nil where tshark rejects the filter.
    var frames: [Int]? {
        if case .frames(let f) = self { return f }
        return nil
    }
}

/// Runs filters in tshark. One tshark pass per capture: a Lua tap per filter (a tap filter is a
/// display filter) prints the frames it matches, or why tshark rejects it. Where Lua is missing,
/// and for the filters whose answer depends on the frames shown before (see
/// `dependsOnShownFrames`), `-Y` runs per filter.
enum TsharkFilters {
    static let script = """
        local args = { ... }
        print("ready\\t" .. #args)
        for i, f in ipairs(args) do
          local ok, tap = pcall(Listener.new, nil, f)
          if ok then
            tap.packet = function(pinfo) print(i .. "\\t" .. pinfo.number) end
          else
            local message = string.gsub(tostring(tap), "[\\r\\n\\t]+", " ")
            print(i .. "\\terror\\t" .. message)
          end
        end
        """

    /// tshark 4.0 takes at most 64 script arguments (more crash it), so filters go in batches.
    static let batchSize = 32

    /// Whether tshark's answer for `filter` depends on which frames the filter showed before:
    /// `frame.time_delta_displayed` is the time since the last frame shown, and a tap sees every
    /// frame as shown, so those filters run as `-Y`.
    static func dependsOnShownFrames(_ filter: String) -> Bool {
        filter.contains("frame.time_delta_displayed")
    }

    /// For each filter, what tshark's display filter gives in `path`.
    static func answers(_ path: String, _ filters: [String], scratch: TemporaryDirectory) throws -> [TsharkAnswer] {
        var out = [TsharkAnswer](repeating: .frames([]), count: filters.count)
        let tapped = filters.indices.filter { !dependsOnShownFrames(filters[$0]) }
        var start = 0
        while start < tapped.count {
            let batch = Array(tapped[start..<min(tapped.count, start + batchSize)])
            let answers = try batchAnswers(path, batch.map { filters[$0] }, scratch: scratch)
            for (k, i) in batch.enumerated() { out[i] = answers[k] }
            start += batchSize
        }
        for i in filters.indices where dependsOnShownFrames(filters[i]) {
            out[i] = try answerWithY(path, filters[i])
        }
        return out
    }

    /// For each filter, the frames tshark's display filter matches in `path` (nil where tshark
    /// rejects the filter).
    static func frames(_ path: String, _ filters: [String], scratch: TemporaryDirectory) throws -> [[Int]?] {
        try answers(path, filters, scratch: scratch).map(\.frames)
    }

    private static func batchAnswers(_ path: String, _ filters: [String], scratch: TemporaryDirectory) throws
        -> [TsharkAnswer]
    {
        guard let tshark = Run.tshark else { return [] }
        let scriptPath = scratch.path("filters.lua")
        if !FileManager.default.fileExists(atPath: scriptPath) {
            try script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
        }
        var args = ["-q", "-r", path, "-X", "lua_script:" + scriptPath]
        for f in filters { args += ["-X", "lua_script1:" + f] }
        let result = try Run.program(tshark, args)
        var frames = [[Int]](repeating: [], count: filters.count)
        var errors = [String?](repeating: nil, count: filters.count)
        var ready = false
        for line in result.stdoutText.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2 else { continue }
            if parts[0] == "ready" {
                ready = Int(parts[1]) == filters.count
                continue
            }
            guard let i = Int(parts[0]), i >= 1, i <= filters.count else { continue }
            if parts[1] == "error" {
                // "Error while registering tap: Filter "…" is invalid - MESSAGE"
                let text = parts.count > 2 ? String(parts[2]) : "rejected"
                errors[i - 1] = text.components(separatedBy: " is invalid - ").last ?? text
            } else if let n = Int(parts[1]) {
                frames[i - 1].append(n)
            }
        }
        if ready {
            return filters.indices.map { i in errors[i].map { .rejected($0) } ?? .frames(frames[i]) }
        }
        return try filters.map { try answerWithY(path, $0) }
    }

    /// `tshark -r FILE -Y EXPR -T fields -e frame.number`.
    static func answerWithY(_ path: String, _ filter: String) throws -> TsharkAnswer {
        guard let tshark = Run.tshark else { return .frames([]) }
        let result = try Run.program(tshark, ["-r", path, "-Y", filter, "-T", "fields", "-e", "frame.number"])
        guard result.status == 0 else {
            // "tshark: MESSAGE", then the filter and a caret line.
            let message = result.stderr.split(separator: "\n").first { $0.hasPrefix("tshark: ") }
            return .rejected(message.map { String($0.dropFirst("tshark: ".count)) } ?? result.stderr)
        }
        return .frames(result.stdoutText.split(separator: "\n").compactMap { Int($0) })
    }

    /// `tshark -r FILE -Y EXPR -T fields -e frame.number` (nil where tshark rejects the filter).
    static func framesWithY(_ path: String, _ filter: String) throws -> [Int]? {
        try answerWithY(path, filter).frames
    }
}
