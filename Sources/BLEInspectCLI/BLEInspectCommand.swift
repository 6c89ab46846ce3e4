public import ArgumentParser

/// The `bleinspect` command line: its subcommands, help and exit statuses. Run it with
/// `BLEInspectTool.main(modules:)`, which registers extra dissector modules first.
public struct BLEInspectCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "bleinspect",
        abstract: "Inspect Bluetooth Low Energy traffic: live HCI, HCI logs, PacketLogger files and sniffer pcaps.",
        discussion: """
            Reads Android btsnoop_hci.log, btmon btsnoop, Wireshark pcap/pcapng and iOS PacketLogger \
            (.pklg) files, choosing the format from the content, never the file name.

            Shell completion: bleinspect --generate-completion-script bash|zsh|fish

            'bleinspect live' shows a controller's traffic as it happens (hciN, any), or a capture \
            stream (-, a FIFO, tcp://HOST:PORT, --follow FILE).

            Exit status: 0 success, 64 usage error, 65 damaged input, 66 unreadable input, \
            73 output could not be written; live also uses 68 no such controller, 69 no Bluetooth \
            in the kernel, 74 read error, 77 no permission.
            """,
        version: "0.1.0",
        subcommands: [
            Read.self, Live.self, Replay.self, Gatt.self, Follow.self, Conns.self, Report.self, AdvBudget.self,
            Fields.self,
            Plugins.self,
        ],
        defaultSubcommand: Read.self
    )

    public init() {}
}
