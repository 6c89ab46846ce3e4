// # Inputs of the advertising budget engine
//
// The engine checks adverts against platform profiles. Every fact it applies comes from
// `../shared/docs/ADVERTISING.md`; comments cite its sections as "§n.n". Three producers feed it,
// and they meet only in the plain value types of this file:
//
// 1. **Plan files** (YAML or JSON, docs/ADV-BUDGET.md): `PlanFile.load(path:)` → `[AdvertPlan]`.
//
// 2. **Swift and Objective-C sources** (`--sources`, read in the `BLEAdvBudgetSwift` and
//    `BLEAdvBudgetObjC` targets, not here). For each `startAdvertising` call, and each path
//    through it (`variant`: a branch, an `#if` configuration, a call site of a parameter), the
//    reader fills one `SourceAdvertisement`:
//      - `location`: file, line and column of the call;
//      - `localName`: `.resolved("text")`, `.partial(expression:prefix:suffix:)` (an interpolated
//        or formatted name) or `.unresolved(expression: "Config.name")`, nil when the dictionary
//        has no `CBAdvertisementDataLocalNameKey`;
//      - `serviceUUIDs`: one `SourceValue` per array element, the UUID *string* as written
//        (e.g. "180A", "0x180D" or a 128-bit string), or `.unresolved(expression:)`; an array of
//        unknown length is `serviceUUIDListUnknown` instead;
//      - `dictionaryUnknown`, `iBeacon` (`CLBeaconRegion.peripheralData`), `otherKeys` (every
//        other key as written, so that iOS's dropped keys are reported), and `findings`.
//    It then calls `AdvertPlan(source:)` (SourcePlan.swift) and passes the plans to
//    `AdvBudgetEngine.check(_:platforms:options:)` or `AdvBudgetRunner.run(plans:raw:…)`.
//    Unknown values become `UnknownParts` with `source.unresolved` warnings naming the
//    expression, and the iOS checks give what holds for every value they can take
//    (IOSBounds.swift); invalid UUID strings become `source.uuid.invalid` errors. Nothing is
//    silently skipped.
//
// 3. **Captures** (`--capture`, built elsewhere). For each advert set by the host (HCI LE Set
//    Advertising / Scan Response Data, their extended forms with fragments already joined) or
//    received (advertising reports), the reader fills one `RawAdvert` with the significant AD bytes
//    and a label such as "frame 31, LE Set Advertising Data", and calls
//    `AdvBudgetEngine.check(raw:options:)` (or passes them as `raw:` to `AdvBudgetRunner.run`). The
//    bytes are parsed into AD structures (a bad length byte is a finding, never a crash) and
//    checked against the legacy or extended limits and the per-type rules of §1.

public import BLEInspectCore

/// Where an advert came from: a Swift source (file, line, column of `startAdvertising`) or the
/// entry of a plan file.
public struct SourceLocation: Hashable, Sendable, Codable {
    public var file: String
    /// 1-based.
    public var line: Int
    /// 1-based, when known.
    public var column: Int?

    public init(file: String, line: Int, column: Int? = nil) {
        self.file = file
        self.line = line
        self.column = column
    }
}

/// A value read from a source file: resolved to its text, partly known, or left as the expression
/// that could not be resolved.
public enum SourceValue: Hashable, Sendable {
    case resolved(String)
    case unresolved(expression: String)
    /// A string whose literal parts are known around a part known only at run time:
    /// `"bitchat-\(peerID)"` is prefix "bitchat-", suffix "". The whole string is at least
    /// `prefix.utf8.count + suffix.utf8.count` bytes long; how much longer is not known.
    case partial(expression: String, prefix: String, suffix: String)

    /// The expression when the value is not wholly known.
    public var unknownExpression: String? {
        switch self {
        case .resolved: nil
        case .unresolved(let expression), .partial(let expression, _, _): expression
        }
    }
}

/// Why a source reader (Swift or Objective-C) could not resolve an expression.
package struct Unresolved: Error {
    /// Names the expression that could not be read, and why.
    package var reason: String
    /// The declarations followed to reach it, outermost first (`` `A.b` at File.swift:3 ``,
    /// `` `kName` at Names.h:3 ``).
    package var trail: [String]

    package init(reason: String, trail: [String] = []) {
        self.reason = reason
        self.trail = trail
    }

    /// The reason, with the trail when there is one.
    package var message: String {
        trail.isEmpty ? reason : reason + " (reached through " + trail.joined(separator: " → ") + ")"
    }
}

/// The dictionary of `CLBeaconRegion.peripheralData(withMeasuredPower:)`: an iBeacon advert
/// (§4.1). A value nil here is not known from the sources; the advert's size is known whatever
/// the values are.
public struct SourceBeacon: Hashable, Sendable {
    /// The call as written.
    public var expression: String
    /// The proximity UUID string (128-bit).
    public var uuid: String?
    public var major: Int?
    public var minor: Int?
    /// `withMeasuredPower:`; nil also for `nil` (the device's own calibrated value, not known here).
    public var measuredPower: Int?

