/// Shapes of Objective-C expressions in clang's AST: what is under implicit casts, a message's
/// receiver and arguments, the class a type names.
extension ClangAST {
    /// Node kinds that only wrap the expression that matters.
    private static let wrappers: Set<String> = [
        "ImplicitCastExpr", "ParenExpr", "ExprWithCleanups", "ConstantExpr", "CStyleCastExpr",
        "ObjCBridgedCastExpr", "MaterializeTemporaryExpr", "CXXFunctionalCastExpr", "CXXStaticCastExpr",
        "OpaqueValueExpr", "CXXBindTemporaryExpr", "CXXReinterpretCastExpr",
    ]

    /// The expression under casts, parentheses and cleanups.
    func strip(_ index: Int) -> Int {
        var current = index
        for _ in 0..<256 {
            let node = nodes[current]
            guard Self.wrappers.contains(node.kind), let only = node.children.first else { return current }
            current = only
        }
        return current
    }

    /// `nil`, `NULL`, `0` or `nullptr`.
    func isNull(_ index: Int) -> Bool {
        let node = nodes[strip(index)]
        switch node.kind {
        case "GNUNullExpr", "CXXNullPtrLiteralExpr": return true
        case "IntegerLiteral": return node["value"] == "0"
        default: return false
        }
    }

    /// A message's receiver expression, when it has one (an instance message).
    func receiver(ofMessage index: Int) -> Int? {
        let node = nodes[index]
        guard node.kind == "ObjCMessageExpr", node["receiverKind"] == "instance" else { return nil }
        return node.children.first
    }

    /// A message's arguments, in order (variadic ones included).
    func arguments(ofMessage index: Int) -> [Int] {
        let node = nodes[index]
        return node["receiverKind"] == "instance" ? Array(node.children.dropFirst()) : node.children
    }

    /// Variadic arguments without the `nil` that ends them.
    func argumentsWithoutSentinel(ofMessage index: Int) -> [Int] {
        var arguments = arguments(ofMessage: index)
        if let last = arguments.last, isNull(last) { arguments.removeLast() }
        return arguments
    }

    /// The class a message is sent to: the class of a class message (`[NSString stringWith…]`),
    /// the class allocated for `[[X alloc] init…]`, or the class of the receiver's static type.
    func receiverClass(ofMessage index: Int) -> String? {
        let node = nodes[index]
        switch node["receiverKind"] {
        case "class": return node["classType.qualType"].flatMap(Self.className)
        case "super (instance)", "super (class)": return node["superType.qualType"].flatMap(Self.className)
        default:
            guard let receiver = receiver(ofMessage: index) else { return nil }
            let stripped = strip(receiver)
            if nodes[stripped].kind == "ObjCMessageExpr", nodes[stripped]["selector"] == "alloc" {
                return receiverClass(ofMessage: stripped)
            }
            return nodes[stripped].type.flatMap(Self.className)
        }
    }

    /// The class a type names: `CBPeripheralManager` for `CBPeripheralManager *__strong`,
    /// `id` for `id`, `__strong id` or `id<P>`; nil for other types.
    static func className(_ type: String) -> String? {
        let qualifiers: Set<Substring> = [
            "__strong", "__weak", "__unsafe_unretained", "__autoreleasing", "const", "volatile", "__kindof",
            "_Nonnull", "_Nullable", "_Null_unspecified", "struct",
        ]
        var identifier = ""
        var words: [Substring] = []
        for character in type {
            if character.isLetter || character.isNumber || character == "_" {
                identifier.append(character)
            } else {
                if !identifier.isEmpty { words.append(Substring(identifier)) }
                identifier = ""
                if character == "<" || character == "*" || character == "(" || character == "^" { break }
            }
        }
        if !identifier.isEmpty { words.append(Substring(identifier)) }
        guard let name = words.first(where: { !qualifiers.contains($0) }) else { return nil }
        return String(name)
    }

    /// The argument label of each argument of a selector: `initWithUUID:major:minor:identifier:`
    /// → `["initWithUUID", "major", "minor", "identifier"]`.
    static func labels(ofSelector selector: String) -> [String] {
        selector.split(separator: ":", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}
