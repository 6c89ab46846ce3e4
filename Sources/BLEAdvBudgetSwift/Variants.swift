internal import BLEAdvBudget
internal import SwiftSyntax

/// One alternative at a choice point: the value on one path, and how that path is named.
struct Alternative<Value> {
    /// `if pm5Mode (Rower.swift:12)`, `#else`, `service = Chat.service (call at Chat.swift:40)`.
    let label: String
    let value: Value
}

/// One choice made while reading a call: which alternative of a choice point was taken.
struct Choice {
    /// Identifies the choice point, so that the same point met twice on one path takes the same
    /// alternative (a variable read twice, two `#if DEBUG` blocks, two parameters of one function).
    let key: String
    let index: Int
    let count: Int
    let label: String
}

/// The paths of one reading, enumerated depth first: each reading follows `script` at the choice
/// points it meets, in the order met (the first alternative past the script's end), and records
/// the choices taken; `next()` gives the script of the following path.
struct VariantPlan {
    var script: [Int] = []
    private(set) var taken: [Choice] = []
    /// Set after too many paths: every choice point with several alternatives is then unresolved.
    var collapsed = false

    /// Starts a reading along `script`.
    mutating func start(script: [Int], collapsed: Bool) {
        self.script = script
        self.collapsed = collapsed
        taken = []
    }

    /// The alternative to take at a choice point, or nil when the plan is collapsed.
    mutating func choose(key: String, labels: [String]) -> Int? {
        if let earlier = taken.first(where: { $0.key == key }), earlier.count == labels.count {
            return earlier.index
        }
        guard !collapsed else { return nil }
        let position = taken.count
        let index = position < script.count ? min(script[position], labels.count - 1) : 0
        taken.append(Choice(key: key, index: index, count: labels.count, label: labels[index]))
        return index
    }

    /// The script of the next path, or nil when every path has been read.
    func next() -> [Int]? {
        for position in taken.indices.reversed() where taken[position].index + 1 < taken[position].count {
            return taken[..<position].map(\.index) + [taken[position].index + 1]
        }
        return nil
    }

    /// The path's label: its choices joined with ", ", nil when there were none.
    var label: String? {
        taken.isEmpty ? nil : taken.map(\.label).joined(separator: ", ")
    }
}

extension Resolver {
    /// Picks one of `alternatives` for the current path. One alternative is taken without a
    /// choice; none, or more than `maximumVariants`, is unresolved with `what` named.
    func choose<T>(
        key: String,
        _ alternatives: [Alternative<T>],
        what: String,
        at node: some SyntaxProtocol
    ) -> Result<T, Unresolved> {
        guard alternatives.count <= maximumVariants else {
            let reason =
                "\(what) has \(alternatives.count) alternatives; more than \(maximumVariants) are not followed"
            warn(.tooManyVariants, at: node, reason)
            return .failure(Unresolved(reason: reason))
        }
        guard let first = alternatives.first else {
            return .failure(Unresolved(reason: "\(what) has no alternative the reader can follow"))
        }
        guard alternatives.count > 1 else { return .success(first.value) }
        guard let index = plan.choose(key: key, labels: alternatives.map(\.label)) else {
            return .failure(
                Unresolved(
                    reason: "\(what) has \(alternatives.count) alternatives, and with the other choices of this "
                        + "call there are more than \(maximumVariants) paths; not followed"
                )
            )
        }
        return .success(alternatives[index].value)
    }

    /// `if …`, `else if …`, `else`, `case …`, `default` or `return` with the file and line of the
    /// branch that holds `node` inside `boundary` (the function body or statement list searched).
    func branchLabel(of node: Syntax, inside boundary: Syntax) -> String? {
        var child = node
        var current = node.parent
        while let ancestor = current, ancestor.id != boundary.id {
            if let ifExpr = ancestor.as(IfExprSyntax.self) {
                if child.id == ifExpr.body.id {
                    return "if \(ifExpr.conditions.trimmedDescription) (\(index.shortLocation(of: ifExpr.ifKeyword)))"
                }
                if let elseBody = ifExpr.elseBody, child.id == elseBody.id, elseBody.is(CodeBlockSyntax.self),
                    let elseKeyword = ifExpr.elseKeyword
                {
                    return "else (\(index.shortLocation(of: elseKeyword)))"
                }
            } else if let switchCase = ancestor.as(SwitchCaseSyntax.self) {
                return "\(switchCase.label.trimmedDescription.dropLastColon) (\(index.shortLocation(of: switchCase)))"
            } else if let guardStmt = ancestor.as(GuardStmtSyntax.self), child.id == guardStmt.body.id {
                return "guard \(guardStmt.conditions.trimmedDescription) fails (\(index.shortLocation(of: guardStmt)))"
            }
            child = ancestor
            current = ancestor.parent
        }
        return nil
    }
}

extension String {
    /// `case .debug:` as `case .debug`.
    var dropLastColon: String { hasSuffix(":") ? String(dropLast()) : self }
}

/// What two readings of a call must share to be merged: their values, not where they were read.
struct VariantValues: Equatable {
    let dictionary: String
    let localName: SwiftAdvertisingValue.Resolution?
    let uuids: [SwiftAdvertisingValue.Resolution]?
    let uuidListReason: String?
    let otherKeys: [String]
    let beacon: [String?]

    init(_ call: SwiftAdvertisingCall) {
        switch call.dictionary {
        case .literal: dictionary = "literal"
        case .nilArgument: dictionary = "nil"
        case .beacon: dictionary = "beacon"
        case .unresolved(let reason): dictionary = reason
        }
        localName = call.localName?.resolution
        uuids = call.serviceUUIDs?.elements.map(\.resolution)
        uuidListReason = call.serviceUUIDs?.unresolvedReason
        otherKeys = call.otherKeys.map(\.key)
        beacon =
            call.beacon.map { beacon in
                let values = beacon.values
                return [
                    values.uuid, values.major.map(String.init), values.minor.map(String.init),
                    values.measuredPower.map(String.init),
                ]
            } ?? []
    }
}
