import BLEInspectCore
import BLEInspectFilter
import BLEInspectTestSupport
import Testing

/// No filter text, however broken, may trap the compiler, the evaluator or the error renderer.
@Suite("robustness")
struct RobustnessTests {
    /// Compiles `text`; on success evaluates it on two trees, on failure checks the error's columns
    /// and renders it.
    static func exercise(_ text: String) {
        do {
            let f = try FilterHarness.compile(text)
            let a = writeRequestTree()
            let b = advertisingTree()
            _ = f.matches(a.tree, frameBytes: a.bytes)
            _ = f.matches(b.tree, frameBytes: b.bytes)
        } catch {
            let count = text.count
            #expect(error.range.lowerBound >= 0 && error.range.lowerBound <= count, "\(text): \(error)")
            #expect(error.range.upperBound <= count + 1, "\(text): \(error)")
            #expect(!error.range.isEmpty, "\(text): \(error)")
            _ = error.rendered(filter: text)
        }
    }

    @Test("every prefix of every test filter compiles or fails cleanly")
    func prefixes() {
        let filters = agreementCases.map(\.filter) + malformedCases.map(\.filter)
        for f in filters {
            let chars = Array(f)
            for n in 0...chars.count { Self.exercise(String(chars[0..<n])) }
        }
    }

    @Test("random token soups compile or fail cleanly")
    func soups() {
        let pieces = [
            "btatt", "btatt.opcode", "btatt.value", "btl2cap.cid", "bthci_evt.bd_addr", "adv.uuid", "frame.time_epoch",
            "btcommon.eir_ad.entry.device_name", "btatt.opcode.command", "btl2cap.command", "_ws.expert", "==", "!=",
            "===", "!==", "~=", "<", ">=", "eq", "contains", "matches", "~", "in", "not", "and", "or", "&&", "||", "!",
            "(", ")", "{", "}", "[", "]", "[0:2]", "[-1]", "[1-]", "[:]", ",", "..", "&", "0x12", "-1",
            "+", "-", " - ", "*", "/", "%", "bitwise_and", "any", "all", "${", "#", "#2", "#[1-2]", "[0,2:]", "upper(",
            "lower(", "string(", "max(", "min(", "abs(", ".btatt.handle", "btatt.handle", "\"2020-07-04 12:34\"",
            "18446744073709551616",
            "01:00", "aa:bb:cc:dd:ee:ff", "180f", "0000180f-0000-1000-8000-00805f9b34fb", "\"Write Request\"",
            "\"\\x41\"",
            "\"unterminated", "'a'", "'", "r\"\\\"\"", "len(", "count(", "1.5", "True", "\\", "#", "=", "|", "é", "\t",
        ]
        var rng = SplitMix64(seed: 0x5EED_F117)
        for _ in 0..<3000 {
            let n = Int(rng.next() % 8) + 1
            var text = ""
            for _ in 0..<n {
                text += pieces[Int(rng.next() % UInt64(pieces.count))]
                if rng.next() % 3 != 0 { text += " " }
            }
            Self.exercise(text)
        }
    }

    @Test("random bytes compile or fail cleanly")
    func bytes() {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<2000 {
            let n = Int(rng.next() % 24)
            let scalars = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next() % 128) }
            Self.exercise(String(decoding: scalars, as: UTF8.self))
        }
    }
}
