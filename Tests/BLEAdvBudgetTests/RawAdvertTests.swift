import BLEAdvBudget
import BLEInspectCore
import Testing

/// The raw-bytes entry point (captures): parsing AD structures, the §1 limits and per-type rules.
@Suite("raw AD bytes")
struct RawAdvertTests {
    @Test("F1 (iOS 7 foreground): 31 + 21 bytes, three structures, an overflow area, no findings but the note")
    func fixtureF1() {
        let r = AdvBudgetEngine.check(
            raw: RawAdvert(
                label: "F1",
                kind: .legacy,
                advertisingData: bytes("02011a 11067f00000079e3e78e82319dfbf045bdd2 09084c69676874426c75"),
                scanResponseData: bytes("14ff4c0001 00000000000000000000000000000002"),
                connectable: true
            )
        )
        #expect(r.advertisingData.structures.map(\.offset) == [0, 3, 21])
        #expect(r.advertisingData.structures.map(\.structure.type) == [0x01, 0x06, 0x08])
        #expect(r.advertisingData.left == 0)
        #expect(r.scanResponse.used == 21)
        #expect(r.overflow?.bitmap.last == 0x02)
        #expect(r.rules == ["ad.apple-overflow"])
    }

    @Test("a Length byte past the end is a finding, never a crash")
    func lengthOverrun() throws {
        // 02 01 06 then Length 0x1E (30) with only 2 bytes after it.
        let r = AdvBudgetEngine.check(
            raw: RawAdvert(
                label: "frame 31, LE Set Advertising Data",
                kind: .legacy,
                advertisingData: bytes("020106 1EFF4C")
            )
        )
        let finding = try #require(r.findings("ad.length.overrun").first)
        #expect(finding.severity == .error)
        #expect(finding.message.contains("offset 3 has Length 30 but only 2 bytes follow"))
        #expect(r.advertisingData.structures.count == 1)
        #expect(r.advertisingData.trailing == bytes("1EFF4C"))
    }

    @Test("zero padding is fine; bytes after a zero Length are reported")
    func earlyTermination() {
        let padded = AdvBudgetEngine.check(
            raw: RawAdvert(label: "p", kind: .legacy, advertisingData: bytes("020106") + Array(repeating: 0, count: 28))
        )
        #expect(padded.findings.isEmpty)
        #expect(padded.advertisingData.used == 3)
        let junk = AdvBudgetEngine.check(
            raw: RawAdvert(label: "j", kind: .legacy, advertisingData: bytes("020106 00 0509"))
        )
        #expect(junk.findings("ad.length.zero").count == 1)
    }

    @Test("per-type rules of §1: Flags in the scan response, two 16-bit lists, bad lengths, unknown type")
    func perTypeRules() {
        let r = AdvBudgetEngine.check(
            raw: RawAdvert(
                label: "bad",
                kind: .legacy,
                // two 16-bit lists (0x02 and 0x03), a 3-byte 16-bit list, TX power of 2 bytes,
                // Appearance of 1 byte, manufacturer data of 1 byte, type 0x13 (unassigned)
                advertisingData: bytes("0302 0A18 0403 0A180F 030A 0000 0219 01 02FF 01 0113"),
                scanResponseData: bytes("020106"),
                connectable: true
            )
        )
        let rules = Set(r.rules)
        for rule in [
            "ad.uuid-list.duplicate", "ad.uuid-list.length", "ad.tx-power.length", "ad.appearance.length",
            "ad.manufacturer.short", "ad.type.unknown", "ad.flags.in-scan-response", "ad.flags.missing",
        ] {
            #expect(rules.contains(rule), "\(rule)")
        }
        #expect(r.findings("ad.type.unknown").first?.severity == .warning)
    }

    @Test("legacy 31-byte limit and extended maximum on raw data")
    func rawLimits() {
        let forty = bytes("2709") + Array(repeating: 0x41, count: 38)  // one 40-byte name AD
        let legacy = AdvBudgetEngine.check(raw: RawAdvert(label: "l", kind: .legacy, advertisingData: forty))
        #expect(legacy.findings("legacy.advertising-data.too-large").count == 1)
        let extended = AdvBudgetEngine.check(raw: RawAdvert(label: "e", kind: .extended, advertisingData: forty))
        #expect(extended.errors.isEmpty)
        #expect(extended.profile == .extended(maximum: 1650))
    }

    @Test("arbitrary bytes never trap", arguments: 0..<8)
    func arbitraryBytes(seed: Int) {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        for length in [0, 1, 2, 31, 62, 300, 2000] {
            let data = (0..<length).map { _ in next() }
            for kind in [RawAdvert.Kind.legacy, .extended] {
                let r = AdvBudgetEngine.check(
                    raw: RawAdvert(label: "fuzz", kind: kind, advertisingData: data, scanResponseData: data.reversed())
                )
                // Every byte is accounted for: structures + trailing = the data up to a zero Length.
                #expect(r.advertisingData.used <= data.count)
                _ = BudgetReport(results: [r]).rendered(.text)
            }
        }
    }
}
