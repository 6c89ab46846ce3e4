import BLEAdvBudget
import Foundation

/// One `.m` or `.mm`: parsed by clang once, and again with `-DDEBUG=1` when an `#if` of the file
/// or of a project header it includes mentions `DEBUG`.
struct TranslationUnitScan {
    struct Read {
        var parsed = false
        var adverts: [SourceAdvertisement] = []
        var problems: [SourceProblem] = []
        var dependencies: [String] = []
    }

    let runner: ClangRunner
    let file: String
    let headerSearchPaths: [String]
    let maximumDepth: Int

    func read(tag: String) -> Read {
        let source = SourceText()
        var plain = parse(defines: [], tag: tag, source: source)
        let files = Set([file] + plain.dependencies)
        guard files.contains(where: { Self.mentionsDEBUG(source.bytes(of: $0) ?? []) }) else { return plain }
        let debug = parse(defines: ["DEBUG=1"], tag: tag + "-debug", source: source)
        for problem in debug.problems where !plain.problems.contains(problem) {
            var marked = problem
            marked.message += " (parsed with DEBUG=1)"
            plain.problems.append(marked)
        }
        plain.adverts = Self.merge(plain: plain.adverts, debug: debug.adverts)
        return plain
    }

    /// One advert per call when both configurations agree; else the call of each configuration
    /// with its `variant`.
    static func merge(plain: [SourceAdvertisement], debug: [SourceAdvertisement]) -> [SourceAdvertisement] {
        if plain == debug { return plain }
        func key(_ advert: SourceAdvertisement) -> [Int] {
            [advert.location.line, advert.location.column ?? 0]
        }
        let keys = Set((plain + debug).map(key)).sorted { $0.lexicographicallyPrecedes($1) }
        var result: [SourceAdvertisement] = []
        for location in keys {
            let withoutDEBUG = plain.filter { key($0) == location }
            let withDEBUG = debug.filter { key($0) == location }
            if withoutDEBUG == withDEBUG {
                result += withoutDEBUG
                continue
            }
            result += withDEBUG.map { advert in
                var advert = advert
                advert.variant = "#if DEBUG"
                return advert
            }
            result += withoutDEBUG.map { advert in
                var advert = advert
                advert.variant = "without DEBUG"
                return advert
            }
        }
        return result
    }

