import ArgumentParser
import BLECapture
import BLEInspectCore
import BLEInspectPlugins
import BLEInspectSession

struct Plugins: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List the plugins found, with their fields and bindings, and every plugin rejected.",
        discussion: """
            Plugins are YAML profiles that name custom UUIDs and decode characteristic values, \
            advertising data and L2CAP channels (see docs/PLUGINS.md). They are loaded from, in \
            this order: --plugin FILE|DIR, the directories of $BLEINSPECT_PLUGIN_PATH, and \
            ~/.config/bleinspect/plugins ($XDG_CONFIG_HOME/bleinspect/plugins). When two plugins \
            clash, the one found first is kept and the other is rejected whole.

            Exits 78 when any plugin was rejected, so that this checks plugins in CI:
              bleinspect plugins --plugin DIR

            Examples:
              bleinspect plugins --plugin profiles
              bleinspect plugins --plugin profiles/sensor.yaml --no-default-plugins
            """
    )

    @OptionGroup var plugins: PluginOptions

    func run(with toolkit: Toolkit) throws {
        let (catalog, notices) = toolkit.loadPlugins(plugins.search)
        let out = OutputSink(fd: 1, ownsDescriptor: false)
        if catalog.plugins.isEmpty && catalog.rejected.isEmpty {
            out.append("No plugins found (searched: \(Self.searched(plugins.search)))\n")
        }
        for plugin in catalog.plugins { Self.describe(plugin, to: out) }
        for notice in notices { out.append("note: " + TerminalSafeText.escape(notice) + "\n") }
        if !catalog.rejected.isEmpty {
            out.append("Rejected:\n")
            for rejection in catalog.rejected {
                for d in rejection.diagnostics { out.append("  " + d.safeDescription + "\n") }
            }
        }
        out.flush()
        if !catalog.rejected.isEmpty { throw ExitCode(ExitStatus.badPlugin.rawValue) }
    }

    static func searched(_ search: PluginSearch) -> String {
        let all = search.explicit + search.implicit
        return all.isEmpty ? "nothing" : all.joined(separator: ", ")
    }

    static func describe(_ plugin: CompiledPlugin, to out: OutputSink) {
        // Names, titles and labels were escaped when the plugin was loaded; paths and units were not.
        let e = TerminalSafeText.escape
        out.append("\(plugin.namespace)\t\(plugin.title)\t\(e(plugin.file))\n")
        if !plugin.summary.isEmpty { out.append("  \(plugin.summary)\n") }
        if !plugin.names.isEmpty {
            out.append("  Names:\n")
            for n in plugin.names {
                out.append("    \(n.kind.rawValue)\t\(n.uuid)\t\(n.name)\n")
            }
        }
        if !plugin.bindings.isEmpty {
            out.append("  Bindings:\n")
            for b in plugin.bindings {
                let framing = b.framingDescription.map { ", framing: " + $0 } ?? ""
                out.append("    \(b.keyDescription)\t\(b.name)\t(line \(b.line)\(framing))\n")
            }
        }
        out.append("  Fields:\n")
        out.append("    \(plugin.namespace)\tprotocol\t\(plugin.title)\n")
        for d in plugin.fields {
            let unit = d.unit.isEmpty ? "" : "\t(unit: \(e(d.unit)))"
            out.append("    \(d.abbrev)\t\(d.kind.typeName)\t\(d.name)\(unit)\n")
        }
    }
}
