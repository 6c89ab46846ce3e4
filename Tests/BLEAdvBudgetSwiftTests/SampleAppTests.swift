import BLEAdvBudget
import BLEAdvBudgetSwift
import Testing

/// The sample iOS app in Tests/Fixtures/AdvertisingSampleApp (not compiled; only read). Every
/// expected value below was read off those files by hand: lines, columns (UTF-8, 1-based), names
/// and UUIDs.
@Suite struct SampleAppTests {
    static let directory: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(2)  // BLEAdvBudgetSwiftTests/SampleAppTests.swift
        return (parts + ["Fixtures", "AdvertisingSampleApp"]).joined(separator: "/")
    }()

    static func file(_ name: String) -> String { "\(directory)/\(name)" }

    let result: SwiftAdvertisingScanResult

    init() throws {
        result = try SwiftAdvertisingScanner().scan(paths: [Self.directory])
    }

    @Test func readsEverySwiftFileInNameOrder() {
        #expect(
            result.files
                == [
                    "AdvertisingConstants.swift", "BeaconAdvertiser.swift", "ContentView.swift",
                    "PairingAdvertiser.swift", "ThermoApp.swift", "ThermometerPeripheral.swift",
                ].map(Self.file)
        )
        #expect(result.warnings.isEmpty)
    }

    /// Four `startAdvertising(_:)` calls; the app's own `thermometer.startAdvertising()`
    /// (ContentView.swift:18) takes no argument and is not one.
    @Test func findsEachCallWithFileAndLine() {
        #expect(
            result.calls.map(\.location) == [
                SwiftSourceLocation(file: Self.file("BeaconAdvertiser.swift"), line: 17, column: 20),
                SwiftSourceLocation(file: Self.file("PairingAdvertiser.swift"), line: 20, column: 18),
                SwiftSourceLocation(file: Self.file("ThermometerPeripheral.swift"), line: 30, column: 27),
                SwiftSourceLocation(file: Self.file("ThermometerPeripheral.swift"), line: 41, column: 27),
            ]
        )
    }

    /// ThermometerPeripheral.swift:30: the literal in the call, name and UUID through
    /// `AdvertisingConstants` (the issue's "com.example.corebluetooth" + 4BBA6CAA… case).
    @Test func foregroundAdvertWithLiteralDictionary() throws {
        let call = try #require(result.calls.count == 4 ? result.calls[2] : nil)
        #expect(
            call.dictionary
                == .literal(SwiftSourceLocation(file: Self.file("ThermometerPeripheral.swift"), line: 30, column: 44))
        )
        #expect(
            call.localName
                == SwiftAdvertisingValue(
                    expression: "AdvertisingConstants.localName",
                    location: SwiftSourceLocation(file: Self.file("ThermometerPeripheral.swift"), line: 31, column: 46),
                    resolution: .resolved("com.example.corebluetooth")
                )
        )
        #expect(call.serviceUUIDs?.resolvedUUIDs == ["4BBA6CAA-BFC8-46A6-AB3D-CFCA5C96D39E"])
        #expect(call.serviceUUIDs?.elements.map(\.expression) == ["AdvertisingConstants.Services.thermometer"])
        #expect(call.otherKeys.isEmpty)
        #expect(call.warnings.isEmpty)
    }

    /// ThermometerPeripheral.swift:41: the dictionary is the local `advertisementData` (line 37);
    /// the UUIDs are `Services.all` (two constants, AdvertisingConstants.swift:16) plus `.battery`
    /// from `extension CBUUID`.
    @Test func compactAdvertThroughALocalConstant() throws {
        let call = try #require(result.calls.count == 4 ? result.calls[3] : nil)
        #expect(call.argument == "advertisementData")
        #expect(
            call.dictionary
                == .literal(SwiftSourceLocation(file: Self.file("ThermometerPeripheral.swift"), line: 37, column: 48))
        )
        #expect(call.localName?.resolvedValue == "Thermo")
        #expect(call.serviceUUIDs?.resolvedUUIDs == ["4BBA6CAA-BFC8-46A6-AB3D-CFCA5C96D39E", "180A", "180F"])
        #expect(
            call.serviceUUIDs?.elements.map(\.location) == [
                SwiftSourceLocation(file: Self.file("AdvertisingConstants.swift"), line: 16, column: 27),
                SwiftSourceLocation(file: Self.file("AdvertisingConstants.swift"), line: 16, column: 40),
                SwiftSourceLocation(file: Self.file("ThermometerPeripheral.swift"), line: 39, column: 86),
            ]
        )
        #expect(call.warnings.isEmpty)
    }

    /// PairingAdvertiser.swift:20: a local `var` filled by subscripts; the name is
    /// `"Thermo \(UIDevice.current.name)"` (AdvertisingConstants.swift:32), flagged by name; the
    /// manufacturer data key is reported so the checker can say iOS drops it.
    @Test func pairingAdvertFlagsTheInterpolatedName() throws {
        let call = try #require(result.calls.count == 4 ? result.calls[1] : nil)
        let pairing = Self.file("PairingAdvertiser.swift")
        #expect(call.dictionary == .literal(SwiftSourceLocation(file: pairing, line: 15, column: 44)))
        let reason = #"`"Thermo \(UIDevice.current.name)"` uses string interpolation, known only at run time"#
        #expect(
            call.localName
                == SwiftAdvertisingValue(
                    expression: "PairingConstants.advertisedName",
                    location: SwiftSourceLocation(file: pairing, line: 16, column: 46),
                    resolution: .partial(prefix: "Thermo ", suffix: "", reason: reason)
                )
        )
        #expect(call.serviceUUIDs?.resolvedUUIDs == ["C007"])
        #expect(call.serviceUUIDs?.location == SwiftSourceLocation(file: pairing, line: 18, column: 61))
        #expect(
            call.otherKeys == [
                SwiftAdvertisingOtherKey(
                    key: "CBAdvertisementDataManufacturerDataKey",
                    keyExpression: "CBAdvertisementDataManufacturerDataKey",
                    valueExpression: "token",
                    location: SwiftSourceLocation(file: pairing, line: 19, column: 23),
                    isKeyResolved: true
                )
            ]
        )
        #expect(
            call.warnings == [
                SwiftAdvertisingWarning(
                    kind: .unresolvedValue,
                    location: SwiftSourceLocation(file: pairing, line: 16, column: 46),
                    message: "local name `PairingConstants.advertisedName` is known only in part: " + reason
                )
            ]
        )
    }

    /// BeaconAdvertiser.swift:17: the iBeacon advert of a CLBeaconRegion, its UUID (a member
    /// constant unwrapped by `guard let`), major and minor followed (was: an unresolved
    /// dictionary; issue 24).
    @Test func beaconDictionaryIsTheBeaconAdvert() throws {
        let call = try #require(result.calls.count == 4 ? result.calls[0] : nil)
        let beacon = Self.file("BeaconAdvertiser.swift")
        #expect(call.dictionary == .beacon(SwiftSourceLocation(file: beacon, line: 16, column: 26)))
        #expect(
            call.beacon
                == SwiftBeaconAdvertisement(
                    location: SwiftSourceLocation(file: beacon, line: 16, column: 26),
                    values: SourceBeacon(
                        expression: "region.peripheralData(withMeasuredPower: nil)",
                        uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
                        major: 1,
                        minor: 7
                    )
                )
        )
        #expect(call.localName == nil && call.serviceUUIDs == nil && call.otherKeys.isEmpty)
        #expect(call.warnings.isEmpty)
    }

    @Test func everyWarningNamesWhatItCouldNotRead() {
        #expect(result.allWarnings.map(\.kind) == [.unresolvedValue])
        #expect(
            result.allWarnings.map {
                String($0.description.dropFirst(Self.directory.count + 1).prefix { $0 != "`" })
            }
                == ["PairingAdvertiser.swift:16:46: warning: local name "]
        )
    }
}
