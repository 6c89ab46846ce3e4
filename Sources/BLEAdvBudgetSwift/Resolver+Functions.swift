internal import BLEAdvBudget
internal import SwiftSyntax

/// Calls of functions declared in the sources (their `return`s, with the parameters bound to the
/// call's arguments), properties of values built by an initialiser call, and the plain
/// expression a reference stands for.
extension Resolver {
    /// Follows a call of a function declared in the sources to each of its `return`s (one
    /// alternative per `return`), with the function's parameters bound to the call's arguments
    /// for the rest of the path. Nil when the call names no function of the sources.
    func followCall<T>(_ call: FunctionCallExprSyntax, _ body: (ExprSyntax) -> Result<T, Unresolved>)
        -> Result<T, Unresolved>?
    {
        guard let function = index.functions(calledBy: call).first, let statements = function.body?.statements,
            let binding = ModuleIndex.bind(call, to: function)
        else { return nil }
        let place = index.shortLocation(of: function.name)
        let name = "\(function.name.text)(\(Self.labels(of: function)))"
        let alternatives = returnAlternatives(in: statements)
        guard !alternatives.isEmpty else {
            return .failure(Unresolved(reason: "`\(name)` (\(place)) returns no value the reader can follow"))
        }
        return choose(key: "returns \(call.id)", alternatives, what: "`\(call.trimmedDescription)`", at: call)
            .flatMap { value in
                bindings[function.id] = binding
                return descend(into: Syntax(function), named: name, place: place, written: Syntax(call)) {
                    body(value)
                }
            }
    }

    /// Every `return`'s value in a function or getter body (not in nested closures or functions),
    /// labelled by the branch that holds it; a body that is one expression is its value.
    func returnAlternatives(in statements: CodeBlockItemListSyntax) -> [Alternative<ExprSyntax>] {
        if statements.count == 1, let value = ModuleIndex.singleExpression(statements) {
            return [Alternative(label: "return (\(index.shortLocation(of: value)))", value: value)]
        }
        var returns: [ReturnStmtSyntax] = []
        Self.collectReturns(in: Syntax(statements), into: &returns)
        return returns.compactMap { statement in
            guard let value = statement.expression else { return nil }
            let label =
                branchLabel(of: Syntax(statement), inside: Syntax(statements))
                ?? "return (\(index.shortLocation(of: statement)))"
            return Alternative(label: label, value: value)
        }
    }

    private static func collectReturns(in node: Syntax, into returns: inout [ReturnStmtSyntax]) {
        for child in node.children(viewMode: .sourceAccurate) {
            if let statement = child.as(ReturnStmtSyntax.self) {
                returns.append(statement)
            } else if !(child.is(ClosureExprSyntax.self) || child.is(FunctionDeclSyntax.self)
                || child.is(AccessorBlockSyntax.self))
            {
                collectReturns(in: child, into: &returns)
            }
        }
    }

    /// `service:_:` for `func f(service: S, _ other: T)`.
    static func labels(of function: FunctionDeclSyntax) -> String {
        function.signature.parameterClause.parameters.map { "\($0.firstName.text):" }.joined()
    }

    /// Runs `body` with `node` on the stack: a node already on it is a cycle, and the stack is
    /// at most `maximumDepth` deep. Failures name `name` at `place` in their trail.
    func descend<T>(
        into node: Syntax,
        named name: String,
        place: String,
        written: Syntax,
        _ body: () -> Result<T, Unresolved>
    ) -> Result<T, Unresolved> {
        if let failure = descentFailure(into: node, named: name, place: place, written: written) {
            return .failure(failure)
        }
        return onStack(node, named: name, place: place, body)
    }

    /// Why `node` cannot be followed: it is already on the stack (a cycle), or the stack is
    /// `maximumDepth` deep; nil when it can.
    func descentFailure(into node: Syntax, named name: String, place: String, written: Syntax) -> Unresolved? {
        if let start = stack.firstIndex(where: { $0.id == node.id }) {
            let cycle = stack[start...].map { "`\($0.name)`" } + ["`\(name)`"]
            return Unresolved(reason: "`\(name)` (\(place)) depends on itself: " + cycle.joined(separator: " → "))
        }
        guard stack.count < maximumDepth else {
            return Unresolved(
                reason: "`\(written.trimmedDescription)` is more than \(maximumDepth) declarations deep; "
                    + "not followed further"
            )
        }
        return nil
    }

    /// Runs `body` with `node` pushed on the stack; its failures name `name` at `place` in their trail.
    func onStack<T>(
        _ node: Syntax,
        named name: String,
        place: String,
        _ body: () -> Result<T, Unresolved>
    ) -> Result<T, Unresolved> {
        stack.append((node.id, name))
        defer { stack.removeLast() }
        return body().mapError { failure in
            var failure = failure
            failure.trail.insert("`\(name)` at \(place)", at: 0)
            return failure
        }
    }

    // MARK: Values

    /// Follows references, parameters, branches and calls of the sources' functions to the
    /// expression they end at, and runs `body` on it.
    func expression<T>(_ written: ExprSyntax, _ body: (ExprSyntax) -> Result<T, Unresolved>) -> Result<T, Unresolved> {
        let expr = Self.strip(written)
        if let followed = followShapes(expr, { self.expression($0, body) }) { return followed }
        if let lookup = lookupReference(expr, implicitType: nil) {
            return follow(lookup, written: expr) { self.expression($0, body) }
        }
        return body(expr)
    }

    /// `value.property` where `value` is a constant, variable or parameter: followed to the
    /// initialiser call that built the value, then to its argument of that label
    /// (`CBMutableService(type:primary:)`'s `type` for `uuid`). Nil when `member` is not a
    /// property of such a value (a static member, an enum raw value…).
    func property<T>(_ member: MemberAccessExprSyntax, _ body: (ExprSyntax) -> Result<T, Unresolved>)
        -> Result<T, Unresolved>?
    {
        guard let base = member.base, member.declName.argumentNames == nil,
            member.declName.baseName.text != "rawValue",
            let baseLookup = lookupReference(Self.strip(base), implicitType: nil)
        else { return nil }
        switch baseLookup {
        case .declaration(let declaration) where declaration.enumCase == nil: break
        case .parameter: break
        default: return nil
        }
        if case .declaration = lookupReference(ExprSyntax(member), implicitType: nil) { return nil }
        let name = member.declName.baseName.text
        return expression(base) { value in
            guard let argument = Self.initialiserArgument(value, property: name) else {
                return .failure(
                    Unresolved(
                        reason: "`\(member.trimmedDescription)` is a property of the value "
                            + "`\(base.trimmedDescription)`, known only at run time"
                    )
                )
            }
            return body(argument)
        }
    }

    /// The argument labelled `property` (or the label CoreBluetooth and CoreLocation use for it)
    /// of an initialiser call.
    static func initialiserArgument(_ value: ExprSyntax, property: String) -> ExprSyntax? {
        guard let call = value.as(FunctionCallExprSyntax.self) else { return nil }
        let aliases = ["uuid": ["type", "proximityUUID"], "proximityUUID": ["uuid"], "type": ["uuid"]]
        for label in [property] + (aliases[property] ?? []) {
            if let argument = call.arguments.first(where: { $0.label?.text == label }) { return argument.expression }
        }
        return nil
    }
}
