import BLEAdvBudget
import BLEAdvBudgetSwift
import Foundation
import Testing

@Suite struct DictionaryArgumentTests {
    @Test func variablesInitialisedWithALiteral() throws {
        let result = scan([
            (
                "App.swift",
                """
                let globalData: [String: Any] = [CBAdvertisementDataLocalNameKey: "Global"]
                final class Advertiser {
                    private let memberData: [String: Any] = [CBAdvertisementDataLocalNameKey: "Member"]
                    func a() {
                        let localData: [String: Any] = [CBAdvertisementDataLocalNameKey: "Local"]
                        m.startAdvertising(localData)
                    }
                    func b() { m.startAdvertising(memberData) }
                    func c() { m.startAdvertising(self.memberData as [String: Any]) }
                    func d() { m.startAdvertising(globalData) }
                    func e() { m.startAdvertising(nil) }
                    func f() { m.startAdvertising([:]) }
                }
                """
            )
        ])
        #expect(result.calls.map(name) == ["Local", "Member", "Member", "Global", nil, nil])
        #expect(
            result.calls.map(\.dictionary) == [
                .literal(location("App.swift", 5, 40)), .literal(location("App.swift", 3, 45)),
                .literal(location("App.swift", 3, 45)), .literal(location("App.swift", 1, 33)), .nilArgument,
                .literal(location("App.swift", 12, 35)),
            ]
        )
        #expect(
            result.calls.map(\.argument) == [
                "localData", "memberData", "self.memberData as [String: Any]", "globalData", "nil", "[:]",
            ]
        )
        #expect(result.allWarnings.isEmpty)
    }

    @Test func parameterArgumentIsUnresolvedNotSkipped() throws {
        let call = try scanOne(
            """
            func advertise(_ data: [String: Any]) {
                manager.startAdvertising(data)
            }
            """
        )
        let reason =
            "`data` is a parameter of `func advertise`, and no call of `advertise(_:)` is in the scanned sources; "
            + "known only at run time"
        #expect(call.dictionary == .unresolved(reason: reason))
        #expect(call.localName == nil && call.serviceUUIDs == nil)
        #expect(
            call.warnings == [
                SwiftAdvertisingWarning(
                    kind: .unresolvedDictionary,
                    location: location("App.swift", 2, 30),
                    message: "advertisement data `data` could not be resolved: " + reason
                )
            ]
        )
    }

    /// A call's result is unresolved; the beacon dictionary is the beacon advert, its region
    /// (a parameter with no call) unknown with a warning.
    @Test func callArgumentsAreUnresolved() throws {
        let result = scan([
            (
                "App.swift",
                """
                func a() { m.startAdvertising(makeAdvertisement()) }
                func b(region: CLBeaconRegion) {
                    let beacon = region.peripheralData(withMeasuredPower: nil) as? [String: Any]
                    m.startAdvertising(beacon)
                }
                """
            )
        ])
        #expect(
            result.calls.map(\.dictionary) == [
                .unresolved(reason: "`makeAdvertisement()` is a call, evaluated at run time"),
                .beacon(location("App.swift", 3, 18)),
            ]
        )
        #expect(
            result.calls.last?.beacon
                == SwiftBeaconAdvertisement(
                    location: location("App.swift", 3, 18),
                    values: SourceBeacon(expression: "region.peripheralData(withMeasuredPower: nil)")
                )
        )
        #expect(result.allWarnings.map(\.kind) == [.unresolvedDictionary, .unresolvedBeacon])
        #expect(
            result.allWarnings.last?.message
                == "the region of `region.peripheralData(withMeasuredPower: nil)` could not be resolved: `region` is a "
                + "parameter of `func b`, and no call of `b(region:)` is in the scanned sources; known only at run "
                + "time; its UUID, major and minor are not known"
        )
    }

    @Test func localVarWithKeysSetLater() throws {
        let call = try scanOne(
            """
            func go(extra: Bool) {
                var data: [String: Any] = [CBAdvertisementDataLocalNameKey: "Start"]
                data[CBAdvertisementDataServiceUUIDsKey] = [CBUUID(string: "180D")]
                data.updateValue("Renamed", forKey: CBAdvertisementDataLocalNameKey)
                if extra {
                    data[CBAdvertisementDataTxPowerLevelKey] = -4
                }
                m.startAdvertising(data)
                data[CBAdvertisementDataLocalNameKey] = "After the call"
            }
            """
        )
        #expect(name(call) == "Renamed")
        #expect(uuids(call) == ["180D"])
        #expect(call.otherKeys.map(\.key) == ["CBAdvertisementDataTxPowerLevelKey"])
        #expect(
            call.warnings == [
                SwiftAdvertisingWarning(
                    kind: .conditionalValue,
                    location: location("App.swift", 6, 14),
                    message: "`data[CBAdvertisementDataTxPowerLevelKey] = -4` is set inside a nested block "
                        + "(App.swift:6); the reader counts it as always set"
                )
            ]
        )
    }

    @Test func emptyDictionaryFilledBySubscriptAndReassignment() throws {
        let call = try scanOne(
            """
            func go() {
                var data = [String: Any]()
                data[CBAdvertisementDataLocalNameKey] = "Filled"
                data = [:]
                m.startAdvertising(data)
            }
            """
        )
        #expect(name(call) == "Filled")
        #expect(call.warnings.map(\.kind) == [.conditionalValue])
        #expect(
            call.warnings.first?.message
                == "`data` is assigned again (`data = [:]`); the reader keeps its first value"
        )
    }

    @Test func appWrappersWithoutTheArgumentShapeAreNotCalls() {
        let result = scan([
            (
                "App.swift",
                """
                final class Peripheral {
                    func startAdvertising() { manager.startAdvertising([CBAdvertisementDataLocalNameKey: "Real"]) }
                    func startAdvertising(name: String, power: Int) {}
                    func other() {
                        startAdvertising()
                        startAdvertising(name: "x", power: 1)
                        let reference = manager.startAdvertising(_:)
                    }
                }
                """
            )
        ])
        #expect(result.calls.map(\.location) == [location("App.swift", 2, 39)])
    }
}

