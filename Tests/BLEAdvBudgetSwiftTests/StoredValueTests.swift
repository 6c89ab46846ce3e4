import BLEAdvBudget
import BLEAdvBudgetSwift
import Testing

/// Stored `var`s followed to their assignments, and stored dictionaries filled by subscript
/// (fixtures StoredProperty and StoredDictionary).
@Suite struct StoredValueTests {
    /// `private var serviceUUID: CBUUID!` set in `addService()`, read in `advertise()`.
    @Test func implicitlyUnwrappedVarAssignedInAnotherMethod() throws {
        let result = try Patterns.scan("StoredProperty")
        let call = try #require(result.calls.first { $0.location.file.hasSuffix("ServiceAdvertiser.swift") })
        #expect(Reading(call) == Reading(nil, uuids: [.resolved("7D2EA28A-F7BD-485A-BD9D-92AD6ECFE93E")]))
        #expect(
            call.warnings == [
                SwiftAdvertisingWarning(
                    kind: .variableValue,
                    location: Patterns.location("StoredProperty", "ServiceAdvertiser.swift", 6, 17),
                    message: "`ServiceAdvertiser.serviceUUID` is a `var` assigned only at "
                        + "\(Patterns.at("StoredProperty", "ServiceAdvertiser.swift", 9)); that value is used"
                )
            ]
        )
    }

    /// `var region: CLBeaconRegion?` built before `region!.peripheralData(…)`; `region = nil` in
    /// `stop()` is not counted.
    @Test func optionalRegionAssignedBeforeTheCall() throws {
        let result = try Patterns.scan("StoredProperty")
        let call = try #require(result.calls.first { $0.location.file.hasSuffix("BeaconBroadcaster.swift") })
        let at = { Patterns.at("StoredProperty", "BeaconBroadcaster.swift", $0) }
        #expect(
            call.beacon
                == SwiftBeaconAdvertisement(
                    location: Patterns.location("StoredProperty", "BeaconBroadcaster.swift", 12, 34),
                    values: SourceBeacon(
                        expression: "region!.peripheralData(withMeasuredPower: nil)",
                        uuid: "9B7F3C1E-52D4-4A8B-8F11-6C0D2E4A9B35",
                        major: 3,
                        minor: 42
                    )
                )
        )
        #expect(
            call.warnings.map(\.message) == [
                "`BeaconBroadcaster.region` is a `var` assigned only at \(at(11)); that value is used; `nil` "
                    + "assigned at \(at(17)) is not counted"
            ]
        )
    }

    /// An initial value and two assignments (one through `self.`): a variant each.
    @Test func severalAssignmentsAreVariants() throws {
        let result = try Patterns.scan("StoredProperty")
        let at = { Patterns.at("StoredProperty", "ModeAdvertiser.swift", $0) }
        let mode = result.calls.filter { $0.location.file.hasSuffix("ModeAdvertiser.swift") }
        #expect(
            mode.map(Reading.init) == [
                Reading("advertisedName = \"Idle\" (initial value at \(at(10)))", name: .resolved("Idle")),
                Reading("advertisedName = \"Pair me\" (assigned at \(at(13)))", name: .resolved("Pair me")),
                Reading(
                    "self.advertisedName = SessionNames.active (assigned at \(at(18)))",
                    name: .resolved("In session")
                ),
            ]
        )
        #expect(mode.allSatisfy { $0.warnings.isEmpty })
    }

    /// A global changed with `+=` is unknown, with the change named.
    @Test func compoundAssignmentIsUnknown() throws {
        let result = try Patterns.scan("StoredProperty")
        let call = try #require(result.calls.first { $0.location.file.hasSuffix("TagName.swift") })
        let reason =
            "`tagName` (\(Patterns.at("StoredProperty", "TagName.swift", 4))) is changed at run time: "
            + #"`tagName += "-2"` changes `tagName` in a way the reader does not follow"#
        #expect(call.localName?.resolution == .unresolved(reason: reason))
        #expect(call.warnings.map(\.kind) == [.unresolvedValue])
    }

    /// `d = [:]`, then `d[key] = value` and `d.updateValue(_:forKey:)` in the same method (one in
    /// an `if`), the call in another method.
    @Test func storedDictionaryFilledAfterItsAssignment() throws {
        let result = try Patterns.scan("StoredDictionary")
        let call = try #require(result.calls.first { $0.location.file.hasSuffix("SensorAdvertiser.swift") })
        let at = { Patterns.at("StoredDictionary", "SensorAdvertiser.swift", $0) }
        #expect(call.dictionary == .literal(Patterns.location("StoredDictionary", "SensorAdvertiser.swift", 12, 29)))
        #expect(
            Reading(call)
                == Reading(
                    nil,
                    name: .resolved("Sensor 12"),
                    uuids: [.resolved("3A1F6B20-8E4C-4D0F-9B57-2C6E1D8A7F90")]
                )
        )
        #expect(call.otherKeys.map(\.key) == ["CBAdvertisementDataTxPowerLevelKey"])
        #expect(
            call.warnings == [
                SwiftAdvertisingWarning(
                    kind: .variableValue,
                    location: Patterns.location("StoredDictionary", "SensorAdvertiser.swift", 7, 17),
                    message: "`SensorAdvertiser.advertisementData` is a `var` assigned only at \(at(12)); that value "
                        + "is used, with the keys set after it there"
                ),
                SwiftAdvertisingWarning(
                    kind: .conditionalValue,
                    location: Patterns.location("StoredDictionary", "SensorAdvertiser.swift", 16, 31),
                    message: "`advertisementData[CBAdvertisementDataTxPowerLevelKey] = -8` is set inside a nested "
                        + "block (\(at(16))); the reader counts it as always set"
                ),
            ]
        )
    }

    /// A key set in another method than the assignment: the order is not known.
    @Test func keySetInAnotherMethodLeavesTheDictionaryUnknown() throws {
        let result = try Patterns.scan("StoredDictionary")
        let call = try #require(result.calls.first { $0.location.file.hasSuffix("RelayAdvertiser.swift") })
        let at = { Patterns.at("StoredDictionary", "RelayAdvertiser.swift", $0) }
        let reason =
            #"`payload[CBAdvertisementDataServiceUUIDsKey] = [CBUUID(string: "180F")]` (\#(at(14))) sets a key "#
            + #"of `RelayAdvertiser.payload` away from its assignment `payload = [CBAdvertisementDataLocalNameKey: "#
            + #""Relay"]` (\#(at(10))); the order is not known"#
        #expect(call.dictionary == .unresolved(reason: reason))
        #expect(call.warnings.map(\.kind) == [.unresolvedDictionary])
    }

    /// A global assigned in a function of another file; a member assigned through another value
    /// (`p.uuid = …`) is not the type's own assignment and is not counted.
    @Test func globalAssignedInAnotherFile() throws {
        let result = scan([
            (
                "App.swift",
                """
                var sharedName: String?
                final class Peripheral {
                    var uuid = CBUUID(string: "180D")
                    func go() {
                        m.startAdvertising([CBAdvertisementDataLocalNameKey: sharedName, CBAdvertisementDataServiceUUIDsKey: [uuid]])
                    }
                }
                """
            ),
            ("Setup.swift", #"func setUp(p: Peripheral) { sharedName = "Shared"; p.uuid = CBUUID(string: "180F") }"#),
        ])
        let call = try #require(result.calls.first)
        #expect(result.calls.count == 1)
        #expect(name(call) == "Shared")
        #expect(uuids(call) == ["180D"])
        #expect(
            call.warnings.map(\.message) == [
                "`sharedName` is a `var` assigned only at Setup.swift:1; that value is used",
                #"`Peripheral.uuid` is a `var`; its initial value `CBUUID(string: "180D")` is used, though it may "#
                    + "change at run time",
            ]
        )
    }

    /// `&x` and a mutating method leave a stored value unknown; two assignments of a dictionary
    /// given keys by subscript leave it unknown.
    @Test func changesTheReaderDoesNotFollow() throws {
        let result = scan([
            (
                "App.swift",
                """
                final class P {
                    var uuids = [CBUUID(string: "180D")]
                    var name = "N"
                    var data: [String: Any] = [:]
                    func add() { uuids.append(CBUUID(string: "180F")); rename(&name) }
                    func a() { data = [:]; data["x"] = 1 }
                    func b() { data = [:] }
                    func go() {
                        m.startAdvertising([CBAdvertisementDataServiceUUIDsKey: uuids, CBAdvertisementDataLocalNameKey: name])
                        m.startAdvertising(data)
                    }
                }
                """
            )
        ])
        #expect(result.calls.count == 2)
        let first = try #require(result.calls.first)
        #expect(
            first.serviceUUIDs?.unresolvedReason
                == "`P.uuids` (App.swift:2) is changed at run time: `uuids.append(CBUUID(string: \"180F\"))` changes "
                + "`P.uuids` in a way the reader does not follow"
        )
        #expect(
            first.localName?.resolution
                == .unresolved(
                    reason: "`P.name` (App.swift:3) is changed at run time: `P.name` is passed `inout` "
                        + "(App.swift:5); changes made there are not followed"
                )
        )
        #expect(
            result.calls.last?.dictionary
                == .unresolved(
                    reason: "`P.data` (App.swift:4) is given keys by subscript and assigned 2 times; the reader "
                        + "follows keys set after one assignment of a dictionary literal"
                )
        )
    }
}
