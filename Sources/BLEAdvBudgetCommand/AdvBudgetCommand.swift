public import ArgumentParser
import BLEAdvBudget
import Foundation

/// `bleinspect-adv`: `bleinspect adv-budget` without captures. It imports nothing Linux-only,
/// so it builds on the macOS runners where iOS apps are built, and the check-advertising plugin
/// runs it.
public struct AdvBudgetCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "bleinspect-adv",
        abstract: "Check advertising payloads against the byte budgets of iOS, Android and the Bluetooth spec.",
        discussion: AdvBudgetHelp.discussion
    )

    @OptionGroup public var options: AdvBudgetOptions

    public init() {}

    public func validate() throws { try options.validate() }

    public func run() throws {
        let outcome = try options.outcome()
        AdvBudgetHelp.write(outcome)
        if outcome.status != .passed { throw ExitCode(outcome.status.rawValue) }
    }
}

/// The help text and output of both commands.
public enum AdvBudgetHelp {
    public static let discussion = """
        Reads plan files (YAML or JSON; schema in docs/ADV-BUDGET.md) describing \
        adverts, and the startAdvertising calls of Swift and Objective-C sources \
        (--sources; Objective-C is read through clang). For each advert and platform \
        profile it shows the bytes that go on air with their offsets, what is cut \
        ("com.example.corebluetooth" → "com.exam" (0x08)), which service UUIDs go to \
        Apple's overflow area and who still sees them, and the bytes left. A value \
        the sources do not fix gives the verdict that holds for every value it can \
        take, or says that it cannot tell. Every finding has a rule id and a \
        severity; facts that are not established give warnings, never errors.

        Profiles (--platform, comma-separated or repeated; default: each advert's \
        own `platforms`, else ios,android; sources are checked with ios):
          ios       iOS foreground and background (startAdvertising)
          android   BluetoothLeAdvertiser.startAdvertising, legacy
          legacy    the plan as written, 31 + 31 bytes
          extended  the plan as written, 254 bytes per PDU, 1650 in total
                    or --controller-max

        Exit status: 0 something was checked and no finding reached --fail-on, \
        1 a finding reached it, 2 nothing was checked (no startAdvertising call \
        found, no source readable, and no plan), 64 usage error, 65 invalid plan \
        file, 66 unreadable plan file or source path.
        """

    /// Writes the report to standard output and the errors to standard error.
    public static func write(_ outcome: AdvBudgetRunner.Outcome) {
        for line in outcome.errors {
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
        if !outcome.output.isEmpty {
            FileHandle.standardOutput.write(Data(outcome.output.utf8))
        }
    }
}
