internal import SwiftSyntax

/// One parsed file.
final class SourceUnit {
    let path: String
    let tree: SourceFileSyntax
    let converter: SourceLocationConverter

    init(path: String, tree: SourceFileSyntax) {
        self.path = path
        self.tree = tree
        self.converter = SourceLocationConverter(fileName: path, tree: tree)
    }
}

/// A named value the reader can follow: a `let` or `var` binding (global, member or local), a
/// computed property with a one-expression getter, an `if let`/`guard let` binding, or an enum case.
struct Declaration {
    let name: String
    /// The binding, optional-binding condition or enum case element.
    let node: Syntax
    /// The initial value, or the getter's expression; nil when the declaration has neither.
    let value: ExprSyntax?
    let isLet: Bool
    let isComputed: Bool
    /// For an enum case: its raw value, when it has one written or implied (`String` enums).
    let enumCase: EnumCaseInfo?
    /// How the declaration is named in messages: `Type.name` for members, `name` otherwise.
    let displayName: String
    /// Set for local bindings: the statement list that declares them.
    let localScope: CodeBlockItemListSyntax?
    /// For a computed property whose getter is more than one expression: the getter's statements
    /// (its `return`s are followed).
    var getterBody: CodeBlockItemListSyntax? = nil
    /// The type written in the declaration (`let name: String`), when there is one.
    var typeAnnotation: TypeSyntax? = nil
}

struct EnumCaseInfo {
    /// The explicit raw value expression.
    let rawValue: ExprSyntax?
    /// The implicit raw value of a case of a `String` enum: the case's name.
    let implicitStringRawValue: String?
}

/// What a name refers to.
enum Lookup {
    case declaration(Declaration)
    /// A parameter of a function declared in the sources, followed to the function's call sites.
    case parameter(FunctionParameterSyntax, function: FunctionDeclSyntax)
    /// A name bound at run time (a loop variable, a closure parameter…): the reason says which.
    case runtime(String)
    /// Nothing by that name in the sources: the reason says what was looked for.
    case notFound(String)
}

/// All the files of one scan, seen as one module: the global declarations and every type's
/// members (across the type's declaration and its extensions), by name.
final class ModuleIndex {
    private(set) var units: [SourceUnit] = []
    private var unitByRoot: [SyntaxIdentifier: SourceUnit] = [:]
    private(set) var globals: [String: [Declaration]] = [:]
    /// Type path (`Outer.Inner`) → member name → declarations.
    private(set) var members: [String: [String: [Declaration]]] = [:]
    private(set) var typePaths = Set<String>()
    /// The functions declared at file scope (under "") and in each type path, by name.
    private(set) var functions: [String: [String: [FunctionDeclSyntax]]] = [:]
    /// Every call in the sources by the name called (`f` of `f(…)`, `a.f(…)`), built when first asked.
    var callsByName: [String: [FunctionCallExprSyntax]]?
    /// Every name reference in the sources by name, built when first asked.
    var referencesByName: [String: [DeclReferenceExprSyntax]]?
    private var stringEnums = Set<String>()
    private var ambiguous = Set<SyntaxIdentifier>()

    func add(_ unit: SourceUnit) {
        units.append(unit)
        unitByRoot[unit.tree.id] = unit
        indexStatements(unit.tree.statements, owner: nil)
    }

    func location(of node: some SyntaxProtocol) -> SwiftSourceLocation {
        guard let unit = unitByRoot[node.root.id] else {
            return SwiftSourceLocation(file: "<unknown>", line: 0, column: 0)
        }
        let location = unit.converter.location(for: node.positionAfterSkippingLeadingTrivia)
        return SwiftSourceLocation(file: unit.path, line: location.line, column: location.column)
    }

    /// `file:line` for messages.
    func shortLocation(of node: some SyntaxProtocol) -> String {
        let location = location(of: node)
        return "\(location.file):\(location.line)"
    }

    // MARK: Indexing

    private func indexStatements(_ items: CodeBlockItemListSyntax, owner: String?) {
        for item in items {
            if case .decl(let decl) = item.item { indexDecl(decl, owner: owner) }
        }
    }

    private func indexMembers(_ items: MemberBlockItemListSyntax, owner: String) {
        for item in items { indexDecl(item.decl, owner: owner) }
    }

