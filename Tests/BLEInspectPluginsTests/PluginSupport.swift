import BLEInspectTestSupport
import Foundation

/// Paths and runs for the plugin tests.
enum PluginPaths {
    static let profiles = TestPaths.repositoryRoot.appendingPathComponent("profiles")
    static func profile(_ name: String) -> String { profiles.appendingPathComponent(name).path }

    static let fixtures: URL = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        return url.appendingPathComponent("Fixtures")
    }()

    static func broken(_ name: String) -> String { fixtures.appendingPathComponent("broken/\(name)").path }

    /// Runs bleinspect with only the plugins given (none from the environment or the home
    /// directory): `--no-default-plugins` goes right after the subcommand.
    static func run(_ subcommand: String, _ arguments: [String]) throws -> ProcessResult {
        try Run.bleinspect([subcommand, "--no-default-plugins"] + arguments)
    }

    /// `-T fields` rows of `read`, split on tabs.
    static func fields(_ plugin: String, _ capture: String, filter: String, _ fields: [String]) throws -> [[String]] {
        var args = ["--plugin", plugin, "-Y", filter, "-T", "fields"]
        for f in fields { args += ["-e", f] }
        let result = try run("read", args + [TestPaths.projectCapture(capture)])
        guard result.status == 0 else { throw PluginTestError.failed(result.stderr) }
        return result.stdoutText.split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
    }

    static func json(_ capture: String) throws -> Any {
        try JSONSerialization.jsonObject(
            with: Data(contentsOf: TestPaths.projectCaptures.appendingPathComponent(capture))
        )
    }
}

enum PluginTestError: Error {
    case failed(String)
}
