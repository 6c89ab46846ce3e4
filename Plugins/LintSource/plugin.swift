import Foundation
import PackagePlugin

/// `swift package lint-source`: runs the toolchain's swift-format in lint mode over Sources.
@main
struct LintSource: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let swiftFormat = try context.tool(named: "swift-format")
        let sources = context.package.directoryURL.appending(path: "Sources").path()
        let process = Process()
        process.executableURL = swiftFormat.url
        process.arguments = ["lint", "--recursive", "--parallel"] + arguments + [sources]
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            Diagnostics.error("swift-format lint reported problems (exit \(process.terminationStatus))")
        }
    }
}