    private func indexDecl(_ decl: DeclSyntax, owner: String?) {
        if let variable = decl.as(VariableDeclSyntax.self) {
            for declaration in Self.declarations(of: variable, owner: owner, localScope: nil) {
                add(declaration, owner: owner)
            }
        } else if let type = decl.as(StructDeclSyntax.self) {
            indexType(name: type.name.text, members: type.memberBlock.members, owner: owner)
        } else if let type = decl.as(ClassDeclSyntax.self) {
            indexType(name: type.name.text, members: type.memberBlock.members, owner: owner)
        } else if let type = decl.as(ActorDeclSyntax.self) {
            indexType(name: type.name.text, members: type.memberBlock.members, owner: owner)
        } else if let type = decl.as(EnumDeclSyntax.self) {
            let path = Self.join(owner, type.name.text)
            if let raw = type.inheritanceClause?.inheritedTypes.first,
                ["String", "Swift.String"].contains(Self.typeName(raw.type))
            {
                stringEnums.insert(path)
            }
            indexType(name: type.name.text, members: type.memberBlock.members, owner: owner)
        } else if let type = decl.as(ExtensionDeclSyntax.self) {
            let path = Self.typeName(type.extendedType)
            typePaths.insert(path)
            indexMembers(type.memberBlock.members, owner: path)
        } else if let function = decl.as(FunctionDeclSyntax.self) {
            functions[owner ?? "", default: [:]][function.name.text, default: []].append(function)
        } else if let cases = decl.as(EnumCaseDeclSyntax.self), let owner {
            for element in cases.elements {
                let info = EnumCaseInfo(
                    rawValue: element.rawValue?.value,
                    implicitStringRawValue: stringEnums.contains(owner) ? element.name.text : nil
                )
                let declaration = Declaration(
                    name: element.name.text,
                    node: Syntax(element),
                    value: nil,
                    isLet: true,
                    isComputed: false,
                    enumCase: info,
                    displayName: "\(owner).\(element.name.text)",
                    localScope: nil
                )
                add(declaration, owner: owner)
            }
        } else if let ifConfig = decl.as(IfConfigDeclSyntax.self) {
            for clause in ifConfig.clauses {
                switch clause.elements {
                case .statements(let items): indexStatements(items, owner: owner)
                case .decls(let items):
                    for item in items { indexDecl(item.decl, owner: owner) }
                default: break
                }
            }
        }
    }

    private func indexType(name: String, members items: MemberBlockItemListSyntax, owner: String?) {
        let path = Self.join(owner, name)
        typePaths.insert(path)
        indexMembers(items, owner: path)
    }

    private func add(_ declaration: Declaration, owner: String?) {
        let list: [Declaration]
        if let owner {
            members[owner, default: [:]][declaration.name, default: []].append(declaration)
            list = members[owner]?[declaration.name] ?? []
        } else {
            globals[declaration.name, default: []].append(declaration)
            list = globals[declaration.name] ?? []
        }
        if list.count > 1 {
            for entry in list { ambiguous.insert(entry.node.id) }
        }
    }

    /// The declarations of a `let`/`var` statement, one per identifier binding. A name bound by a
    /// tuple pattern gets a declaration with no value (it is not followed).
    static func declarations(
        of variable: VariableDeclSyntax,
        owner: String?,
        localScope: CodeBlockItemListSyntax?
    ) -> [Declaration] {
        let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
        var result: [Declaration] = []
        for binding in variable.bindings {
            if let identifier = binding.pattern.as(IdentifierPatternSyntax.self) {
                let getter = getterExpression(binding.accessorBlock)
                let name = identifier.identifier.text
                var declaration = Declaration(
                    name: name,
                    node: Syntax(binding),
                    value: binding.initializer?.value ?? getter,
                    isLet: isLet || getter != nil,
                    isComputed: getter != nil || (binding.initializer == nil && binding.accessorBlock != nil),
                    enumCase: nil,
                    displayName: join(owner, name),
                    localScope: localScope
                )
                declaration.getterBody = getter == nil ? getterStatements(binding.accessorBlock) : nil
                declaration.typeAnnotation = binding.typeAnnotation?.type
                result.append(declaration)
            } else {
                for name in boundNames(binding.pattern) {
                    result.append(
                        Declaration(
                            name: name,
                            node: Syntax(binding),
                            value: nil,
                            isLet: isLet,
                            isComputed: false,
                            enumCase: nil,
                            displayName: join(owner, name),
                            localScope: localScope
                        )
                    )
                }
            }
        }
        return result
    }

