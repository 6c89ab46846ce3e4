internal import BLEAdvBudget
internal import SwiftParser
internal import SwiftSyntax

/// Reads Swift sources with swift-syntax and reports every `startAdvertising(_:)` call with the
/// local name and service UUIDs of its advertisement dictionary.
///
/// All the files of one scan form one module: a constant declared in any of them resolves a
/// reference in any other. What is followed:
///
/// - string literals (escapes resolved, multi-line and raw strings), interpolation (exact when
///   every interpolated expression is a string known here, else the literal start and end as a
///   partial value), `+` of strings (known and unknown parts give a partial value),
///   `String(…)`/`NSString(string:)` of a string;
/// - `let` (and, with a warning, `var`) constants at file scope, members of types, enums and
///   extensions written `Type.name`, `A.B.name`, `Module.Type.name`, `self.name`, `Self.name` or
///   just `name` inside the type, computed properties (one variant per `return`), local bindings
///   (`let`, `var`, `if let`, `guard let`) declared before the use in the same function, locals
///   declared without a value and assigned in each branch of an `if` or `switch` (one variant per
///   branch), ternaries and `if`/`switch` expressions (one variant per branch), and the raw values
///   of `String` enum cases (`Service.heartRate.rawValue`);
/// - stored `var`s (members of types, globals), to their initial value and every `x = value` or
///   `self.x = value` in the sources (inside the type and its extensions for a member): one value
///   is used with a `variable-value` warning naming where it is assigned, several give one variant
///   each (`service = … (assigned at App.swift:12)`); `nil` is not counted; `+=`, `inout` and
///   mutating methods leave it unresolved;
/// - declarations in the clauses of an `#if`: one variant per clause (`#if DEBUG`, `#else`), the
///   same clause for every `#if` with the same conditions;
/// - calls of functions declared in the sources (`Config.advertisementData()`, `name(for: x)`):
///   one variant per `return`, the parameters bound to the call's arguments;
/// - parameters, to the arguments of every call of their function in the sources (one variant
///   per call, labelled `service = Chat.service (call at Chat.swift:40)`); `param.property` to
///   the argument of that label in the initialiser call that built the argument
///   (`CBMutableService(type:primary:)` gives `service.uuid`);
/// - `CBUUID(string:)` with a literal or constant, `CBUUID(nsuuid: UUID(uuidString:))`, a constant
///   holding a `CBUUID`, `.name` where a `CBUUID` is expected (`extension CBUUID { static let … }`),
///   arrays written inline or held by constants, and `+` of arrays;
/// - the keys `CBAdvertisementDataLocalNameKey` and `CBAdvertisementDataServiceUUIDsKey`, with or
///   without a module prefix, their raw strings (`"kCBAdvDataLocalName"`), or constants holding
///   them; every other key is listed in `otherKeys`;
/// - the call's argument: a dictionary literal, `nil`, a constant or variable initialised with a
///   dictionary literal (local, a member of the enclosing type, or global), a function's result,
///   a parameter, or `region.peripheralData(withMeasuredPower:)` (the iBeacon advert, the region
///   followed to its `CLBeaconRegion` initialiser); for a local `var`, keys set by
///   `d[key] = value` or `d.updateValue(_:forKey:)` before the call are added; for a stored `var`
///   assigned one dictionary literal, the keys set after that assignment in the same statements;
/// - a local name evidently not a String (an array, a number, `Data`) is not counted, with a
///   `wrong-value-type` warning: iOS drops it.
///
/// Anything else is unresolved with a reason and a warning naming it; nothing is skipped. The
/// depth of declarations followed is bounded by `maximumResolutionDepth`; the alternatives at one
/// choice point, and the variants of one call, by `maximumVariants` (beyond, the value is
/// unresolved with the reason). A declaration that depends on itself (`let a = b; let b = a`) is
/// reported as a cycle.
///
/// Which calls are CoreBluetooth's: `startAdvertising` (a plain name or a member:
/// `manager.startAdvertising`) called with exactly one unlabelled argument and no trailing
/// closure, the shape of `CBPeripheralManager.startAdvertising(_:)`. So an app's own
/// `startAdvertising()` with no argument is not one, nor the string `"startAdvertising"` of a
/// Flutter method channel. One more exception, for an app's own method of the same shape: when the
/// sources declare `func startAdvertising(_ x: T)` where `T` is a struct, class, enum or actor
/// declared in the sources (not a dictionary, optional or type alias), a call whose argument is
/// evidently a `T` (`T(…)`, `T.init(…)`, or a name declared or passed as a `T`) is that method's
/// and not reported. Nor is `x.startAdvertising(…)` when `x` is declared with a type (annotation,
/// initialiser call or parameter type) that is evidently not a `CBPeripheralManager`: neither that
/// class, nor a class of the sources inheriting from it, nor a protocol, generic parameter or
/// superclass (`NSObject`, `CBManager`) one could be held as (`let lm = CLLocationManager()`).
/// Every other call is reported, with an unknown dictionary when its argument cannot be read: a
/// real `CBPeripheralManager` call is never dropped.
///
/// Output strings are raw source text and values; the caller escapes them for its format.
public struct SwiftAdvertisingScanner: Sendable {
    /// How many declarations deep a reference is followed before it is left unresolved.
    public var maximumResolutionDepth: Int
    /// How many alternatives one choice point may have, and how many variants one call.
    public var maximumVariants: Int

