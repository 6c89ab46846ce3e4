/// How much a finding matters. Facts that ADVERTISING.md marks uncertain are never errors (§5).
public enum Severity: String, CaseIterable, Comparable, Hashable, Sendable, Codable {
    /// Platform behaviour worth knowing; never fails a run.
    case info
    /// Uncertain facts, and certain ones the app cannot change (iOS background mode).
    case warning
    /// The advert will not go on air as planned: it fails to start, is over size, is malformed,
    /// or loses data the plan asks for.
    case error

    private var rank: Int {
        switch self {
        case .info: 0
        case .warning: 1
        case .error: 2
        }
    }

    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// One result of a check: a stable rule id, a severity, the ADVERTISING.md section the rule
/// comes from, and a message. Untrusted text in the message is already escaped (`Quote`).
public struct Finding: Hashable, Sendable, Codable {
    public var rule: String
    public var severity: Severity
    public var section: String
    public var message: String

    public init(rule: String, severity: Severity, section: String, message: String) {
        self.rule = rule
        self.severity = severity
        self.section = section
        self.message = message
    }
}

/// A rule of the catalog: its id, severity and source section. docs/ADV-BUDGET.md lists them all.
public struct Rule: Hashable, Sendable {
    public var id: String
    public var severity: Severity
    /// The section of ../shared/docs/ADVERTISING.md the rule rests on.
    public var section: String
    public var summary: String

    public func finding(_ message: String) -> Finding {
        Finding(rule: id, severity: severity, section: section, message: message)
    }
}

/// Every rule the engine reports.
public enum Rules {
    // MARK: Inputs

    public static let sourceUnresolved = Rule(
        id: "source.unresolved",
        severity: .warning,
        section: "—",
        summary:
            "A value in a source is not known from the sources; the checks give what holds for every value it can take."
    )
    public static let sourceUUIDInvalid = Rule(
        id: "source.uuid.invalid",
        severity: .error,
        section: "§2.3",
        summary: "A service UUID string in a Swift source is not a UUID."
    )
    public static let sourceReader = Rule(
        id: "source.reader",
        severity: .warning,
        section: "—",
        summary:
            "The Swift-source reader's note on a call: a duplicate key, a value known only at run time, a dictionary or file it could not read."
    )
    public static let sourceNoCall = Rule(
        id: "source.none",
        severity: .warning,
        section: "—",
        summary: "The sources given hold no startAdvertising call: nothing in them was checked."
    )
    public static let sourceNotRead = Rule(
        id: "source.not-read",
        severity: .warning,
        section: "—",
        summary: "Source files in languages the checker does not read (Kotlin, Java, C, Dart…) were found."
    )
    public static let sourceUnreadable = Rule(
        id: "source.unreadable",
        severity: .warning,
        section: "—",
        summary: "A source file could not be read or parsed (for Objective-C, clang's reason is given)."
    )
    public static let sourceUnreadableCall = Rule(
        id: "source.unreadable.call",
        severity: .error,
        section: "—",
        summary: "A source file that mentions startAdvertising could not be read or parsed: its call is not checked."
    )
    public static let sourceDepends = Rule(
        id: "source.depends",
        severity: .warning,
        section: "§2.5",
        summary:
            "Cannot tell: the outcome (a name cut, a UUID's place, the whole layout) depends on a value the sources do not fix."
    )
    public static let sourceBound = Rule(
        id: "source.bound",
        severity: .info,
        section: "§2.5",
        summary: "What holds for every value a source leaves open: a UUID that always fits, a name that is never cut."
    )
    public static let captureLinkLayer = Rule(
        id: "capture.link-layer",
        severity: .warning,
        section: "—",
        summary:
            "A capture holds link-layer frames of an air sniffer: --capture reads adverts set or received over HCI, so sniffed adverts are not checked."
    )
    public static let sourceKeyUnmodelled = Rule(
        id: "source.key.unmodelled",
        severity: .info,
        section: "§2.2",
        summary: "A source dictionary key the non-iOS profiles do not model."
    )

    // MARK: AD structures (§1)

