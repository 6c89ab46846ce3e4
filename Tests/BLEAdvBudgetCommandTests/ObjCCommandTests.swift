import BLEInspectTestSupport
import Foundation
import Testing

/// Whether a clang is on PATH (the Swift toolchain's, here).
let clangFound: Bool = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/clang") }
}()

/// `bleinspect-adv` on the Objective-C fixtures, in text and JSON. clang ships with the Swift
/// toolchain; without one the suite is skipped.
@Suite("bleinspect-adv on Objective-C", .enabled(if: clangFound))
struct ObjCCommandTests {
    static func objc(_ name: String) -> String {
        CommandTests.fixtures.deletingLastPathComponent().appendingPathComponent("AdvertisingObjC/\(name)").path
    }

    /// The JSON results of a run, with its status.
    static func json(_ paths: [String]) throws -> (status: Int32, results: [[String: Any]], notes: [[String: Any]]) {
        let run = try CommandTests.run(["--sources"] + paths + ["--format", "json"])
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(run.stdoutText.utf8)) as? [String: Any],
            "\(run.stdoutText)\(run.stderr)"
        )
        return (run.status, document["results"] as? [[String: Any]] ?? [], document["notes"] as? [[String: Any]] ?? [])
    }

    static func foreground(_ results: [[String: Any]]) -> [[String: Any]] {
        results.filter { $0["profile"] as? String == "ios-foreground" }
    }

    @Test("#defines in a header: the name and three UUIDs resolved; the name is cut to 2 bytes")
    func definesInHeader() throws {
        let (status, results, _) = try Self.json([Self.objc("HeartRateAdvertiser.m")])
        #expect(status == 1)
        let r = try #require(Self.foreground(results).first)
        #expect((r["source"] as? [String: Any])?["line"] as? Int == 16)
        let name = try #require(r["localName"] as? [String: Any])
        #expect(name["requested"] as? String == "PulseStrap")
        #expect(name["onAir"] as? String == "Pu")
        #expect(name["cut"] as? String == "always")
        let uuids = (r["serviceUUIDs"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
        #expect(uuids == ["0x180D", "0x180F", "6E400001-B5A3-F393-E0A9-E50E24DCCA9E"])
        let text = try CommandTests.run(["--sources", Self.objc("HeartRateAdvertiser.m")])
        #expect(text.stdoutText.contains("\"PulseStrap\" → \"Pu\" (0x08) in the advertising data, 2 of 10 bytes"))
    }

    @Test("a commented-out define, #if 0 and a /* */ call: only the live call, with the live define")
    func commentedOutDefine() throws {
        let (_, results, _) = try Self.json([Self.objc("CommentedDefines.m")])
        let names = Self.foreground(results).compactMap { ($0["localName"] as? [String: Any])?["requested"] as? String }
        #expect(names == ["Thermo-7"])
        let text = try CommandTests.run(["--sources", Self.objc("CommentedDefines.m")])
        #expect(!text.stdoutText.contains("OldSensorName") && !text.stdoutText.contains("NeverBuilt"))
    }

    @Test("0x-prefixed UUID strings are 16-bit UUIDs, never 'invalid'")
    func hexPrefixedUUIDs() throws {
        let (_, results, _) = try Self.json([Self.objc("HexUUID.m")])
        let first = try #require(Self.foreground(results).first)
        let uuids = (first["serviceUUIDs"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
        #expect(uuids == ["0x180D", "0x1818"])
        let text = try CommandTests.run(["--sources", Self.objc("HexUUID.m")])
        #expect(!text.stdoutText.contains("source.uuid.invalid"))
        #expect(!text.stdoutText.contains("exception"))
    }

    @Test("an iBeacon dictionary: 30 bytes in the foreground, stopped in the background")
    func beacon() throws {
        let (_, results, _) = try Self.json([Self.objc("BeaconAdvertiser.m")])
        let foreground = Self.foreground(results)
        #expect(foreground.count == 2)
        for r in foreground {
            #expect((r["advertisingData"] as? [String: Any])?["used"] as? Int == 30)
            let hex = (r["advertisingData"] as? [String: Any])?["hex"] as? String ?? ""
            #expect(hex.hasPrefix("02011A1AFF4C000215"))
        }
        let background = results.filter { $0["profile"] as? String == "ios-background" }
        for r in background {
            let rules = (r["findings"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String }
            #expect(rules.contains("ios.background.ibeacon-stops"))
        }
    }

    @Test("three kinds of same-named methods that are not CoreBluetooth's: nothing checked, exit 2")
    func notCoreBluetooth() throws {
        let (status, results, notes) = try Self.json([Self.objc("NotCoreBluetooth.m")])
        #expect(status == 2)
        #expect(results.isEmpty)
        #expect(notes.compactMap { $0["rule"] as? String } == ["source.none"])
    }

    @Test("#if DEBUG: one layout per configuration, labelled")
    func debugVariants() throws {
        let (_, results, _) = try Self.json([Self.objc("DebugName.m")])
        let variants = Self.foreground(results).map {
            "\($0["variant"] as? String ?? "-")=\(($0["localName"] as? [String: Any])?["requested"] as? String ?? "")"
        }
        #expect(variants == ["#if DEBUG=Sensor-Debug", "without DEBUG=Sensor"])
    }

    @Test("a folder with only unreadable files: each named with clang's reason; the run fails, nothing passes")
    func onlyUnreadable() throws {
        let folder = CommandTests.fixture("Unreadable")
        let (status, results, notes) = try Self.json([folder])
        #expect(status == 1)
        #expect(results.isEmpty)
        let messages = notes.map { "\($0["rule"] as? String ?? ""): \($0["message"] as? String ?? "")" }
        #expect(
            messages.contains {
                $0.hasPrefix("source.unreadable.call: ") && $0.contains("LegacyAdvertiser.m:8:")
                    && $0.contains("with empty stand-ins for headers not found: VendorKit/VendorAdvertising.h")
            }
        )
        #expect(messages.contains { $0.hasPrefix("source.unreadable: ") && $0.contains("Half.m:6") })
        #expect(messages.contains { $0.hasPrefix("source.none: ") })
        let text = try CommandTests.run(["--sources", folder])
        #expect(text.stdoutText.hasSuffix("FAILED (--fail-on error)\n"))
    }

    @Test("headers not among the sources get empty stand-ins: the call is checked, with a warning naming them")
    func missingHeaders() throws {
        let (status, results, notes) = try Self.json([CommandTests.fixture("MissingHeaders")])
        #expect(notes.isEmpty)
        let r = try #require(Self.foreground(results).first)
        #expect((r["localName"] as? [String: Any])?["requested"] as? String == "Pod")
        let messages = (r["findings"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        #expect(
            messages.contains { $0.contains("(Analytics/SEGAnalytics.h, AppDelegate.h)") && $0.contains("stand-ins") }
        )
        #expect(status == 0)
    }

    @Test("shapes from real apps: an NSMutableArray filled at run time is an unknown list, never empty")
    func mutableArray() throws {
        let (status, results, _) = try Self.json([CommandTests.fixture("ObjCShapes/ServiceList.m")])
        #expect(status == 0)
        let foreground = Self.foreground(results)
        let collected = try #require(foreground.first)
        let name = try #require(collected["localName"] as? [String: Any])
        #expect(name["cut"] as? String == "unknown")
        #expect(
            (collected["advertisingData"] as? [String: Any])?["partial"] as? String
                == "partial layout, if `uuids` holds no UUID"
        )
        // The constant after a doc comment resolves: one 128-bit UUID, 21 bytes.
        let primary = try #require(foreground.last)
        let uuids = (primary["serviceUUIDs"] as? [[String: Any]] ?? []).compactMap { $0["uuid"] as? String }
        #expect(uuids == ["AE11E524-2034-40F8-96D3-5E1028526348"])
        #expect((primary["advertisingData"] as? [String: Any])?["used"] as? Int == 21)
    }

    @Test("an Xcode template view controller without its own header is read, with a warning naming the header")
    func templateViewController() throws {
        let (status, results, notes) = try Self.json([CommandTests.fixture("ObjCShapes/ViewController.m")])
        #expect(status == 0)
        #expect(notes.isEmpty)
        let r = try #require(Self.foreground(results).first)
        #expect((r["localName"] as? [String: Any])?["requested"] as? String == "Demo peripheral of the lab")
        #expect((r["localName"] as? [String: Any])?["cut"] as? String == "never")
        let messages = (r["findings"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        #expect(messages.contains { $0.contains("(ViewController.h)") && $0.contains("declaring only ViewController") })
    }

    @Test("a region kept in a property assigned once in -init: the exact 30-byte iBeacon")
    func beaconInProperty() throws {
        let (status, results, _) = try Self.json([CommandTests.fixture("ObjCShapes/BeaconBroadcaster.m")])
        #expect(status == 0)
        let r = try #require(Self.foreground(results).first)
        let payload = try #require(r["advertisingData"] as? [String: Any])
        #expect(payload["hex"] as? String == "02011A1AFF4C0002155A4BCFCE174E4BACA814092E77F6B7E50007002AC5")
        #expect(payload["partial"] == nil)
        let messages = (r["findings"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
        #expect(messages.contains { $0.contains("`region` is a property assigned only at BeaconBroadcaster.m:17") })
    }
}