    public init(maximumResolutionDepth: Int = 32, maximumVariants: Int = 16) {
        self.maximumResolutionDepth = maximumResolutionDepth
        self.maximumVariants = maximumVariants
    }

    /// Scans files and directories (searched recursively for `*.swift`, skipping hidden entries such
    /// as `.build`). Throws, naming the path, when a path or a file found cannot be read.
    public func scan(paths: [String]) throws(SwiftAdvertisingScanError) -> SwiftAdvertisingScanResult {
        let read = scan(files: try Self.swiftFiles(in: paths))
        if let first = read.unreadable.first { throw first }
        return read.result
    }

    /// Scans `files` as one module; a file that cannot be read is left out and returned with the
    /// system's reason, the others are still read.
    public func scan(files: [String]) -> (result: SwiftAdvertisingScanResult, unreadable: [SwiftAdvertisingScanError]) {
        var sources: [SwiftSourceFile] = []
        var encodingProblems: [String] = []
        var unreadable: [SwiftAdvertisingScanError] = []
        for path in files {
            let bytes: [UInt8]
            do throws(SourceFiles.Unreadable) {
                bytes = try SourceFiles.contents(of: path)
            } catch {
                unreadable.append(.unreadable(path: error.path, reason: error.reason))
                continue
            }
            if let text = String(validating: bytes, as: UTF8.self) {
                sources.append(SwiftSourceFile(path: path, text: text))
            } else {
                sources.append(SwiftSourceFile(path: path, text: String(decoding: bytes, as: UTF8.self)))
                encodingProblems.append(path)
            }
        }
        var result = scan(sources: sources)
        let encodingWarnings = encodingProblems.map { path in
            SwiftAdvertisingWarning(
                kind: .invalidEncoding,
                location: SwiftSourceLocation(file: path, line: 1, column: 1),
                message: "\(path) is not valid UTF-8; it was read with replacement characters"
            )
        }
        result.warnings = encodingWarnings + result.warnings
        return (result, unreadable)
    }

    /// Scans sources given as text, as one module.
    public func scan(sources: [SwiftSourceFile]) -> SwiftAdvertisingScanResult {
        let index = ModuleIndex()
        var warnings: [SwiftAdvertisingWarning] = []
        for source in sources {
            let unit = SourceUnit(path: source.path, tree: Parser.parse(source: source.text))
            index.add(unit)
            if unit.tree.hasError {
                let problem = Self.firstError(in: Syntax(unit.tree)) ?? Syntax(unit.tree)
                let location = index.location(of: problem)
                warnings.append(
                    SwiftAdvertisingWarning(
                        kind: .parseError,
                        location: location,
                        message: "\(source.path) does not parse (first error at line \(location.line), column "
                            + "\(location.column)); what swift-syntax recovered from it was still read"
                    )
                )
            }
        }
        let resolver = Resolver(index: index, maximumDepth: maximumResolutionDepth, maximumVariants: maximumVariants)
        let ownMethods = OwnMethods(index: index)
        let receivers = Receivers(index: index)
        var calls: [SwiftAdvertisingCall] = []
        for unit in index.units {
            for found in Self.calls(in: unit)
            where !ownMethods.isOwnCall(found.call) && !receivers.isOtherType(found.call) {
                calls += readVariants(found.call, name: found.name, resolver: resolver)
            }
        }
        return SwiftAdvertisingScanResult(files: sources.map(\.path), calls: calls, warnings: warnings)
    }

    /// The `.swift` files `scan(paths:)` would read, in order.
    public static func swiftFiles(in paths: [String]) throws(SwiftAdvertisingScanError) -> [String] {
        do throws(SourceFiles.Unreadable) {
            return try SourceFiles.files(in: paths) { $0.hasSuffix(".swift") }
        } catch {
            throw .unreadable(path: error.path, reason: error.reason)
        }
    }

    // MARK: Calls

