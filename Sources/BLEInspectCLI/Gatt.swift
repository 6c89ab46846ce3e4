import ArgumentParser
import BLECapture
import BLEInspectSession
import BLEInspectViews

struct Gatt: StandardView {
    static let configuration = CommandConfiguration(
        commandName: "gatt",
        abstract: "Rebuild each device's GATT database from the discovery traffic in a capture.",
        discussion: """
            For each device: its services with their handle ranges, includes, characteristics \
            (properties, declaration and value handles, UUID and SIG name) and descriptors, as \
            the discovery responses showed them. Each attribute shows the last value seen \
            (decoded where the characteristic is known), the counts of reads, writes, \
            notifications and indications, and CCCD subscriptions. Attributes that were used but \
            never discovered are marked as inferred. A device that reconnects keeps one tree; \
            Service Changed indications mark what they cover until a discovery shows it again.

            Examples:
              bleinspect gatt btsnoop_hci.log
              bleinspect gatt -Y 'device.name contains "Polar"' capture.pklg
              bleinspect gatt --json capture.btsnoop | jq '.devices[0].services'
            """
    )

    @OptionGroup var input: ViewInput

    @Flag(help: "Print the databases as JSON (schema bleinspect.gatt/1, see docs/VIEWS.md).")
    var json = false

    typealias Runner = GATTCommandRunner
}

extension GATTCommandRunner: ViewRunner {}
