internal import BLEAdvBudget
internal import SwiftParser
internal import SwiftSyntax

/// One key-value pair of an advertisement dictionary: from its literal, or set later by subscript.
struct DictionaryEntry {
    let key: ExprSyntax
    let value: ExprSyntax
    let fromLiteral: Bool
    /// For an assignment inside a nested block: where, for the warning.
    let condition: String?
    /// The assignment as written, for messages.
    let text: String
}

struct FoundDictionary {
    let literal: SwiftSourceLocation
    var entries: [DictionaryEntry]
    /// Set for `CLBeaconRegion.peripheralData(withMeasuredPower:)`.
    var beacon: SwiftBeaconAdvertisement? = nil
}

/// Resolves expressions to strings, UUIDs, UUID lists, keys and dictionaries, following constants
/// through the module index. Depth and cycles are bounded: a declaration already being followed,
/// or more than `maximumDepth` declarations deep, is unresolved.
///
/// Where a value depends on the path taken (branches, `#if`, call sites, returns), the resolver
/// takes one alternative per choice point as `plan` says (Variants.swift); the scanner reads a
/// call once per path.
final class Resolver {
    let index: ModuleIndex
    let maximumDepth: Int
    /// At most this many alternatives at one choice point, and paths for one call.
    let maximumVariants: Int
    /// The declarations, parameters and calls being followed, innermost last.
    var stack: [(id: SyntaxIdentifier, name: String)] = []
    private var warnings: [SwiftAdvertisingWarning] = []
    /// The choices of the current path.
    var plan = VariantPlan()
    /// The call whose parameters a function's body sees on the current path, by function.
    var bindings: [SyntaxIdentifier: CallBinding] = [:]
    /// What the sources write to each stored `var` asked about, by its declaration.
    var storedWritesCache: [SyntaxIdentifier: StoredWrites] = [:]

    init(index: ModuleIndex, maximumDepth: Int, maximumVariants: Int) {
        self.index = index
        self.maximumDepth = max(1, maximumDepth)
        self.maximumVariants = max(1, maximumVariants)
    }

    /// Starts reading one path of a call.
    func startPath(script: [Int], collapsed: Bool) {
        plan.start(script: script, collapsed: collapsed)
        bindings = [:]
        stack = []
        _ = takeWarnings()
    }

    // MARK: Warnings

    func warn(_ kind: SwiftAdvertisingWarning.Kind, at node: some SyntaxProtocol, _ message: String) {
        let warning = SwiftAdvertisingWarning(kind: kind, location: index.location(of: node), message: message)
        if !warnings.contains(warning) { warnings.append(warning) }
    }

    /// The warnings since the last call, in the order raised.
    func takeWarnings() -> [SwiftAdvertisingWarning] {
        defer { warnings = [] }
        return warnings
    }

    // MARK: Strings

    /// A string known exactly; a partly known one is unresolved with its reason.
    func string(_ expression: ExprSyntax) -> Result<String, Unresolved> {
        text(expression).flatMap { value in
            switch value {
            case .exact(let string): .success(string)
            case .partial(_, _, let unknown): .failure(unknown)
            }
        }
    }

    static func literalValue(_ literal: StringLiteralExprSyntax) -> Result<String, Unresolved> {
        if let value = literal.representedLiteralValue { return .success(value) }
        let interpolated = literal.segments.contains {
            if case .expressionSegment = $0 { return true }
            return false
        }
        if interpolated {
            return .failure(
                Unresolved(reason: "`\(literal.trimmedDescription)` uses string interpolation, known only at run time")
            )
        }
        return .failure(Unresolved(reason: "the string literal `\(literal.trimmedDescription)` does not parse"))
    }

