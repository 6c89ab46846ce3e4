import ArgumentParser
import BLEInspectCore
import BLEInspectPlugins
import BLEInspectSession

/// A command that decodes frames: it runs with the process's `Toolkit` (the dissector modules),
/// which `BLEInspectTool.main(modules:)` builds once and hands it.
protocol ToolCommand: ParsableCommand {
    func run(with toolkit: Toolkit) throws
}

extension ToolCommand {
    /// Run without `BLEInspectTool` (`BLEInspectCommand.main()`): the built-in modules only.
    func run() throws { try run(with: Toolkit()) }
}

/// Making a command's session.
enum SessionSetup {
    /// `toolkit`'s session with `plugins` and `configuration`; exit status 70 (an internal error,
    /// reported) when its registry does not build.
    static func session(
        _ toolkit: Toolkit,
        plugins: PluginCatalog,
        configuration: RegistryConfiguration = RegistryConfiguration()
    ) throws -> Session {
        guard
            let session = toolkit.session(plugins: plugins, configuration: configuration, { StandardError.print($0) })
        else { throw ExitCode(ExitStatus.software.rawValue) }
        return session
    }
}
