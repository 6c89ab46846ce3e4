internal import BLEAdvBudget
internal import SwiftSyntax

/// Values chosen by a condition: ternaries, `if`/`switch` expressions, and locals assigned in the
/// branches of an `if` or `switch` after their declaration.
extension Resolver {
    /// Follows the shapes every kind of value shares before its own forms are tried: a value
    /// chosen by a condition (one alternative per branch), a property of a value (the argument
    /// of that label in the initialiser call it was built with), and a call of a function
    /// declared in the sources (its `return`s). Nil when `expr` is none of these.
    func followShapes<T>(_ expr: ExprSyntax, _ body: (ExprSyntax) -> Result<T, Unresolved>) -> Result<T, Unresolved>? {
        if let (node, alternatives) = conditionalAlternatives(expr) {
            return choose(key: "branch \(node.id)", alternatives, what: "`\(expr.trimmedDescription)`", at: node)
                .flatMap(body)
        }
        if let member = expr.as(MemberAccessExprSyntax.self), let followed = property(member, body) {
            return followed
        }
        if let call = expr.as(FunctionCallExprSyntax.self), let followed = followCall(call, body) {
            return followed
        }
        return nil
    }

    /// The branches of `c ? a : b`, `if c { a } else { b }` and `switch` expressions, each a
    /// single expression.
    private func conditionalAlternatives(_ expr: ExprSyntax) -> (Syntax, [Alternative<ExprSyntax>])? {
        if let sequence = expr.as(SequenceExprSyntax.self) {
            let elements = Array(sequence.elements)
            guard let position = elements.firstIndex(where: { $0.is(UnresolvedTernaryExprSyntax.self) }),
                let ternary = elements[position].as(UnresolvedTernaryExprSyntax.self), position + 2 == elements.count
            else { return nil }
            let condition = elements[..<position].map(\.trimmedDescription).joined(separator: " ")
            let place = index.shortLocation(of: ternary)
            return (
                Syntax(ternary),
                [
                    Alternative(label: "if \(condition) (\(place))", value: ternary.thenExpression),
                    Alternative(label: "else (\(place))", value: elements[position + 1]),
                ]
            )
        }
        if let ifExpr = expr.as(IfExprSyntax.self) {
            let branches = Self.branches(of: ifExpr, index: index)
            var alternatives: [Alternative<ExprSyntax>] = []
            for branch in branches {
                guard let statements = branch.statements, let value = ModuleIndex.singleExpression(statements) else {
                    return nil
                }
                alternatives.append(Alternative(label: branch.label, value: value))
            }
            return (Syntax(ifExpr), alternatives)
        }
        if let switchExpr = expr.as(SwitchExprSyntax.self) {
            var alternatives: [Alternative<ExprSyntax>] = []
            for case .switchCase(let switchCase) in switchExpr.cases {
                guard let value = ModuleIndex.singleExpression(switchCase.statements) else { return nil }
                alternatives.append(Alternative(label: caseLabel(switchCase), value: value))
            }
            return (Syntax(switchExpr), alternatives)
        }
        return nil
    }

    func caseLabel(_ switchCase: SwitchCaseSyntax) -> String {
        "\(switchCase.label.trimmedDescription.dropLastColon) (\(index.shortLocation(of: switchCase)))"
    }

    /// The branches of an `if`/`else if`/`else` chain with their labels; the last has nil
    /// statements when there is no final `else`.
    static func branches(of ifExpr: IfExprSyntax, index: ModuleIndex)
        -> [(label: String, statements: CodeBlockItemListSyntax?)]
    {
        var result: [(label: String, statements: CodeBlockItemListSyntax?)] = []
        var current = ifExpr
        while true {
            let keyword = current.id == ifExpr.id ? "if" : "else if"
            result.append(
                (
                    "\(keyword) \(current.conditions.trimmedDescription) (\(index.shortLocation(of: current.ifKeyword)))",
                    current.body.statements
                )
            )
            switch current.elseBody {
            case .ifExpr(let next)?:
                current = next
            case .codeBlock(let block)?:
                let place = current.elseKeyword.map { index.shortLocation(of: $0) } ?? index.shortLocation(of: block)
                result.append(("else (\(place))", block.statements))
                return result
            case nil:
                result.append(("no branch of the if at \(index.shortLocation(of: ifExpr.ifKeyword)) taken", nil))
                return result
            }
        }
    }

    // MARK: Declarations without a value