    /// `Case.name.rawValue` of an enum case with a string raw value.
    func rawValue(_ expr: ExprSyntax) -> Result<String, Unresolved>? {
        guard let member = expr.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "rawValue",
            let base = member.base, let lookup = lookupReference(Self.strip(base), implicitType: nil)
        else { return nil }
        switch lookup {
        case .runtime(let reason), .notFound(let reason):
            return .failure(Unresolved(reason: reason))
        case .parameter(let parameter, let function):
            return .failure(
                Unresolved(
                    reason: "`\(expr.trimmedDescription)`: `\(parameter.secondName ?? parameter.firstName)` is a "
                        + "parameter of `func \(function.name.text)`; the raw value of its argument is not followed"
                )
            )
        case .declaration(let declaration):
            guard let info = declaration.enumCase else {
                return .failure(
                    Unresolved(reason: "`\(expr.trimmedDescription)`: `\(declaration.displayName)` is not an enum case")
                )
            }
            if let raw = info.rawValue { return string(raw) }
            if let implicit = info.implicitStringRawValue { return .success(implicit) }
            return .failure(
                Unresolved(reason: "`\(declaration.displayName)` has no string raw value in the scanned sources")
            )
        }
    }

    // MARK: UUIDs

    /// One service UUID: `CBUUID(string:)`, `CBUUID(nsuuid: UUID(uuidString:))`, or a constant
    /// holding one.
    func uuid(_ expression: ExprSyntax) -> Result<String, Unresolved> {
        let expr = Self.strip(expression)
        if let followed = followShapes(expr, { self.uuid($0) }) { return followed }
        if let call = expr.as(FunctionCallExprSyntax.self) {
            guard Self.isCBUUIDCall(call) else {
                return .failure(Unresolved(reason: "`\(call.trimmedDescription)` is a call, evaluated at run time"))
            }
            guard call.arguments.count == 1, let argument = call.arguments.first else {
                return .failure(
                    Unresolved(reason: "`\(call.trimmedDescription)` builds a CBUUID from values known at run time")
                )
            }
            switch argument.label?.text {
            case "string":
                let result = string(argument.expression)
                if case .success(let text) = result, !Self.isUUIDString(text) {
                    warn(
                        .invalidUUID,
                        at: argument.expression,
                        "`\(call.trimmedDescription)` is given \"\(text)\", which is not a UUID string CoreBluetooth "
                            + "accepts (4 or 8 hex digits, optionally after 0x, or 8-4-4-4-12 hex digits)"
                    )
                }
                return result
            case "nsuuid":
                return nsuuid(argument.expression)
            default:
                return .failure(
                    Unresolved(reason: "`\(call.trimmedDescription)` builds a CBUUID from data known at run time")
                )
            }
        }
        if let literal = expr.as(StringLiteralExprSyntax.self) {
            return .failure(
                Unresolved(
                    reason: "`\(literal.trimmedDescription)` is a String, not a CBUUID: CoreBluetooth advertises only "
                        + "CBUUID values"
                )
            )
        }
        if let reason = runtimeReason(expr) { return .failure(Unresolved(reason: reason)) }
        if let lookup = lookupReference(expr, implicitType: "CBUUID") {
            if case .declaration(let declaration) = lookup, declaration.enumCase != nil {
                return .failure(Unresolved(reason: "`\(expr.trimmedDescription)` is an enum case, not a CBUUID"))
            }
            return follow(lookup, written: expr) { self.uuid($0) }
        }
        return .failure(Unresolved(reason: Self.unsupported(expr, expected: "a CBUUID")))
    }

    func nsuuid(_ expression: ExprSyntax) -> Result<String, Unresolved> {
        let expr = Self.strip(expression)
        if let followed = followShapes(expr, { self.nsuuid($0) }) { return followed }
        if let call = expr.as(FunctionCallExprSyntax.self),
            ["UUID", "Foundation.UUID", "NSUUID"].contains(
                Self.components(of: call.calledExpression)?.joined(separator: ".")
            ),
            call.arguments.count == 1, let argument = call.arguments.first, argument.label?.text == "uuidString"
        {
            return string(argument.expression)
        }
        if let lookup = lookupReference(expr, implicitType: "UUID") {
            return follow(lookup, written: expr) { self.nsuuid($0) }
        }
        return .failure(
            Unresolved(reason: "`\(expr.trimmedDescription)` is not `UUID(uuidString:)` with a string known here")
        )
    }

