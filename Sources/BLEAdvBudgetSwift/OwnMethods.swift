internal import SwiftSyntax

/// An app's own `func startAdvertising(_ x: T)`, where `T` is a struct, class, enum or actor of
/// the sources: a call whose argument is evidently a `T` is that method's, not CoreBluetooth's
/// (the rule is in `SwiftAdvertisingScanner`'s documentation).
struct OwnMethods {
    /// The `T`s of the app's own one-argument `startAdvertising` methods.
    let argumentTypes: Set<String>
    let index: ModuleIndex

    init(index: ModuleIndex) {
        self.index = index
        var types = Set<String>()
        let notOwn: Set<String> = ["Dictionary", "NSDictionary", "NSMutableDictionary", "Optional", "Any"]
        for byName in index.functions.values {
            for function in byName["startAdvertising"] ?? [] {
                let parameters = function.signature.parameterClause.parameters
                guard parameters.count == 1, let parameter = parameters.first,
                    parameter.firstName.tokenKind == .wildcard,
                    let type = parameter.type.as(IdentifierTypeSyntax.self), type.genericArgumentClause == nil,
                    index.typePaths.contains(type.name.text), !notOwn.contains(type.name.text)
                else { continue }
                types.insert(type.name.text)
            }
        }
        argumentTypes = types
    }

    /// Whether `call`'s argument is evidently one of `argumentTypes`: `T(…)`, or a name declared
    /// with type `T`, initialised with `T(…)`, or a parameter of type `T`.
    func isOwnCall(_ call: FunctionCallExprSyntax) -> Bool {
        guard !argumentTypes.isEmpty, let argument = call.arguments.first?.expression else { return false }
        let expr = Resolver.strip(argument)
        if let built = expr.as(FunctionCallExprSyntax.self) { return isInitialiser(built) }
        guard let reference = expr.as(DeclReferenceExprSyntax.self) else { return false }
        switch index.lookup(name: reference.baseName.text, at: reference) {
        case .declaration(let declaration):
            if let type = declaration.typeAnnotation?.as(IdentifierTypeSyntax.self) {
                return argumentTypes.contains(type.name.text)
            }
            guard let value = declaration.value.map(Resolver.strip), let built = value.as(FunctionCallExprSyntax.self)
            else { return false }
            return isInitialiser(built)
        case .parameter(let parameter, _):
            return parameter.type.as(IdentifierTypeSyntax.self).map { argumentTypes.contains($0.name.text) } ?? false
        case .runtime, .notFound:
            return false
        }
    }

    private func isInitialiser(_ call: FunctionCallExprSyntax) -> Bool {
        guard let components = Resolver.components(of: call.calledExpression) else { return false }
        return components.filter { $0 != "init" }.last.map(argumentTypes.contains) ?? false
    }
}
