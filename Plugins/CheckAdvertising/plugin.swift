import Foundation
import PackagePlugin

/// `swift package check-advertising [--target NAME]... [ADV-BUDGET OPTIONS]`: runs
/// `bleinspect adv-budget --swift` over the package's Swift source targets (all but tests, or
/// the ones named) and fails when the check fails. Other arguments go to adv-budget, for
/// example `--format github` or `--fail-on warning`.
@main
struct CheckAdvertising: CommandPlugin {
    struct Failed: Error, CustomStringConvertible {
        var status: Int32
        var description: String { "bleinspect adv-budget exited with status \(status)" }
    }

    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        let targets = names.isEmpty ? context.package.targets : try context.package.targets(named: names)
        let sources = targets.compactMap { $0 as? SwiftSourceModuleTarget }
            .filter { !names.isEmpty || $0.kind != .test }
        guard !sources.isEmpty else {
            Diagnostics.warning("check-advertising: no Swift source targets to check")
            return
        }
        let tool = try context.tool(named: "bleinspect")
        let process = Process()
        process.executableURL = tool.url
        process.arguments =
            ["adv-budget", "--swift"] + sources.map { $0.directoryURL.path } + extractor.remainingArguments
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw Failed(status: process.terminationStatus) }
    }
}
