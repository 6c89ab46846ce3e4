import ArgumentParser
import BLEInspectCore
import BLEInspectPlugins
import BLEInspectSession

/// `--plugin` and `--no-default-plugins`, for every command that decodes frames.
struct PluginOptions: ParsableArguments {
    @Option(
        name: .customLong("plugin"),
        help: ArgumentHelp(
            "A YAML profile plugin, or a directory of them (repeatable). Also loaded: $BLEINSPECT_PLUGIN_PATH and ~/.config/bleinspect/plugins.",
            valueName: "file|dir"
        )
    )
    var paths: [String] = []

    @Flag(help: "Load only the --plugin paths, not $BLEINSPECT_PLUGIN_PATH nor ~/.config/bleinspect/plugins.")
    var noDefaultPlugins = false

    var search: PluginSearch { PluginSearch.standard(explicit: paths, useDefaults: !noDefaultPlugins) }

    /// The plugins to use, checked against `toolkit`'s modules. Every rejected plugin's errors go to standard error; a rejected
    /// plugin named with --plugin stops the command (exit 78), others are skipped.
    func load(_ toolkit: Toolkit) throws -> PluginCatalog {
        let (catalog, notices) = toolkit.loadPlugins(search)
        for rejection in catalog.rejected {
            for d in rejection.diagnostics { StandardError.print(d.safeDescription) }
            StandardError.print("bleinspect: plugin \(TerminalSafeText.escape(rejection.file)) rejected")
        }
        if catalog.explicitRejected { throw ExitCode(ExitStatus.badPlugin.rawValue) }
        for notice in notices { StandardError.print(TerminalSafeText.escape(notice)) }
        return catalog
    }
}