    private static func calls(in unit: SourceUnit) -> [(call: FunctionCallExprSyntax, name: TokenSyntax)] {
        var result: [(call: FunctionCallExprSyntax, name: TokenSyntax)] = []
        for token in unit.tree.tokens(viewMode: .sourceAccurate) {
            guard case .identifier(let text) = token.tokenKind,
                text == "startAdvertising" || text == "`startAdvertising`",
                let reference = token.parent?.as(DeclReferenceExprSyntax.self), reference.argumentNames == nil
            else { continue }
            var callee = Syntax(reference)
            if let member = reference.parent?.as(MemberAccessExprSyntax.self), member.declName.id == reference.id {
                callee = Syntax(member)
            }
            guard let call = callee.parent?.as(FunctionCallExprSyntax.self), call.calledExpression.id == callee.id,
                call.arguments.count == 1, call.arguments.first?.label == nil, call.trailingClosure == nil
            else { continue }
            result.append((call, token))
        }
        return result
    }

    /// Reads a call once per path (see Variants.swift): at most `maximumVariants` paths, else once
    /// more with every choice unresolved. Paths with the same values are merged.
    private func readVariants(_ call: FunctionCallExprSyntax, name: TokenSyntax, resolver: Resolver)
        -> [SwiftAdvertisingCall]
    {
        var readings: [SwiftAdvertisingCall] = []
        var script: [Int]? = []
        while let current = script {
            guard readings.count < maximumVariants else {
                resolver.startPath(script: [], collapsed: true)
                var collapsed = read(call, name: name, resolver: resolver)
                collapsed.warnings.insert(
                    SwiftAdvertisingWarning(
                        kind: .tooManyVariants,
                        location: collapsed.location,
                        message: "this call has more than \(maximumVariants) variants; values chosen by a "
                            + "condition, configuration or call are left unresolved"
                    ),
                    at: 0
                )
                return [collapsed]
            }
            resolver.startPath(script: current, collapsed: false)
            var reading = read(call, name: name, resolver: resolver)
            reading.variant = resolver.plan.label
            readings.append(reading)
            script = resolver.plan.next()
        }
        return Self.merged(readings)
    }

    /// The readings with those of the same values merged, their labels joined with " or "; one
    /// reading left has no label.
    static func merged(_ readings: [SwiftAdvertisingCall]) -> [SwiftAdvertisingCall] {
        var result: [SwiftAdvertisingCall] = []
        for reading in readings {
            if let same = result.firstIndex(where: { VariantValues($0) == VariantValues(reading) }) {
                if let label = reading.variant {
                    result[same].variant = result[same].variant.map { $0 + " or " + label } ?? label
                }
            } else {
                result.append(reading)
            }
        }
        if result.count == 1 { result[0].variant = nil }
        return result
    }

    private func read(_ call: FunctionCallExprSyntax, name: TokenSyntax, resolver: Resolver) -> SwiftAdvertisingCall {
        let index = resolver.index
        guard let argument = call.arguments.first?.expression else {
            return SwiftAdvertisingCall(
                location: index.location(of: name),
                argument: "",
                dictionary: .unresolved(reason: "the call has no argument")
            )
        }
        var result = SwiftAdvertisingCall(
            location: index.location(of: name),
            argument: argument.trimmedDescription,
            dictionary: .nilArgument
        )
        switch resolver.dictionary(argument, call: call) {
        case .failure(let failure):
            result.dictionary = .unresolved(reason: failure.message)
            resolver.warn(
                .unresolvedDictionary,
                at: argument,
                "advertisement data `\(argument.trimmedDescription)` could not be resolved: \(failure.message)"
            )
        case .success(nil):
            result.dictionary = .nilArgument
        case .success(let found?):
            if let beacon = found.beacon {
                result.dictionary = .beacon(found.literal)
                result.beacon = beacon
            } else {
                result.dictionary = .literal(found.literal)
            }
            readEntries(found.entries, into: &result, resolver: resolver)
        }
        result.warnings = resolver.takeWarnings()
        return result
    }

