import BLEAdvBudget
import BLEAdvBudgetSwift
import Testing

/// The small apps of Tests/Fixtures/AdvertisingPatterns/Swift, one folder per pattern (written for
/// these tests, modelled on how apps and CoreBluetooth articles write advertising code). Expected
/// values, lines and labels are read off the fixture files by hand.
enum Patterns {
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(2)  // BLEAdvBudgetSwiftTests/PatternFixtureTests.swift
        return (parts + ["Fixtures", "AdvertisingPatterns", "Swift"]).joined(separator: "/")
    }()

    static func scan(_ folder: String) throws -> SwiftAdvertisingScanResult {
        try SwiftAdvertisingScanner().scan(paths: ["\(root)/\(folder)"])
    }

    /// `folder/file:line`, as labels and reasons write a place.
    static func at(_ folder: String, _ file: String, _ line: Int) -> String { "\(root)/\(folder)/\(file):\(line)" }

    static func location(_ folder: String, _ file: String, _ line: Int, _ column: Int) -> SwiftSourceLocation {
        SwiftSourceLocation(file: "\(root)/\(folder)/\(file)", line: line, column: column)
    }
}

/// What a reading says about the advert, without places: variant, name, UUIDs.
struct Reading: Equatable, CustomStringConvertible {
    var variant: String?
    var name: SwiftAdvertisingValue.Resolution?
    var uuids: [SwiftAdvertisingValue.Resolution]?

    init(
        _ variant: String?,
        name: SwiftAdvertisingValue.Resolution? = nil,
        uuids: [SwiftAdvertisingValue.Resolution]? = nil
    ) {
        self.variant = variant
        self.name = name
        self.uuids = uuids
    }

    init(_ call: SwiftAdvertisingCall) {
        self.init(call.variant, name: call.localName?.resolution, uuids: call.serviceUUIDs?.elements.map(\.resolution))
    }

    var description: String { "\(variant ?? "-"): \(String(describing: name)) \(String(describing: uuids))" }
}

@Suite struct ParameterFlowTests {
    /// The issue's seed: `service.uuid` of a parameter no call in the sources passes.
    @Test func parameterWithNoCallSiteIsUnknownWithAReason() throws {
        let result = try Patterns.scan("ParameterNoCallSite")
        let call = try #require(result.calls.first)
        #expect(result.calls.count == 1)
        #expect(call.location == Patterns.location("ParameterNoCallSite", "PeripheralController.swift", 10, 27))
        #expect(call.variant == nil)
        #expect(call.localName?.resolution == .resolved("com.example.corebluetooth"))
        let reason =
            "`service` is a parameter of `func advertise`, and no call of `advertise(service:)` is in the scanned "
            + "sources; known only at run time"
        #expect(call.serviceUUIDs?.unresolvedReason == nil)
        #expect(call.serviceUUIDs?.elements.map(\.expression) == ["service.uuid"])
        #expect(call.serviceUUIDs?.elements.map(\.resolution) == [.unresolved(reason: reason)])
        #expect(call.warnings.map(\.kind) == [.unresolvedValue])
    }

    /// `advertise(service: ChatService.service)` in another file: one call, so one reading; the
    /// service's UUID is the `type:` of its `CBMutableService` initialiser.
    @Test func parameterFollowedToItsCallInAnotherFile() throws {
        let result = try Patterns.scan("ParameterAcrossFiles")
        #expect(
            result.calls.map(Reading.init) == [
                Reading(nil, name: .resolved("Chat"), uuids: [.resolved("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")])
            ]
        )
        #expect(result.allWarnings.isEmpty)
    }

    /// Two calls: one reading each, labelled with the argument and the call's place; the left-out
    /// `uuid` argument takes its default value.
    @Test func parameterWithTwoCallSitesGivesTwoVariants() throws {
        let result = try Patterns.scan("ParameterTwoCallSites")
        let at = { Patterns.at("ParameterTwoCallSites", "RoomBeacon.swift", $0) }
        #expect(
            result.calls.map(Reading.init) == [
                Reading(
                    "name = \"Kitchen\" (call at \(at(16)))",
                    name: .resolved("Kitchen"),
                    uuids: [.resolved("181A")]
                ),
                Reading(
                    "name = RoomNames.garage (call at \(at(17)))",
                    name: .resolved("Garage sensor"),
                    uuids: [.resolved("0x181C")]
                ),
            ]
        )
        #expect(Set(result.calls.map(\.location)).count == 1)
        #expect(result.allWarnings.isEmpty)
    }
}

