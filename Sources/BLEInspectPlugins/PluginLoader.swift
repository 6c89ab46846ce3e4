import BLEInspectCore
import Foundation

/// Where plugins are looked for, in precedence order: the command line's `--plugin` paths in the
/// order given, then the directories of `$BLEINSPECT_PLUGIN_PATH` in order, then the user's
/// plugin directory (`$XDG_CONFIG_HOME/bleinspect/plugins`, by default
/// `~/.config/bleinspect/plugins`). A directory contributes its `*.yaml` and `*.yml` files in
/// name order. When two plugins clash, the one found first is kept.
public struct PluginSearch: Sendable {
    /// `--plugin FILE|DIR`: a path that cannot be read is an error.
    public var explicit: [String]
    /// `$BLEINSPECT_PLUGIN_PATH` entries and the user directory: missing ones are skipped.
    public var implicit: [String]

    public init(explicit: [String] = [], implicit: [String] = []) {
        self.explicit = explicit
        self.implicit = implicit
    }

    /// The standard search: `explicit`, then the environment's path, then the user directory.
    /// `useDefaults` false (`--no-default-plugins`) leaves out all but `explicit`.
    public static func standard(
        explicit: [String],
        useDefaults: Bool = true,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> PluginSearch {
        guard useDefaults else { return PluginSearch(explicit: explicit) }
        var implicit: [String] = []
        if let path = environment["BLEINSPECT_PLUGIN_PATH"] {
            implicit += path.split(separator: ":").map(String.init).filter { !$0.isEmpty }
        }
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty {
            implicit.append(config + "/bleinspect/plugins")
        } else if let home = environment["HOME"], !home.isEmpty {
            implicit.append(home + "/.config/bleinspect/plugins")
        }
        return PluginSearch(explicit: explicit, implicit: implicit)
    }
}

/// The plugins found: those loaded, in precedence order, and those rejected with their reasons.
public struct PluginCatalog: Sendable {
    public let plugins: [CompiledPlugin]
    public let rejected: [PluginRejection]
    /// Whether a rejected plugin (or a missing path) was named on the command line.
    public let explicitRejected: Bool

    public init(plugins: [CompiledPlugin] = [], rejected: [PluginRejection] = [], explicitRejected: Bool = false) {
        self.plugins = plugins
        self.rejected = rejected
        self.explicitRejected = explicitRejected
    }

    public static let empty = PluginCatalog()

    /// What registers them (nil with no plugins).
    public var registration: PluginSet? { plugins.isEmpty ? nil : PluginSet(plugins) }
}

public enum PluginLoader {
    /// Finds, reads and checks every plugin of `search`. `reservedNamespaces` are the built-in
    /// protocols' names, worked out only when there is a plugin to check. A plugin with any
    /// problem, or clashing with one loaded before it, is rejected whole.
    public static func load(
        _ search: PluginSearch,
        reservedNamespaces: @autoclosure () -> Set<String>
    ) -> PluginCatalog {
        var rejected: [PluginRejection] = []
        var explicitRejected = false
        var seen = Set<String>()
        // Every file, in precedence order, with whether it was named on the command line.
        var files: [(path: String, explicit: Bool)] = []
        for (paths, explicit) in [(search.explicit, true), (search.implicit, false)] {
            for path in paths {
                switch pluginFiles(path) {
                case .success(let found):
                    for file in found
                    where seen.insert(URL(fileURLWithPath: file).resolvingSymlinksInPath().path).inserted {
                        files.append((file, explicit))
                    }
                case .failure(let problem):
                    guard explicit else { continue }
                    rejected.append(
                        PluginRejection(
                            file: path,
                            diagnostics: [
                                PluginDiagnostic(.unreadable, file: path, line: 0, column: 0, message: problem.message)
                            ]
                        )
                    )
                    explicitRejected = true
                }
            }
        }
        // Files are read and compiled at once, each on its own (start-up time); the clashes
        // between them are then settled in precedence order.
        let compiled = files.isEmpty ? [] : compileAll(files.map(\.path), reserved: reservedNamespaces())
        var accepted: [CompiledPlugin] = []
        for (file, result) in zip(files, compiled) {
            switch result {
            case .success(let plugin):
                let clashes = conflicts(plugin, with: accepted)
                if clashes.isEmpty {
                    accepted.append(plugin)
                } else {
                    rejected.append(PluginRejection(file: file.path, diagnostics: clashes))
                    if file.explicit { explicitRejected = true }
                }
            case .failure(let rejection):
                rejected.append(rejection)
                if file.explicit { explicitRejected = true }
            }
        }
        return PluginCatalog(plugins: accepted, rejected: rejected, explicitRejected: explicitRejected)
    }