    private func readEntries(
        _ entries: [DictionaryEntry],
        into result: inout SwiftAdvertisingCall,
        resolver: Resolver
    ) {
        let index = resolver.index
        var literalKeys = Set<String>()
        for entry in entries {
            if let condition = entry.condition {
                resolver.warn(
                    .conditionalValue,
                    at: entry.key,
                    "`\(entry.text)` is set \(condition); the reader counts it as always set"
                )
            }
            let removes = !entry.fromLiteral && Resolver.strip(entry.value).is(NilLiteralExprSyntax.self)
            let keyName: String
            switch resolver.key(entry.key) {
            case .success(.localName):
                keyName = "CBAdvertisementDataLocalNameKey"
                if !removes, let kind = resolver.nonStringKind(entry.value) {
                    resolver.warn(
                        .wrongValueType,
                        at: entry.value,
                        "the local name `\(entry.value.trimmedDescription)` is \(kind), not a String: iOS does not "
                            + "advertise it (CBAdvertisementDataLocalNameKey must be an NSString)"
                    )
                    result.localName = nil
                } else {
                    result.localName = removes ? nil : localName(entry.value, resolver: resolver)
                }
            case .success(.serviceUUIDs):
                keyName = "CBAdvertisementDataServiceUUIDsKey"
                result.serviceUUIDs = removes ? nil : serviceUUIDs(entry.value, resolver: resolver)
            case .success(.other(let name)):
                keyName = name
                result.otherKeys.removeAll { $0.key == name && $0.isKeyResolved }
                if !removes {
                    result.otherKeys.append(
                        SwiftAdvertisingOtherKey(
                            key: name,
                            keyExpression: entry.key.trimmedDescription,
                            valueExpression: entry.value.trimmedDescription,
                            location: index.location(of: entry.key),
                            isKeyResolved: true
                        )
                    )
                }
            case .failure(let failure):
                keyName = entry.key.trimmedDescription
                result.otherKeys.append(
                    SwiftAdvertisingOtherKey(
                        key: entry.key.trimmedDescription,
                        keyExpression: entry.key.trimmedDescription,
                        valueExpression: entry.value.trimmedDescription,
                        location: index.location(of: entry.key),
                        isKeyResolved: false
                    )
                )
                resolver.warn(
                    .unresolvedKey,
                    at: entry.key,
                    "key `\(entry.key.trimmedDescription)` could not be resolved: \(failure.message); if it is the "
                        + "local name or service UUIDs key, that value is not checked"
                )
            }
            if entry.fromLiteral, !literalKeys.insert(keyName).inserted {
                resolver.warn(
                    .duplicateKey,
                    at: entry.key,
                    "`\(keyName)` appears twice in the dictionary literal; Swift traps at run time on duplicate keys"
                )
            }
        }
    }

    private func localName(_ value: ExprSyntax, resolver: Resolver) -> SwiftAdvertisingValue {
        let written = value.trimmedDescription
        switch resolver.text(value) {
        case .success(.exact(let name)):
            return SwiftAdvertisingValue(
                expression: written,
                location: resolver.index.location(of: value),
                resolution: .resolved(name)
            )
        case .success(.partial(let prefix, let suffix, let unknown)):
            resolver.warn(
                .unresolvedValue,
                at: value,
                "local name `\(written)` is known only in part: \(unknown.message)"
            )
            return SwiftAdvertisingValue(
                expression: written,
                location: resolver.index.location(of: value),
                resolution: .partial(prefix: prefix, suffix: suffix, reason: unknown.message)
            )
        case .failure(let failure):
            resolver.warn(
                .unresolvedValue,
                at: value,
                "local name `\(written)` could not be resolved: \(failure.message)"
            )
            return SwiftAdvertisingValue(
                expression: written,
                location: resolver.index.location(of: value),
                resolution: .unresolved(reason: failure.message)
            )
        }
    }

    private func serviceUUIDs(_ value: ExprSyntax, resolver: Resolver) -> SwiftServiceUUIDList {
        let index = resolver.index
        let written = value.trimmedDescription
        switch resolver.uuidList(value) {
        case .failure(let failure):
            resolver.warn(
                .unresolvedList,
                at: value,
                "service UUIDs `\(written)` could not be read as an array: \(failure.message)"
            )
            return SwiftServiceUUIDList(
                expression: written,
                location: index.location(of: value),
                elements: [],
                unresolvedReason: failure.message
            )
        case .success(let elements):
            let values = elements.map { element, resolution in
                let text = element.trimmedDescription
                switch resolution {
                case .success(let uuid):
                    return SwiftAdvertisingValue(
                        expression: text,
                        location: index.location(of: element),
                        resolution: .resolved(uuid)
                    )
                case .failure(let failure):
                    resolver.warn(
                        .unresolvedValue,
                        at: element,
                        "service UUID `\(text)` could not be resolved: \(failure.message)"
                    )
                    return SwiftAdvertisingValue(
                        expression: text,
                        location: index.location(of: element),
                        resolution: .unresolved(reason: failure.message)
                    )
                }
            }
            return SwiftServiceUUIDList(expression: written, location: index.location(of: value), elements: values)
        }
    }

    // MARK: Parse errors

    /// The first missing token or unexpected text in source order.
    private static func firstError(in node: Syntax) -> Syntax? {
        if let token = node.as(TokenSyntax.self) {
            return token.presence == .missing ? node : nil
        }
        if node.is(UnexpectedNodesSyntax.self) { return node }
        guard node.hasError else { return nil }
        for child in node.children(viewMode: .all) {
            if let found = firstError(in: child) { return found }
        }
        return nil
    }
}