    /// The service UUID list: an array literal, `+` of lists, or a constant holding one. Each
    /// element is resolved on its own.
    func uuidList(_ expression: ExprSyntax) -> Result<[(ExprSyntax, Result<String, Unresolved>)], Unresolved> {
        let expr = Self.strip(expression)
        if let followed = followShapes(expr, { self.uuidList($0) }) { return followed }
        if let array = expr.as(ArrayExprSyntax.self) {
            return .success(array.elements.map { ($0.expression, uuid($0.expression)) })
        }
        if let parts = Self.concatenation(expr) {
            var result: [(ExprSyntax, Result<String, Unresolved>)] = []
            for part in parts {
                switch uuidList(part) {
                case .success(let elements): result += elements
                case .failure(let failure): return .failure(failure)
                }
            }
            return .success(result)
        }
        if let call = expr.as(FunctionCallExprSyntax.self), Self.isCBUUIDCall(call) {
            return .failure(
                Unresolved(
                    reason: "`\(call.trimmedDescription)` is one CBUUID, not an array: CoreBluetooth expects [CBUUID]"
                )
            )
        }
        if let reason = runtimeReason(expr) { return .failure(Unresolved(reason: reason)) }
        if let lookup = lookupReference(expr, implicitType: nil) {
            return follow(lookup, written: expr) { self.uuidList($0) }
        }
        if let call = expr.as(FunctionCallExprSyntax.self) {
            return .failure(Unresolved(reason: "`\(call.trimmedDescription)` is a call, evaluated at run time"))
        }
        return .failure(Unresolved(reason: Self.unsupported(expr, expected: "an array literal")))
    }

    /// The forms `CBUUID(string:)` accepts: 4 or 8 hex digits, optionally after `0x` or `0X`
    /// (Apple's own samples write `@"0x2AD2"`), or the 36-character 8-4-4-4-12 form.
    static func isUUIDString(_ text: String) -> Bool {
        let hex = Set("0123456789abcdefABCDEF")
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        if groups.count == 1 {
            let digits = text.hasPrefix("0x") || text.hasPrefix("0X") ? text.dropFirst(2) : Substring(text)
            return (digits.count == 4 || digits.count == 8) && digits.allSatisfy(hex.contains)
        }
        return groups.map(\.count) == [8, 4, 4, 4, 12] && groups.allSatisfy { $0.allSatisfy(hex.contains) }
    }

    private static func isCBUUIDCall(_ call: FunctionCallExprSyntax) -> Bool {
        if let member = call.calledExpression.as(MemberAccessExprSyntax.self), member.base == nil,
            member.declName.baseName.text == "init"
        {
            return true  // `.init(string:)` where a CBUUID is expected
        }
        guard var components = components(of: call.calledExpression) else { return false }
        if components.last == "init" { components.removeLast() }
        return components == ["CBUUID"] || components == ["CoreBluetooth", "CBUUID"]
    }

    // MARK: Keys

    func key(_ expression: ExprSyntax) -> Result<AdvertisementKey, Unresolved> {
        let expr = Self.strip(expression)
        if let components = Self.components(of: expr), components.count <= 2, let last = components.last,
            let key = AdvertisementKeys.key(constant: last)
        {
            return .success(key)
        }
        if let literal = expr.as(StringLiteralExprSyntax.self) {
            return Self.literalValue(literal).map(AdvertisementKeys.key(raw:))
        }
        if let lookup = lookupReference(expr, implicitType: "String") {
            return follow(lookup, written: expr) { self.key($0) }
        }
        return .failure(Unresolved(reason: Self.unsupported(expr, expected: "an advertisement data key")))
    }

    // MARK: Dictionaries

