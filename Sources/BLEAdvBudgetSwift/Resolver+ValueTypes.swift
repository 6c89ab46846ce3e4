internal import SwiftSyntax

/// Values that are evidently not of the type CoreBluetooth requires for their key.
extension Resolver {
    /// What a value is when it is evidently not a string (`an array`, `a dictionary`, `a number`,
    /// `a Bool`, `Data`), following constants, parameters, branches and functions as for any
    /// value; nil when it may be a string or is not known.
    func nonStringKind(_ value: ExprSyntax) -> String? {
        guard case .success(let kind?) = expression(value, { .success(Self.nonStringLiteralKind($0)) }) else {
            return nil
        }
        return kind
    }

    private static func nonStringLiteralKind(_ expr: ExprSyntax) -> String? {
        if expr.is(ArrayExprSyntax.self) { return "an array" }
        if expr.is(DictionaryExprSyntax.self) { return "a dictionary" }
        if expr.is(IntegerLiteralExprSyntax.self) || expr.is(FloatLiteralExprSyntax.self) { return "a number" }
        if expr.is(BooleanLiteralExprSyntax.self) { return "a Bool" }
        if let prefix = expr.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-",
            prefix.expression.is(IntegerLiteralExprSyntax.self) || prefix.expression.is(FloatLiteralExprSyntax.self)
        {
            return "a number"
        }
        guard let call = expr.as(FunctionCallExprSyntax.self),
            let callee = components(of: call.calledExpression)?.filter({ $0 != "init" })
        else { return nil }
        if callee.last == "data", call.arguments.first?.label?.text == "using" { return "Data" }
        switch callee.last {
        case "Data", "NSData": return "Data"
        case "NSNumber", "Int", "UInt8", "Int8", "UInt16", "Int16", "Double", "Float": return "a number"
        default: return nil
        }
    }
}