    /// Reads and compiles `files` on the available cores, in the same order.
    static func compileAll(_ files: [String], reserved: Set<String>) -> [Result<CompiledPlugin, PluginRejection>] {
        let results = ResultSlots(count: files.count)
        DispatchQueue.concurrentPerform(iterations: files.count) { i in
            results.set(i, compileFile(files[i], reserved: reserved))
        }
        return results.values(files)
    }

    /// Reads and compiles one file.
    static func compileFile(_ file: String, reserved: Set<String>) -> Result<CompiledPlugin, PluginRejection> {
        switch read(file) {
        case .success(let text): return PluginCompiler.compile(text, file: file, reservedNamespaces: reserved)
        case .failure(let problem):
            return .failure(
                PluginRejection(
                    file: file,
                    diagnostics: [
                        PluginDiagnostic(.unreadable, file: file, line: 0, column: 0, message: problem.message)
                    ]
                )
            )
        }
    }

    /// What `plugin` claims that a plugin loaded before it already does.
    static func conflicts(_ plugin: CompiledPlugin, with earlier: [CompiledPlugin]) -> [PluginDiagnostic] {
        var out: [PluginDiagnostic] = []
        for other in earlier {
            if other.namespace == plugin.namespace {
                out.append(
                    PluginDiagnostic(
                        .conflict,
                        file: plugin.file,
                        line: 1,
                        column: 1,
                        message:
                            "plugin '\(plugin.namespace)' is already loaded from \(other.file), which comes first in the search order"
                    )
                )
                continue
            }
            for b in plugin.bindings {
                if let clash = other.bindings.first(where: { $0.overlaps(b) }) {
                    out.append(
                        PluginDiagnostic(
                            .conflict,
                            file: plugin.file,
                            line: b.line,
                            column: b.column,
                            message:
                                "duplicate binding: \(b.keyDescription) is already bound by plugin '\(other.namespace)' (\(other.file):\(clash.line):\(clash.column)), which comes first in the search order"
                        )
                    )
                }
            }
            for n in plugin.names {
                if let clash = other.names.first(where: { $0.uuid == n.uuid && $0.name != n.name }) {
                    out.append(
                        PluginDiagnostic(
                            .conflict,
                            file: plugin.file,
                            line: n.line,
                            column: n.column,
                            message:
                                "UUID \(n.uuid) is already named '\(clash.name)' by plugin '\(other.namespace)' (\(other.file):\(clash.line):\(clash.column))"
                        )
                    )
                }
            }
        }
        return out
    }

    /// The plugin files a path stands for: itself, or a directory's YAML files in name order.
    static func pluginFiles(_ path: String) -> Result<[String], LoadProblem> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(LoadProblem("no such file or directory"))
        }
        guard isDirectory.boolValue else { return .success([path]) }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            return .failure(LoadProblem("cannot list the directory"))
        }
        let yaml = names.filter { ($0.hasSuffix(".yaml") || $0.hasSuffix(".yml")) && !$0.hasPrefix(".") }.sorted()
        return .success(yaml.map { path.hasSuffix("/") ? path + $0 : path + "/" + $0 })
    }

    static func read(_ file: String) -> Result<String, LoadProblem> {
        guard let handle = FileHandle(forReadingAtPath: file) else { return .failure(LoadProblem("cannot be read")) }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: PluginLimits.maximumFileSize + 1) ?? Data()
        } catch {
            return .failure(LoadProblem("cannot be read: \(error.localizedDescription)"))
        }
        guard data.count <= PluginLimits.maximumFileSize else {
            return .failure(LoadProblem("the file is larger than \(PluginLimits.maximumFileSize) bytes"))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return .failure(LoadProblem("the file is not UTF-8 text"))
        }
        return .success(text)
    }
}

/// Why a path gave no plugin text.
struct LoadProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// One result per file, written by the compiling threads (each slot by one thread) and read after
/// they have all finished.
private final class ResultSlots: @unchecked Sendable {
    private var slots: [Result<CompiledPlugin, PluginRejection>?]
    private let lock = NSLock()

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ result: Result<CompiledPlugin, PluginRejection>) {
        lock.lock()
        slots[i] = result
        lock.unlock()
    }

    func values(_ files: [String]) -> [Result<CompiledPlugin, PluginRejection>] {
        lock.lock()
        defer { lock.unlock() }
        return zip(slots, files).map { slot, file in
            slot ?? .failure(PluginRejection(file: file, diagnostics: []))
        }
    }
}
