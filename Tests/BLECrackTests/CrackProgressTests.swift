import BLECrypto
import BLEInspectCore
import Synchronization
import Testing

@testable import BLECrack

/// The search's progress line: its text, its pace (a clock and a writer made here), and what the
/// search reports to it.
@Suite("Crack progress line")
struct CrackProgressTests {
    /// A clock the test moves, and the text written.
    final class Terminal: Sendable {
        let now = Mutex<UInt64>(1_000)
        let written = Mutex<[String]>([])

        func progress(step: UInt64 = 0) -> CrackProgress {
            CrackProgress(
                label: "Cracking",
                clock: {
                    self.now.withLock {
                        $0 += step; return $0
                    }
                },
                write: { text in self.written.withLock { $0.append(text) } }
            )
        }
    }

    @Test func line() {
        #expect(
            CrackProgress.line("Cracking", tried: 524_288) == "\r\u{1B}[KCracking: 524,288 / 1,000,000 passkeys tried"
        )
        #expect(CrackProgress.line("C", tried: 0) == "\r\u{1B}[KC: 0 / 1,000,000 passkeys tried")
        // Threads stop on a multiple of 1,024: the count never passes the total.
        #expect(CrackProgress.line("C", tried: 1_000_448) == "\r\u{1B}[KC: 1,000,000 / 1,000,000 passkeys tried")
    }

    @Test func throttledAndCleared() {
        let terminal = Terminal()
        let progress = terminal.progress()
        progress.add(1024)
        terminal.now.withLock { $0 += 199 }
        progress.add(1024)
        #expect(terminal.written.withLock { $0 }.isEmpty)
        terminal.now.withLock { $0 += 1 }
        progress.add(1024)
        progress.add(1024)
        #expect(terminal.written.withLock { $0 } == [CrackProgress.line("Cracking", tried: 3072)])
        progress.clear()
        progress.clear()
        #expect(terminal.written.withLock { $0 }.last == "\r\u{1B}[K")
        #expect(terminal.written.withLock { $0 }.count == 2)
    }

    /// Nothing written: nothing to clear.
    @Test func clearWithoutLine() {
        let terminal = Terminal()
        terminal.progress().clear()
        #expect(terminal.written.withLock { $0 }.isEmpty)
    }

    /// The worst case on one thread: the counts rise to 999,424 (976 reports of 1,024), and the
    /// line is cleared before the result comes back.
    @Test func reportedBySearch() throws {
        let terminal = Terminal()
        let tk = Value128(999_999)
        let inputs = try C1Inputs(
            pairingRequest: [0x01, 0x04, 0x00, 0x05, 0x10, 0x07, 0x07],
            pairingResponse: [0x02, 0x00, 0x00, 0x05, 0x10, 0x07, 0x07],
            initiator: LEAddress(BDAddr(rawValue: 0xC655_4433_2211), isRandom: true),
            responder: LEAddress(BDAddr(rawValue: 0x0605_0403_0201), isRandom: false)
        )
        let aes = try AES128()
        let mrand = Value128(high: 1, low: 2)
        let srand = Value128(high: 3, low: 4)
        let pairing = LegacyPairing(
            inputs: inputs,
            mconfirm: try aes.c1(k: tk, r: mrand, inputs),
            sconfirm: try aes.c1(k: tk, r: srand, inputs),
            mrand: mrand,
            srand: srand
        )
        let found = try LegacyPairingCrack.crack(pairing, threads: 1, progress: terminal.progress(step: 200))
        #expect(found?.passkey == 999_999)
        let written = terminal.written.withLock { $0 }
        #expect(written.count == 977)
        #expect(written.first == CrackProgress.line("Cracking", tried: 1024))
        #expect(written.dropLast().last == CrackProgress.line("Cracking", tried: 999_424))
        #expect(written.last == "\r\u{1B}[K")
    }
}
