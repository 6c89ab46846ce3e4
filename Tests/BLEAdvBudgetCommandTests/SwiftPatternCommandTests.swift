import BLEInspectTestSupport
import Foundation
import Testing

/// `bleinspect-adv` on the Swift pattern fixtures (Tests/Fixtures/AdvertisingPatterns/Swift), each
/// in text and JSON: the exact layout, the per-branch layouts, or the bound verdict.
@Suite("bleinspect-adv on Swift patterns")
struct SwiftPatternCommandTests {
    static func swift(_ name: String) -> String { CommandTests.fixture("Swift/\(name)") }

    /// The iOS foreground results of a fixture folder in JSON, and the text report.
    static func check(_ name: String) throws -> (status: Int32, foreground: [[String: Any]], text: String) {
        let json = try CommandTests.run(["--sources", swift(name), "--format", "json"])
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdoutText.utf8)) as? [String: Any],
            "\(json.stdoutText)\(json.stderr)"
        )
        let results = document["results"] as? [[String: Any]] ?? []
        let text = try CommandTests.run(["--sources", swift(name)])
        #expect(text.status == json.status)
        return (json.status, results.filter { $0["profile"] as? String == "ios-foreground" }, text.stdoutText)
    }

    static func name(_ r: [String: Any]) -> [String: Any] { r["localName"] as? [String: Any] ?? [:] }
    static func uuids(_ r: [String: Any]) -> [String] {
        (r["serviceUUIDs"] as? [[String: Any]] ?? []).compactMap {
            $0["uuid"] as? String ?? $0["expression"] as? String
        }
    }

    @Test("a parameter followed across files to its one call site: the exact layout")
    func parameterAcrossFiles() throws {
        let (status, foreground, text) = try Self.check("ParameterAcrossFiles")
        #expect(status == 0)
        let r = try #require(foreground.first)
        #expect(foreground.count == 1)
        #expect(Self.uuids(r) == ["6E400001-B5A3-F393-E0A9-E50E24DCCA9E"])
        #expect(Self.name(r)["requested"] as? String == "Chat")
        #expect(Self.name(r)["cut"] as? String == "never")
        #expect(
            (r["advertisingData"] as? [String: Any])?["hex"] as? String
                == "02011A11079ECADC240EE5A9E093F3A3B5010040" + "6E" + "0509" + "43686174"
        )
        #expect(!text.contains("partial layout"))
    }

    @Test("a parameter with two call sites: one labelled layout per call")
    func parameterTwoCallSites() throws {
        let (_, foreground, text) = try Self.check("ParameterTwoCallSites")
        let names = foreground.map { Self.name($0)["requested"] as? String ?? "" }
        #expect(names == ["Kitchen", "Garage sensor"])
        let variants = foreground.compactMap { $0["variant"] as? String }
        #expect(variants.count == 2)
        #expect(variants[0].hasPrefix("name = \"Kitchen\" (call at ") && variants[0].hasSuffix("RoomBeacon.swift:16)"))
        #expect(text.contains("RoomBeacon.swift:11 [name = RoomNames.garage (call at "))
    }

    @Test("a name assigned in if/else: one layout per branch, labelled with the condition")
    func branches() throws {
        let (status, foreground, _) = try Self.check("Branches")
        #expect(status == 0)
        let pairs = foreground.map { ($0["variant"] as? String ?? "", Self.name($0)["requested"] as? String ?? "") }
        #expect(pairs.count == 5)
        guard pairs.count == 5 else { return }
        #expect(pairs[0].0.hasPrefix("if pm5Mode (") && pairs[0].1 == "PM5 430000001")
        #expect(pairs[1].0.hasPrefix("else (") && pairs[1].1 == "Rower")
        // A switch, and an if inside one of its cases: three paths, each labelled with both.
        #expect(pairs[2].0.hasPrefix("case .debug ("))
        #expect(pairs[3].0.hasPrefix("case .release (") && pairs[3].0.contains("if metric ("))
        #expect(pairs[4].0.hasPrefix("case .release (") && pairs[4].0.contains("else ("))
    }

    @Test("a static helper in another file returning the dictionary, its name a computed property with a branch")
    func staticHelper() throws {
        let (_, foreground, _) = try Self.check("StaticHelper")
        let pairs = foreground.map { ($0["variant"] as? String ?? "", Self.name($0)["requested"] as? String ?? "") }
        #expect(pairs.map(\.1) == ["Scale beta", "Scale"])
        #expect(pairs[0].0.contains("AdvertisingData.swift:8"))
        #expect(foreground.allSatisfy { Self.uuids($0) == ["0x181D"] })
    }

    @Test("#if DEBUG / #elseif / #else names: one layout per configuration, labelled")
    func ifConfig() throws {
        let (_, foreground, _) = try Self.check("IfConfigNames")
        let pairs = foreground.map {
            "\($0["variant"] as? String ?? "")=\(Self.name($0)["requested"] as? String ?? "")"
        }
        #expect(pairs == ["#if DEBUG=Thermo-DEV", "#elseif targetEnvironment(simulator)=Thermo-SIM", "#else=Thermo"])
    }

    @Test("an interpolated name: the literal prefix bounds it; 'cannot tell' with no UUID, never 'whole'")
    func interpolatedName() throws {
        let (status, foreground, text) = try Self.check("InterpolatedName")
        #expect(status == 0)
        let first = try #require(foreground.first)
        #expect(Self.name(first)["cut"] as? String == "unknown")
        #expect(Self.name(first)["expression"] as? String == "\"bitchat-\\(peerID)\"")
        #expect(Self.name(first)["onAir"] == nil)
        #expect(text.contains("partial layout, with the name `\"bitchat-\\\\(peerID)\"` at its shortest, \"bitchat-\""))
        #expect(text.contains("warning source.depends [§2.5]: cannot tell whether the name"))
        #expect(!text.contains("bitchat-\" (0x09) in the advertising data, whole"))
    }

    @Test("an iBeacon dictionary: 30 bytes, foreground only; an unknown measured power is ??")
    func beacon() throws {
        let (_, foreground, text) = try Self.check("IBeacon")
        let hexes = foreground.compactMap { ($0["advertisingData"] as? [String: Any])?["hex"] as? String }
        #expect(
            hexes == [
                "02011A1AFF4C000215E2C56DB5DFFB48D2B060D0F5A71096E000640007??",
                "02011A1AFF4C000215E2C56DB5DFFB48D2B060D0F5A71096E000010002C5",
            ]
        )
        #expect(text.contains("ios.background.ibeacon-stops"))
    }

    @Test("0x-prefixed UUID strings are 16-bit UUIDs; only the string that is not a UUID is an error")
    func hexUUIDs() throws {
        let (status, foreground, text) = try Self.check("HexUUIDs")
        #expect(status == 1)
        #expect(foreground.first.map(Self.uuids) == ["0x180D", "0x180A"])
        #expect(text.contains("\"Heart\" is not a UUID string CoreBluetooth accepts"))
        #expect(!text.contains("\"0x180D\" is not") && !text.contains("exception"))
    }

    @Test("same-named methods that are not CoreBluetooth's are not reported; the real call inside one is")
    func notCoreBluetooth() throws {
        let (_, foreground, text) = try Self.check("NotCoreBluetooth")
        // The CBPeripheralManager calls inside the app's own startAdvertising(_:) (once per call site
        // of it) and inside the Flutter plugin's startAdvertising(name:); the app's own calls
        // (`advertiser.startAdvertising(config)`, `startAdvertising()`, `startAdvertising(name:)`)
        // and the method-channel string "startAdvertising" are not CoreBluetooth's.
        let adverts = foreground.compactMap { $0["advert"] as? String }
        #expect(adverts.count == 3)
        #expect(adverts.filter { $0.contains("AdvertConfig.swift:12 [config = ") }.count == 2)
        #expect(adverts.filter { $0.hasSuffix("BlePlugin.swift:25") }.count == 1)
        for line in [
            "AdvertConfig.swift:17", "AdvertConfig.swift:23", "AdvertConfig.swift:24", "BlePlugin.swift:15",
            "BlePlugin.swift:17",
        ] {
            #expect(!text.contains(line + ":") && !text.contains(line + "\""), "\(line)")
        }
    }
}