    public init(
        expression: String,
        uuid: String? = nil,
        major: Int? = nil,
        minor: Int? = nil,
        measuredPower: Int? = nil
    ) {
        self.expression = expression
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.measuredPower = measuredPower
    }
}

/// One `startAdvertising` call as a source reader sees it (see the top of this file). A call
/// whose value depends on the path taken (`if`/`else`, `#if DEBUG`, a parameter with several
/// call sites) gives one `SourceAdvertisement` per path, each with its `variant`.
public struct SourceAdvertisement: Hashable, Sendable {
    public var location: SourceLocation
    public var localName: SourceValue?
    /// One value per array element. When the array itself could not be read (how many UUIDs it
    /// holds is unknown), this is empty and `serviceUUIDListUnknown` names the expression.
    public var serviceUUIDs: [SourceValue]
    /// The service UUIDs expression when the number of UUIDs is not known.
    public var serviceUUIDListUnknown: String?
    /// Dictionary keys other than `CBAdvertisementDataLocalNameKey` and
    /// `CBAdvertisementDataServiceUUIDsKey`, as written.
    public var otherKeys: [String]
    /// The dictionary expression when nothing of the dictionary is known (a call's result, a
    /// parameter with no call site in the sources): its keys, and so the layout, are unknown.
    public var dictionaryUnknown: String?
    /// `CLBeaconRegion.peripheralData(withMeasuredPower:)` given as the dictionary.
    public var iBeacon: SourceBeacon?
    /// The path this layout holds for, e.g. "#if DEBUG", "if pm5Mode (Rower.swift:12)",
    /// "else (Rower.swift:14)", "service = Services.heartRate (call at Chat.swift:40)"; nil
    /// when the call has one path. Raw text, escaped by the renderers.
    public var variant: String?
    /// Extra findings from the reader for this call.
    public var findings: [Finding]
    /// A stable name for the advert; nil gives "file:line" (and " [variant]").
    public var id: String?

    public init(
        location: SourceLocation,
        localName: SourceValue? = nil,
        serviceUUIDs: [SourceValue] = [],
        serviceUUIDListUnknown: String? = nil,
        otherKeys: [String] = [],
        dictionaryUnknown: String? = nil,
        iBeacon: SourceBeacon? = nil,
        variant: String? = nil,
        findings: [Finding] = [],
        id: String? = nil
    ) {
        self.location = location
        self.localName = localName
        self.serviceUUIDs = serviceUUIDs
        self.serviceUUIDListUnknown = serviceUUIDListUnknown
        self.otherKeys = otherKeys
        self.dictionaryUnknown = dictionaryUnknown
        self.iBeacon = iBeacon
        self.variant = variant
        self.findings = findings
        self.id = id
    }
}

/// A source file that could not be read, or that a reader could not parse: named with the
/// reader's reason (for Objective-C, clang's first error) and the place, when known.
public struct SourceProblem: Hashable, Sendable {
    public var file: String
    public var line: Int?
    public var column: Int?
    public var message: String

    public init(file: String, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }
}

/// Manufacturer Specific Data (AD type 0xFF): a company identifier and the bytes after it (§1.5).
public struct ManufacturerData: Hashable, Sendable {
    public var company: UInt16
    public var data: [UInt8]

    public init(company: UInt16, data: [UInt8]) {
        self.company = company
        self.data = data
    }
}

/// Service Data (AD type 0x16, 0x20 or 0x21 by the UUID's width): a UUID and the bytes after it (§1.5).
public struct ServiceData: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var data: [UInt8]

    public init(uuid: BluetoothUUID, data: [UInt8]) {
        self.uuid = uuid
        self.data = data
    }
}

/// An iBeacon frame (§4.1).
public struct IBeacon: Hashable, Sendable {
    public var uuid: BluetoothUUID
    public var major: UInt16
    public var minor: UInt16
    /// RSSI at 1 m, in dBm.
    public var measuredPower: Int8

    public init(uuid: BluetoothUUID, major: UInt16, minor: UInt16, measuredPower: Int8) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.measuredPower = measuredPower
    }
}

/// An Eddystone frame (§4.2): UID, URL or plain TLM.
public enum EddystoneFrame: Hashable, Sendable {
    /// 10-byte namespace and 6-byte instance.
    case uid(txPower: Int8, namespace: [UInt8], instance: [UInt8])
    /// The URL as text, e.g. "https://example.com/"; encoded with the scheme and expansion codes
    /// of §4.2 (at most 17 encoded bytes).
    case url(txPower: Int8, url: String)
    /// Battery in mV, temperature in °C (sent as signed 8.8 fixed point), advertising PDU count,
    /// and time since power-on in 0.1 s units.
    case tlm(batteryMillivolts: UInt16, temperature: Double, advertCount: UInt32, uptimeTenths: UInt32)
}

