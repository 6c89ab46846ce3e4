import Foundation
import PackagePlugin

/// `swift package check-advertising [--target NAME]... [ADV-BUDGET OPTIONS]`: runs
/// `bleinspect-adv --sources` over the package's source targets, Swift and Objective-C (all but
/// tests, or the ones named), and fails when the check fails or checks nothing. Other arguments
/// go to bleinspect-adv, for example `--format github` or `--fail-on warning`.
///
/// The tool it builds, `bleinspect-adv`, imports nothing Linux-only, so the plugin runs on the
/// macOS runners where iOS apps build. In Xcode the same command is offered for the project's
/// targets (their Swift, Objective-C and header files).
@main
struct CheckAdvertising: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        let targets = names.isEmpty ? context.package.targets : try context.package.targets(named: names)
        let sources = targets.compactMap { $0 as? SourceModuleTarget }
            .filter { !names.isEmpty || $0.kind != .test }
        guard !sources.isEmpty else {
            Diagnostics.error("check-advertising: no source targets to check")
            throw AdvBudgetRun.Failed(status: 2)
        }
        try AdvBudgetRun.run(
            tool: try context.tool(named: "bleinspect-adv").url,
            sources: sources.map { $0.directoryURL.path },
            arguments: extractor.remainingArguments
        )
    }
}

/// Running bleinspect-adv and passing its status on.
enum AdvBudgetRun {
    struct Failed: Error, CustomStringConvertible {
        var status: Int32
        var description: String {
            status == 2
                ? "bleinspect-adv checked nothing (exit status 2): no startAdvertising call was found"
                : "bleinspect-adv exited with status \(status)"
        }
    }

    static func run(tool: URL, sources: [String], arguments: [String]) throws {
        let process = Process()
        process.executableURL = tool
        process.arguments = ["--sources"] + sources + arguments
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 { throw Failed(status: process.terminationStatus) }
    }
}

#if canImport(XcodeProjectPlugin)
    import XcodeProjectPlugin

    extension CheckAdvertising: XcodeCommandPlugin {
        /// The project's targets (or those named with `--target`): their Swift, Objective-C and
        /// header files.
        func performCommand(context: XcodePluginContext, arguments: [String]) throws {
            var extractor = ArgumentExtractor(arguments)
            let names = Set(extractor.extractOption(named: "target"))
            let targets = context.xcodeProject.targets.filter { names.isEmpty || names.contains($0.displayName) }
            let extensions: Set<String> = ["swift", "m", "mm", "h"]
            let files = targets.flatMap { target in
                target.inputFiles.map(\.url).filter { extensions.contains($0.pathExtension.lowercased()) }.map(\.path)
            }
            guard !files.isEmpty else {
                Diagnostics.error("check-advertising: no Swift or Objective-C files in the targets")
                throw AdvBudgetRun.Failed(status: 2)
            }
            try AdvBudgetRun.run(
                tool: try context.tool(named: "bleinspect-adv").url,
                sources: files,
                arguments: extractor.remainingArguments
            )
        }
    }
#endif
