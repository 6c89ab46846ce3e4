internal import BLEAdvBudget
internal import SwiftSyntax

/// Stored `var`s (members of types, globals) followed to every assignment in the sources, and
/// stored dictionaries filled by subscript after their one assignment.
extension Resolver {
    /// The value a stored `var` holds where `written` reads it: its initial value and each
    /// `x = value` in the sources (`nil` aside), one alternative each, labelled with where it is
    /// assigned; one value alone is used with a `variable-value` warning. Nil when nothing in the
    /// sources assigns it (the declaration's own value, if any, is used as before). A change the
    /// reader does not follow (`+=`, `inout`, a mutating method, a key set) is unresolved.
    func storedValue(of declaration: Declaration, written: ExprSyntax) -> Result<ExprSyntax, Unresolved>? {
        guard declaration.isStoredVar else { return nil }
        let writes = storedWrites(of: declaration)
        let place = index.shortLocation(of: declaration.node)
        let name = declaration.displayName
        if let change = writes.unfollowed.first {
            return .failure(Unresolved(reason: "`\(name)` (\(place)) is changed at run time: \(change.reason)"))
        }
        if let set = writes.keySets.first {
            return .failure(
                Unresolved(
                    reason: "`\(name)` (\(place)) is changed by `\(set.statement.trimmedDescription)` "
                        + "(\(index.shortLocation(of: set.statement))), which the reader does not follow here"
                )
            )
        }
        guard !writes.assignments.isEmpty else { return nil }
        let alternatives = storedAlternatives(of: declaration, writes)
        let nils = writes.assignments.filter { Self.isNil($0.value) }.map { index.shortLocation(of: $0.statement) }
        guard let only = alternatives.first else {
            return .failure(
                Unresolved(reason: "`\(name)` (\(place)) is assigned only `nil` in the scanned sources (\(nils.list))")
            )
        }
        guard alternatives.count == 1 else {
            return choose(key: "stored \(declaration.node.id)", alternatives, what: "`\(name)` (\(place))", at: written)
        }
        let uncounted = nils.isEmpty ? "" : "; `nil` assigned at \(nils.list) is not counted"
        warn(
            .variableValue,
            at: declaration.node,
            "`\(name)` is a `var` \(only.label); that value is used\(uncounted)"
        )
        return .success(only.value)
    }

    /// The initial value and the assignments of a stored `var`, `nil` aside, labelled
    /// `service = CBUUID(string: "180D") (assigned at App.swift:12)`; when there is one, the
    /// label is `assigned only at App.swift:12` (or `initialised only at …`).
    private func storedAlternatives(of declaration: Declaration, _ writes: StoredWrites) -> [Alternative<ExprSyntax>] {
        var result: [Alternative<ExprSyntax>] = []
        var only: [String] = []
        if let initial = declaration.value, !Self.isNil(initial) {
            let place = index.shortLocation(of: initial)
            result.append(
                Alternative(
                    label: "\(declaration.name) = \(initial.trimmedDescription) (initial value at \(place))",
                    value: initial
                )
            )
            only.append("initialised only at \(place)")
        }
        for (value, statement) in writes.assignments where !Self.isNil(value) {
            let place = index.shortLocation(of: statement)
            result.append(Alternative(label: "\(statement.trimmedDescription) (assigned at \(place))", value: value))
            only.append("assigned only at \(place)")
        }
        guard result.count == 1, let label = only.first, let value = result.first?.value else { return result }
        return [Alternative(label: label, value: value)]
    }

    /// The dictionary of a stored `var` given keys by `d[key] = value` or `d.updateValue(_:forKey:)`:
    /// its one assignment of a dictionary literal, with the keys set after it in the same
    /// statement list (and before `call` when `call` is there too; in a nested block, with a
    /// condition). Nil when nothing sets a key (the stored value is followed as any other);
    /// unresolved when there is not one such assignment, or a key is set elsewhere.
    func storedDictionary(_ declaration: Declaration, written: ExprSyntax, call: FunctionCallExprSyntax)
        -> Result<FoundDictionary?, Unresolved>?
    {
        guard declaration.isStoredVar else { return nil }
        let writes = storedWrites(of: declaration)
        guard !writes.keySets.isEmpty else { return nil }
        let place = index.shortLocation(of: declaration.node)
        let name = declaration.displayName
        if let change = writes.unfollowed.first {
            return .failure(Unresolved(reason: "`\(name)` (\(place)) is changed at run time: \(change.reason)"))
        }
        let built = writes.assignments.filter { !Self.isNil($0.value) }
        let initialIsEmpty = declaration.value.map { Self.isNil($0) || Self.isEmptyDictionary($0) } ?? true
        guard built.count == 1, let assignment = built.first, initialIsEmpty,
            Self.isDictionaryLiteral(assignment.value),
            let scope = assignment.statement.ancestorOrSelf(mapping: { $0.as(CodeBlockItemListSyntax.self) })
        else {
            return .failure(
                Unresolved(
                    reason: "`\(name)` (\(place)) is given keys by subscript and assigned \(built.count) times; the "
                        + "reader follows keys set after one assignment of a dictionary literal"
                )
            )
        }
        var entries: [DictionaryEntry] = []
        let callInScope =
            call.root.id == scope.root.id && call.position > assignment.statement.endPosition
            && call.endPosition <= scope.endPosition
        for set in writes.keySets {
            let inScope =
                set.statement.root.id == scope.root.id && set.statement.position >= assignment.statement.endPosition
                && set.statement.endPosition <= scope.endPosition
            guard inScope else {
                return .failure(
                    Unresolved(
                        reason: "`\(set.statement.trimmedDescription)` (\(index.shortLocation(of: set.statement))) "
                            + "sets a key of `\(name)` away from its assignment `\(assignment.statement.trimmedDescription)` "
                            + "(\(index.shortLocation(of: assignment.statement))); the order is not known"
                    )
                )
            }
            if callInScope, set.statement.position > call.position { continue }
            entries.append(keySet(key: set.key, value: set.value, statement: set.statement, in: scope))
        }
        let assignedAt = index.shortLocation(of: assignment.statement)
        warn(
            .variableValue,
            at: declaration.node,
            "`\(name)` is a `var` assigned only at \(assignedAt); that value is used, with the keys set after it there"
        )
        return descend(into: declaration.node, named: name, place: place, written: Syntax(written)) {
            dictionary(assignment.value, call: call).map { found in
                guard var found else { return nil }
                found.entries += entries
                return found
            }
        }
    }

    static func isNil(_ expr: ExprSyntax) -> Bool { strip(expr).is(NilLiteralExprSyntax.self) }

    /// `[:]`, `[…: …]` or `[K: V]()`.
    static func isDictionaryLiteral(_ expr: ExprSyntax) -> Bool {
        let stripped = strip(expr)
        if stripped.is(DictionaryExprSyntax.self) { return true }
        guard let call = stripped.as(FunctionCallExprSyntax.self) else { return false }
        return call.calledExpression.is(DictionaryExprSyntax.self) && call.arguments.isEmpty
    }

    /// `[:]` or `[K: V]()`.
    static func isEmptyDictionary(_ expr: ExprSyntax) -> Bool {
        let stripped = strip(expr)
        if let literal = stripped.as(DictionaryExprSyntax.self) {
            if case .colon = literal.content { return true }
            return false
        }
        return isDictionaryLiteral(stripped) && !stripped.is(DictionaryExprSyntax.self)
    }
}

extension [String] {
    /// `a, b and c`.
    var list: String {
        guard count > 1, let last else { return first ?? "" }
        return dropLast().joined(separator: ", ") + " and " + last
    }
}