@Suite struct BranchTests {
    @Test func variableAssignedInIfAndElse() throws {
        let result = try Patterns.scan("Branches")
        let at = { Patterns.at("Branches", "Rower.swift", $0) }
        let rower = result.calls.filter { $0.location.file.hasSuffix("Rower.swift") }
        #expect(
            rower.map(Reading.init) == [
                Reading("if pm5Mode (\(at(9)))", name: .resolved("PM5 430000001"), uuids: [.resolved("1826")]),
                Reading("else (\(at(11)))", name: .resolved("Rower"), uuids: [.resolved("1826")]),
            ]
        )
        #expect(rower.allSatisfy { $0.warnings.isEmpty })
    }

    /// A dictionary assigned in `switch` cases, one case with a ternary name.
    @Test func dictionaryAssignedInSwitchCasesWithATernary() throws {
        let result = try Patterns.scan("Branches")
        let at = { Patterns.at("Branches", "Treadmill.swift", $0) }
        let treadmill = result.calls.filter { $0.location.file.hasSuffix("Treadmill.swift") }
        #expect(
            treadmill.map(Reading.init) == [
                Reading("case .debug (\(at(13)))", name: .resolved("Treadmill DEV")),
                Reading("case .release (\(at(15))), if metric (\(at(16)))", name: .resolved("Treadmill km")),
                Reading("case .release (\(at(15))), else (\(at(16)))", name: .resolved("Treadmill mi")),
            ]
        )
        #expect(treadmill.allSatisfy { $0.warnings.isEmpty })
    }

    /// A static function in another file returns the dictionary; its parameter is bound to the
    /// call's argument, a computed property with a `return` in a branch and one after it.
    @Test func staticHelperInAnotherFile() throws {
        let result = try Patterns.scan("StaticHelper")
        let at = { Patterns.at("StaticHelper", "AdvertisingData.swift", $0) }
        #expect(
            result.calls.map(Reading.init) == [
                Reading("if isBeta (\(at(8)))", name: .resolved("Scale beta"), uuids: [.resolved("181D")]),
                Reading("return (\(at(11)))", name: .resolved("Scale"), uuids: [.resolved("181D")]),
            ]
        )
        #expect(result.calls.allSatisfy { $0.warnings.isEmpty })
    }

    @Test func ifConfigClausesAreVariants() throws {
        let result = try Patterns.scan("IfConfigNames")
        #expect(
            result.calls.map(Reading.init) == [
                Reading("#if DEBUG", name: .resolved("Thermo-DEV"), uuids: [.resolved("1809")]),
                Reading(
                    "#elseif targetEnvironment(simulator)",
                    name: .resolved("Thermo-SIM"),
                    uuids: [.resolved("1809")]
                ),
                Reading("#else", name: .resolved("Thermo"), uuids: [.resolved("1809")]),
            ]
        )
        #expect(result.allWarnings.isEmpty)
    }
}

