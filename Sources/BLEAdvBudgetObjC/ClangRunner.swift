import Foundation

/// Finds and runs clang. Each run writes its AST, diagnostics and dependency list to files in
/// the scan's temporary directory, so that a large AST never fills a pipe.
struct ClangRunner {
    /// What one `clang -fsyntax-only -Xclang -ast-dump=json` run left.
    struct Run {
        var status: Int32
        /// The JSON AST (possibly partial when the file has errors); empty when it was too large.
        var ast: Data
        var diagnostics: String
        /// The main file and the project headers it includes (`-MMD`: system headers, and so the
        /// stub headers, are left out), as clang spells them.
        var dependencies: [String]
    }

    /// Why clang could not be run at all.
    struct Failure: Error {
        var message: String
    }

    let clang: String
    let stubDirectory: String
    let workDirectory: URL
    /// ASTs larger than this are not read (a `.mm` that includes much of the C++ library).
    var maximumASTBytes = 256 * 1024 * 1024

    /// The clang to run: `explicit` when given, else `$BLEINSPECT_CLANG`, else `clang` on `PATH`.
    /// A name without `/` is looked up on `PATH`.
    static func locate(explicit: String?, environment: [String: String]) -> String? {
        let wanted = explicit ?? environment["BLEINSPECT_CLANG"].flatMap { $0.isEmpty ? nil : $0 } ?? "clang"
        if wanted.contains("/") {
            return FileManager.default.isExecutableFile(atPath: wanted) ? wanted : nil
        }
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = directory.hasSuffix("/") ? "\(directory)\(wanted)" : "\(directory)/\(wanted)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The arguments for one translation unit.
    func arguments(
        file: String,
        headerSearchPaths: [String],
        defines: [String],
        dependencyFile: String,
        standIns: String? = nil
    ) -> [String] {
        let language = file.lowercased().hasSuffix(".mm") ? "objective-c++" : "objective-c"
        var arguments = [
            "-x", language, "-fsyntax-only", "-fobjc-arc", "-fblocks", "-fobjc-runtime=ios-15.0",
            "-fno-color-diagnostics", "-fno-caret-diagnostics", "-Wno-everything",
            "-Xclang", "-ast-dump=json",
            "-MMD", "-MF", dependencyFile, "-MT", "bleinspect-objc",
        ]
        for directory in headerSearchPaths { arguments += ["-I", directory] }
        arguments += ["-isystem", stubDirectory]
        arguments += ["-include", stubDirectory + "/" + StubHeaders.prelude]
        if let standIns { arguments += ["-isystem", standIns] }
        arguments += defines.map { "-D\($0)" }
        arguments.append(file)
        return arguments
    }

    /// Runs clang on `file`; `tag` names this run's output files; `standIns` is the folder of this
    /// file's empty stand-ins for headers not found (MissingHeaders).
    func run(
        file: String,
        headerSearchPaths: [String],
        defines: [String],
        tag: String,
        standIns: String? = nil
    ) throws(Failure) -> Run {
        let output = workDirectory.appendingPathComponent("\(tag).json")
        let errors = workDirectory.appendingPathComponent("\(tag).err")
        let dependencies = workDirectory.appendingPathComponent("\(tag).d")
        defer {
            for url in [output, errors, dependencies] { try? FileManager.default.removeItem(at: url) }
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: clang)
        process.arguments = arguments(
            file: file,
            headerSearchPaths: headerSearchPaths,
            defines: defines,
            dependencyFile: dependencies.path,
            standIns: standIns
        )
        do {
            guard FileManager.default.createFile(atPath: output.path, contents: nil),
                FileManager.default.createFile(atPath: errors.path, contents: nil)
            else { throw Failure(message: "cannot create files in \(workDirectory.path)") }
            let outputHandle = try FileHandle(forWritingTo: output)
            let errorHandle = try FileHandle(forWritingTo: errors)
            defer {
                try? outputHandle.close()
                try? errorHandle.close()
            }
            process.standardOutput = outputHandle
            process.standardError = errorHandle
            process.standardInput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(message: "clang (\(clang)) could not be run: \(error.localizedDescription)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int) ?? 0
        let ast = size <= maximumASTBytes ? (FileManager.default.contents(atPath: output.path) ?? Data()) : Data()
        let diagnostics = FileManager.default.contents(atPath: errors.path).map {
            String(decoding: $0, as: UTF8.self)
        }
        let dependencyText = FileManager.default.contents(atPath: dependencies.path).map {
            String(decoding: $0, as: UTF8.self)
        }
        return Run(
            status: process.terminationStatus,
            ast: ast,
            diagnostics: diagnostics ?? "",
            dependencies: Self.dependencies(dependencyText ?? "")
        )
    }

    /// The paths of a make-style dependency file (`target: a.m b.h \` …), with `\ ` unescaped.
    static func dependencies(_ text: String) -> [String] {
        var paths: [String] = []
        var current = ""
        var afterTarget = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
                if character == "\n" || character == "\r\n" { continue }
                current.append(character)
                continue
            }
            switch character {
            case "\\":
                escaped = true
            case ":" where !afterTarget:
                afterTarget = true
                current = ""
            case " ", "\t", "\n", "\r\n":
                if afterTarget, !current.isEmpty { paths.append(current) }
                current = ""
            default:
                current.append(character)
            }
        }
        if afterTarget, !current.isEmpty { paths.append(current) }
        return paths
    }
}
