internal import BLEAdvBudget
internal import SwiftParser
internal import SwiftSyntax

/// A string as far as the sources tell: all of it, or its literal start and end around a part
/// known only at run time.
enum TextValue: Equatable {
    case exact(String)
    /// `unknown` says what is not known (for interpolation, the literal's reason).
    case partial(prefix: String, suffix: String, unknown: Unresolved)

    /// `self` followed by `other`: an unknown middle keeps the outer known ends.
    func appending(_ other: TextValue) -> TextValue {
        switch (self, other) {
        case (.exact(let left), .exact(let right)): .exact(left + right)
        case (.exact(let left), .partial(let prefix, let suffix, let unknown)):
            .partial(prefix: left + prefix, suffix: suffix, unknown: unknown)
        case (.partial(let prefix, let suffix, let unknown), .exact(let right)):
            .partial(prefix: prefix, suffix: suffix + right, unknown: unknown)
        case (.partial(let prefix, _, let unknown), .partial(_, let suffix, _)):
            .partial(prefix: prefix, suffix: suffix, unknown: unknown)
        }
    }
}

extension Unresolved: Equatable {
    static func == (lhs: Unresolved, rhs: Unresolved) -> Bool { lhs.message == rhs.message }
}

extension Resolver {
    /// A string, exact or partial: literals (with interpolation, each interpolated expression
    /// resolved when it is a string known here), `+` of strings, `String(…)`/`NSString(string:)`,
    /// constants, enum raw values, branches, parameters and functions followed. A wholly unknown
    /// string is unresolved.
    func text(_ expression: ExprSyntax) -> Result<TextValue, Unresolved> {
        let expr = Self.strip(expression)
        if let literal = expr.as(StringLiteralExprSyntax.self) { return interpolated(literal) }
        if let parts = Self.concatenation(expr) { return concatenated(parts) }
        if let reason = runtimeReason(expr) { return .failure(Unresolved(reason: reason)) }
        if let rawValue = rawValue(expr) { return rawValue.map { .exact($0) } }
        if let followed = followShapes(expr, { self.text($0) }) { return followed }
        if let lookup = lookupReference(expr, implicitType: "String") {
            if case .declaration(let declaration) = lookup, declaration.enumCase != nil {
                return .failure(Unresolved(reason: "`\(expr.trimmedDescription)` is an enum case, not a string"))
            }
            return follow(lookup, written: expr) { self.text($0) }
        }
        if let call = expr.as(FunctionCallExprSyntax.self) {
            let callee = Self.components(of: call.calledExpression)?.joined(separator: ".") ?? ""
            if ["String", "NSString", "Swift.String", "Foundation.NSString"].contains(callee),
                call.arguments.count == 1,
                let argument = call.arguments.first, [nil, "string", "stringLiteral"].contains(argument.label?.text)
            {
                return text(argument.expression)
            }
            return .failure(Unresolved(reason: "`\(call.trimmedDescription)` is a call, evaluated at run time"))
        }
        return .failure(Unresolved(reason: Self.unsupported(expr, expected: "a string literal")))
    }

    /// `a + b + …`: unknown operands between known ones leave a partial string; all unknown is
    /// unresolved with the first operand's reason.
    private func concatenated(_ parts: [ExprSyntax]) -> Result<TextValue, Unresolved> {
        var result = TextValue.exact("")
        var firstFailure: Unresolved?
        for part in parts {
            switch text(part) {
            case .success(let value):
                result = result.appending(value)
            case .failure(let failure):
                firstFailure = firstFailure ?? failure
                result = result.appending(.partial(prefix: "", suffix: "", unknown: failure))
            }
        }
        return Self.knownEnough(result, firstFailure)
    }

    /// A string literal: exact when it has no interpolation or every interpolated expression is a
    /// string (or an integer literal) known here; else partial, with the literal's reason.
    private func interpolated(_ literal: StringLiteralExprSyntax) -> Result<TextValue, Unresolved> {
        if let value = literal.representedLiteralValue { return .success(.exact(value)) }
        guard case .failure(let unknown) = Self.literalValue(literal) else {
            return .failure(Unresolved(reason: "the string literal `\(literal.trimmedDescription)` does not parse"))
        }
        var result = TextValue.exact("")
        for segment in literal.segments {
            switch segment {
            case .stringSegment(let piece):
                let single = literal.with(\.segments, StringLiteralSegmentListSyntax([.stringSegment(piece)]))
                guard let value = single.representedLiteralValue else { return .failure(unknown) }
                result = result.appending(.exact(value))
            case .expressionSegment(let interpolation):
                result = result.appending(interpolationValue(interpolation, unknown: unknown))
            }
        }
        return Self.knownEnough(result, unknown)
    }

    private func interpolationValue(_ segment: ExpressionSegmentSyntax, unknown: Unresolved) -> TextValue {
        let unknownPart = TextValue.partial(prefix: "", suffix: "", unknown: unknown)
        guard segment.expressions.count == 1, let only = segment.expressions.first, only.label == nil else {
            return unknownPart
        }
        if let integer = only.expression.as(IntegerLiteralExprSyntax.self) { return .exact(integer.literal.text) }
        guard case .success(.exact(let value)) = text(only.expression) else { return unknownPart }
        return .exact(value)
    }

    /// A partial value with nothing known around the unknown part is unresolved.
    private static func knownEnough(_ value: TextValue, _ failure: Unresolved?) -> Result<TextValue, Unresolved> {
        if case .partial(let prefix, let suffix, let unknown) = value, prefix.isEmpty, suffix.isEmpty {
            return .failure(failure ?? unknown)
        }
        return .success(value)
    }
}
