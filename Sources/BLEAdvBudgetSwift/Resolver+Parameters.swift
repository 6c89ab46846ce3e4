internal import BLEAdvBudget
internal import SwiftSyntax

/// Parameters followed to the arguments of their function's calls, and `#if` alternatives.
extension Resolver {
    /// Follows a parameter to its argument: the call the path already went through (a function
    /// whose `return` is being read), else each call of the function in the sources (one
    /// alternative per call; every parameter of the function takes the same call on a path). No
    /// call, or more than `maximumVariants`, is unresolved with the reason.
    func withArgument<T>(
        of parameter: FunctionParameterSyntax,
        in function: FunctionDeclSyntax,
        written: ExprSyntax,
        _ body: (ExprSyntax) -> Result<T, Unresolved>
    ) -> Result<T, Unresolved> {
        let name = (parameter.secondName ?? parameter.firstName).text
        let signature = "\(function.name.text)(\(Self.labels(of: function)))"
        let binding: CallBinding
        if let bound = bindings[function.id] {
            binding = bound
        } else {
            let calls = index.calls(of: function)
            guard !calls.isEmpty else {
                return .failure(
                    Unresolved(
                        reason: "`\(name)` is a parameter of `func \(function.name.text)`, and no call of "
                            + "`\(signature)` is in the scanned sources; known only at run time"
                    )
                )
            }
            let alternatives = calls.map { call in
                Alternative(label: callLabel(call, parameter: name), value: call)
            }
            switch choose(
                key: "call \(function.id)",
                alternatives,
                what: "`\(name)`, a parameter of `func \(function.name.text)` called \(calls.count) times,",
                at: written
            ) {
            case .success(let chosen): binding = chosen
            case .failure(let failure): return .failure(failure)
            }
            bindings[function.id] = binding
        }
        guard let argument = binding.arguments[name] else {
            return .failure(Unresolved(reason: "`\(name)` is not a parameter of `\(signature)`"))
        }
        let place = index.shortLocation(of: binding.call)
        let bound = "\(name) = \(argument.trimmedDescription)"
        return descend(into: Syntax(parameter), named: bound, place: place, written: Syntax(written)) {
            body(argument)
        }
    }

    /// `service = ChatService.service (call at Chat.swift:40)`; `= default …` for a default value.
    private func callLabel(_ binding: CallBinding, parameter: String) -> String {
        let place = index.shortLocation(of: binding.call)
        guard let argument = binding.arguments[parameter] else { return "call at \(place)" }
        let isDefault = argument.parent?.is(InitializerClauseSyntax.self) ?? false
        let value = isDefault ? "default \(argument.trimmedDescription)" : argument.trimmedDescription
        return "\(parameter) = \(value) (call at \(place))"
    }

    /// The declaration of the `#if` clause taken on this path, when `declaration` has
    /// alternatives in other clauses of its `#if` (one alternative per clause; every `#if` with
    /// the same conditions takes the same clause on a path).
    func configuration(of declaration: Declaration, written: ExprSyntax) -> Result<Declaration, Unresolved> {
        guard let (key, alternatives) = index.configurations(of: declaration) else { return .success(declaration) }
        return choose(
            key: key,
            alternatives,
            what: "`\(declaration.displayName)`, declared in several `#if` clauses,",
            at: written
        )
    }
}