@Suite struct PatternValueTests {
    @Test func interpolatedNamesArePartial() throws {
        let result = try Patterns.scan("InterpolatedName")
        let peerID =
            "`MeshPeripheral.peerID` (\(Patterns.at("InterpolatedName", "MeshPeripheral.swift", 5))) has no value in "
            + "its declaration; it is known only at run time"
        let interpolation = { (literal: String) in "`\(literal)` uses string interpolation, known only at run time" }
        #expect(
            result.calls.map(\.localName?.resolution) == [
                .partial(prefix: "bitchat-", suffix: "", reason: interpolation(#""bitchat-\(peerID)""#)),
                .partial(prefix: "", suffix: "-x", reason: interpolation(#""\(peerID)-x""#)),
                .resolved("mesh-lobby"),
                .partial(prefix: "mesh ", suffix: "", reason: peerID),
            ]
        )
        #expect(result.allWarnings.map(\.kind) == [.unresolvedValue, .unresolvedValue, .unresolvedValue])
    }

    @Test func beaconRegionsAreFollowed() throws {
        let result = try Patterns.scan("IBeacon")
        let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
        #expect(
            result.calls.map(\.beacon) == [
                SwiftBeaconAdvertisement(
                    location: Patterns.location("IBeacon", "BeaconTransmitter.swift", 14, 20),
                    values: SourceBeacon(
                        expression: "region.peripheralData(withMeasuredPower: nil)",
                        uuid: uuid,
                        major: 100,
                        minor: 7
                    )
                ),
                SwiftBeaconAdvertisement(
                    location: Patterns.location("IBeacon", "BeaconTransmitter.swift", 21, 34),
                    values: SourceBeacon(
                        expression: "calibrated.peripheralData(withMeasuredPower: -59)",
                        uuid: uuid,
                        major: 1,
                        minor: 2,
                        measuredPower: -59
                    )
                ),
            ]
        )
        #expect(
            result.calls.map(\.dictionary) == [
                .beacon(Patterns.location("IBeacon", "BeaconTransmitter.swift", 14, 20)),
                .beacon(Patterns.location("IBeacon", "BeaconTransmitter.swift", 21, 34)),
            ]
        )
        #expect(result.allWarnings.isEmpty)
    }

    @Test func hexPrefixedUUIDsAreAccepted() throws {
        let result = try Patterns.scan("HexUUIDs")
        let call = try #require(result.calls.first)
        #expect(call.serviceUUIDs?.resolvedUUIDs == ["0x180D", "0X180A", "Heart"])
        #expect(
            call.warnings.map(\.message) == [
                #"`CBUUID(string: "Heart")` is given "Heart", which is not a UUID string CoreBluetooth accepts "#
                    + "(4 or 8 hex digits, optionally after 0x, or 8-4-4-4-12 hex digits)"
            ]
        )
    }

    /// The app's own `startAdvertising(_ config: AdvertConfig)` (called with a config and with
    /// `AdvertConfig(…)`), its own `startAdvertising()`, and a Flutter plugin's `"startAdvertising"`
    /// method and `startAdvertising(name:)` are not CoreBluetooth's; the two real calls inside
    /// them are reported, their values followed to the app's calls.
    @Test func sameNamedMethodsThatAreNotCoreBluetooth() throws {
        let result = try Patterns.scan("NotCoreBluetooth")
        let config = { Patterns.at("NotCoreBluetooth", "AdvertConfig.swift", $0) }
        #expect(
            result.calls.map(\.location) == [
                Patterns.location("NotCoreBluetooth", "AdvertConfig.swift", 12, 27),
                Patterns.location("NotCoreBluetooth", "AdvertConfig.swift", 12, 27),
                Patterns.location("NotCoreBluetooth", "BlePlugin.swift", 25, 27),
            ]
        )
        let flutterArgument = #"arguments?["name"] as? String ?? "Device""#
        #expect(
            result.calls.map(Reading.init) == [
                Reading("config = AdvertConfig(name: \"Tag\") (call at \(config(16)))", name: .resolved("Tag")),
                Reading("config = config (call at \(config(22)))", name: .resolved("Tag 2")),
                Reading(
                    nil,
                    name: .unresolved(
                        reason: "`\(flutterArgument)` depends on an optional value at run time (reached through "
                            + "`name = \(flutterArgument)` at \(Patterns.at("NotCoreBluetooth", "BlePlugin.swift", 17)))"
                    )
                ),
            ]
        )
    }
}