    public static let adLengthOverrun = Rule(
        id: "ad.length.overrun",
        severity: .error,
        section: "§1.1",
        summary: "An AD structure's Length byte runs past the end of the data."
    )
    public static let adLengthZero = Rule(
        id: "ad.length.zero",
        severity: .warning,
        section: "§1.1",
        summary: "Non-zero bytes follow a zero Length (early termination); they are ignored."
    )
    public static let adStructureTooLong = Rule(
        id: "ad.structure.too-long",
        severity: .error,
        section: "§1.1",
        summary: "Type plus data of one AD structure exceed 255 bytes (one Length octet)."
    )
    public static let adTypeUnknown = Rule(
        id: "ad.type.unknown",
        severity: .warning,
        section: "§1.6",
        summary: "An AD type not in the assigned-numbers table."
    )
    public static let adFlagsInScanResponse = Rule(
        id: "ad.flags.in-scan-response",
        severity: .error,
        section: "§1.4",
        summary: "Flags may not appear in the scan response."
    )
    public static let adFlagsDuplicate = Rule(
        id: "ad.flags.duplicate",
        severity: .error,
        section: "§1.4",
        summary: "Flags appear more than once in a block."
    )
    public static let adFlagsTrailingZero = Rule(
        id: "ad.flags.trailing-zero",
        severity: .error,
        section: "§1.4",
        summary: "Zero octets after the last non-zero Flags octet shall be omitted."
    )
    public static let adFlagsConflict = Rule(
        id: "ad.flags.conflict",
        severity: .error,
        section: "§1.4",
        summary: "LE Limited and LE General Discoverable are both set."
    )
    public static let adFlagsReserved = Rule(
        id: "ad.flags.reserved",
        severity: .warning,
        section: "§1.4",
        summary: "Reserved Flags bits 5–7 are set."
    )
    public static let adFlagsMissing = Rule(
        id: "ad.flags.missing",
        severity: .warning,
        section: "§1.4",
        summary: "A connectable advert without Flags."
    )
    public static let adUUIDListDuplicate = Rule(
        id: "ad.uuid-list.duplicate",
        severity: .error,
        section: "§1.5",
        summary: "More than one service UUID list of one width in a block."
    )
    public static let adUUIDListLength = Rule(
        id: "ad.uuid-list.length",
        severity: .error,
        section: "§1.5",
        summary: "A service UUID list whose length is not a multiple of its UUID width."
    )
    public static let adTxPowerLength = Rule(
        id: "ad.tx-power.length",
        severity: .error,
        section: "§1.5",
        summary: "TX Power Level is not exactly 1 data byte."
    )
    public static let adAppearanceLength = Rule(
        id: "ad.appearance.length",
        severity: .error,
        section: "§1.5",
        summary: "Appearance is not exactly 2 data bytes."
    )
    public static let adAppearanceDuplicate = Rule(
        id: "ad.appearance.duplicate",
        severity: .error,
        section: "§1.5",
        summary: "Appearance more than once in a block, or (extended) in both AD and scan response."
    )
    public static let adManufacturerShort = Rule(
        id: "ad.manufacturer.short",
        severity: .error,
        section: "§1.5",
        summary: "Manufacturer Specific Data shorter than its 2-byte company identifier."
    )
    public static let adServiceDataShort = Rule(
        id: "ad.service-data.short",
        severity: .error,
        section: "§1.5",
        summary: "Service Data shorter than its UUID."
    )
    public static let adNameUTF8 = Rule(
        id: "ad.name.utf8",
        severity: .warning,
        section: "§1.5",
        summary: "A local name that is not valid UTF-8."
    )
    public static let adAppleOverflow = Rule(
        id: "ad.apple-overflow",
        severity: .info,
        section: "§2.7",
        summary: "Apple's overflow area found in raw data; its set bits."
    )

    public static let beaconInvalid = Rule(
        id: "beacon.invalid",
        severity: .error,
        section: "§4",
        summary: "A beacon frame that cannot be built (wrong field length, URL that cannot be encoded)."
    )

    // MARK: Legacy and extended advertising (§1.2, §1.3)

