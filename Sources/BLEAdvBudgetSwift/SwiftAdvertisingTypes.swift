// The plain output types of the Swift source reader. None of them mentions swift-syntax.
//
// Every string here is raw: source text as written (which may hold newlines, quotes, control
// characters or anything else a Swift file can hold) and values as the program would see them.
// Nothing is escaped for any output format; the caller escapes for its text, JSON, GitHub or JUnit
// output.

public import BLEAdvBudget

/// A place in a Swift source file.
///
/// `line` and `column` are 1-based; `column` counts UTF-8 bytes, as swift-syntax and the Swift
/// compiler do. `file` is the path as it was found: the path given, or a directory given joined with
/// the file's path inside it.
public struct SwiftSourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`.
    public var description: String { "\(file):\(line):\(column)" }

    public static func < (lhs: SwiftSourceLocation, rhs: SwiftSourceLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}

/// One value of an advertisement dictionary: the local name, or one service UUID.
public struct SwiftAdvertisingValue: Sendable, Hashable {
    /// What the value turned out to be.
    public enum Resolution: Sendable, Hashable {
        /// The string the program will use: the local name, or the UUID string as written in
        /// `CBUUID(string:)` (not normalised: `"180d"` stays `"180d"`).
        case resolved(String)
        /// The value is not known from the sources. `reason` names the expression that could not
        /// be read and why, with the constants followed to reach it.
        case unresolved(reason: String)
        /// A string whose literal parts around a run-time part are known: `"bitchat-\(peerID)"` is
        /// prefix `"bitchat-"`, suffix `""`. `reason` says what is not known, as for `unresolved`.
        case partial(prefix: String, suffix: String, reason: String)
    }

    /// The expression as written where the value is given (for a UUID taken from a constant
    /// array, the array element as written in the constant's declaration).
    public var expression: String
    /// Where `expression` starts.
    public var location: SwiftSourceLocation
    public var resolution: Resolution

    public init(expression: String, location: SwiftSourceLocation, resolution: Resolution) {
        self.expression = expression
        self.location = location
        self.resolution = resolution
    }

    /// The resolved string, or nil when unresolved.
    public var resolvedValue: String? {
        if case .resolved(let value) = resolution { return value }
        return nil
    }

    /// Why the value is unresolved (or only partly known), or nil when resolved.
    public var unresolvedReason: String? {
        switch resolution {
        case .resolved: nil
        case .unresolved(let reason), .partial(_, _, let reason): reason
        }
    }
}

/// The value of `CBAdvertisementDataServiceUUIDsKey`.
public struct SwiftServiceUUIDList: Sendable, Hashable {
    /// The value as written in the dictionary.
    public var expression: String
    public var location: SwiftSourceLocation
    /// The UUIDs in order, each resolved or not. Empty when `unresolvedReason` is set.
    public var elements: [SwiftAdvertisingValue]
    /// Set when the value could not be read as an array at all (a function call, a parameter, a
    /// single `CBUUID` instead of an array…): how many UUIDs it holds is unknown.
    public var unresolvedReason: String?

    public init(
        expression: String,
        location: SwiftSourceLocation,
        elements: [SwiftAdvertisingValue],
        unresolvedReason: String? = nil
    ) {
        self.expression = expression
        self.location = location
        self.elements = elements
        self.unresolvedReason = unresolvedReason
    }

    /// The UUID strings when the list and every element are resolved, else nil.
    public var resolvedUUIDs: [String]? {
        guard unresolvedReason == nil else { return nil }
        var result: [String] = []
        for element in elements {
            guard let value = element.resolvedValue else { return nil }
            result.append(value)
        }
        return result
    }
}

/// A key of the dictionary other than the local name and the service UUIDs, for example
/// `CBAdvertisementDataManufacturerDataKey` (which `CBPeripheralManager` does not advertise).
public struct SwiftAdvertisingOtherKey: Sendable, Hashable {
    /// The key's name: the CoreBluetooth constant (`CBAdvertisementDataServiceDataKey`, without a
    /// module prefix), the string of a literal key that is not a known raw key value, or the key's
    /// expression when it could not be resolved (`isKeyResolved` false; there is also a warning).
    public var key: String
    /// The key as written.
    public var keyExpression: String
    /// The value as written.
    public var valueExpression: String
    /// Where the key is written.
    public var location: SwiftSourceLocation
    public var isKeyResolved: Bool

    public init(
        key: String,
        keyExpression: String,
        valueExpression: String,
        location: SwiftSourceLocation,
        isKeyResolved: Bool
    ) {
        self.key = key
        self.keyExpression = keyExpression
        self.valueExpression = valueExpression
        self.location = location
        self.isKeyResolved = isKeyResolved
    }
}

/// The dictionary of `CLBeaconRegion.peripheralData(withMeasuredPower:)`: an iBeacon advert, where
/// it is written and what was read of it.
public struct SwiftBeaconAdvertisement: Sendable, Hashable {
    /// Where the `peripheralData(withMeasuredPower:)` call is written.
    public var location: SwiftSourceLocation
    /// The call as written, and its values as the engine takes them: the proximity UUID string
    /// as written in `UUID(uuidString:)`, major, minor and measured power. A value nil there is
    /// not known from the sources (there is a warning naming it), except `measuredPower`, which
    /// is also nil for `nil` (the device's own calibrated value).
    public var values: SourceBeacon

    public init(location: SwiftSourceLocation, values: SourceBeacon) {
        self.location = location
        self.values = values
    }
}

/// Where the dictionary of a `startAdvertising` call came from.
public enum SwiftAdvertisingDictionarySource: Sendable, Hashable {
    /// A dictionary literal, given in the call or as the initial value of the constant or variable
    /// the call names; the location is the literal's.
    case literal(SwiftSourceLocation)
    /// `startAdvertising(nil)`: advertising with no data of the app's.
    case nilArgument
    /// `CLBeaconRegion.peripheralData(withMeasuredPower:)`, possibly with keys added later; the
    /// location is the `peripheralData` call's, the values are in `SwiftAdvertisingCall.beacon`.
    case beacon(SwiftSourceLocation)
    /// The argument could not be followed to a dictionary literal; nothing of it is known.
    case unresolved(reason: String)
}

/// Something the reader could not do exactly, or a fact the checker should report.
public struct SwiftAdvertisingWarning: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A local name or one service UUID could not be resolved.
        case unresolvedValue = "unresolved-value"
        /// The region, UUID, major, minor or measured power of an iBeacon advert could not be resolved.
        case unresolvedBeacon = "unresolved-beacon"
        /// The service UUIDs value could not be read as an array.
        case unresolvedList = "unresolved-list"
        /// The call's argument could not be followed to a dictionary literal.
        case unresolvedDictionary = "unresolved-dictionary"
        /// A key of the dictionary could not be resolved to a name.
        case unresolvedKey = "unresolved-key"
        /// The same key twice in one dictionary literal (a run-time trap in Swift).
        case duplicateKey = "duplicate-key"
        /// A value set under a condition, or a dictionary changed in a way the reader does not follow.
        case conditionalValue = "conditional-value"
        /// A `var` was read: its initial value is used, though it may change at run time.
        case variableValue = "variable-value"
        /// A value of a key that is evidently not of the type CoreBluetooth requires (a local name
        /// that is an array, a number or `Data`, not a String): iOS drops it silently.
        case wrongValueType = "wrong-value-type"
        /// A `CBUUID(string:)` argument that is not a UUID string CoreBluetooth accepts.
        case invalidUUID = "invalid-uuid"
        /// A name declared more than once outside `#if` alternatives (for example in two files of
        /// different modules scanned together); the first is used.
        case ambiguousDeclaration = "ambiguous-declaration"
        /// A value with more alternatives (branches, `#if` clauses, call sites, returns) than the
        /// reader lists, or followed through more calls than it follows.
        case tooManyVariants = "too-many-variants"
        /// A file that does not parse; what swift-syntax recovered from it was still read.
        case parseError = "parse-error"
        /// A file that is not valid UTF-8; it was read with replacement characters.
        case invalidEncoding = "invalid-encoding"
    }

    public var kind: Kind
    public var location: SwiftSourceLocation
    /// A sentence naming the expression or file concerned. Raw text, not escaped.
    public var message: String

    public init(kind: Kind, location: SwiftSourceLocation, message: String) {
        self.kind = kind
        self.location = location
        self.message = message
    }

    /// `file:line:column: warning: message`.
    public var description: String { "\(location): warning: \(message)" }
}