@Suite struct BoundsAndCyclesTests {
    @Test func twoConstantCycleDoesNotHang() throws {
        let call = try scanOne(
            """
            let a = b
            let b = a
            func go() { m.startAdvertising([CBAdvertisementDataLocalNameKey: a]) }
            """
        )
        #expect(
            call.localName?.unresolvedReason
                == "`a` (App.swift:1) depends on itself: `a` → `b` → `a` (reached through `a` at App.swift:1 → "
                + "`b` at App.swift:2)"
        )
        #expect(call.warnings.map(\.kind) == [.unresolvedValue])
    }

    @Test func selfReferencesInEveryContext() throws {
        let result = scan([
            (
                "App.swift",
                """
                enum Loop {
                    static let name = Loop.name
                    static let list = list + [CBUUID(string: "180D")]
                    static let uuid = Self.uuid
                    static let key = key
                    static let data: [String: Any] = data
                }
                func a() { m.startAdvertising([CBAdvertisementDataLocalNameKey: Loop.name]) }
                func b() { m.startAdvertising([CBAdvertisementDataServiceUUIDsKey: Loop.list]) }
                func c() { m.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [Loop.uuid]]) }
                func d() { m.startAdvertising([Loop.key: "Value"]) }
                func e() { m.startAdvertising(Loop.data) }
                """
            )
        ])
        #expect(result.calls.count == 5)
        #expect(result.calls[0].localName?.unresolvedReason?.contains("depends on itself") == true)
        #expect(result.calls[1].serviceUUIDs?.unresolvedReason?.contains("depends on itself") == true)
        #expect(result.calls[2].serviceUUIDs?.elements.first?.unresolvedReason?.contains("depends on itself") == true)
        #expect(result.calls[3].otherKeys.first?.isKeyResolved == false)
        guard case .unresolved(let reason) = result.calls[4].dictionary else {
            Issue.record("dictionary should be unresolved")
            return
        }
        #expect(reason.contains("`Loop.data` (App.swift:6) depends on itself"))
    }

    @Test func depthIsBounded() throws {
        // c0 = c1, c1 = c2, ... c39 = "End": 40 declarations to follow.
        var lines = (0..<39).map { "let c\($0) = c\($0 + 1)" }
        lines.append(#"let c39 = "End""#)
        lines.append("func go() { m.startAdvertising([CBAdvertisementDataLocalNameKey: c0]) }")
        let source = lines.joined(separator: "\n")
        let deep = try scanOne(source, depth: 32)
        #expect(deep.localName?.unresolvedReason?.hasPrefix("`c32` is more than 32 declarations deep") == true)
        let enough = try scanOne(source, depth: 40)
        #expect(name(enough) == "End")
    }
}