    public static let legacyAdvertisingTooLarge = Rule(
        id: "legacy.advertising-data.too-large",
        severity: .error,
        section: "§1.2",
        summary: "Advertising data over 31 bytes."
    )
    public static let legacyScanResponseTooLarge = Rule(
        id: "legacy.scan-response.too-large",
        severity: .error,
        section: "§1.2",
        summary: "Scan response data over 31 bytes."
    )
    public static let extendedAdvertisingTooLarge = Rule(
        id: "extended.advertising-data.too-large",
        severity: .error,
        section: "§1.3",
        summary: "Advertising data over the extended maximum (1650, or the controller's)."
    )
    public static let extendedScanResponseTooLarge = Rule(
        id: "extended.scan-response.too-large",
        severity: .error,
        section: "§1.3",
        summary: "Scan response data over the extended maximum."
    )
    public static let extendedChained = Rule(
        id: "extended.chained",
        severity: .info,
        section: "§1.3",
        summary: "Data over 254 bytes is chained over several PDUs and HCI fragments."
    )
    public static let extendedReceivers = Rule(
        id: "extended.receivers",
        severity: .info,
        section: "§1.3, §2.10",
        summary: "Data over 31 bytes reaches only scanners that support extended advertising."
    )
    public static let extendedConnectableScannable = Rule(
        id: "extended.connectable-scannable",
        severity: .warning,
        section: "§1.3",
        summary: "An extended advert cannot be both connectable and scannable."
    )

    // MARK: iOS (§2)

    public static let iosKeyDropped = Rule(
        id: "ios.key.dropped",
        severity: .error,
        section: "§2.1, §2.2",
        summary: "startAdvertising supports only the local name and service UUIDs; other keys are not advertised."
    )
    public static let iosFlagsFixed = Rule(
        id: "ios.flags.fixed",
        severity: .warning,
        section: "§2.3",
        summary: "iOS always sends Flags 0x1A; the plan's value is not used."
    )
    public static let iosConnectableFixed = Rule(
        id: "ios.connectable.fixed",
        severity: .warning,
        section: "§2.3",
        summary: "iOS app adverts are connectable ADV_IND; a non-connectable plan is not honoured."
    )
    public static let iosNameTruncated = Rule(
        id: "ios.name.truncated",
        severity: .error,
        section: "§2.3, §2.5",
        summary: "The local name does not fit; iOS sends it shortened (0x08)."
    )
    public static let iosNameScanResponse = Rule(
        id: "ios.name.scan-response",
        severity: .warning,
        section: "§2.4, §2.5, §5.3",
        summary: "Fewer than 3 bytes left: the name may go to the scan response, at most 8 bytes."
    )
    public static let iosNameUTF8Split = Rule(
        id: "ios.name.utf8-split",
        severity: .warning,
        section: "§2.4, §5.8",
        summary: "The cut falls inside a multi-byte UTF-8 character."
    )
    public static let iosUUIDOverflow = Rule(
        id: "ios.uuid.overflow",
        severity: .error,
        section: "§2.1, §2.5",
        summary: "A service UUID does not fit and goes to the overflow area."
    )
    public static let iosUUIDPlacementUncertain = Rule(
        id: "ios.uuid.placement-uncertain",
        severity: .warning,
        section: "§2.5 note 2, §5.4",
        summary: "A UUID placed after an earlier one overflowed; iOS may overflow it too."
    )
    public static let iosUUIDListTypeUncertain = Rule(
        id: "ios.uuid.list-type-uncertain",
        severity: .warning,
        section: "§2.3 fact 4, §5.4",
        summary: "An incomplete 16- or 32-bit list (0x02/0x04) has never been observed from iOS."
    )
    public static let iosUUID32Uncertain = Rule(
        id: "ios.uuid.32-bit",
        severity: .warning,
        section: "§2.3 fact 3, §5.4",
        summary: "How iOS encodes 32-bit CBUUIDs is not observed."
    )
    public static let iosUUIDMixedWidths = Rule(
        id: "ios.uuid.mixed-widths",
        severity: .warning,
        section: "§5.4",
        summary: "The order of UUID lists of several widths is not observed."
    )
    public static let iosUUIDBase128 = Rule(
        id: "ios.uuid.base-128",
        severity: .warning,
        section: "§2.3 fact 3",
        summary: "A SIG-base UUID written in 128-bit form is sent as 16 bytes, not shortened."
    )
    public static let iosOverflowBitOrder = Rule(
        id: "ios.overflow.bit-order",
        severity: .warning,
        section: "§2.7, §5.1, §5.2",
        summary: "Which bit order current iOS uses in the overflow bitmap is unverified."
    )
    public static let iosOverflowCollision = Rule(
        id: "ios.overflow.collision",
        severity: .warning,
        section: "§2.7",
        summary: "Two overflow UUIDs set the same bit: scanners for one also find the other."
    )
    public static let iosBackgroundName = Rule(
        id: "ios.background.name-not-advertised",
        severity: .warning,
        section: "§2.1, §2.6",
        summary: "In the background the local name is not advertised."
    )
    public static let iosBackgroundOverflow = Rule(
        id: "ios.background.uuid-overflow",
        severity: .warning,
        section: "§2.1, §2.6",
        summary: "In the background every service UUID is in the overflow area."
    )
    public static let iosBackgroundPlacement = Rule(
        id: "ios.background.overflow-placement",
        severity: .warning,
        section: "§2.6, §5.6",
        summary: "Whether the background overflow area is in the app's ADV_IND or the system set's SCAN_RSP."
    )
    public static let iosBackgroundIBeacon = Rule(
        id: "ios.background.ibeacon-stops",
        severity: .warning,
        section: "§2.6, §4.1",
        summary: "An iBeacon advert from iOS stops when the app goes to the background."
    )
    public static let iosIBeaconMixed = Rule(
        id: "ios.ibeacon.mixed",
        severity: .warning,
        section: "§2.1, §4.1",
        summary: "iBeacon from iOS is CLBeaconRegion.peripheralData; mixing it with a name or UUIDs is undocumented."
    )

