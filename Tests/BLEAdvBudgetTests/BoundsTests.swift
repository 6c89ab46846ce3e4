import BLEAdvBudget
import BLEInspectCore
import Foundation
import Testing

/// Verdicts for values the sources do not fix, checked against the exact engine: every verdict
/// must hold for every concrete value substituted, and "cannot tell" must be tight (some value
/// cuts, some does not).
@Suite("adv-budget bounds for unknown values")
struct BoundsTests {
    /// A source advert with the given name and UUID values.
    static func source(name: SourceValue?, uuids: [SourceValue], list: String? = nil) -> AdvertPlan {
        AdvertPlan(
            source: SourceAdvertisement(
                location: SourceLocation(file: "Chat.swift", line: 7, column: 27),
                localName: name,
                serviceUUIDs: uuids,
                serviceUUIDListUnknown: list
            )
        )
    }

    /// Concrete UUIDs of each width for substitution, distinct per position.
    static func concrete(width: Int, n: Int) -> BluetoothUUID {
        switch width {
        case 2: BluetoothUUID(uuid16: 0x1800 + UInt16(n))
        case 4: BluetoothUUID(uuid32: 0x1234_0000 + UInt32(n))
        default: BluetoothUUID(high: 0x0123_4567_89AB_CDEF, low: 0x0FED_CBA9_8765_4300 + UInt64(n), width: 16)
        }
    }

    @Test("the seed chat app: one unknown UUID and a 25-byte name is cut whatever the UUID, to at most 22 bytes")
    func seedChatApp() throws {
        let p = Self.source(
            name: .resolved("com.example.corebluetooth"),
            uuids: [.unresolved(expression: "service.uuid")]
        )
        let r = AdvBudgetEngine.check(p, profile: .iosForeground)
        let name = try #require(r.name?.bounds)
        #expect(name.cut == .always)
        #expect(name.maximumOnAir == 22)
        let truncated = try #require(r.findings("ios.name.truncated").first)
        #expect(truncated.severity == .error)
        #expect(truncated.message.contains("whatever `service.uuid` is: at most 22 of 25 bytes fit"))
        #expect(truncated.message.contains("if `service.uuid` is 128-bit: cut to 8 bytes, \"com.exam\""))
        #expect(r.findings("source.bound").first?.message.contains("`service.uuid` always fits") == true)
        #expect(r.advertisingData.partial == "partial layout, if `service.uuid` is 16-bit")
        #expect(r.advertisingData.hex(separator: "").hasPrefix("02011A0303????1708"))
        #expect(r.uuids.first?.unknownExpression == "service.uuid")
        let json = BudgetReport(results: [r]).rendered(.json)
        #expect(json.contains("\"cut\" : \"always\""))
        #expect(!json.contains("\"cut\" : false"))
        #expect(BudgetReport(results: [r]).failed)
        let text = BudgetReport(results: [r]).rendered(.text)
        for line in text.split(separator: "\n") where line.contains("??") || line.contains("(ADV_IND") {
            // A layout with unknown bytes says it is partial on its own line, or is a byte line under it.
            #expect(line.contains("partial layout") || line.hasPrefix("    "), "\(line)")
        }
    }

