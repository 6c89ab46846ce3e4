import BLECapture
import BLECaptureIO
import BLEInspectCore
import Foundation

/// Writes a seed corpus for every target: captures cut to their first bytes for the readers,
/// the captures' frames as pipeline and monitor inputs, the built frames, filter texts, plugins
/// and plans from the repository and its docs; and a libFuzzer dictionary for the text targets.
public enum Seeds {
    /// Writes the corpora under `directory` (one folder per target), from the capture files
    /// under `captureDirectories` and the repository at `root`. Returns the count per target.
    public static func write(to directory: String, captureDirectories: [String], root: String) -> [String: Int] {
        var corpus: [FuzzTarget: [[UInt8]]] = [:]
        func add(_ target: FuzzTarget, _ bytes: [UInt8]) {
            guard !bytes.isEmpty else { return }
            corpus[target, default: []].append(Array(bytes.prefix(FuzzTarget.maximumInput)))
        }

        for path in captureFiles(captureDirectories) {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let bytes = [UInt8](data)
            let (container, frames) = read(bytes)
            // The reader's target is named as its container is (btsnoop, pcap, pcapng, pklg).
            if let target = container.flatMap({ FuzzTarget(rawValue: $0.rawValue) }) {
                add(target, Array(bytes.prefix(readerSeedSize)))
            }
            // A few runs of consecutive frames from each capture: its start, where connections
            // open, and later parts.
            let chunk = 48
            for start in stride(from: 0, to: frames.count, by: max(chunk, frames.count / 8)).prefix(8) {
                let part = Array(frames[start..<min(frames.count, start + chunk)])
                add(.pipeline, PipelineInput.encode(part))
                let records = part.compactMap(monitorRecord)
                if !records.isEmpty { add(.monitor, ScriptedChannel.encode(records)) }
            }
        }
        add(.pipeline, PipelineInput.encode(BuiltFrames.frames))
        add(.monitor, ScriptedChannel.encode(BuiltFrames.frames.compactMap(monitorRecord)))

        for text in PipelineTarget.filterTexts + extraFilters { add(.filter, Array(text.utf8)) }
        for file in files(under: root + "/profiles", extensions: ["yaml", "yml"])
            + files(under: root + "/Tests/BLEInspectPluginsTests/Fixtures", extensions: ["yaml", "yml"])
        {
            if let data = FileManager.default.contents(atPath: file) { add(.plugin, [UInt8](data)) }
        }
        for block in codeBlocks(root + "/docs/PLUGINS.md", language: "yaml") { add(.plugin, Array(block.utf8)) }
        for block in codeBlocks(root + "/docs/ADV-BUDGET.md", language: "yaml")
            + codeBlocks(root + "/docs/ADV-BUDGET.md", language: "json")
        {
            add(.advplan, Array(block.utf8))
        }
        // The tests' own plans and plugins, written inline as multi-line strings.
        for file in files(under: root + "/Tests/BLEAdvBudgetTests", extensions: ["swift"]) {
            for block in multilineStrings(file) { add(.advplan, Array(block.utf8)) }
        }
        for file in files(under: root + "/Tests/BLEInspectPluginsTests", extensions: ["swift"]) {
            for block in multilineStrings(file) where block.contains("namespace") { add(.plugin, Array(block.utf8)) }
        }

        var counts: [String: Int] = [:]
        for target in FuzzTarget.allCases {
            let folder = directory + "/" + target.rawValue
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (i, seed) in (corpus[target] ?? []).enumerated() {
                FileManager.default.createFile(atPath: folder + "/seed-\(i)", contents: Data(seed))
            }
            counts[target.rawValue] = corpus[target]?.count ?? 0
        }
        writeDictionaries(to: directory)
        return counts
    }

    /// Seeds for the readers keep this much of each capture.
    static let readerSeedSize = 1 << 15

    /// More filters than the pipeline's: every operator, functions, slices, sets and literals.
    static let extraFilters = [
        "btatt.handle == 0x0003 || (btatt.opcode >= 0x10 && btatt.opcode <= 0x11)",
        "not btl2cap and frame.number in {1..10 20}", "btle.advertising_address == 11:22:33:44:55:66",
        "bthci_evt.code != 0x0e", "btcommon.eir_ad.entry.device_name contains \"Te\\x73t\"",
        "frame[0:4] == 40:20:0b:00", "lower(btcommon.eir_ad.entry.device_name) == \"test\"",
        "btatt.uuid16 == 0x2800 xor btatt.uuid16 == 0x2803", "btl2cap.cid ~ 0x41", "frame.time_relative > 0.5",
    ]