    /// Whether a preprocessor conditional (`#if`, `#ifdef`, `#ifndef`, `#elif`) mentions `DEBUG`.
    static func mentionsDEBUG(_ bytes: [UInt8]) -> Bool {
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.contains("DEBUG") else { return false }
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard trimmed.first == "#" else { continue }
            let directive = trimmed.dropFirst().drop { $0 == " " || $0 == "\t" }
            if directive.hasPrefix("if") || directive.hasPrefix("elif"), directive.contains("DEBUG") { return true }
        }
        return false
    }

    private func parse(defines: [String], tag: String, source: SourceText) -> Read {
        var read = Read()
        var run: ClangRunner.Run
        // Headers not found get empty stand-ins, in a folder of this run's own, and clang runs again.
        let standIns = runner.workDirectory.appendingPathComponent("\(tag)-stand-ins", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: standIns) }
        var stoodIn: [String] = []
        var declared: [String] = []
        while true {
            do throws(ClangRunner.Failure) {
                run = try runner.run(
                    file: file,
                    headerSearchPaths: headerSearchPaths,
                    defines: defines,
                    tag: tag,
                    standIns: standIns.path
                )
            } catch {
                read.problems.append(SourceProblem(file: file, message: error.message))
                return read
            }
            guard stoodIn.count + declared.count < MissingHeaders.maximum else { break }
            if let header = MissingHeaders.missing(in: run.diagnostics), !stoodIn.contains(header),
                MissingHeaders.standIn(header, in: standIns)
            {
                stoodIn.append(header)
            } else if let className = MissingHeaders.missingInterface(in: run.diagnostics),
                !declared.contains(className), MissingHeaders.declare(className, standIns: stoodIn, in: standIns)
            {
                // The class's own header is among those not found: a stand-in declares the class.
                declared.append(className)
            } else {
                break
            }
        }
        read.dependencies = run.dependencies
        let standInText = stoodIn.map { Quote.safe($0) }.joined(separator: ", ")
        if var problem = ClangDiagnostics.problem(file: file, status: run.status, diagnostics: run.diagnostics) {
            if !stoodIn.isEmpty { problem.message += " (with empty stand-ins for headers not found: \(standInText))" }
            read.problems.append(problem)
        }
        guard !run.ast.isEmpty else {
            if run.status == 0 {
                read.problems.append(
                    SourceProblem(
                        file: file,
                        message: "clang's AST of this file is larger than \(runner.maximumASTBytes / 1_048_576) MB; "
                            + "it was not read"
                    )
                )
            }
            return read
        }
        let ast: ClangAST
        do throws(ClangAST.Failure) {
            ast = try ClangAST(json: run.ast)
        } catch {
            let reason =
                switch error {
                case .notJSON(let why): "clang's AST dump could not be read as JSON: \(why)"
                case .tooLarge(let nodes): "clang's AST of this file has more than \(nodes) nodes; it was not read"
                }
            read.problems.append(SourceProblem(file: file, message: reason))
            return read
        }
        read.parsed = true
        read.adverts = ObjCCallReader(ast: ast, source: source, mainFile: file, maximumDepth: maximumDepth).adverts()
        if !stoodIn.isEmpty {
            let note = Rules.sourceReader.finding(
                "\(Quote.safe(file)) includes headers that are not among the sources (\(standInText)); it was read "
                    + "with stand-ins for them"
                    + (declared.isEmpty ? "" : " declaring only \(declared.joined(separator: ", "))")
                    + ": a macro of theirs that decides an #if in this file is not seen"
            )
            for index in read.adverts.indices { read.adverts[index].findings.append(note) }
        }
        if let problem = read.problems.first {
            // clang drops what it cannot parse: an entry may be missing from a dictionary read here.
            let place = [problem.line, problem.column].compactMap { $0 }.map(String.init).joined(separator: ":")
            let note = Rules.sourceReader.finding(
                "\(Quote.safe(file))\(place.isEmpty ? "" : ":" + place): clang cannot parse the file; this call is "
                    + "read from what clang recovered, which may leave out part of it"
            )
            for index in read.adverts.indices { read.adverts[index].findings.append(note) }
        }
        return read
    }
}

/// clang's diagnostics as a `SourceProblem`: the first error, where it is.
enum ClangDiagnostics {
    static func problem(file: String, status: Int32, diagnostics: String) -> SourceProblem? {
        let lines = diagnostics.split(whereSeparator: \.isNewline).map(String.init)
        let errors = lines.filter { $0.contains("error: ") }
        guard let first = errors.first else {
            guard status != 0 else { return nil }
            let detail = lines.first.map { ": \($0)" } ?? ""
            return SourceProblem(file: file, message: "clang exited with status \(status)\(detail)")
        }
        let more = errors.count > 1 ? " (and \(errors.count - 1) more error(s))" : ""
        guard let marker = first.range(of: "error: ") else { return nil }
        var place = String(first[..<marker.lowerBound])
        let message = String(first[marker.upperBound...])
        if place.hasSuffix("fatal ") { place.removeLast("fatal ".count) }
        if place.hasSuffix(": ") { place.removeLast(2) }
        let parts = place.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count >= 3, let line = Int(parts[parts.count - 2]), let column = Int(parts[parts.count - 1]) {
            let path = parts.dropLast(2).joined(separator: ":")
            if path == file {
                return SourceProblem(
                    file: file,
                    line: line,
                    column: column,
                    message: "clang cannot parse it: \(message)\(more)"
                )
            }
            return SourceProblem(file: file, message: "clang cannot parse it: \(place): \(message)\(more)")
        }
        return SourceProblem(file: file, message: "clang cannot parse it: \(message)\(more)")
    }
}