/// One `startAdvertising(_:)` call and what its dictionary holds, on one path to it.
///
/// A call whose values depend on the path taken (an `if`/`else` or `switch` assigning a value, a
/// ternary, `#if` alternatives, a parameter with several call sites, a function with several
/// `return`s) is reported once per path, each with its `variant`; paths giving the same values are
/// reported once, their labels joined with " or ".
public struct SwiftAdvertisingCall: Sendable, Hashable {
    /// Where the name `startAdvertising` is written in the call.
    public var location: SwiftSourceLocation
    /// The path this reading holds for, its choices joined with ", ": `#if DEBUG`,
    /// `if pm5Mode (Rower.swift:12)`, `service = ChatService.service (call at Chat.swift:40)`; nil
    /// when the call has one path.
    public var variant: String?
    /// The call's argument as written.
    public var argument: String
    public var dictionary: SwiftAdvertisingDictionarySource
    /// The value of `CBAdvertisementDataLocalNameKey`, or nil when the key is absent (or the
    /// dictionary is unresolved, or the value is evidently not a String: a `wrong-value-type`
    /// warning names it).
    public var localName: SwiftAdvertisingValue?
    /// The value of `CBAdvertisementDataServiceUUIDsKey`, or nil when the key is absent (or the
    /// dictionary is unresolved).
    public var serviceUUIDs: SwiftServiceUUIDList?
    /// Every other key, in the order written.
    public var otherKeys: [SwiftAdvertisingOtherKey]
    /// The iBeacon advert, when the dictionary is `CLBeaconRegion.peripheralData(withMeasuredPower:)`.
    public var beacon: SwiftBeaconAdvertisement?
    /// This call's warnings: every unresolved value, list, key or dictionary has one that names it.
    public var warnings: [SwiftAdvertisingWarning]