    // MARK: Android (§3)

    public static let androidDataTooLarge = Rule(
        id: "android.data-too-large",
        severity: .error,
        section: "§3",
        summary: "startAdvertising fails with ADVERTISE_FAILED_DATA_TOO_LARGE (1)."
    )
    public static let androidNameTruncated = Rule(
        id: "android.name.truncated",
        severity: .error,
        section: "§3",
        summary: "Names over 26 UTF-8 bytes are sent cut to 26 as a Shortened Local Name."
    )
    public static let androidNameUTF8Split = Rule(
        id: "android.name.utf8-split",
        severity: .warning,
        section: "§3, §5.8",
        summary: "The 26-byte cut falls inside a multi-byte UTF-8 character."
    )
    public static let androidNameAdapter = Rule(
        id: "android.name.adapter",
        severity: .info,
        section: "§3",
        summary: "Android advertises the adapter's name (setIncludeDeviceName), not a per-advert name."
    )
    public static let androidKeyUnsupported = Rule(
        id: "android.key.unsupported",
        severity: .error,
        section: "§3",
        summary: "AdvertiseData has no such field; it cannot be advertised."
    )
    public static let androidFlagsFixed = Rule(
        id: "android.flags.fixed",
        severity: .warning,
        section: "§3",
        summary: "The stack writes Flags itself; the plan's value is not used."
    )
    public static let androidFlagsVersion = Rule(
        id: "android.flags.version-dependent",
        severity: .warning,
        section: "§3",
        summary: "Connectable but not discoverable: older AOSP adds 3 bytes of Flags, newer does not."
    )

    /// All rules, for the documentation and its test.
    public static let all: [Rule] = [
        sourceUnresolved, sourceReader, sourceUUIDInvalid, sourceNoCall, sourceNotRead, sourceUnreadable,
        sourceUnreadableCall, sourceDepends, sourceBound, captureLinkLayer, sourceKeyUnmodelled,
        adLengthOverrun, adLengthZero, adStructureTooLong, adTypeUnknown, adFlagsInScanResponse, adFlagsDuplicate,
        adFlagsTrailingZero, adFlagsConflict, adFlagsReserved, adFlagsMissing, adUUIDListDuplicate, adUUIDListLength,
        adTxPowerLength, adAppearanceLength, adAppearanceDuplicate, adManufacturerShort, adServiceDataShort,
        adNameUTF8, adAppleOverflow, beaconInvalid,
        legacyAdvertisingTooLarge, legacyScanResponseTooLarge, extendedAdvertisingTooLarge,
        extendedScanResponseTooLarge, extendedChained, extendedReceivers, extendedConnectableScannable,
        iosKeyDropped, iosFlagsFixed, iosConnectableFixed, iosNameTruncated, iosNameScanResponse, iosNameUTF8Split,
        iosUUIDOverflow, iosUUIDPlacementUncertain, iosUUIDListTypeUncertain, iosUUID32Uncertain, iosUUIDMixedWidths,
        iosUUIDBase128, iosOverflowBitOrder, iosOverflowCollision, iosBackgroundName, iosBackgroundOverflow,
        iosBackgroundPlacement, iosBackgroundIBeacon, iosIBeaconMixed,
        androidDataTooLarge, androidNameTruncated, androidNameUTF8Split, androidNameAdapter, androidKeyUnsupported,
        androidFlagsFixed, androidFlagsVersion,
    ]
}