    /// The container CaptureOpener finds in `bytes` (nil when it reads none), and the frames
    /// read before the end or the first damage.
    static func read(_ bytes: [UInt8]) -> (CaptureFormat.Container?, [CapturedFrame]) {
        var frames: [CapturedFrame] = []
        guard let fd = bytes.withUnsafeBytes({ ScratchFile.shared.fill($0) }),
            let reader = try? CaptureOpener.open(input: ByteInput(fd: fd, ownsDescriptor: false))
        else { return (nil, []) }
        do throws(CaptureError) {
            while frames.count < 1 << 16, let frame = try reader.next() { frames.append(frame) }
        } catch {
            _ = error
        }
        return (reader.format.container, frames)
    }

    /// The monitor record carrying `frame`, nil for kinds the monitor channel has no opcode for.
    static func monitorRecord(_ frame: CapturedFrame) -> [UInt8]? {
        guard let opcode = MonitorRecord.opcode(for: frame.kind, direction: frame.direction) else { return nil }
        let payload = frame.bytes.prefix(0xFFFF - 6)
        let index = frame.controllerIndex ?? 0
        return [
            UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(index & 0xFF), UInt8(index >> 8),
            UInt8(payload.count & 0xFF), UInt8(payload.count >> 8),
        ] + payload
    }

    static func captureFiles(_ directories: [String]) -> [String] {
        directories.flatMap { files(under: $0, extensions: ["btsnoop", "log", "cfa", "pcap", "pcapng", "pklg"]) }
    }

    static func files(under directory: String, extensions: Set<String>) -> [String] {
        guard let names = try? FileManager.default.subpathsOfDirectory(atPath: directory) else { return [] }
        return names.sorted().filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .map { directory + "/" + $0 }
    }

    /// The fenced code blocks of `language` in a Markdown file.
    static func codeBlocks(_ path: String, language: String) -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        var blocks: [String] = []
        var current: [Substring]? = nil
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                if let lines = current {
                    blocks.append(lines.joined(separator: "\n") + "\n")
                    current = nil
                } else if line.dropFirst(3).trimmingCharacters(in: .whitespaces) == language {
                    current = []
                }
            } else if current != nil {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The multi-line string literals of a Swift file, their indentation removed (no
    /// interpolation or escapes are resolved: a seed need not be exact).
    static func multilineStrings(_ path: String) -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        var blocks: [String] = []
        var current: [Substring]? = nil
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil,
                trimmed.hasSuffix("\"\"\"") && trimmed != "\"\"\"" || trimmed == "\"\"\"" && current == nil
            {
                current = []
            } else if let lines = current, trimmed.hasPrefix("\"\"\"") {
                let indent = line.prefix { $0 == " " }.count
                blocks.append(
                    lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }.joined(
                        separator: "\n"
                    ) + "\n"
                )
                current = nil
            } else if current != nil {
                current?.append(line)
            }
        }
        return blocks
    }

    /// libFuzzer dictionaries: the registry's field names and the filter language's words for the
    /// filter target; the plugin and plan files' keys for theirs.
    static func writeDictionaries(to directory: String) {
        var filterWords = [
            "==", "!=", "<=", ">=", "&&", "||", "!", "(", ")", "{", "}", "[", "]", "..", ":",
            "and", "or", "not", "xor", "in", "contains", "matches", "~", "len(", "lower(", "upper(", "\"", "0x",
            "\\x", "\\u", "+", " - ", "*", "/", "%", "&", "bitwise_and", "any ", "all ", "===", "!==", "~=",
            "${", "#", "#[", "count(", "string(", "max(", "min(", "abs(", ",", "-",
        ]
        if let registry = PipelineTarget.shared.registry {
            filterWords += registry.fields.map(\.abbrev)
        }
        write(filterWords, to: directory + "/filter.dict")
        write(yamlKeys(files(under: directory + "/plugin", extensions: [""])), to: directory + "/plugin.dict")
        write(yamlKeys(files(under: directory + "/advplan", extensions: [""])), to: directory + "/advplan.dict")
    }

    /// The `key:` words of YAML files.
    static func yamlKeys(_ paths: [String]) -> [String] {
        var keys = Set<String>()
        for path in paths {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                let trimmed = line.drop { $0 == " " || $0 == "-" }
                if let colon = trimmed.firstIndex(of: ":"), trimmed[..<colon].allSatisfy({ $0.isLetter || $0 == "_" }) {
                    keys.insert(String(trimmed[...colon]))
                }
            }
        }
        return keys.sorted()
    }

    static func write(_ words: [String], to path: String) {
        let lines = words.map { word -> String in
            var escaped = ""
            for b in word.utf8 {
                if b == 0x22 || b == 0x5C || b < 0x20 || b > 0x7E {
                    escaped += "\\x" + String(b, radix: 16, uppercase: true).leftPad(2)
                } else {
                    escaped.append(Character(Unicode.Scalar(b)))
                }
            }
            return "\"\(escaped)\""
        }
        FileManager.default.createFile(atPath: path, contents: Data((lines.joined(separator: "\n") + "\n").utf8))
    }
}

extension String {
    fileprivate func leftPad(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