    public init(
        location: SwiftSourceLocation,
        variant: String? = nil,
        argument: String,
        dictionary: SwiftAdvertisingDictionarySource,
        localName: SwiftAdvertisingValue? = nil,
        serviceUUIDs: SwiftServiceUUIDList? = nil,
        otherKeys: [SwiftAdvertisingOtherKey] = [],
        beacon: SwiftBeaconAdvertisement? = nil,
        warnings: [SwiftAdvertisingWarning] = []
    ) {
        self.location = location
        self.variant = variant
        self.beacon = beacon
        self.argument = argument
        self.dictionary = dictionary
        self.localName = localName
        self.serviceUUIDs = serviceUUIDs
        self.otherKeys = otherKeys
        self.warnings = warnings
    }
}

/// What one scan found.
public struct SwiftAdvertisingScanResult: Sendable, Hashable {
    /// The Swift files read, in the order read.
    public var files: [String]
    /// The calls, ordered by file (in `files` order), then line and column; a call with several
    /// variants is listed once per variant, in the order its paths were enumerated.
    public var calls: [SwiftAdvertisingCall]
    /// Warnings about files: ones that do not parse, or are not UTF-8.
    public var warnings: [SwiftAdvertisingWarning]

    public init(files: [String], calls: [SwiftAdvertisingCall], warnings: [SwiftAdvertisingWarning]) {
        self.files = files
        self.calls = calls
        self.warnings = warnings
    }

    /// The file warnings, then every call's warnings.
    public var allWarnings: [SwiftAdvertisingWarning] {
        warnings + calls.flatMap(\.warnings)
    }
}

/// A Swift source given as text, for `SwiftAdvertisingScanner.scan(sources:)`.
public struct SwiftSourceFile: Sendable, Hashable {
    /// The path reported in locations.
    public var path: String
    public var text: String

    public init(path: String, text: String) {
        self.path = path
        self.text = text
    }
}

/// A path that could not be read.
public enum SwiftAdvertisingScanError: Error, Hashable, CustomStringConvertible {
    /// `path` (a file or a directory, given or found) could not be read; `reason` is the system's.
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        }
    }
}
