import BLEAdvBudgetSwift
import Testing

/// Local names that are not strings, receivers that are not a CBPeripheralManager, and the
/// restore key (fixtures NameNotString, NotPeripheralManager, RestoredStateKey).
@Suite struct ValueTypeAndReceiverTests {
    @Test func localNamesThatAreNotStringsAreNotCounted() throws {
        let result = try Patterns.scan("NameNotString")
        let at = { Patterns.at("NameNotString", "KioskAdvertiser.swift", $0) }
        let wrong = { (line: Int, column: Int, written: String, kind: String) in
            SwiftAdvertisingWarning(
                kind: .wrongValueType,
                location: Patterns.location("NameNotString", "KioskAdvertiser.swift", line, column),
                message: "the local name `\(written)` is \(kind), not a String: iOS does not advertise it "
                    + "(CBAdvertisementDataLocalNameKey must be an NSString)"
            )
        }
        let names = result.calls.filter { $0.warnings.contains { $0.kind == .wrongValueType } }
        #expect(names.allSatisfy { $0.localName == nil })
        #expect(
            names.flatMap(\.warnings).filter { $0.kind == .wrongValueType } == [
                wrong(15, 46, "[displayName]", "an array"), wrong(21, 68, "NameCodes.kiosk", "a number"),
                wrong(25, 68, "displayName.data(using: .utf8) as Any", "Data"),
                wrong(34, 49, "[displayName]", "an array"),
            ]
        )
        #expect(names.first.flatMap(uuids) == ["1819"])
        #expect(
            names.last?.warnings.first?.message
                == "`KioskAdvertiser.data` is a `var` assigned only at \(at(33)); that value is used, with the keys "
                + "set after it there"
        )
    }

    /// Already handled: strings where CBUUIDs are expected are unresolved, with the reason.
    @Test func serviceUUIDStringsAreNotCBUUIDs() throws {
        let result = try Patterns.scan("NameNotString")
        let call = try #require(result.calls.first { $0.location.line == 29 })
        let notCBUUID = { (uuid: String) in
            "`\"\(uuid)\"` is a String, not a CBUUID: CoreBluetooth advertises only CBUUID values"
        }
        #expect(
            call.serviceUUIDs?.elements.map(\.resolution) == [
                .unresolved(reason: notCBUUID("180A")), .unresolved(reason: notCBUUID("180F")),
            ]
        )
        #expect(call.warnings.map(\.kind) == [.unresolvedValue, .unresolvedValue])
    }

    /// `CLLocationManager()` and an annotated type of another module are not reported; a subclass
    /// of the sources, a protocol the manager conforms to and a delegate's parameter are.
    @Test func receiversOfOtherTypesAreNotCalls() throws {
        let result = try Patterns.scan("NotPeripheralManager")
        #expect(
            result.calls.map(\.location) == [
                Patterns.location("NotPeripheralManager", "PresenceBroadcaster.swift", 29, 27),
                Patterns.location("NotPeripheralManager", "PresenceBroadcaster.swift", 30, 21),
                Patterns.location("NotPeripheralManager", "PresenceBroadcaster.swift", 35, 20),
            ]
        )
        #expect(
            result.calls.map(Reading.init) == [
                Reading(nil, name: .resolved("Presence")),
                Reading(nil, name: .resolved("Injected")),
                Reading(nil, uuids: [.resolved("1820")]),
            ]
        )
        #expect(result.allWarnings.isEmpty)
    }

    /// A receiver whose type cannot be told is reported; typealiases and generic parameters are
    /// followed or left open.
    @Test func receiversOfUnknownTypeAreReported() {
        let result = scan([
            (
                "App.swift",
                """
                typealias Manager = CBPeripheralManager
                typealias Locator = CLLocationManager
                let aliased: Manager = Manager(delegate: nil, queue: nil)
                let locator = Locator()
                func generic<M>(_ m: M, other: Other) {
                    m.startAdvertising(nil)
                    other.manager.startAdvertising(nil)
                    aliased.startAdvertising(nil)
                    locator.startAdvertising(nil)
                    makeManager().startAdvertising(nil)
                }
                """
            )
        ])
        #expect(result.calls.map(\.location.line) == [6, 7, 8, 10])
    }

    @Test func restoredStateKeyIsAnotherKey() throws {
        let result = try Patterns.scan("RestoredStateKey")
        let call = try #require(result.calls.first)
        #expect(result.calls.count == 1)
        #expect(name(call) == "Restorable")
        #expect(call.otherKeys.map(\.key) == ["CBPeripheralManagerRestoredStateAdvertisementDataKey"])
        #expect(call.otherKeys.map(\.isKeyResolved) == [true])
        #expect(result.allWarnings.isEmpty)
    }
}