    /// The expression a getter returns, when the getter is one expression or one `return`.
    static func getterExpression(_ block: AccessorBlockSyntax?) -> ExprSyntax? {
        guard let block else { return nil }
        switch block.accessors {
        case .getter(let items):
            return singleExpression(items)
        case .accessors(let accessors):
            for accessor in accessors where accessor.accessorSpecifier.tokenKind == .keyword(.get) {
                guard let body = accessor.body else { return nil }
                return singleExpression(body.statements)
            }
            return nil
        }
    }

    /// The statements of a getter, however many.
    static func getterStatements(_ block: AccessorBlockSyntax?) -> CodeBlockItemListSyntax? {
        guard let block else { return nil }
        switch block.accessors {
        case .getter(let items):
            return items
        case .accessors(let accessors):
            return accessors.first { $0.accessorSpecifier.tokenKind == .keyword(.get) }?.body?.statements
        }
    }

    static func singleExpression(_ items: CodeBlockItemListSyntax) -> ExprSyntax? {
        guard items.count == 1, let item = items.first else { return nil }
        switch item.item {
        case .expr(let expression): return expression
        case .stmt(let statement): return statement.as(ReturnStmtSyntax.self)?.expression
        default: return nil
        }
    }

    /// Every identifier a pattern binds.
    static func boundNames(_ pattern: some SyntaxProtocol) -> [String] {
        if let identifier = pattern.as(IdentifierPatternSyntax.self) { return [identifier.identifier.text] }
        return pattern.children(viewMode: .sourceAccurate).flatMap { boundNames($0) }
    }

    static func typeName(_ type: TypeSyntax) -> String {
        if let identifier = type.as(IdentifierTypeSyntax.self) { return identifier.name.text }
        if let member = type.as(MemberTypeSyntax.self) { return typeName(member.baseType) + "." + member.name.text }
        return type.trimmedDescription
    }

    static func join(_ owner: String?, _ name: String) -> String {
        guard let owner, !owner.isEmpty else { return name }
        return owner + "." + name
    }

    // MARK: Lookup

    /// The type paths a node sits in, innermost first: inside `struct B` nested in `enum A`,
    /// `["A.B", "A"]`; inside `extension A.B`, the same.
    func enclosingTypePaths(of node: some SyntaxProtocol) -> [String] {
        var names: [String] = []
        var current = node.parent
        while let ancestor = current {
            if let type = ancestor.as(StructDeclSyntax.self) {
                names.append(type.name.text)
            } else if let type = ancestor.as(ClassDeclSyntax.self) {
                names.append(type.name.text)
            } else if let type = ancestor.as(EnumDeclSyntax.self) {
                names.append(type.name.text)
            } else if let type = ancestor.as(ActorDeclSyntax.self) {
                names.append(type.name.text)
            } else if let type = ancestor.as(ProtocolDeclSyntax.self) {
                names.append(type.name.text)
            } else if let type = ancestor.as(ExtensionDeclSyntax.self) {
                names.append(
                    contentsOf: Self.typeName(type.extendedType).split(separator: ".").map(String.init).reversed()
                )
                break
            }
            current = ancestor.parent
        }
        let outermostFirst = Array(names.reversed())
        return (0..<outermostFirst.count).reversed().map { outermostFirst[0...$0].joined(separator: ".") }
    }

    /// An unqualified name as written at `node`: local bindings of the enclosing functions and
    /// closures (declared before `node`), then members of the enclosing types, then globals.
    func lookup(name: String, at node: some SyntaxProtocol) -> Lookup {
        if let local = lookupLocal(name: name, at: Syntax(node)) { return local }
        for path in enclosingTypePaths(of: node) {
            if let found = members[path]?[name]?.first { return .declaration(found) }
        }
        if let found = globals[name]?.first { return .declaration(found) }
        return .notFound("`\(name)` is not declared in the scanned sources")
    }

