internal import SwiftSyntax

/// A call matched to a function declared in the sources: each parameter's argument as written at
/// the call, or the parameter's default value when the call leaves it out.
struct CallBinding {
    let call: FunctionCallExprSyntax
    let function: FunctionDeclSyntax
    /// Parameter name inside the function → the expression it is bound to.
    let arguments: [String: ExprSyntax]
}

extension ModuleIndex {
    /// The calls in the sources that match `function` by name and argument labels (an argument
    /// with a default value may be left out), in file, then source, order. Calls of another
    /// function with the same name and labels (in another type) are included: the reader does
    /// not know the receiver's type.
    func calls(of function: FunctionDeclSyntax) -> [CallBinding] {
        let index = callsByName ?? buildCallIndex()
        callsByName = index
        return (index[function.name.text] ?? []).compactMap { Self.bind($0, to: function) }
    }

    private func buildCallIndex() -> [String: [FunctionCallExprSyntax]] {
        var result: [String: [FunctionCallExprSyntax]] = [:]
        for unit in units {
            for token in unit.tree.tokens(viewMode: .sourceAccurate) {
                guard case .identifier(let name) = token.tokenKind,
                    let reference = token.parent?.as(DeclReferenceExprSyntax.self)
                else { continue }
                var callee = Syntax(reference)
                if let member = reference.parent?.as(MemberAccessExprSyntax.self), member.declName.id == reference.id {
                    callee = Syntax(member)
                }
                if let call = callee.parent?.as(FunctionCallExprSyntax.self), call.calledExpression.id == callee.id {
                    result[name, default: []].append(call)
                }
            }
        }
        return result
    }

    /// The parameters of `function` bound to the arguments of `call`, or nil when the labels do
    /// not match.
    static func bind(_ call: FunctionCallExprSyntax, to function: FunctionDeclSyntax) -> CallBinding? {
        var arguments = Array(call.arguments)[...]
        var bound: [String: ExprSyntax] = [:]
        for parameter in function.signature.parameterClause.parameters {
            let label: String? = parameter.firstName.tokenKind == .wildcard ? nil : parameter.firstName.text
            let name = (parameter.secondName ?? parameter.firstName).text
            if let argument = arguments.first, argument.label?.text == label {
                guard !isLiteralOfAnotherType(argument.expression, for: parameter.type) else { return nil }
                bound[name] = argument.expression
                arguments = arguments.dropFirst()
            } else if let defaultValue = parameter.defaultValue?.value {
                bound[name] = defaultValue
            } else {
                return nil
            }
        }
        guard arguments.isEmpty, call.trailingClosure == nil else { return nil }
        return CallBinding(call: call, function: function, arguments: bound)
    }

    /// Whether `argument` is a dictionary or array literal given for a parameter of a named type
    /// (`AdvertConfig`): the call is of another function with the same name and labels
    /// (`peripheralManager.startAdvertising([…])` is not a call of the app's
    /// `startAdvertising(_ config: AdvertConfig)`).
    private static func isLiteralOfAnotherType(_ argument: ExprSyntax, for type: TypeSyntax) -> Bool {
        guard let named = type.as(IdentifierTypeSyntax.self),
            !["Any", "AnyObject", "AnyHashable", "Dictionary", "NSDictionary", "Array", "NSArray"].contains(
                named.name.text
            )
        else { return false }
        let stripped = Resolver.strip(argument)
        return stripped.is(DictionaryExprSyntax.self) || stripped.is(ArrayExprSyntax.self)
    }

    /// The functions a call's callee may name: `f(…)` in the enclosing types then at file scope,
    /// `self.f(…)`/`Self.f(…)` in the enclosing types, `A.B.f(…)` (with or without a module
    /// prefix) in that type. A call on a value (`manager.f(…)`) names none: its type is not known.
    func functions(calledBy call: FunctionCallExprSyntax) -> [FunctionDeclSyntax] {
        guard let components = Resolver.components(of: call.calledExpression), let name = components.last else {
            return []
        }
        let typeComponents = Array(components.dropLast())
        let enclosing = enclosingTypePaths(of: call)
        var paths: [String] = []
        if typeComponents.isEmpty {
            paths = enclosing + [""]
        } else if typeComponents == ["self"] || typeComponents == ["Self"] {
            paths = enclosing
        } else {
            paths = typePaths(written: typeComponents, enclosing: enclosing)
        }
        for path in paths {
            let found = (functions[path]?[name] ?? []).filter { Self.bind(call, to: $0) != nil }
            if !found.isEmpty { return found }
        }
        return []
    }

    /// The `#if` alternatives of a declaration: the declarations of the same name in each clause
    /// of the nearest `#if` that holds it (one per clause that declares the name), with the
    /// clause's label (`#if DEBUG`, `#elseif os(iOS)`, `#else`), and the key shared by every `#if`
    /// with the same conditions. Nil when the declaration is not in an `#if` or no other clause
    /// declares the name.
    func configurations(of declaration: Declaration) -> (key: String, alternatives: [Alternative<Declaration>])? {
        guard let clause = declaration.node.ancestorOrSelf(mapping: { $0.as(IfConfigClauseSyntax.self) }),
            let ifConfig = clause.parent?.parent?.as(IfConfigDeclSyntax.self)
        else { return nil }
        var alternatives: [Alternative<Declaration>] = []
        for clause in ifConfig.clauses {
            let found = declarations(in: clause, named: declaration.name, like: declaration)
            guard let first = found.first else { continue }
            alternatives.append(Alternative(label: Self.label(of: clause), value: first))
        }
        guard alternatives.count > 1 else { return nil }
        return (ifConfig.clauses.map(Self.label).joined(separator: " "), alternatives)
    }

    static func label(of clause: IfConfigClauseSyntax) -> String {
        let keyword = clause.poundKeyword.text
        guard let condition = clause.condition else { return keyword }
        return keyword + " " + condition.trimmedDescription
    }

    private func declarations(in clause: IfConfigClauseSyntax, named name: String, like declaration: Declaration)
        -> [Declaration]
    {
        var variables: [VariableDeclSyntax] = []
        switch clause.elements {
        case .statements(let items):
            variables = items.compactMap { $0.item.as(DeclSyntax.self)?.as(VariableDeclSyntax.self) }
        case .decls(let items):
            variables = items.compactMap { $0.decl.as(VariableDeclSyntax.self) }
        default:
            break
        }
        let owner =
            declaration.displayName.hasSuffix("." + name)
            ? String(declaration.displayName.dropLast(name.count + 1)) : nil
        return variables.flatMap {
            Self.declarations(of: $0, owner: owner, localScope: declaration.localScope)
        }
        .filter { $0.name == name }
    }
}