    /// The dictionary a `startAdvertising` argument stands for: nil for `nil`.
    func dictionary(_ expression: ExprSyntax, call: FunctionCallExprSyntax) -> Result<FoundDictionary?, Unresolved> {
        let expr = Self.strip(expression)
        if expr.is(NilLiteralExprSyntax.self) { return .success(nil) }
        if let beacon = beaconDictionary(expr) { return .success(beacon) }
        if let followed = followShapes(expr, { self.dictionary($0, call: call) }) { return followed }
        if let literal = expr.as(DictionaryExprSyntax.self) {
            var entries: [DictionaryEntry] = []
            if case .elements(let elements) = literal.content {
                for element in elements {
                    entries.append(
                        DictionaryEntry(
                            key: element.key,
                            value: element.value,
                            fromLiteral: true,
                            condition: nil,
                            text: element.trimmedDescription
                        )
                    )
                }
            }
            return .success(FoundDictionary(literal: index.location(of: literal), entries: entries))
        }
        if let empty = expr.as(FunctionCallExprSyntax.self), empty.calledExpression.is(DictionaryExprSyntax.self),
            empty.arguments.isEmpty
        {
            // `[String: Any]()`
            return .success(FoundDictionary(literal: index.location(of: empty), entries: []))
        }
        if let lookup = lookupReference(expr, implicitType: nil) {
            guard case .declaration(let declaration) = lookup else {
                return follow(lookup, written: expr) { self.dictionary($0, call: call) }
            }
            if let stored = storedDictionary(declaration, written: expr, call: call) { return stored }
            let isTrackedVar = declaration.localScope != nil && !declaration.isLet
            var result = withValue(of: declaration, written: expr, warnIfVar: !isTrackedVar) {
                self.dictionary($0, call: call)
            }
            if isTrackedVar, case .success(var found?) = result {
                found.entries += mutations(of: declaration, before: call)
                result = .success(found)
            }
            return result
        }
        if let call = expr.as(FunctionCallExprSyntax.self) {
            return .failure(Unresolved(reason: "`\(call.trimmedDescription)` is a call, evaluated at run time"))
        }
        return .failure(Unresolved(reason: Self.unsupported(expr, expected: "a dictionary literal")))
    }

    /// Keys set on a local `var` dictionary between its declaration and the call: `d[key] = value`
    /// and `d.updateValue(value, forKey: key)`. Other changes (reassignment, `merge`, `removeValue`,
    /// `&d`) are warnings.
    private func mutations(of declaration: Declaration, before call: FunctionCallExprSyntax) -> [DictionaryEntry] {
        guard let scope = declaration.localScope, scope.root.id == call.root.id else { return [] }
        let start = declaration.node.endPosition
        let end = call.position
        let name = declaration.name
        var entries: [DictionaryEntry] = []
        for token in scope.tokens(viewMode: .sourceAccurate) {
            guard token.position >= start, token.position < end, token.tokenKind == .identifier(name),
                let reference = token.parent?.as(DeclReferenceExprSyntax.self),
                let expr = expression(referring: reference, to: declaration)
            else { continue }
            switch write(at: expr, name: name) {
            case .keySet(let key, let value, let statement)?:
                entries.append(keySet(key: key, value: value, statement: statement, in: scope))
            case .assignment(_, let statement)?:
                warn(
                    .conditionalValue,
                    at: statement,
                    "`\(name)` is assigned again (`\(statement.trimmedDescription)`); the reader keeps its first value"
                )
            case .unfollowed(let node, let reason)?:
                warn(.conditionalValue, at: node, reason)
            case nil:
                break
            }
        }
        return entries
    }

    /// A key set by `statement` after a dictionary's declaration or assignment in `scope`: with a
    /// condition when the statement is in a block nested in `scope`.
    func keySet(key: ExprSyntax, value: ExprSyntax, statement: ExprSyntax, in scope: CodeBlockItemListSyntax)
        -> DictionaryEntry
    {
        let nearestBlock = statement.ancestorOrSelf(mapping: { $0.as(CodeBlockItemListSyntax.self) })
        let condition =
            nearestBlock?.id == scope.id ? nil : "inside a nested block (\(index.shortLocation(of: statement)))"
        return DictionaryEntry(
            key: key,
            value: value,
            fromLiteral: false,
            condition: condition,
            text: statement.trimmedDescription
        )
    }

    /// `target = value` in an unfolded sequence expression.
    static func assignment(_ sequence: SequenceExprSyntax) -> (target: ExprSyntax, value: ExprSyntax)? {
        let elements = Array(sequence.elements)
        guard elements.count == 3, elements[1].is(AssignmentExprSyntax.self) else { return nil }
        return (elements[0], elements[2])
    }

    // MARK: Following declarations