    /// Whether another declaration has the same name in the same scope (two `#if` branches, or
    /// two files of different modules scanned together).
    func isAmbiguous(_ declaration: Declaration) -> Bool {
        ambiguous.contains(declaration.node.id)
    }

    /// A member written `A.B.name` (`components` = `["A", "B", "name"]`) at `node`. The type part is
    /// tried inside each enclosing type first, as Swift does, then as written, then without its
    /// first component (a module name).
    func lookupMember(components: [String], at node: some SyntaxProtocol) -> Lookup {
        guard let member = components.last, components.count >= 2 else {
            return .notFound("`\(components.joined(separator: "."))` is not a member reference")
        }
        let typeComponents = Array(components.dropLast())
        let written = components.joined(separator: ".")
        let enclosing = enclosingTypePaths(of: node)
        if typeComponents == ["self"] || typeComponents == ["Self"] {
            for path in enclosing {
                if let found = members[path]?[member]?.first { return .declaration(found) }
            }
            return .notFound("`\(written)` is not declared in the scanned sources")
        }
        if let path = typePaths(written: typeComponents, enclosing: enclosing).first {
            if let found = members[path]?[member]?.first { return .declaration(found) }
            return .notFound("`\(written)`: `\(path)` has no member `\(member)` in the scanned sources")
        }
        return .notFound("`\(written)` is not declared in the scanned sources")
    }

    /// The declared type paths a type written `A.B` may name, in the order Swift tries them: inside
    /// each enclosing type (innermost first), as written, then the same without the first
    /// component (a module name).
    func typePaths(written typeComponents: [String], enclosing: [String]) -> [String] {
        var attempts = [typeComponents]
        if typeComponents.count > 1 { attempts.append(Array(typeComponents.dropFirst())) }
        var result: [String] = []
        for attempt in attempts {
            let suffix = attempt.joined(separator: ".")
            for prefix in enclosing + [""] {
                let path = prefix.isEmpty ? suffix : prefix + "." + suffix
                if typePaths.contains(path) { result.append(path) }
            }
        }
        return result
    }

    /// Local bindings visible at `node`, walking out through statement lists, conditions,
    /// functions and closures up to the enclosing type or file.
    private func lookupLocal(name: String, at node: Syntax) -> Lookup? {
        var child = node
        var current = node.parent
        while let ancestor = current {
            if ancestor.is(MemberBlockSyntax.self) || ancestor.is(SourceFileSyntax.self) { return nil }
            if let items = ancestor.as(CodeBlockItemListSyntax.self) {
                // File scope is the module's: globals are looked up in the index.
                if items.parent?.is(SourceFileSyntax.self) ?? false { return nil }
                if let found = Self.findInStatements(items, before: child, name: name) { return found }
            } else if let conditions = ancestor.as(ConditionElementListSyntax.self) {
                let earlier = conditions.prefix { $0.id != child.id }
                if let found = Self.findInConditions(Array(earlier), name: name) { return found }
            } else if let ifExpr = ancestor.as(IfExprSyntax.self), child.id == ifExpr.body.id {
                if let found = Self.findInConditions(Array(ifExpr.conditions), name: name) { return found }
            } else if let whileStmt = ancestor.as(WhileStmtSyntax.self), child.id == whileStmt.body.id {
                if let found = Self.findInConditions(Array(whileStmt.conditions), name: name) { return found }
            } else if let forStmt = ancestor.as(ForStmtSyntax.self), child.id == forStmt.body.id {
                if Self.boundNames(forStmt.pattern).contains(name) {
                    return .runtime("`\(name)` is a loop variable, known only at run time")
                }
            } else if let switchCase = ancestor.as(SwitchCaseSyntax.self), child.id != switchCase.label.id {
                if Self.boundNames(switchCase.label).contains(name) {
                    return .runtime("`\(name)` is bound by a `case` pattern, known only at run time")
                }
            } else if let catchClause = ancestor.as(CatchClauseSyntax.self) {
                let bound = catchClause.catchItems.flatMap { item in item.pattern.map { Self.boundNames($0) } ?? [] }
                if bound.contains(name) || (catchClause.catchItems.isEmpty && name == "error") {
                    return .runtime("`\(name)` is the error caught, known only at run time")
                }
            } else if let closure = ancestor.as(ClosureExprSyntax.self) {
                if Self.closureParameterNames(closure).contains(name) {
                    return .runtime("`\(name)` is a closure parameter, known only at run time")
                }
            } else if let function = ancestor.as(FunctionDeclSyntax.self) {
                let parameters = function.signature.parameterClause.parameters
                if let parameter = parameters.last(where: { ($0.secondName ?? $0.firstName).text == name }) {
                    return .parameter(parameter, function: function)
                }
            } else if let initializer = ancestor.as(InitializerDeclSyntax.self) {
                if Self.parameterNames(initializer.signature.parameterClause).contains(name) {
                    return .runtime("`\(name)` is a parameter of `init`, known only at run time")
                }
            } else if let subscriptDecl = ancestor.as(SubscriptDeclSyntax.self) {
                if Self.parameterNames(subscriptDecl.parameterClause).contains(name) {
                    return .runtime("`\(name)` is a subscript parameter, known only at run time")
                }
            } else if let accessor = ancestor.as(AccessorDeclSyntax.self) {
                let explicit = accessor.parameters.map { [$0.name.text] } ?? []
                let implicit = accessor.parameters == nil ? ["newValue", "oldValue"] : []
                if (explicit + implicit).contains(name) {
                    return .runtime("`\(name)` is an accessor's parameter, known only at run time")
                }
            }
            child = ancestor
            current = ancestor.parent
        }
        return nil
    }

