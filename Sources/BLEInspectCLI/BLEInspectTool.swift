import ArgumentParser
public import BLEInspectCore
import BLEInspectSession

/// The entry point of a `bleinspect` executable: the `bleinspect` target's `main.swift`, and that
/// of a package that builds its own `bleinspect` with code dissector modules of its own:
///
/// ```swift
/// import BLEInspectCLI
/// import ThermoProbeDissector
///
/// BLEInspectTool.main(modules: [ThermoProbeModule.self])
/// ```
public enum BLEInspectTool {
    /// Runs the bleinspect command line with the built-in modules plus `modules`.
    ///
    /// The modules go into the `Toolkit` built here, once, and handed to the command, so every
    /// command, view and worker thread decodes with them, and their fields are in
    /// `bleinspect fields` and in filters. When they do not fit with the built-in modules (a field
    /// name, table or binding taken twice), it prints the problems and exits with status 70
    /// before running any command.
    public static func main(modules: [any DissectorModule.Type] = []) {
        let all = Toolkit.modules(adding: modules)
        if all.count > StandardModules.builtIn.count, let message = registryProblem(all) {
            StandardError.print(message)
            BLEInspectCommand.exit(withError: ExitCode(ExitStatus.software.rawValue))
        }
        let toolkit = Toolkit(adding: modules)
        do {
            var command = try BLEInspectCommand.parseAsRoot()
            if let tool = command as? any ToolCommand {
                try tool.run(with: toolkit)
            } else {
                try command.run()
            }
        } catch {
            BLEInspectCommand.exit(withError: error)
        }
    }

    /// The start-up error for a registry of `modules`, or nil when it builds: every problem on a
    /// line of its own, after a line that names the modules added to the built-in ones.
    static func registryProblem(_ modules: [any DissectorModule.Type]) -> String? {
        do throws(RegistryError) {
            _ = try RegistryBuilder.build(modules: modules)
            return nil
        } catch {
            let builtIn = Set(StandardModules.builtIn.map { ObjectIdentifier($0) })
            let added = modules.filter { !builtIn.contains(ObjectIdentifier($0)) }.map { $0.name }
            let which = added.isEmpty ? "" : " with the added modules (\(added.joined(separator: ", ")))"
            let lines = error.problems.map { "  " + $0 }.joined(separator: "\n")
            return "bleinspect: the dissector registry does not build\(which):\n\(lines)"
        }
    }
}
