import BLEAdvBudget
import Foundation

@testable import BLEAdvBudgetObjC

/// The fixtures of Tests/Fixtures/AdvertisingObjC, found from this file's path.
enum Fixture {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures/AdvertisingObjC")
        .path

    static func path(_ name: String) -> String { directory + "/" + name }

    /// The clang the scanner would run; the tests that need one are skipped without it.
    static let clang = ObjCAdvertisingScanner().locateClang()
    static var hasClang: Bool { clang != nil }

    static func scan(_ names: String...) -> ObjCScanResult {
        ObjCAdvertisingScanner().scan(files: names.map(path), headerSearchPaths: [directory])
    }

    static func location(_ name: String, _ line: Int, _ column: Int) -> SourceLocation {
        SourceLocation(file: path(name), line: line, column: column)
    }

    /// Every `.m` and `.mm` fixture, sorted.
    static var translationUnits: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".m") || $0.hasSuffix(".mm") }.sorted()
    }
}