    private static func findInStatements(_ items: CodeBlockItemListSyntax, before child: Syntax, name: String)
        -> Lookup?
    {
        let earlier = items.prefix { $0.id != child.id }
        for item in earlier.reversed() {
            if let found = findInStatement(item, in: items, name: name) { return found }
        }
        return nil
    }

    private static func findInStatement(_ item: CodeBlockItemSyntax, in items: CodeBlockItemListSyntax, name: String)
        -> Lookup?
    {
        switch item.item {
        case .decl(let decl):
            if let variable = decl.as(VariableDeclSyntax.self) {
                let found = declarations(of: variable, owner: nil, localScope: items).last { $0.name == name }
                if let found { return .declaration(found) }
            } else if let ifConfig = decl.as(IfConfigDeclSyntax.self) {
                for clause in ifConfig.clauses {
                    guard case .statements(let nested) = clause.elements else { continue }
                    for nestedItem in nested.reversed() {
                        if let found = findInStatement(nestedItem, in: items, name: name) { return found }
                    }
                }
            }
        case .stmt(let statement):
            if let guardStmt = statement.as(GuardStmtSyntax.self) {
                return findInConditions(Array(guardStmt.conditions), name: name)
            }
        default:
            break
        }
        return nil
    }

    private static func findInConditions(_ conditions: [ConditionElementSyntax], name: String) -> Lookup? {
        for condition in conditions.reversed() {
            switch condition.condition {
            case .optionalBinding(let binding):
                guard boundNames(binding.pattern).contains(name) else { continue }
                guard let value = binding.initializer?.value else {
                    // `if let name`: the same name, unwrapped; keep looking outwards.
                    return nil
                }
                return .declaration(
                    Declaration(
                        name: name,
                        node: Syntax(binding),
                        value: binding.pattern.is(IdentifierPatternSyntax.self) ? value : nil,
                        isLet: binding.bindingSpecifier.tokenKind == .keyword(.let),
                        isComputed: false,
                        enumCase: nil,
                        displayName: name,
                        localScope: nil
                    )
                )
            case .matchingPattern(let pattern):
                if boundNames(pattern.pattern).contains(name) {
                    return .runtime("`\(name)` is bound by a `case` pattern, known only at run time")
                }
            default:
                continue
            }
        }
        return nil
    }

    private static func parameterNames(_ clause: FunctionParameterClauseSyntax) -> [String] {
        clause.parameters.map { ($0.secondName ?? $0.firstName).text }
    }

    private static func closureParameterNames(_ closure: ClosureExprSyntax) -> [String] {
        switch closure.signature?.parameterClause {
        case .simpleInput(let list): list.map(\.name.text)
        case .parameterClause(let clause): clause.parameters.map { ($0.secondName ?? $0.firstName).text }
        case nil: []
        }
    }
}
