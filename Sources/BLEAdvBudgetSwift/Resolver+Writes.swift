internal import SwiftSyntax

/// How one statement changes a variable, seen from a reference to the variable.
enum VariableWrite {
    /// `x = value`.
    case assignment(value: ExprSyntax, statement: SequenceExprSyntax)
    /// `x[key] = value` or `x.updateValue(value, forKey: key)`, `statement` as written.
    case keySet(key: ExprSyntax, value: ExprSyntax, statement: ExprSyntax)
    /// A change the reader does not follow (`x += …`, `&x`, `x.append(…)`, `x[a, b] = …`);
    /// `reason` names it.
    case unfollowed(at: Syntax, reason: String)
}

/// What the sources write to a stored `var` (a member of a type, or a global), in file then
/// source order.
struct StoredWrites {
    var assignments: [(value: ExprSyntax, statement: SequenceExprSyntax)] = []
    var keySets: [(key: ExprSyntax, value: ExprSyntax, statement: ExprSyntax)] = []
    var unfollowed: [(at: Syntax, reason: String)] = []
}

extension Declaration {
    /// A `var` stored in a type or at file scope: not a local, not computed, not an enum case,
    /// not an `if var` binding.
    var isStoredVar: Bool {
        !isLet && !isComputed && enumCase == nil && localScope == nil && node.is(PatternBindingSyntax.self)
    }
}

extension ModuleIndex {
    /// Every name reference in the sources (`x` of `x`, `self.x`, `a.x`) by name, built when first
    /// asked.
    func references(named name: String) -> [DeclReferenceExprSyntax] {
        let index = referencesByName ?? buildReferenceIndex()
        referencesByName = index
        return index[name] ?? []
    }

    private func buildReferenceIndex() -> [String: [DeclReferenceExprSyntax]] {
        var result: [String: [DeclReferenceExprSyntax]] = [:]
        for unit in units {
            for token in unit.tree.tokens(viewMode: .sourceAccurate) {
                guard case .identifier(let name) = token.tokenKind,
                    let reference = token.parent?.as(DeclReferenceExprSyntax.self), reference.argumentNames == nil
                else { continue }
                result[name, default: []].append(reference)
            }
        }
        return result
    }
}

extension Resolver {
    /// The methods of `Array`, `Dictionary`, `String` and `Set` that change the value they are
    /// called on.
    static let mutatingMethods: Set<String> = [
        "append", "insert", "remove", "removeAll", "removeFirst", "removeLast", "removeValue", "popLast",
        "popFirst", "merge", "updateValue", "replaceSubrange", "formUnion", "subtract", "sort", "reverse",
        "shuffle", "swapAt",
    ]

    /// The reference `x` or `self.x` whose name is `reference`, when it refers to `declaration`.
    func expression(referring reference: DeclReferenceExprSyntax, to declaration: Declaration) -> ExprSyntax? {
        var expr = ExprSyntax(reference)
        if let member = reference.parent?.as(MemberAccessExprSyntax.self), member.declName.id == reference.id {
            guard member.base != nil else { return nil }
            expr = ExprSyntax(member)
        }
        guard case .declaration(let found) = lookupReference(expr, implicitType: nil),
            found.node.id == declaration.node.id
        else { return nil }
        return expr
    }

    /// What the sources write to a stored `var`: every `x = …`, `self.x = …`, key set and other
    /// change, where `x` is looked up to `declaration` (so inside its type and the type's
    /// extensions for a member, anywhere for a global).
    func storedWrites(of declaration: Declaration) -> StoredWrites {
        if let cached = storedWritesCache[declaration.node.id] { return cached }
        var writes = StoredWrites()
        for reference in index.references(named: declaration.name) {
            guard let expr = expression(referring: reference, to: declaration) else { continue }
            switch write(at: expr, name: declaration.displayName) {
            case .assignment(let value, let statement)?: writes.assignments.append((value, statement))
            case .keySet(let key, let value, let statement)?: writes.keySets.append((key, value, statement))
            case .unfollowed(let node, let reason)?: writes.unfollowed.append((node, reason))
            case nil: break
            }
        }
        storedWritesCache[declaration.node.id] = writes
        return writes
    }

    /// How the statement around `reference` (`x`, `self.x`) changes the variable, or nil when it
    /// only reads it. `name` names the variable in reasons.
    func write(at reference: ExprSyntax, name: String) -> VariableWrite? {
        var target = reference
        while let parent = target.parent {
            if let unwrap = parent.as(ForceUnwrapExprSyntax.self) {
                target = ExprSyntax(unwrap)
            } else if let chain = parent.as(OptionalChainingExprSyntax.self) {
                target = ExprSyntax(chain)
            } else {
                break
            }
        }
        if target.parent?.is(InOutExprSyntax.self) ?? false {
            return .unfollowed(
                at: Syntax(reference),
                reason: "`\(name)` is passed `inout` (\(index.shortLocation(of: reference))); changes made there "
                    + "are not followed"
            )
        }
        let unfollowed = { (node: Syntax) in
            VariableWrite.unfollowed(
                at: node,
                reason: "`\(node.trimmedDescription)` changes `\(name)` in a way the reader does not follow"
            )
        }
        if let sequence = Self.sequence(startingWith: target) {
            if let assigned = Self.assignment(sequence) {
                return .assignment(value: assigned.value, statement: sequence)
            }
            return Self.changes(sequence) ? unfollowed(Syntax(sequence)) : nil
        }
        if let subscriptCall = target.parent?.as(SubscriptCallExprSyntax.self),
            subscriptCall.calledExpression.id == target.id,
            let sequence = Self.sequence(startingWith: ExprSyntax(subscriptCall)), Self.changes(sequence)
        {
            guard let assigned = Self.assignment(sequence), subscriptCall.arguments.count == 1,
                let key = subscriptCall.arguments.first
            else { return unfollowed(Syntax(sequence)) }
            return .keySet(key: key.expression, value: assigned.value, statement: ExprSyntax(sequence))
        }
        if let member = target.parent?.as(MemberAccessExprSyntax.self), member.base?.id == target.id,
            let methodCall = member.parent?.as(FunctionCallExprSyntax.self), methodCall.calledExpression.id == member.id
        {
            let method = member.declName.baseName.text
            let arguments = Array(methodCall.arguments)
            if method == "updateValue", arguments.count == 2, arguments[1].label?.text == "forKey" {
                return .keySet(
                    key: arguments[1].expression,
                    value: arguments[0].expression,
                    statement: ExprSyntax(methodCall)
                )
            }
            if Self.mutatingMethods.contains(method) { return unfollowed(Syntax(methodCall)) }
        }
        return nil
    }

    /// The sequence expression whose first element is `expr` (`expr = …`, `expr += …`).
    private static func sequence(startingWith expr: ExprSyntax) -> SequenceExprSyntax? {
        guard let sequence = expr.parent?.parent?.as(SequenceExprSyntax.self),
            sequence.elements.first?.id == expr.id, sequence.elements.count >= 3
        else { return nil }
        return sequence
    }

    /// Whether the sequence's first operator assigns: `=`, or a compound assignment such as `+=`.
    private static func changes(_ sequence: SequenceExprSyntax) -> Bool {
        let second = sequence.elements.dropFirst().first
        if second?.is(AssignmentExprSyntax.self) ?? false { return true }
        guard let op = second?.as(BinaryOperatorExprSyntax.self)?.operator.text else { return false }
        return op.hasSuffix("=") && !["==", "!=", "<=", ">=", "===", "!=="].contains(op)
    }
}