@Suite struct FileTests {
    @Test func fileThatDoesNotParseStillYieldsWhatIsRecovered() throws {
        let result = scan([
            (
                "Broken.swift",
                """
                final class Broken {
                    func go( {
                        manager.startAdvertising([CBAdvertisementDataLocalNameKey: "Recovered"])
                    }
                }
                """
            ),
            ("Fine.swift", "let unused = 1"),
        ])
        #expect(result.calls.map(name) == ["Recovered"])
        #expect(result.calls.first?.location.line == 3)
        #expect(result.warnings.count == 1)
        let warning = try #require(result.warnings.first)
        #expect(warning.kind == .parseError)
        #expect(warning.location.file == "Broken.swift" && warning.location.line == 2)
        #expect(warning.message.hasPrefix("Broken.swift does not parse (first error at line 2, column "))
    }

    @Test func directoriesAreSearchedSkippingHiddenAndBuild() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try write("\(root)/b.swift", #"func go() { m.startAdvertising([CBAdvertisementDataLocalNameKey: name]) }"#)
        try write("\(root)/Sub/a.swift", #"let name = "FromSub""#)
        try write("\(root)/.build/checkouts/x.swift", #"let name = "Hidden""#)
        try write("\(root)/.hidden/y.swift", #"let name = "Hidden""#)
        try write("\(root)/notes.txt", "startAdvertising(x)")
        try FileManager.default.createSymbolicLink(atPath: "\(root)/Loop", withDestinationPath: root)
        try FileManager.default.createSymbolicLink(
            atPath: "\(root)/dangling.swift",
            withDestinationPath: "\(root)/none"
        )

        // `Loop` leads back to the root, which is read once; the dangling link is no source file.
        #expect(try SwiftAdvertisingScanner.swiftFiles(in: [root]) == ["\(root)/Sub/a.swift", "\(root)/b.swift"])
        let result = try SwiftAdvertisingScanner().scan(paths: [root, "\(root)/b.swift"])
        #expect(result.files.count == 2)
        #expect(result.calls.map(name) == ["FromSub"])
        #expect(result.calls.first?.location == location("\(root)/b.swift", 1, 15))
    }

    @Test func unreadablePathIsAnErrorNamingIt() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let missing = "\(root)/Missing.swift"
        #expect(throws: SwiftAdvertisingScanError.unreadable(path: missing, reason: "No such file or directory")) {
            try SwiftAdvertisingScanner().scan(paths: [missing])
        }
        #expect(
            SwiftAdvertisingScanError.unreadable(path: missing, reason: "No such file or directory").description
                == "cannot read \(missing): No such file or directory"
        )
    }

    @Test func notUTF8IsReadWithAWarning() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = "\(root)/Latin1.swift"
        var bytes = Array(#"func go() { m.startAdvertising([CBAdvertisementDataLocalNameKey: "Caf"#.utf8)
        bytes += [0xE9] + Array(#""]) }"#.utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let result = try SwiftAdvertisingScanner().scan(paths: [path])
        #expect(result.calls.map(name) == ["Caf\u{FFFD}"])
        #expect(result.warnings.map(\.kind) == [.invalidEncoding])
        #expect(result.warnings.first?.message == "\(path) is not valid UTF-8; it was read with replacement characters")
    }
}

private func temporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("advswift-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

private func write(_ path: String, _ text: String) throws {
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}
