import Foundation
import Testing

@testable import BLEAdvBudgetObjC

/// clang itself, with the stub headers, is the oracle for the fixtures: each parses without errors
/// except the deliberately broken one.
@Suite(
    "Fixtures compile with the stub headers",
    .enabled(if: Fixture.hasClang, "no clang found (set BLEINSPECT_CLANG)")
)
struct ClangOracleTests {
    @Test(arguments: Fixture.translationUnits)
    func fixtureParses(name: String) throws {
        let clang = try #require(Fixture.clang)
        let stubs = FileManager.default.temporaryDirectory.appendingPathComponent("bleinspect-oracle-\(UUID())")
        defer { try? FileManager.default.removeItem(at: stubs) }
        try StubHeaders.write(to: stubs)
        for defines in [[], ["-DDEBUG=1"]] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: clang)
            process.arguments =
                [
                    "-x", name.hasSuffix(".mm") ? "objective-c++" : "objective-c", "-fsyntax-only", "-fobjc-arc",
                    "-fblocks", "-fobjc-runtime=ios-15.0", "-I", Fixture.directory, "-isystem", stubs.path,
                ] + defines + [Fixture.path(name)]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let diagnostics = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let errorLines = diagnostics.split(separator: "\n").filter { $0.contains("error:") }
            if name == "Broken.m" {
                #expect(!errorLines.isEmpty)
                #expect(process.terminationStatus != 0)
            } else {
                #expect(errorLines.isEmpty, "\(name) \(defines): \(diagnostics)")
                #expect(process.terminationStatus == 0)
            }
        }
    }
}

@Suite struct LiteralTextTests {
    @Test func decodesClangStringValues() {
        #expect(CStringLiteral.decode(#""b\303\251\n""#) == "bé\n")
        #expect(CStringLiteral.decode(#""a\"b\\c\x41\101""#) == "a\"b\\cAA")
        #expect(CStringLiteral.decode(#""\u00e9""#) == "é")
        #expect(CStringLiteral.decode("no quotes") == nil)
    }

    @Test func formatPrefixAndSuffix() {
        let format = FormatString("bitchat-%@-%ld%%")
        #expect(format.conversions == [.object, .integer])
        #expect(format.prefix == "bitchat-")
        #expect(format.suffix == "%")
        #expect(format.filled(["x", "3"]) == "bitchat-x-3%")
        #expect(FormatString("%*d").conversions == [.other])
        #expect(FormatString("plain 100%%").prefix == "plain 100%")
    }

    @Test func dependencyFiles() {
        let text = "bleinspect-objc: a.m dir\\ with\\ space/b.h \\\n  c.h\n"
        #expect(ClangRunner.dependencies(text) == ["a.m", "dir with space/b.h", "c.h"])
    }

    @Test func classNamesOfTypes() {
        #expect(ClangAST.className("CBPeripheralManager *__strong") == "CBPeripheralManager")
        #expect(ClangAST.className("__strong id") == "id")
        #expect(ClangAST.className("id<CBPeripheralManagerDelegate>") == "id")
        #expect(ClangAST.className("__kindof CBManager *") == "CBManager")
    }

    @Test func debugConditionals() {
        #expect(TranslationUnitScan.mentionsDEBUG(Array("#if DEBUG\n#endif\n".utf8)))
        #expect(TranslationUnitScan.mentionsDEBUG(Array("  #  ifdef DEBUG_LOGGING\n".utf8)))
        #expect(!TranslationUnitScan.mentionsDEBUG(Array("// DEBUG only\nNSLog(@\"DEBUG\");\n".utf8)))
    }
}
