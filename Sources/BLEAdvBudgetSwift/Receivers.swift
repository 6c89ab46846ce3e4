internal import SwiftSyntax

/// The receivers of `x.startAdvertising(_:)` that are evidently not a `CBPeripheralManager`: `x`
/// is declared with a type annotation, an initialiser call or a parameter type naming a type that
/// is neither `CBPeripheralManager` nor a class of the sources inheriting from it (nor a protocol,
/// generic parameter or superclass such a value could hide behind). When the type cannot be told,
/// the call is CoreBluetooth's.
struct Receivers {
    let index: ModuleIndex
    /// Names a `CBPeripheralManager` may be held as: the class, its subclasses in the sources,
    /// its superclasses and protocols, and the sources' protocols, generic parameters and
    /// associated types.
    private let mayHoldPeripheralManager: Set<String>
    /// The sources' type aliases: name → the type it stands for.
    private let aliases: [String: TypeSyntax]
    /// How many declarations, or aliases, are followed to a type.
    private static let maximumDepth = 4

    init(index: ModuleIndex) {
        self.index = index
        let collector = TypeCollector(viewMode: .sourceAccurate)
        for unit in index.units { collector.walk(unit.tree) }
        var names: Set<String> = [
            "CBPeripheralManager", "CBManager", "NSObject", "NSObjectProtocol", "AnyObject", "Any", "Self",
        ]
        names.formUnion(collector.openTypes)
        for start in collector.superclasses.keys {
            var current = start
            for _ in 0..<8 {
                guard let superclass = collector.superclasses[current] else { break }
                if superclass == "CBPeripheralManager" {
                    names.insert(start)
                    break
                }
                current = superclass
            }
        }
        mayHoldPeripheralManager = names
        aliases = collector.aliases
    }

    /// Whether `call` is `x.startAdvertising(…)` with `x` evidently of another type.
    func isOtherType(_ call: FunctionCallExprSyntax) -> Bool {
        guard let member = call.calledExpression.as(MemberAccessExprSyntax.self), let base = member.base,
            let type = receiverType(Resolver.strip(base), depth: 0)
        else { return false }
        return !mayBePeripheralManager(type, depth: 0)
    }

    /// The type name a receiver is declared with, or nil when it cannot be told.
    private func receiverType(_ expr: ExprSyntax, depth: Int) -> String? {
        guard depth < Self.maximumDepth else { return nil }
        if let call = expr.as(FunctionCallExprSyntax.self) { return Self.initialisedType(call) }
        let lookup: Lookup
        if let reference = expr.as(DeclReferenceExprSyntax.self), reference.argumentNames == nil {
            lookup = index.lookup(name: reference.baseName.text, at: reference)
        } else if let components = Resolver.components(of: expr), components.count >= 2 {
            lookup = index.lookupMember(components: components, at: expr)
        } else {
            return nil
        }
        switch lookup {
        case .declaration(let declaration):
            guard declaration.enumCase == nil else { return nil }
            if let type = declaration.typeAnnotation { return Self.name(of: type) }
            return declaration.value.flatMap { receiverType(Resolver.strip($0), depth: depth + 1) }
        case .parameter(let parameter, _):
            return Self.name(of: parameter.type)
        case .runtime, .notFound:
            return nil
        }
    }

    private func mayBePeripheralManager(_ name: String, depth: Int) -> Bool {
        if mayHoldPeripheralManager.contains(name) { return true }
        guard let alias = aliases[name] else { return false }
        guard depth < Self.maximumDepth, let aliased = Self.name(of: alias) else { return true }
        return mayBePeripheralManager(aliased, depth: depth + 1)
    }

    /// `T` of `T(…)` or `A.T.init(…)`, when `T` is capitalised like a type.
    private static func initialisedType(_ call: FunctionCallExprSyntax) -> String? {
        guard let last = Resolver.components(of: call.calledExpression)?.filter({ $0 != "init" }).last,
            last.first?.isUppercase ?? false
        else { return nil }
        return last
    }

    /// The name of a type without optionals, attributes, `some`/`any` and a module prefix; nil
    /// for a tuple, function, composition or generic optional.
    static func name(of type: TypeSyntax) -> String? {
        if let optional = type.as(OptionalTypeSyntax.self) { return name(of: optional.wrappedType) }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return name(of: unwrapped.wrappedType)
        }
        if let attributed = type.as(AttributedTypeSyntax.self) { return name(of: attributed.baseType) }
        if let someOrAny = type.as(SomeOrAnyTypeSyntax.self) { return name(of: someOrAny.constraint) }
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            let text = identifier.name.text
            return ["Optional", "ImplicitlyUnwrappedOptional"].contains(text) ? nil : text
        }
        if let member = type.as(MemberTypeSyntax.self) { return member.name.text }
        return nil
    }
}

/// The superclass of each class, the protocols, generic parameters and associated types, and the
/// type aliases of the sources.
private final class TypeCollector: SyntaxVisitor {
    var superclasses: [String: String] = [:]
    var openTypes = Set<String>()
    var aliases: [String: TypeSyntax] = [:]

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        if let first = node.inheritanceClause?.inheritedTypes.first, let name = Receivers.name(of: first.type) {
            superclasses[node.name.text] = name
        }
        return .visitChildren
    }

    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind {
        openTypes.insert(node.name.text)
        return .visitChildren
    }

    override func visit(_ node: GenericParameterSyntax) -> SyntaxVisitorContinueKind {
        openTypes.insert(node.name.text)
        return .visitChildren
    }

    override func visit(_ node: AssociatedTypeDeclSyntax) -> SyntaxVisitorContinueKind {
        openTypes.insert(node.name.text)
        return .visitChildren
    }

    override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind {
        aliases[node.name.text] = node.initializer.value
        return .visitChildren
    }
}
