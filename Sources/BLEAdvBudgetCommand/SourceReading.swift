import BLEAdvBudget
import BLEAdvBudgetObjC
import Foundation

/// `--sources`: finds the files, reads Swift with swift-syntax and Objective-C with clang, and
/// says what it did not read. Nothing is skipped silently: files in other languages, files that
/// cannot be read or parsed, and finding no call at all are run notes in the report.
enum SourceReading {
    struct Read {
        var adverts: [SourceAdvertisement]
        var notes: [Finding]
    }

    static func read(_ paths: [String], clang: String?) -> Result<Read, SourceFiles.Unreadable> {
        let found: SourceDiscovery
        do throws(SourceFiles.Unreadable) {
            found = try SourceDiscovery.find(paths)
        } catch {
            return .failure(error)
        }
        let swift = SwiftSources.read(files: found.swiftFiles)
        let objc =
            found.objcFiles.isEmpty
            ? ObjCScanResult(filesRead: [], adverts: [], problems: [])
            : ObjCAdvertisingScanner(clang: clang).scan(
                files: found.objcFiles,
                headerSearchPaths: found.headerDirectories
            )
        var notes: [Finding] = []
        let withCalls = Set((swift.adverts + objc.adverts).map(\.location.file))
        for problem in swift.problems + objc.problems {
            notes.append(unreadable(problem, callsRead: withCalls.contains(problem.file)))
        }
        if !found.notRead.isEmpty {
            notes.append(
                Rules.sourceNotRead.finding(
                    "\(found.notRead.count) source file(s) in languages adv-budget does not read: "
                        + list(found.notRead)
                        + "; adverts they start are not checked (check an Android or firmware advert with a plan file)"
                )
            )
        }
        let adverts = swift.adverts + objc.adverts
        if adverts.isEmpty {
            let unreadable = swift.problems.count + objc.problems.count
            notes.append(
                Rules.sourceNoCall.finding(
                    "no startAdvertising call found in \(found.swiftFiles.count) Swift and \(found.objcFiles.count) "
                        + "Objective-C file(s)"
                        + (unreadable > 0 ? ", \(unreadable) of them unreadable" : "")
                        + ": nothing in the sources was checked"
                )
            )
        }
        return .success(Read(adverts: adverts, notes: notes))
    }

    /// A file the readers could not read wholly. An error when its text names `startAdvertising`
    /// and no call was read from it (the call would go unchecked); a warning when the calls clang
    /// recovered from it are checked (each carries a note), or when it names no call.
    private static func unreadable(_ problem: SourceProblem, callsRead: Bool) -> Finding {
        var place = Quote.safe(problem.file)
        if let line = problem.line { place += ":\(line)" + (problem.column.map { ":\($0)" } ?? "") }
        if callsRead {
            return Rules.sourceUnreadable.finding(
                "\(place): \(Quote.safe(problem.message)); the calls read from what clang recovered are checked, each "
                    + "with a note; a call in what it could not parse would not be"
            )
        }
        let mentionsCall =
            FileManager.default.contents(atPath: problem.file).map {
                String(decoding: $0, as: UTF8.self).contains("startAdvertising")
            } ?? false
        let rule = mentionsCall ? Rules.sourceUnreadableCall : Rules.sourceUnreadable
        return rule.finding(
            "\(place): \(Quote.safe(problem.message))"
                + (mentionsCall
                    ? "; the file mentions startAdvertising, and no call could be read from it" : "")
        )
    }

    /// The first paths, escaped, and how many more.
    private static func list(_ paths: [String]) -> String {
        let shown = paths.prefix(5).map { Quote.safe($0) }.joined(separator: ", ")
        return paths.count > 5 ? shown + " and \(paths.count - 5) more" : shown
    }
}
