import BLEAssignedNumbers
import Foundation
import Testing

/// The committed tables are exactly what scripts/generate_assigned_numbers.py makes from the pinned
/// bluetooth-numbers release.
@Suite struct GeneratorTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // BLEAssignedNumbersTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static let requirements = repositoryRoot.appendingPathComponent("scripts/requirements-assigned-numbers.txt")

    /// Whether python3 is on PATH and can import bluetooth_numbers.
    static let generatorCanRun: Bool = (try? run(["python3", "-c", "import bluetooth_numbers"]).status) == 0

    @Test(
        .enabled(
            if: generatorCanRun,
            """
            python3 cannot import bluetooth_numbers, so the generated tables are not compared with the \
            generator's output; install it with `python3 -m pip install -r scripts/requirements-assigned-numbers.txt`
            """
        )
    )
    func committedTablesMatchTheGenerator() throws {
        let result = try Self.run(["python3", "scripts/generate_assigned_numbers.py", "--check"])
        #expect(result.status == 0, "generate_assigned_numbers.py --check failed:\n\(result.output)")
    }

    @Test func generatedFromThePinnedVersion() throws {
        let text = try String(contentsOf: Self.requirements, encoding: .utf8)
        let pins = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("bluetooth-numbers==") }
        #expect(pins == ["bluetooth-numbers==\(AssignedNumbers.sourcePackageVersion)"])
    }

    /// Runs `arguments` through /usr/bin/env in the repository root; returns the exit status and the
    /// standard output and error, interleaved.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = repositoryRoot
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
