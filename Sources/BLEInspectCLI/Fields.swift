import ArgumentParser
import BLECapture
import BLEInspectCore
import BLEInspectSession

struct Fields: ToolCommand {
    static let configuration = CommandConfiguration(
        commandName: "fields",
        abstract: "List every field bleinspect decodes, with its type and description.",
        discussion: """
            Field names are the names used by -T fields -e and by filters. Where Wireshark has the \
            field, the name is Wireshark's abbreviation, so existing filters carry over.

            Examples:
              bleinspect fields
              bleinspect fields btatt          # only names starting with btatt
              bleinspect fields --markdown > FIELDS.md
            """
    )

    @Argument(help: "Show only fields whose name starts with this prefix.")
    var prefix: String?

    @Flag(help: "Print a Markdown table.")
    var markdown = false

    @OptionGroup var plugins: PluginOptions

    func run(with toolkit: Toolkit) throws {
        let catalog = try plugins.load(toolkit)
        let registry: DissectorRegistry
        do {
            registry = try toolkit.registry(plugins: catalog)
        } catch {
            StandardError.print("bleinspect: internal error: \(error)")
            throw ExitCode(70)
        }
        let out = OutputSink(fd: 1, ownsDescriptor: false)
        out.append(Self.listing(registry, prefix: prefix, markdown: markdown))
        out.flush()
    }

    /// The listing: per field its name, type, display name and description (help, the unit if
    /// it has one, aliases), tab-separated or as a Markdown table.
    static func listing(_ registry: DissectorRegistry, prefix: String?, markdown: Bool) -> String {
        let aliases = Dictionary(
            grouping: registry.index.filter { registry.descriptor($0.value).abbrev != $0.key },
            by: \.value
        )
        var out = ""
        if markdown { out.append("| Field | Type | Name | Description |\n|---|---|---|---|\n") }
        for d in registry.fields where prefix.map({ d.abbrev.hasPrefix($0) }) ?? true {
            var help = d.help
            if !d.unit.isEmpty {
                // Units may come from a user's plugin: escaped like any untrusted text.
                help += (help.isEmpty ? "" : " ") + "(unit: \(TerminalSafeText.escape(d.unit)))"
            }
            if let id = registry.field(named: d.abbrev), let names = aliases[id] {
                let list = names.map(\.key).sorted().joined(separator: ", ")
                help += (help.isEmpty ? "" : " ") + "(alias: \(list))"
            }
            if markdown {
                out.append("| `\(d.abbrev)` | \(d.kind.typeName) | \(d.name) | \(help) |\n")
            } else {
                out.append("\(d.abbrev)\t\(d.kind.typeName)\t\(d.name)\(help.isEmpty ? "" : "\t" + help)\n")
            }
        }
        return out
    }
}