/// The AD fields one PDU payload carries: the advertising data or the scan response.
public struct AdvertFields: Hashable, Sendable {
    public var localName: String?
    public var serviceUUIDs: [BluetoothUUID] = []
    public var manufacturerData: [ManufacturerData] = []
    public var serviceData: [ServiceData] = []
    /// TX Power Level in dBm (AD type 0x0A).
    public var txPower: Int8?
    /// Appearance (AD type 0x19).
    public var appearance: UInt16?

    public init(
        localName: String? = nil,
        serviceUUIDs: [BluetoothUUID] = [],
        manufacturerData: [ManufacturerData] = [],
        serviceData: [ServiceData] = [],
        txPower: Int8? = nil,
        appearance: UInt16? = nil
    ) {
        self.localName = localName
        self.serviceUUIDs = serviceUUIDs
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.txPower = txPower
        self.appearance = appearance
    }

    public var isEmpty: Bool {
        localName == nil && serviceUUIDs.isEmpty && manufacturerData.isEmpty && serviceData.isEmpty && txPower == nil
            && appearance == nil
    }
}

/// The platforms `--platform` names. `ios` checks both its foreground and background forms.
public enum Platform: String, CaseIterable, Hashable, Sendable, Codable {
    case ios, android, legacy, extended
}

/// One advert the engine checks: what the app or firmware asks to advertise.
public struct AdvertPlan: Hashable, Sendable {
    /// The advert's name in reports.
    public var id: String
    /// The Swift call or the plan-file entry it came from.
    public var source: SourceLocation?
    /// The advertising data fields.
    public var data: AdvertFields
    /// Fields the plan puts in the scan response (profiles that let the app choose: Android,
    /// legacy, extended).
    public var scanResponse: AdvertFields
    /// An explicit Flags value (AD type 0x01); nil lets the profile decide.
    public var flags: UInt8?
    public var iBeacon: IBeacon?
    public var eddystone: EddystoneFrame?
    public var connectable: Bool
    /// Android's `AdvertiseSettings.setDiscoverable` (newer AOSP adds Flags only when connectable
    /// and discoverable, §3); also picks the default Flags value of the legacy and extended profiles.
    public var discoverable: Bool
    /// Keys the source used that the engine does not model (from Swift sources: iOS drops them).
    public var otherKeys: [String]
    /// The plan's own platforms, used when `--platform` is not given.
    public var platforms: [Platform]?
    /// Findings the producer attached (unresolved or invalid values); repeated in every profile.
    public var inputFindings: [Finding]
    /// What a source reader could not fix (empty for plan files): the checks give what holds for
    /// every value these can take.
    public var unknown: UnknownParts = UnknownParts()
    /// The path of the source this plan holds for ("#if DEBUG", "if pm5Mode (…)"), when several.
    public var variant: String?

    public init(
        id: String,
        source: SourceLocation? = nil,
        data: AdvertFields = AdvertFields(),
        scanResponse: AdvertFields = AdvertFields(),
        flags: UInt8? = nil,
        iBeacon: IBeacon? = nil,
        eddystone: EddystoneFrame? = nil,
        connectable: Bool = true,
        discoverable: Bool = true,
        otherKeys: [String] = [],
        platforms: [Platform]? = nil,
        inputFindings: [Finding] = []
    ) {
        self.id = id
        self.source = source
        self.data = data
        self.scanResponse = scanResponse
        self.flags = flags
        self.iBeacon = iBeacon
        self.eddystone = eddystone
        self.connectable = connectable
        self.discoverable = discoverable
        self.otherKeys = otherKeys
        self.platforms = platforms
        self.inputFindings = inputFindings
    }
}

/// An advert given as raw AD bytes, as a capture shows it.
public struct RawAdvert: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, Codable {
        /// 31 + 31 bytes (§1.2).
        case legacy
        /// Up to the controller maximum, 1650 by default (§1.3).
        case extended
    }

    /// Names the advert in reports, e.g. "frame 31, LE Set Advertising Data".
    public var label: String
    public var source: SourceLocation?
    public var kind: Kind
    /// The significant part of the advertising data; nil when only a scan response was seen.
    public var advertisingData: [UInt8]?
    public var scanResponseData: [UInt8]?
    /// Whether the PDU is connectable, when known (a connectable advert needs Flags, §1.4).
    public var connectable: Bool?

    public init(
        label: String,
        source: SourceLocation? = nil,
        kind: Kind,
        advertisingData: [UInt8]?,
        scanResponseData: [UInt8]? = nil,
        connectable: Bool? = nil
    ) {
        self.label = label
        self.source = source
        self.kind = kind
        self.advertisingData = advertisingData
        self.scanResponseData = scanResponseData
        self.connectable = connectable
    }
}
