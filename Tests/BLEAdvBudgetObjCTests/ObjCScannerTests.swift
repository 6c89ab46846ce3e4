import BLEAdvBudget
import Foundation
import Testing

@testable import BLEAdvBudgetObjC

@Suite("Objective-C reader on the fixtures", .enabled(if: Fixture.hasClang, "no clang found (set BLEINSPECT_CLANG)"))
struct ObjCScannerTests {
    @Test func definesInAProjectHeader() {
        let result = Fixture.scan("HeartRateAdvertiser.m")
        #expect(result.problems == [])
        #expect(result.filesRead == [Fixture.path("HeartRateAdvertiser.m")])
        #expect(
            result.adverts == [
                SourceAdvertisement(
                    location: Fixture.location("HeartRateAdvertiser.m", 16, 29),
                    localName: .resolved("PulseStrap"),
                    serviceUUIDs: [
                        .resolved("180D"), .resolved("180F"), .resolved("6E400001-B5A3-F393-E0A9-E50E24DCCA9E"),
                    ]
                )
            ]
        )
    }

    @Test func commentedOutDefinesAndIfZeroAreNotRead() {
        let result = Fixture.scan("CommentedDefines.m")
        #expect(result.problems == [])
        #expect(
            result.adverts == [
                SourceAdvertisement(
                    location: Fixture.location("CommentedDefines.m", 17, 19),
                    localName: .resolved("Thermo-7")
                )
            ]
        )
    }

    @Test func dictionaryWithObjectsAndKeys() {
        let result = Fixture.scan("ObjectsAndKeys.m")
        #expect(result.problems == [])
        #expect(
            result.adverts == [
                SourceAdvertisement(
                    location: Fixture.location("ObjectsAndKeys.m", 16, 25),
                    localName: .resolved("EnvSense"),
                    serviceUUIDs: [.resolved("181A")]
                )
            ]
        )
    }

    @Test func staticConstStrings() throws {
        let result = Fixture.scan("StaticConstants.m")
        #expect(result.problems == [])
        try #require(result.adverts.count == 2)
        #expect(
            result.adverts[0]
                == SourceAdvertisement(
                    location: Fixture.location("StaticConstants.m", 15, 29),
                    localName: .resolved("DoorLock"),
                    serviceUUIDs: [.resolved("8E2F0C3A-7B4D-4F6A-9C1E-2D5B8A7F3E10")]
                )
        )
        #expect(result.adverts[1].localName == .resolved("Mutable"))
        #expect(result.adverts[1].findings.map(\.rule) == ["source.reader"])
        #expect(
            result.adverts[1].findings.first?.message
                == "\(Fixture.path("StaticConstants.m")):5:1: `kMutableName` is not `const`; its initial value "
                + "`@\"Mutable\"` is used, though it may change at run time"
        )
    }

    @Test func formatNames() throws {
        let result = Fixture.scan("FormatName.m")
        #expect(result.problems == [])
        try #require(result.adverts.count == 3)
        #expect(result.adverts[0].location == Fixture.location("FormatName.m", 13, 29))
        #expect(result.adverts[0].localName == .partial(expression: "name", prefix: "mesh-", suffix: "-100%"))
        #expect(result.adverts[1].localName == .resolved("node-7-a"))
        #expect(result.adverts[2].localName == .unresolved(expression: "[[UIDevice currentDevice] name]"))
        #expect(result.adverts.allSatisfy { $0.findings.isEmpty && $0.otherKeys.isEmpty })
    }

    @Test func hexUUIDsMutableDictionaryAndIdReceiver() throws {
        let result = Fixture.scan("HexUUID.m")
        #expect(result.problems == [])
        try #require(result.adverts.count == 3)
        let file = Fixture.path("HexUUID.m")
        #expect(
            result.adverts[0]
                == SourceAdvertisement(
                    location: Fixture.location("HexUUID.m", 21, 29),
                    localName: .resolved("Crank"),
                    serviceUUIDs: [.resolved("0x180D"), .resolved("0x1818")],
                    otherKeys: ["CBAdvertisementDataManufacturerDataKey"],
                    findings: [
                        Rules.sourceReader.finding(
                            "\(file):19:14: `data[CBAdvertisementDataManufacturerDataKey] = [NSData data]` is set "
                                + "inside a nested block (HexUUID.m:19); the reader counts it as always set"
                        )
                    ]
                )
        )
        #expect(
            result.adverts[1]
                == SourceAdvertisement(
                    location: Fixture.location("HexUUID.m", 25, 22),
                    serviceUUIDs: [.resolved("0000FEAA-0000-1000-8000-00805F9B34FB")]
                )
        )
        #expect(result.adverts[2].location == Fixture.location("HexUUID.m", 32, 29))
        #expect(result.adverts[2].dictionaryUnknown == "advertisement")
        #expect(
            result.adverts[2].findings.map(\.message) == [
                "\(file):32:46: advertisement data `advertisement` could not be resolved: `advertisement` is a "
                    + "parameter (HexUUID.m:31); its value comes from the callers, which are not followed"
            ]
        )
    }

    @Test func iBeaconPeripheralData() throws {
        let result = Fixture.scan("BeaconAdvertiser.m")
        #expect(result.problems == [])
        try #require(result.adverts.count == 2)
        #expect(
            result.adverts[0]
                == SourceAdvertisement(
                    location: Fixture.location("BeaconAdvertiser.m", 16, 29),
                    iBeacon: SourceBeacon(
                        expression: "[region peripheralDataWithMeasuredPower:@(-59)]",
                        uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
                        major: 100,
                        minor: 7,
                        measuredPower: -59
                    )
                )
        )
        #expect(
            result.adverts[1]
                == SourceAdvertisement(
                    location: Fixture.location("BeaconAdvertiser.m", 20, 29),
                    iBeacon: SourceBeacon(expression: "[region peripheralDataWithMeasuredPower:nil]")
                )
        )
    }

    @Test func sameNamedThingsThatAreNotCoreBluetooth() {
        let result = Fixture.scan("NotCoreBluetooth.m")
        #expect(result.problems == [])
        #expect(result.filesRead == [Fixture.path("NotCoreBluetooth.m")])
        #expect(result.adverts == [])
    }

    @Test func unparsableFileIsNamedWithClangsReason() {
        let result = Fixture.scan("Broken.m")
        #expect(
            result.problems == [
                SourceProblem(
                    file: Fixture.path("Broken.m"),
                    line: 9,
                    column: 91,
                    message: "clang cannot parse it: expected ';' after expression (and 4 more error(s))"
                )
            ]
        )
        // What clang recovered is still read.
        #expect(result.adverts.map(\.localName) == [.resolved("Half")])
        #expect(
            result.adverts.first?.findings == [
                Rules.sourceReader.finding(
                    "\(Fixture.path("Broken.m")):9:91: clang cannot parse the file; this call is read from what clang "
                        + "recovered, which may leave out part of it"
                )
            ]
        )
    }

    @Test func objectiveCPlusPlus() {
        let result = Fixture.scan("ScaleAdvertiser.mm")
        #expect(result.problems == [])
        #expect(
            result.adverts == [
                SourceAdvertisement(
                    location: Fixture.location("ScaleAdvertiser.mm", 16, 29),
                    localName: .resolved("SmartScale"),
                    serviceUUIDs: [.resolved("181D")]
                )
            ]
        )
    }

    @Test func debugVariants() {
        let result = Fixture.scan("DebugName.m")
        #expect(result.problems == [])
        let location = Fixture.location("DebugName.m", 15, 29)
        #expect(
            result.adverts == [
                SourceAdvertisement(
                    location: location,
                    localName: .resolved("Sensor-Debug"),
                    serviceUUIDs: [.resolved("181C")],
                    variant: "#if DEBUG"
                ),
                SourceAdvertisement(
                    location: location,
                    localName: .resolved("Sensor"),
                    serviceUUIDs: [.resolved("181C")],
                    variant: "without DEBUG"
                ),
            ]
        )
    }

    @Test func subclassAndOtherConstructors() throws {
        let result = Fixture.scan("GlucosePeripheralManager.m")
        #expect(result.problems == [])
        let file = Fixture.path("GlucosePeripheralManager.m")
        try #require(result.adverts.count == 4)
        #expect(
            result.adverts[0]
                == SourceAdvertisement(
                    location: Fixture.location("GlucosePeripheralManager.m", 14, 12),
                    localName: .resolved("Gluco"),
                    serviceUUIDs: [.resolved("1808")]
                )
        )
        #expect(
            result.adverts[1]
                == SourceAdvertisement(
                    location: Fixture.location("GlucosePeripheralManager.m", 18, 11),
                    localName: .resolved("Solo")
                )
        )
        #expect(
            result.adverts[2]
                == SourceAdvertisement(
                    location: Fixture.location("GlucosePeripheralManager.m", 22, 11),
                    serviceUUIDListUnknown: "services",
                    otherKeys: ["CBAdvertisementDataManufacturerDataKey"]
                )
        )
        #expect(
            result.adverts[3]
                == SourceAdvertisement(
                    location: Fixture.location("GlucosePeripheralManager.m", 35, 11),
                    localName: .resolved("Later"),
                    serviceUUIDs: [.resolved("1808"), .unresolved(expression: "extra")],
                    findings: [
                        Rules.sourceReader.finding(
                            "\(file):31:14: `data[CBAdvertisementDataLocalNameKey] = @\"Later\"` is set inside a "
                                + "nested block (GlucosePeripheralManager.m:31); the reader counts it as always set"
                        )
                    ]
                )
        )
    }

    @Test func debugInAnIncludedHeaderOnlySplitsTheCallsThatDiffer() {
        let result = Fixture.scan("FlavorAdvertiser.m")
        #expect(result.problems == [])
        let flavored = Fixture.location("FlavorAdvertiser.m", 10, 29)
        #expect(
            result.adverts == [
                SourceAdvertisement(location: flavored, localName: .resolved("Flavor-Beta"), variant: "#if DEBUG"),
                SourceAdvertisement(location: flavored, localName: .resolved("Flavor"), variant: "without DEBUG"),
                SourceAdvertisement(
                    location: Fixture.location("FlavorAdvertiser.m", 14, 29),
                    localName: .resolved("Plain")
                ),
            ]
        )
    }

    @Test func wholeDirectoryInOrder() {
        let files = Fixture.translationUnits
        let result = ObjCAdvertisingScanner().scan(
            files: files.map(Fixture.path),
            headerSearchPaths: [Fixture.directory]
        )
        #expect(result.filesRead == files.map(Fixture.path))
        #expect(result.problems.map(\.file) == [Fixture.path("Broken.m")])
        #expect(result.adverts.count == 24)
    }
}

@Test func missingClangNamesEveryFile() {
    let files = ["/nowhere/A.m", "/nowhere/B.mm"]
    let result = ObjCAdvertisingScanner(clang: "/nonexistent/clang").scan(files: files, headerSearchPaths: [])
    #expect(result.filesRead == [])
    #expect(result.adverts == [])
    #expect(result.problems.map(\.file) == files)
    #expect(result.problems.allSatisfy { $0.message.contains("BLEINSPECT_CLANG") && $0.line == nil })
}