    /// What a name or member reference refers to, or nil when `expr` is not a reference.
    func lookupReference(_ expr: ExprSyntax, implicitType: String?) -> Lookup? {
        if let reference = expr.as(DeclReferenceExprSyntax.self) {
            guard reference.argumentNames == nil else { return nil }
            return index.lookup(name: reference.baseName.text, at: reference)
        }
        guard let member = expr.as(MemberAccessExprSyntax.self) else { return nil }
        guard let base = member.base else {
            guard let implicitType else {
                return .notFound("`\(member.trimmedDescription)` has no type written to look it up in")
            }
            return index.lookupMember(components: [implicitType, member.declName.baseName.text], at: member)
        }
        guard let components = Self.components(of: expr) else {
            return .runtime(
                "`\(expr.trimmedDescription)` is a property of `\(base.trimmedDescription)`, known only at run time"
            )
        }
        let lookup = index.lookupMember(components: components, at: member)
        if case .notFound = lookup, let first = components.first, !["self", "Self"].contains(first),
            !index.typePaths.contains(first)
        {
            switch index.lookup(name: first, at: member) {
            case .declaration, .runtime, .parameter:
                return .runtime(
                    "`\(expr.trimmedDescription)` is a property of the value `\(first)`, known only at run time"
                )
            case .notFound:
                break
            }
        }
        return lookup
    }

    func follow<T>(
        _ lookup: Lookup,
        written: ExprSyntax,
        _ body: (ExprSyntax) -> Result<T, Unresolved>
    ) -> Result<T, Unresolved> {
        switch lookup {
        case .runtime(let reason), .notFound(let reason):
            return .failure(Unresolved(reason: reason))
        case .parameter(let parameter, let function):
            return withArgument(of: parameter, in: function, written: written, body)
        case .declaration(let declaration):
            return configuration(of: declaration, written: written).flatMap { chosen in
                withValue(of: chosen, written: written, warnIfVar: true, body)
            }
        }
    }

    /// Runs `body` on the declaration's value, with the declaration on the stack.
    func withValue<T>(
        of declaration: Declaration,
        written: ExprSyntax,
        warnIfVar: Bool,
        _ body: (ExprSyntax) -> Result<T, Unresolved>
    ) -> Result<T, Unresolved> {
        let place = index.shortLocation(of: declaration.node)
        let name = declaration.displayName
        if let failure = descentFailure(into: declaration.node, named: name, place: place, written: Syntax(written)) {
            return .failure(failure)
        }
        // A local `var` assigned again before the use is followed to those assignments (not for a
        // dictionary whose keys are set later: `mutations(of:before:)` reads those).
        let reassigned =
            warnIfVar && !declaration.isLet
            ? declaration.value.flatMap { localAssignments(of: declaration, written: written, initial: $0) } : nil
        // A stored `var` is followed to every assignment in the sources.
        let stored = warnIfVar ? storedValue(of: declaration, written: written) : nil
        let value: ExprSyntax
        switch reassigned ?? stored ?? declaration.value.map({ .success($0) })
            ?? valueWithoutInitialiser(of: declaration, written: written)
        {
        case .success(let found): value = found
        case .failure(let failure): return .failure(failure)
        }
        if index.isAmbiguous(declaration), index.configurations(of: declaration) == nil {
            warn(
                .ambiguousDeclaration,
                at: declaration.node,
                "`\(declaration.displayName)` is declared more than once in the scanned sources; the declaration at "
                    + "\(place) is used"
            )
        }
        if warnIfVar && !declaration.isLet && declaration.value != nil && reassigned == nil && stored == nil {
            warn(
                .variableValue,
                at: declaration.node,
                "`\(declaration.displayName)` is a `var`; its initial value `\(value.trimmedDescription)` is used, "
                    + "though it may change at run time"
            )
        }
        return onStack(declaration.node, named: name, place: place) { body(value) }
    }

    // MARK: Expression shapes

