internal import SwiftParser
internal import SwiftSyntax

/// Reads Swift sources with swift-syntax and reports every `startAdvertising(_:)` call with the
/// local name and service UUIDs of its advertisement dictionary.
///
/// All the files of one scan form one module: a constant declared in any of them resolves a
/// reference in any other. What is followed:
///
/// - string literals (escapes resolved, multi-line and raw strings; interpolation is unresolved),
///   `+` of strings, `String(…)`/`NSString(string:)` of a string;
/// - `let` (and, with a warning, `var`) constants at file scope, members of types, enums and
///   extensions written `Type.name`, `A.B.name`, `Module.Type.name`, `self.name`, `Self.name` or
///   just `name` inside the type, computed properties whose getter is one expression, local
///   bindings (`let`, `var`, `if let`, `guard let`) declared before the use in the same function,
///   and the raw values of `String` enum cases (`Service.heartRate.rawValue`);
/// - `CBUUID(string:)` with a literal or constant, `CBUUID(nsuuid: UUID(uuidString:))`, a constant
///   holding a `CBUUID`, `.name` where a `CBUUID` is expected (`extension CBUUID { static let … }`),
///   arrays written inline or held by constants, and `+` of arrays;
/// - the keys `CBAdvertisementDataLocalNameKey` and `CBAdvertisementDataServiceUUIDsKey`, with or
///   without a module prefix, their raw strings (`"kCBAdvDataLocalName"`), or constants holding
///   them; every other key is listed in `otherKeys`;
/// - the call's argument: a dictionary literal, `nil`, or a constant or variable initialised with a
///   dictionary literal (local, a member of the enclosing type, or global); for a local `var`,
///   keys set by `d[key] = value` or `d.updateValue(_:forKey:)` before the call are added.
///
/// Anything else is unresolved with a reason and a warning naming it; nothing is skipped. The
/// depth of declarations followed is bounded by `maximumResolutionDepth`, and a declaration that
/// depends on itself (`let a = b; let b = a`) is reported as a cycle.
///
/// A call is `startAdvertising` (a plain name or a member: `manager.startAdvertising`) called with
/// exactly one unlabelled argument and no trailing closure, which is the shape of
/// `CBPeripheralManager.startAdvertising(_:)`; an app's own `startAdvertising()` with no argument
/// is not one. `#if` branches are all read.
///
/// Output strings are raw source text and values; the caller escapes them for its format.
public struct SwiftAdvertisingScanner: Sendable {
    /// How many declarations deep a reference is followed before it is left unresolved.
    public var maximumResolutionDepth: Int

    public init(maximumResolutionDepth: Int = 32) {
        self.maximumResolutionDepth = maximumResolutionDepth
    }

    /// Scans files and directories (searched recursively for `*.swift`, skipping hidden entries such
    /// as `.build`). Throws, naming the path, when a path or a file found cannot be read.
    public func scan(paths: [String]) throws(SwiftAdvertisingScanError) -> SwiftAdvertisingScanResult {
        let files = try SourceFiles.swiftFiles(in: paths)
        var sources: [SwiftSourceFile] = []
        var encodingProblems: [String] = []
        for path in files {
            let bytes = try SourceFiles.contents(of: path)
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
        return result
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
        let resolver = Resolver(index: index, maximumDepth: maximumResolutionDepth)
        var calls: [SwiftAdvertisingCall] = []
        for unit in index.units {
            calls += Self.calls(in: unit).map { read($0.call, name: $0.name, resolver: resolver) }
        }
        return SwiftAdvertisingScanResult(files: sources.map(\.path), calls: calls, warnings: warnings)
    }

    /// The `.swift` files `scan(paths:)` would read, in order.
    public static func swiftFiles(in paths: [String]) throws(SwiftAdvertisingScanError) -> [String] {
        try SourceFiles.swiftFiles(in: paths)
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

    private func read(_ call: FunctionCallExprSyntax, name: TokenSyntax, resolver: Resolver) -> SwiftAdvertisingCall {
        let index = resolver.index
        _ = resolver.takeWarnings()
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
            result.dictionary = .literal(found.literal)
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
                result.localName = removes ? nil : localName(entry.value, resolver: resolver)
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
        switch resolver.string(value) {
        case .success(let name):
            return SwiftAdvertisingValue(
                expression: written,
                location: resolver.index.location(of: value),
                resolution: .resolved(name)
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