    @Test("an interpolated name: its literal prefix is a lower bound; the cut is always, never or 'cannot tell'")
    func interpolatedName() throws {
        // No UUIDs: 28 bytes leave 26 for the name; "bitchat-" (8) + anything may or may not fit.
        let open = AdvBudgetEngine.check(
            Self.source(
                name: .partial(expression: "\"bitchat-\\(peerID)\"", prefix: "bitchat-", suffix: ""),
                uuids: []
            ),
            profile: .iosForeground
        )
        #expect(open.name?.bounds?.cut == .unknown)
        #expect(open.findings("source.depends").first?.message.contains("cannot tell whether the name") == true)
        #expect(open.reaches(.error) == false)
        // With a 128-bit UUID, 8 bytes are left: "bitchat-" is all that fits, whatever follows.
        let tight = AdvBudgetEngine.check(
            Self.source(
                name: .partial(expression: "\"bitchat-\\(peerID)\"", prefix: "bitchat-", suffix: "!"),
                uuids: [.resolved("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")]
            ),
            profile: .iosForeground
        )
        #expect(tight.name?.bounds?.cut == .always)
        #expect(
            tight.findings("ios.name.truncated").first?.message.contains(
                "at most 8 of at least 9 bytes fit (\"bitchat-\")"
            ) == true
        )
    }

    @Test("a dictionary or UUID array the sources do not fix: cannot tell, never a pass on an empty layout")
    func unknownDictionaryAndList() {
        let dictionary = AdvBudgetEngine.check(
            AdvertPlan(
                source: SourceAdvertisement(
                    location: SourceLocation(file: "A.swift", line: 3),
                    dictionaryUnknown: "Advertiser.data()"
                )
            ),
            profile: .iosForeground
        )
        #expect(dictionary.findings("source.depends").count == 1)
        #expect(dictionary.advertisingData.partial?.contains("`Advertiser.data()` is not known") == true)
        #expect(dictionary.reaches(.warning))
        let list = AdvBudgetEngine.check(
            Self.source(name: .resolved("Thermo"), uuids: [], list: "services.map(\\.uuid)"),
            profile: .iosForeground
        )
        #expect(list.name?.bounds?.cut == .unknown)
        #expect(list.findings("source.depends").contains { $0.message.contains("unknown number of UUIDs") })
        // A name longer than 26 bytes is cut whatever the list holds.
        let long = AdvBudgetEngine.check(
            Self.source(name: .resolved("a-name-that-is-27-bytes-lon"), uuids: [], list: "uuids"),
            profile: .iosForeground
        )
        #expect(long.name?.bounds?.cut == .always)
    }

    @Test("an iBeacon with unknown values: 30 bytes whatever they are, ?? where unknown, stops in the background")
    func beacon() {
        let p = AdvertPlan(
            source: SourceAdvertisement(
                location: SourceLocation(file: "Beacon.swift", line: 9),
                iBeacon: SourceBeacon(
                    expression: "region.peripheralData(withMeasuredPower: nil)",
                    uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
                    major: 1
                )
            )
        )
        let r = AdvBudgetEngine.check(p, profile: .iosForeground)
        #expect(r.advertisingData.used == 30)
        #expect(
            r.advertisingData.hex(separator: "")
                == "02011A1AFF4C000215E2C56DB5DFFB48D2B060D0F5A71096E00001??????"
        )
        #expect(r.advertisingData.partial?.contains("(minor, measured power)") == true)
        let background = AdvBudgetEngine.check(p, profile: .iosBackground)
        #expect(background.rules.contains("ios.background.ibeacon-stops"))
    }

    /// The verdicts of every combination of up to two unknown UUIDs, a known UUID and names of 0
    /// to 30 bytes (exact or partial) agree with the exact engine run on concrete values.
    @Test("verdicts hold for every concrete substitution, and 'cannot tell' is tight")
    func verdictsAgreeWithTheExactEngine() throws {
        let knownChoices: [[String]] = [[], ["180D"], ["6E400001-B5A3-F393-E0A9-E50E24DCCA9E"]]
        for known in knownChoices {
            for unknownCount in 0...2 {
                for nameLength in stride(from: 0, through: 30, by: 3) {
                    for partial in [false, true] where !(unknownCount == 0 && !partial) {
                        try checkAgainstExact(
                            known: known,
                            unknownCount: unknownCount,
                            nameLength: nameLength,
                            partial: partial
                        )
                    }
                }
            }
        }
    }

    private func checkAgainstExact(known: [String], unknownCount: Int, nameLength: Int, partial: Bool) throws {
        let text = String(repeating: "n", count: nameLength)
        let name: SourceValue =
            partial ? .partial(expression: "name", prefix: text, suffix: "") : .resolved(text)
        let unknowns = (0..<unknownCount).map { SourceValue.unresolved(expression: "u\($0)") }
        let p = Self.source(
            name: nameLength == 0 && !partial ? nil : name,
            uuids: unknowns + known.map { .resolved($0) }
        )
        let verdict = AdvBudgetEngine.check(p, profile: .iosForeground)
        // Every substitution: each unknown UUID at each width; a partial name with 0...30 more bytes.
        var widthCombos: [[Int]] = [[]]
        for _ in 0..<unknownCount { widthCombos = widthCombos.flatMap { c in [2, 4, 16].map { c + [$0] } } }
        let extras = partial ? Array(0...30) : [0]
        var cutSeen = Set<Bool>()
        var mostKept = 0
        for combo in widthCombos {
            for extra in extras {
                let uuids = combo.enumerated().map { Self.concrete(width: $1, n: $0) } + known.map(uuid)
                let concreteName = text + String(repeating: "x", count: extra)
                let exact = AdvBudgetEngine.check(
                    AdvertPlan(id: "c", data: AdvertFields(localName: concreteName, serviceUUIDs: uuids)),
                    profile: .iosForeground
                )
                guard let outcome = exact.name else { continue }
                cutSeen.insert(outcome.isCut)
                if outcome.placement == .advertisingData { mostKept = max(mostKept, outcome.onAir?.count ?? 0) }
                // Each UUID's place in this case is one the verdict allows.
                for (i, placed) in exact.uuids.enumerated() where i < verdict.uuids.count {
                    let said = verdict.uuids[i].verdict ?? ""
                    if said.contains("whatever its width") || said.contains("advertising data in every case") {
                        #expect(placed.place == .advertisingData, "\(known) \(combo) uuid \(i)")
                    }
                    if said.contains("overflow area in every case") {
                        #expect(placed.place == .overflowArea, "\(known) \(combo) uuid \(i)")
                    }
                }
            }
        }
        guard let bounds = verdict.name?.bounds, !cutSeen.isEmpty else { return }
        let label = "known \(known), \(unknownCount) unknown, name \(nameLength)\(partial ? "+" : "")"
        switch bounds.cut {
        case .always: #expect(cutSeen == [true], "\(label)")
        case .never: #expect(cutSeen == [false], "\(label)")
        case .unknown: #expect(cutSeen == [true, false], "\(label): 'cannot tell' but every case agrees")
        }
        if bounds.cut != .never { #expect(bounds.maximumOnAir >= mostKept, "\(label)") }
    }
}