    /// The expression without parentheses, `!`, `?`, `try`, `await` and `as` casts.
    static func strip(_ expression: ExprSyntax) -> ExprSyntax {
        var expr = expression
        while true {
            if let tuple = expr.as(TupleExprSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first,
                only.label == nil
            {
                expr = only.expression
            } else if let unwrap = expr.as(ForceUnwrapExprSyntax.self) {
                expr = unwrap.expression
            } else if let chain = expr.as(OptionalChainingExprSyntax.self) {
                expr = chain.expression
            } else if let tryExpr = expr.as(TryExprSyntax.self) {
                expr = tryExpr.expression
            } else if let awaitExpr = expr.as(AwaitExprSyntax.self) {
                expr = awaitExpr.expression
            } else if let cast = expr.as(AsExprSyntax.self) {
                expr = cast.expression
            } else if let sequence = expr.as(SequenceExprSyntax.self), sequence.elements.count == 3,
                let first = sequence.elements.first,
                sequence.elements.dropFirst().first?.is(UnresolvedAsExprSyntax.self) ?? false
            {
                expr = first
            } else {
                return expr
            }
        }
    }

    /// The operands of `a + b + c`, or nil when `expr` is not only `+`.
    static func concatenation(_ expr: ExprSyntax) -> [ExprSyntax]? {
        guard let sequence = expr.as(SequenceExprSyntax.self) else { return nil }
        let elements = Array(sequence.elements)
        guard elements.count >= 3, elements.count % 2 == 1 else { return nil }
        var operands: [ExprSyntax] = []
        for (offset, element) in elements.enumerated() {
            if offset % 2 == 1 {
                guard let op = element.as(BinaryOperatorExprSyntax.self), op.operator.text == "+" else { return nil }
            } else {
                operands.append(element)
            }
        }
        return operands
    }

    /// `a.b.c` as `["a", "b", "c"]`, when every part is a plain name.
    static func components(of expr: ExprSyntax) -> [String]? {
        if let reference = expr.as(DeclReferenceExprSyntax.self), reference.argumentNames == nil {
            return [reference.baseName.text]
        }
        if let member = expr.as(MemberAccessExprSyntax.self), let base = member.base,
            member.declName.argumentNames == nil, let prefix = components(of: base)
        {
            return prefix + [member.declName.baseName.text]
        }
        return nil
    }

    /// A better reason for well-known run-time values (`UIDevice.current.name`…), unless the
    /// sources declare a type of that name.
    func runtimeReason(_ expr: ExprSyntax) -> String? {
        guard let components = Self.components(of: expr), let first = components.first,
            !index.typePaths.contains(first)
        else { return nil }
        let written = "`\(expr.trimmedDescription)`"
        switch first {
        case "UIDevice" where components.last == "name", "Host" where components.contains("localizedName"):
            return "\(written) is the device's name, known only at run time"
        case "UIDevice": return "\(written) is a property of the device, known only at run time"
        case "ProcessInfo": return "\(written) is a property of the running process, known only at run time"
        case "Bundle": return "\(written) is read from the app bundle at run time"
        case "UserDefaults": return "\(written) is read from the user's defaults at run time"
        default: return nil
        }
    }

    static func unsupported(_ expr: ExprSyntax, expected: String) -> String {
        let written = "`\(expr.trimmedDescription)`"
        if expr.is(NilLiteralExprSyntax.self) { return "\(written) is nil, not \(expected)" }
        if let sequence = expr.as(SequenceExprSyntax.self) {
            if sequence.elements.contains(where: { $0.is(UnresolvedTernaryExprSyntax.self) }) {
                return "\(written) is chosen by a condition at run time"
            }
            if sequence.elements.contains(where: { $0.as(BinaryOperatorExprSyntax.self)?.operator.text == "??" }) {
                return "\(written) depends on an optional value at run time"
            }
            return "\(written) is computed at run time"
        }
        if expr.is(TernaryExprSyntax.self) { return "\(written) is chosen by a condition at run time" }
        if expr.is(ClosureExprSyntax.self) { return "\(written) is a closure, not \(expected)" }
        if expr.is(IfExprSyntax.self) || expr.is(SwitchExprSyntax.self) {
            return "\(written) is chosen by a condition at run time"
        }
        return "\(written) is not \(expected), nor a constant declared in the scanned sources"
    }
}
