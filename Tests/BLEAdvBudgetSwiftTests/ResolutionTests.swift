import BLEAdvBudgetSwift
import Testing

/// One test per resolution form, on inline sources. Expected values are read off the sources.
@Suite struct StringResolutionTests {
    @Test func literalsInTheCall() throws {
        let call = try scanOne(
            #"""
            import CoreBluetooth
            func go(manager: CBPeripheralManager) {
                manager.startAdvertising([CBAdvertisementDataLocalNameKey: "Thermo", CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "180D")]])
            }
            """#
        )
        #expect(call.location == location("App.swift", 3, 13))
        #expect(call.dictionary == .literal(location("App.swift", 3, 30)))
        #expect(
            call.localName
                == SwiftAdvertisingValue(
                    expression: #""Thermo""#,
                    location: location("App.swift", 3, 64),
                    resolution: .resolved("Thermo")
                )
        )
        #expect(uuids(call) == ["180D"])
        #expect(call.serviceUUIDs?.elements.first?.expression == #"CBUUID(string: "180D")"#)
        #expect(call.otherKeys.isEmpty)
        #expect(call.warnings.isEmpty)
    }

    @Test func escapesMultilineAndRawStrings() throws {
        let call = try scanOne(
            ##"""
            let name = "Caf\u{E9} \"A\""
            let uuidText = #"FEAA"#
            let multi = """
                Line
                """
            func go() {
                m.startAdvertising([CBAdvertisementDataLocalNameKey: name + multi, CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: uuidText)]])
            }
            """##
        )
        #expect(name(call) == "Café \"A\"Line")
        #expect(uuids(call) == ["FEAA"])
        #expect(call.warnings.isEmpty)
    }

    /// The literal start is kept (issue 24: the engine counts at least its bytes).
    @Test func interpolationIsPartialAndNamed() throws {
        let call = try scanOne(
            #"""
            let serial = 42
            func go() {
                m.startAdvertising([CBAdvertisementDataLocalNameKey: "Thermo-\(serial)"])
            }
            """#
        )
        let reason = #"`"Thermo-\(serial)"` uses string interpolation, known only at run time"#
        #expect(call.localName?.resolution == .partial(prefix: "Thermo-", suffix: "", reason: reason))
        #expect(call.localName?.expression == #""Thermo-\(serial)""#)
        #expect(
            call.warnings == [
                SwiftAdvertisingWarning(
                    kind: .unresolvedValue,
                    location: location("App.swift", 3, 58),
                    message: #"local name `"Thermo-\(serial)"` is known only in part: "# + reason
                )
            ]
        )
    }

    @Test func globalConstantsAcrossFiles() throws {
        let call = try scanOne(
            """
            func go() {
                m.startAdvertising([CBAdvertisementDataLocalNameKey: productName, CBAdvertisementDataServiceUUIDsKey: [serviceUUID]])
            }
            """,
            others: [
                ("Constants.swift", #"let productName = "Scale"\#nlet serviceUUID = CBUUID(string: serviceText)"#),
                ("More.swift", #"let serviceText = "0000FFF0-0000-1000-8000-00805F9B34FB""#),
            ]
        )
        #expect(name(call) == "Scale")
        #expect(uuids(call) == ["0000FFF0-0000-1000-8000-00805F9B34FB"])
        #expect(call.serviceUUIDs?.elements.first?.location == location("App.swift", 2, 108))
        #expect(call.warnings.isEmpty)
    }

    @Test func staticMembersNestedTypesAndExtensions() throws {
        let result = scan([
            (
                "Constants.swift",
                """
                enum Config {
                    static let name = "Outer"
                    enum BLE {
                        static let name = "Inner"
                        struct Deep { static let name = "Deepest" }
                    }
                }
                extension Config.BLE {
                    static let extra = "FromExtension"
                }
                extension Config {
                    enum Other { static let name = "Nested in extension" }
                }
                """
            ),
            (
                "App.swift",
                """
                final class Advertiser {
                    static let own = "Own"
                    let instanceName = "Instance"
                    func a() { m.startAdvertising([CBAdvertisementDataLocalNameKey: Config.name]) }
                    func b() { m.startAdvertising([CBAdvertisementDataLocalNameKey: Config.BLE.name]) }
                    func c() { m.startAdvertising([CBAdvertisementDataLocalNameKey: Config.BLE.Deep.name]) }
                    func d() { m.startAdvertising([CBAdvertisementDataLocalNameKey: Config.BLE.extra]) }
                    func e() { m.startAdvertising([CBAdvertisementDataLocalNameKey: Config.Other.name]) }
                    func f() { m.startAdvertising([CBAdvertisementDataLocalNameKey: MyApp.Config.BLE.name]) }
                    func g() { m.startAdvertising([CBAdvertisementDataLocalNameKey: own]) }
                    func h() { m.startAdvertising([CBAdvertisementDataLocalNameKey: Self.own]) }
                    func i() { m.startAdvertising([CBAdvertisementDataLocalNameKey: self.instanceName]) }
                    func j() { m.startAdvertising([CBAdvertisementDataLocalNameKey: Advertiser.own]) }
                }
                extension Config.BLE {
                    static func k() { m.startAdvertising([CBAdvertisementDataLocalNameKey: Deep.name]) }
                }
                """
            ),
        ])
        #expect(
            result.calls.map { $0.localName?.resolvedValue } == [
                "Outer", "Inner", "Deepest", "FromExtension", "Nested in extension", "Inner", "Own", "Own",
                "Instance", "Own", "Deepest",
            ]
        )
        #expect(result.calls.map(\.location.line) == [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16])
        #expect(result.allWarnings.isEmpty)
    }

    @Test func unknownMemberOfAKnownTypeIsNamed() throws {
        let call = try scanOne(
            """
            enum Config { static let name = "A" }
            func go() { m.startAdvertising([CBAdvertisementDataLocalNameKey: Config.title]) }
            """
        )
        #expect(
            call.localName?.unresolvedReason
                == "`Config.title`: `Config` has no member `title` in the scanned sources"
        )
        #expect(call.warnings.map(\.kind) == [.unresolvedValue])
    }

    @Test func localLetInTheSameFunctionOnly() throws {
        let result = scan([
            (
                "App.swift",
                """
                func first() {
                    let localName = "Local"
                    m.startAdvertising([CBAdvertisementDataLocalNameKey: localName])
                }
                func second() {
                    m.startAdvertising([CBAdvertisementDataLocalNameKey: localName])
                }
                func third() {
                    m.startAdvertising([CBAdvertisementDataLocalNameKey: later])
                    let later = "Declared after the call"
                }
                func fourth(title: String) {
                    if let picked = Optional("Picked") {
                        m.startAdvertising([CBAdvertisementDataLocalNameKey: picked])
                    }
                    m.startAdvertising([CBAdvertisementDataLocalNameKey: title])
                }
                """
            )
        ])
        #expect(result.calls.count == 5)
        #expect(name(result.calls[0]) == "Local")
        #expect(result.calls[1].localName?.unresolvedReason == "`localName` is not declared in the scanned sources")
        #expect(result.calls[2].localName?.unresolvedReason == "`later` is not declared in the scanned sources")
        // `Optional("Picked")` is a call: followed through `picked`, then unresolved.
        #expect(
            result.calls[3].localName?.unresolvedReason
                == "`Optional(\"Picked\")` is a call, evaluated at run time (reached through `picked` at App.swift:13)"
        )
        #expect(
            result.calls[4].localName?.unresolvedReason
                == "`title` is a parameter of `func fourth`, and no call of `fourth(title:)` is in the scanned sources; "
                + "known only at run time"
        )
    }

    @Test func deviceNameIsUnresolved() throws {
        let call = try scanOne(
            """
            import UIKit
            func go() {
                m.startAdvertising([CBAdvertisementDataLocalNameKey: UIDevice.current.name])
            }
            """
        )
        let reason = "`UIDevice.current.name` is the device's name, known only at run time"
        #expect(call.localName?.resolution == .unresolved(reason: reason))
        #expect(call.warnings.count == 1)
        #expect(call.warnings.first?.message == "local name `UIDevice.current.name` could not be resolved: " + reason)
        #expect(call.warnings.first?.location == location("App.swift", 3, 58))
    }

    @Test func computedPropertiesAndEnumRawValues() throws {
        let call = try scanOne(
            """
            enum Names {
                static var short: String { "Sh" }
                static var long: String {
                    get { return short + "ort" }
                }
            }
            enum ServiceID: String {
                case heartRate = "180D"
                case FEAA
            }
            func go() {
                m.startAdvertising([
                    CBAdvertisementDataLocalNameKey: Names.long,
                    CBAdvertisementDataServiceUUIDsKey: [
                        CBUUID(string: ServiceID.heartRate.rawValue), CBUUID(string: ServiceID.FEAA.rawValue),
                    ],
                ])
            }
            """
        )
        #expect(name(call) == "Short")
        #expect(uuids(call) == ["180D", "FEAA"])
        #expect(call.warnings.isEmpty)
    }

    @Test func globalVarIsReadWithAWarning() throws {
        let call = try scanOne(
            """
            var currentName = "Initial"
            func go() { m.startAdvertising([CBAdvertisementDataLocalNameKey: currentName]) }
            """
        )
        #expect(name(call) == "Initial")
        #expect(
            call.warnings == [
                SwiftAdvertisingWarning(
                    kind: .variableValue,
                    location: location("App.swift", 1, 5),
                    message: #"`currentName` is a `var`; its initial value `"Initial"` is used, though it may change "#
                        + "at run time"
                )
            ]
        )
    }

    /// Was: the first clause with an ambiguity warning (issue 24: one variant per clause).
    @Test func ifConfigBranchesAreVariants() throws {
        let result = scan([
            (
                "App.swift",
                """
                #if DEBUG
                let advertisedName = "Debug"
                #else
                let advertisedName = "Release"
                #endif
                func go() { m.startAdvertising([CBAdvertisementDataLocalNameKey: advertisedName]) }
                """
            )
        ])
        #expect(result.calls.map(\.variant) == ["#if DEBUG", "#else"])
        #expect(result.calls.map(name) == ["Debug", "Release"])
        #expect(result.allWarnings.isEmpty)
    }

    /// The same name in two files (not `#if` clauses) is still ambiguous.
    @Test func sameNameInTwoFilesIsAmbiguous() throws {
        let call = try scanOne(
            """
            func go() { m.startAdvertising([CBAdvertisementDataLocalNameKey: advertisedName]) }
            """,
            others: [("A.swift", #"let advertisedName = "A""#), ("B.swift", #"let advertisedName = "B""#)]
        )
        #expect(name(call) == "A")
        #expect(call.variant == nil)
        #expect(call.warnings.map(\.kind) == [.ambiguousDeclaration])
    }
}

@Suite struct UUIDResolutionTests {
    @Test func cbuuidFormsAndConstants() throws {
        let call = try scanOne(
            """
            import CoreBluetooth
            let heartRateText = "180D"
            let heartRate = CBUUID(string: heartRateText)
            let custom = CBUUID(nsuuid: UUID(uuidString: "4BBA6CAA-BFC8-46A6-AB3D-CFCA5C96D39E")!)
            extension CBUUID {
                static let battery = CoreBluetooth.CBUUID(string: "180F")
            }
            func go() {
                m.startAdvertising([
                    CBAdvertisementDataServiceUUIDsKey: [heartRate, custom, .battery, CBUUID.battery, CBUUID(string: "FEAA")]
                ])
            }
            """
        )
        #expect(uuids(call) == ["180D", "4BBA6CAA-BFC8-46A6-AB3D-CFCA5C96D39E", "180F", "180F", "FEAA"])
        #expect(call.serviceUUIDs?.elements.map(\.location.line) == [10, 10, 10, 10, 10])
        #expect(call.localName == nil)
        #expect(call.warnings.isEmpty)
    }

    @Test func arraysViaConstantsAndConcatenation() throws {
        let result = scan([
            (
                "Services.swift",
                """
                enum Services {
                    static let primary = CBUUID(string: "1809")
                    static let secondary = CBUUID(string: "180A")
                    static let all: [CBUUID] = [primary, secondary]
                    static let everything = all + [CBUUID(string: "180F")]
                }
                """
            ),
            (
                "App.swift",
                """
                func a() { m.startAdvertising([CBAdvertisementDataServiceUUIDsKey: Services.all]) }
                func b() { m.startAdvertising([CBAdvertisementDataServiceUUIDsKey: Services.everything as [CBUUID]]) }
                func c() {
                    let local = [Services.secondary]
                    m.startAdvertising([CBAdvertisementDataServiceUUIDsKey: local + Services.all])
                }
                """
            ),
        ])
        #expect(result.calls.map(uuids) == [["1809", "180A"], ["1809", "180A", "180F"], ["180A", "1809", "180A"]])
        // Elements taken from a constant are located where the constant writes them.
        #expect(
            result.calls[0].serviceUUIDs?.elements.map(\.location) == [
                location("Services.swift", 4, 33), location("Services.swift", 4, 42),
            ]
        )
        #expect(result.allWarnings.isEmpty)
    }

    @Test func aStringIsNotACBUUID() throws {
        let call = try scanOne(
            """
            func go() { m.startAdvertising([CBAdvertisementDataServiceUUIDsKey: ["180D", CBUUID(string: "180F")]]) }
            """
        )
        #expect(call.serviceUUIDs?.resolvedUUIDs == nil)
        #expect(call.serviceUUIDs?.elements.map(\.resolvedValue) == [nil, "180F"])
        #expect(
            call.serviceUUIDs?.elements.first?.unresolvedReason
                == #"`"180D"` is a String, not a CBUUID: CoreBluetooth advertises only CBUUID values"#
        )
        #expect(call.warnings.map(\.kind) == [.unresolvedValue])
        #expect(call.warnings.first?.message.hasPrefix(#"service UUID `"180D"` could not be resolved: "#) == true)
    }

    @Test func aSingleCBUUIDIsNotAList() throws {
        let call = try scanOne(
            """
            func go() { m.startAdvertising([CBAdvertisementDataServiceUUIDsKey: CBUUID(string: "180D")]) }
            """
        )
        #expect(call.serviceUUIDs?.elements == [])
        #expect(
            call.serviceUUIDs?.unresolvedReason
                == #"`CBUUID(string: "180D")` is one CBUUID, not an array: CoreBluetooth expects [CBUUID]"#
        )
        #expect(call.warnings.map(\.kind) == [.unresolvedList])
    }

    @Test func runTimeListIsUnresolvedAsAWhole() throws {
        let call = try scanOne(
            """
            func go(services: [Service]) {
                m.startAdvertising([CBAdvertisementDataServiceUUIDsKey: services.map(\\.uuid)])
            }
            """
        )
        #expect(call.serviceUUIDs?.unresolvedReason == "`services.map(\\.uuid)` is a call, evaluated at run time")
        #expect(
            call.warnings.first?.message
                == "service UUIDs `services.map(\\.uuid)` could not be read as an array: `services.map(\\.uuid)` "
                + "is a call, evaluated at run time"
        )
    }

    @Test func invalidUUIDStringIsResolvedWithAWarning() throws {
        let call = try scanOne(
            """
            func go() { m.startAdvertising([CBAdvertisementDataServiceUUIDsKey: [CBUUID(string: "180G")]]) }
            """
        )
        #expect(uuids(call) == ["180G"])
        #expect(call.warnings.map(\.kind) == [.invalidUUID])
        #expect(call.warnings.first?.location == location("App.swift", 1, 85))
    }
}

@Suite struct KeyTests {
    @Test func keysWithModulePrefixRawStringsAndConstants() throws {
        let call = try scanOne(
            """
            let uuidKey = CBAdvertisementDataServiceUUIDsKey
            func go() {
                m.startAdvertising([
                    CoreBluetooth.CBAdvertisementDataLocalNameKey: "Prefixed",
                    uuidKey: [CBUUID(string: "180D")],
                    "kCBAdvDataManufacturerData": Data([0x4C, 0x00]),
                    CBAdvertisementDataServiceDataKey: [CBUUID(string: "FEAA"): Data()],
                    "kCBAdvDataAppleBeaconKey": Data(),
                ])
            }
            """
        )
        #expect(name(call) == "Prefixed")
        #expect(uuids(call) == ["180D"])
        #expect(
            call.otherKeys == [
                SwiftAdvertisingOtherKey(
                    key: "CBAdvertisementDataManufacturerDataKey",
                    keyExpression: #""kCBAdvDataManufacturerData""#,
                    valueExpression: "Data([0x4C, 0x00])",
                    location: location("App.swift", 6, 9),
                    isKeyResolved: true
                ),
                SwiftAdvertisingOtherKey(
                    key: "CBAdvertisementDataServiceDataKey",
                    keyExpression: "CBAdvertisementDataServiceDataKey",
                    valueExpression: #"[CBUUID(string: "FEAA"): Data()]"#,
                    location: location("App.swift", 7, 9),
                    isKeyResolved: true
                ),
                SwiftAdvertisingOtherKey(
                    key: "kCBAdvDataAppleBeaconKey",
                    keyExpression: #""kCBAdvDataAppleBeaconKey""#,
                    valueExpression: "Data()",
                    location: location("App.swift", 8, 9),
                    isKeyResolved: true
                ),
            ]
        )
        #expect(call.warnings.isEmpty)
    }

    @Test func unresolvedKeyIsListedAndWarned() throws {
        let call = try scanOne(
            """
            func go(key: String) { m.startAdvertising([key: "Value"]) }
            """
        )
        #expect(call.otherKeys.map(\.key) == ["key"])
        #expect(call.otherKeys.first?.isKeyResolved == false)
        #expect(
            call.warnings.first?.message
                == "key `key` could not be resolved: `key` is a parameter of `func go`, and no call of `go(key:)` is in "
                + "the scanned sources; known only at run time; if it is the local name or service UUIDs key, that "
                + "value is not checked"
        )
    }

    @Test func duplicateKeysAreWarned() throws {
        let call = try scanOne(
            """
            func go() {
                m.startAdvertising([CBAdvertisementDataLocalNameKey: "A", CBAdvertisementDataLocalNameKey: "B"])
            }
            """
        )
        #expect(name(call) == "B")
        #expect(call.warnings.map(\.kind) == [.duplicateKey])
        #expect(call.warnings.first?.location == location("App.swift", 2, 63))
    }
}
