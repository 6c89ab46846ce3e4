import Foundation
import Synchronization

/// The passkey search's progress line on standard error: passkeys tried out of 1,000,000, at most
/// every `interval` milliseconds, cleared when the search ends. The caller decides whether the
/// line is wanted (a terminal on standard error); the search reports to it every 1,024 passkeys
/// of a thread.
public final class CrackProgress: Sendable {
    private let label: String
    private let interval: UInt64
    private let clock: @Sendable () -> UInt64
    private let output: @Sendable (String) -> Void
    private let tried = Atomic<Int>(0)
    private let lastShown = Atomic<UInt64>(0)
    private let shown = Atomic<Bool>(false)

    /// `label` is shown before the count (already safe for the terminal); `clock` gives
    /// milliseconds, `write` puts text on the terminal.
    public init(
        label: String,
        interval: UInt64 = 200,
        clock: @escaping @Sendable () -> UInt64 = CrackProgress.monotonicMilliseconds,
        write: @escaping @Sendable (String) -> Void = CrackProgress.writeToStandardError
    ) {
        self.label = label
        self.interval = interval
        self.clock = clock
        self.output = write
        lastShown.store(clock(), ordering: .relaxed)
    }

    /// The line for `tried` passkeys.
    public static func line(_ label: String, tried: Int) -> String {
        let total = Int(LegacyPairingCrack.passkeyCount)
        return "\r\u{1B}[K\(label): \(grouped(min(tried, total))) / \(grouped(total)) passkeys tried"
    }

    /// Counts `count` more passkeys tried; shows the line when `interval` has passed since the
    /// last one (one thread wins the turn).
    func add(_ count: Int) {
        let total = tried.add(count, ordering: .relaxed).newValue
        let now = clock()
        let last = lastShown.load(ordering: .relaxed)
        guard now &- last >= interval,
            lastShown.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
        else { return }
        shown.store(true, ordering: .relaxed)
        output(Self.line(label, tried: total))
    }

    /// Clears the line if it was shown.
    func clear() {
        if shown.exchange(false, ordering: .relaxed) { output("\r\u{1B}[K") }
    }

    /// 1234567 as "1,234,567".
    static func grouped(_ n: Int) -> String {
        var digits = Array(String(n))
        var i = digits.count - 3
        while i > 0 {
            digits.insert(",", at: i)
            i -= 3
        }
        return String(digits)
    }

    @Sendable public static func monotonicMilliseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1000 &+ UInt64(ts.tv_nsec / 1_000_000)
    }

    @Sendable public static func writeToStandardError(_ text: String) {
        var text = text
        text.withUTF8 { p in _ = write(2, p.baseAddress, p.count) }
    }
}