    /// The value of a declaration written without one: a computed property's `return`s, or a
    /// local assigned after its declaration (in the branches of an `if` or `switch`) before
    /// `written` reads it.
    func valueWithoutInitialiser(of declaration: Declaration, written: ExprSyntax) -> Result<ExprSyntax, Unresolved> {
        let place = index.shortLocation(of: declaration.node)
        if let getter = declaration.getterBody {
            let alternatives = returnAlternatives(in: getter)
            if !alternatives.isEmpty {
                return choose(
                    key: "returns \(declaration.node.id)",
                    alternatives,
                    what: "`\(declaration.displayName)` (\(place))",
                    at: declaration.node
                )
            }
        }
        if !declaration.isComputed, let assigned = localAssignments(of: declaration, written: written, initial: nil) {
            return assigned
        }
        let how = declaration.isComputed ? "is computed by code" : "has no value in its declaration"
        return .failure(
            Unresolved(reason: "`\(declaration.displayName)` (\(place)) \(how); it is known only at run time")
        )
    }

    /// The value a local holds where `written` reads it, when it is assigned between its
    /// declaration and there: one alternative per branch that assigns it (an `if` without `else`
    /// keeps `initial` when no branch is taken). Nil when nothing assigns it there.
    func localAssignments(of declaration: Declaration, written: ExprSyntax, initial: ExprSyntax?)
        -> Result<ExprSyntax, Unresolved>?
    {
        guard let scope = declaration.localScope else { return nil }
        let start = declaration.node.endPosition
        let items = Array(scope).filter { $0.position >= start && $0.endPosition <= written.position }
        let before = initial.map { [(labels: [String](), value: $0)] } ?? []
        let alternatives = assignments(to: declaration.name, in: items, before: before)
        guard !alternatives.isEmpty, alternatives.map(\.value.id) != before.map(\.value.id) else { return nil }
        return choose(
            key: "assigned \(declaration.node.id)",
            alternatives.map { Alternative(label: $0.labels.joined(separator: ", "), value: $0.value) },
            what: "`\(declaration.name)` (\(index.shortLocation(of: declaration.node)))",
            at: declaration.node
        )
    }

    /// The values `name` may hold after `items`, given the ones it may hold before: an
    /// assignment replaces them, an `if` or `switch` gives the union of its branches.
    private func assignments(
        to name: String,
        in items: [CodeBlockItemSyntax],
        before: [(labels: [String], value: ExprSyntax)]
    ) -> [(labels: [String], value: ExprSyntax)] {
        var current = before
        for item in items {
            let expression: ExprSyntax? =
                switch item.item {
                case .expr(let expr): expr
                case .stmt(let stmt): stmt.as(ExpressionStmtSyntax.self)?.expression
                default: nil
                }
            guard let expression else { continue }
            if let sequence = expression.as(SequenceExprSyntax.self), let assigned = Self.assignment(sequence),
                assigned.target.as(DeclReferenceExprSyntax.self)?.baseName.text == name
            {
                current = [([], assigned.value)]
            } else if let ifExpr = expression.as(IfExprSyntax.self) {
                let branches = Self.branches(of: ifExpr, index: index).map { branch in
                    let inner = branch.statements.map { assignments(to: name, in: Array($0), before: current) }
                    return (label: branch.label, values: inner ?? current)
                }
                current = Self.merge(branches, over: current)
            } else if let switchExpr = expression.as(SwitchExprSyntax.self) {
                var branches: [(label: String, values: [(labels: [String], value: ExprSyntax)])] = []
                for case .switchCase(let switchCase) in switchExpr.cases {
                    let inner = assignments(to: name, in: Array(switchCase.statements), before: current)
                    branches.append((caseLabel(switchCase), inner))
                }
                current = Self.merge(branches, over: current)
            }
        }
        return current
    }

    /// The union of the branches' values, each labelled with its branch; `before` unchanged when
    /// no branch assigns.
    private static func merge(
        _ branches: [(label: String, values: [(labels: [String], value: ExprSyntax)])],
        over before: [(labels: [String], value: ExprSyntax)]
    ) -> [(labels: [String], value: ExprSyntax)] {
        let unchanged = branches.allSatisfy { branch in
            branch.values.map(\.value.id) == before.map(\.value.id)
        }
        if unchanged { return before }
        return branches.flatMap { branch in branch.values.map { ([branch.label] + $0.labels, $0.value) } }
    }
}
