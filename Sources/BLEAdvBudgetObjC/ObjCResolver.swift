import BLEAdvBudget
import Foundation

/// A string known wholly, or only around a part known at run time.
enum ResolvedText: Equatable {
    case exact(String)
    case partial(prefix: String, suffix: String)

    /// `self` followed by `other`.
    func appending(_ other: ResolvedText) -> ResolvedText {
        switch (self, other) {
        case (.exact(let a), .exact(let b)): .exact(a + b)
        case (.exact(let a), .partial(let prefix, let suffix)): .partial(prefix: a + prefix, suffix: suffix)
        case (.partial(let prefix, let suffix), .exact(let b)): .partial(prefix: prefix, suffix: suffix + b)
        case (.partial(let prefix, _), .partial(_, let suffix)): .partial(prefix: prefix, suffix: suffix)
        }
    }
}

/// Resolves Objective-C expressions of one translation unit to strings, integers, UUIDs, lists
/// and keys, following variables to their initialisers. Depth and cycles are bounded: a
/// declaration already being followed, or more than `maximumDepth` declarations deep, is
/// unresolved. Notes for the call being read collect in `notes`.
final class ObjCResolver {
    let ast: ClangAST
    let source: SourceText
    let maximumDepth: Int
    private var stack: [Int] = []
    private(set) var notes: [String] = []
    /// Properties being followed (ObjCProperties.swift), against cycles.
    var followingProperties: Set<String> = []

    init(ast: ClangAST, source: SourceText, maximumDepth: Int) {
        self.ast = ast
        self.source = source
        self.maximumDepth = max(1, maximumDepth)
    }

    // MARK: Notes and text

    /// A note on the call being read, placed at `node`: `file:line:column: message`.
    func note(at node: Int, _ message: String) {
        var text = message
        if let begin = ast[node].begin {
            let place = source.location(begin)
            text = "\(Quote.safe(place.file)):\(place.line):\(place.column ?? 1): " + message
        }
        if !notes.contains(text) { notes.append(text) }
    }

    /// The notes since the last call, in the order raised.
    func takeNotes() -> [String] {
        defer { notes = [] }
        return notes
    }

    /// The expression as written in its file (raw), or its kind when the text is not at hand.
    func written(_ node: Int) -> String {
        let item = ast[node]
        if let begin = item.begin, let end = item.end, let text = source.text(from: begin, to: end) {
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return item["referencedDecl.name"] ?? item["name"] ?? item.kind
    }

    /// `` `expression` `` escaped, for messages.
    func code(_ node: Int) -> String { Quote.code(written(node)) }

    /// `File.m:12` of a node, for messages.
    func place(_ node: Int) -> String {
        let item = ast[node]
        guard let at = item.location ?? item.begin else { return "?" }
        let location = source.location(at)
        let name = location.file.split(separator: "/").last.map(String.init) ?? location.file
        return "\(Quote.safe(name)):\(location.line)"
    }

    // MARK: Strings

    func string(_ expression: Int) -> Result<ResolvedText, Unresolved> {
        let node = ast.strip(expression)
        let item = ast[node]
        switch item.kind {
        case "ObjCStringLiteral":
            guard let literal = item.children.first else { break }
            return string(literal)
        case "StringLiteral":
            guard let value = item["value"], let text = CStringLiteral.decode(value) else {
                return .failure(Unresolved(reason: "the string literal \(code(node)) could not be decoded"))
            }
            return .success(.exact(text))
        case "DeclRefExpr":
            return follow(reference: node) { self.string($0) }
        case "ObjCMessageExpr":
            return stringMessage(node)
        default:
            if let followed = followProperty(node, { self.string($0) }) { return followed }
        }
        return .failure(Unresolved(reason: reason(node, expected: "a string literal")))
    }

    private func stringMessage(_ node: Int) -> Result<ResolvedText, Unresolved> {
        let selector = ast[node]["selector"] ?? ""
        let arguments = ast.arguments(ofMessage: node)
        let isString = ["NSString", "NSMutableString"].contains(ast.receiverClass(ofMessage: node) ?? "")
        if isString, ["stringWithString:", "initWithString:"].contains(selector), let argument = arguments.first {
            return string(argument)
        }
        if isString, ["stringWithFormat:", "initWithFormat:"].contains(selector), let format = arguments.first {
            return formatted(format: format, arguments: Array(arguments.dropFirst()))
        }
        if ["stringByAppendingString:", "copy", "mutableCopy"].contains(selector),
            let receiver = ast.receiver(ofMessage: node)
        {
            let base = string(receiver)
            guard selector == "stringByAppendingString:", let argument = arguments.first else { return base }
            return base.flatMap { head in string(argument).map { head.appending($0) } }
        }
        return .failure(Unresolved(reason: reason(node, expected: "a string literal")))
    }

    /// `stringWithFormat:`: exact when every conversion is a simple one with a known value, else
    /// the literal text before the first conversion and after the last.
    private func formatted(format: Int, arguments: [Int]) -> Result<ResolvedText, Unresolved> {
        guard case .success(.exact(let text)) = string(format) else {
            return .failure(Unresolved(reason: "the format \(code(format)) is not a string literal known here"))
        }
        let parsed = FormatString(text)
        guard !parsed.conversions.isEmpty else { return .success(.exact(parsed.literal(0..<parsed.pieces.count))) }
        var values: [String] = []
        for (conversion, argument) in zip(parsed.conversions, arguments) {
            guard let value = formatValue(conversion, argument) else { break }
            values.append(value)
        }
        if values.count == parsed.conversions.count, arguments.count == values.count {
            return .success(.exact(parsed.filled(values)))
        }
        return .success(.partial(prefix: parsed.prefix, suffix: parsed.suffix))
    }

    private func formatValue(_ conversion: FormatString.Conversion, _ argument: Int) -> String? {
        switch conversion {
        case .object, .cString:
            if case .success(.exact(let text)) = string(argument) { return text }
            return nil
        case .integer:
            if case .success(let value) = integer(argument) { return String(value) }
            return nil
        case .other:
            return nil
        }
    }

    // MARK: Integers

    func integer(_ expression: Int) -> Result<Int, Unresolved> {
        let node = ast.strip(expression)
        let item = ast[node]
        switch item.kind {
        case "IntegerLiteral":
            if let value = item["value"].flatMap({ Int($0) }) { return .success(value) }
        case "UnaryOperator" where item["opcode"] == "-" || item["opcode"] == "+":
            guard let operand = item.children.first else { break }
            return integer(operand).flatMap { value in
                guard item["opcode"] == "-" else { return .success(value) }
                let (negated, overflow) = value.multipliedReportingOverflow(by: -1)
                return overflow ? .failure(Unresolved(reason: "\(code(node)) is out of range")) : .success(negated)
            }
        case "ObjCBoxedExpr":
            if let inner = item.children.first { return integer(inner) }
        case "ObjCMessageExpr":
            let selector = item["selector"] ?? ""
            if selector.hasPrefix("numberWith"), ast.receiverClass(ofMessage: node) == "NSNumber",
                let argument = ast.arguments(ofMessage: node).first
            {
                return integer(argument)
            }
        case "DeclRefExpr":
            if item["referencedDecl.kind"] == "EnumConstantDecl",
                let id = item["referencedDecl.id"], let declaration = ast.declaration(id: id)
            {
                if let constant = ast[declaration].children.first(where: { ast[$0].kind == "ConstantExpr" }),
                    let value = ast[constant]["value"].flatMap({ Int($0) })
                {
                    return .success(value)
                }
                return .failure(Unresolved(reason: "\(code(node)) is an enum case without a written value"))
            }
            return follow(reference: node) { self.integer($0) }
        default:
            break
        }
        return .failure(Unresolved(reason: reason(node, expected: "an integer literal")))
    }

    // MARK: Following declarations

    /// Follows a `DeclRefExpr` to its variable's initialiser and runs `body` on it.
    func follow<T>(reference node: Int, _ body: (Int) -> Result<T, Unresolved>) -> Result<T, Unresolved> {
        switch declarationValue(reference: node) {
        case .failure(let failure): return .failure(failure)
        case .success(let (declaration, value)): return withDeclaration(declaration, value: value, body)
        }
    }

    /// The variable a reference names and its initialiser, or why it has none.
    func declarationValue(reference node: Int) -> Result<(declaration: Int, value: Int), Unresolved> {
        let item = ast[node]
        let name = item["referencedDecl.name"] ?? written(node)
        guard let id = item["referencedDecl.id"], let declaration = ast.declaration(id: id) else {
            return .failure(Unresolved(reason: "\(code(node)) is not declared in the sources read"))
        }
        switch ast[declaration].kind {
        case "VarDecl":
            if let value = initializer(of: declaration) { return .success((declaration, value)) }
            if let definition = definition(of: declaration), let value = initializer(of: definition) {
                return .success((definition, value))
            }
            return .failure(
                Unresolved(
                    reason: "`\(Quote.safe(name))` (\(place(declaration))) has no value in the sources read; "
                        + "it is known only at run time"
                )
            )
        case "ParmVarDecl":
            return .failure(
                Unresolved(
                    reason: "`\(Quote.safe(name))` is a parameter (\(place(declaration))); its value comes from "
                        + "the callers, which are not followed"
                )
            )
        default:
            return .failure(
                Unresolved(reason: "`\(Quote.safe(name))` is a \(ast[declaration].kind), not a variable with a value")
            )
        }
    }

    /// Runs `body` on a declaration's value, with the declaration on the stack.
    func withDeclaration<T>(_ declaration: Int, value: Int, _ body: (Int) -> Result<T, Unresolved>) -> Result<
        T, Unresolved
    > {
        let name = ast[declaration]["name"] ?? "?"
        if stack.contains(declaration) {
            let cycle = stack.compactMap { ast[$0]["name"] }.map { "`\(Quote.safe($0))`" }
            return .failure(
                Unresolved(
                    reason: "`\(Quote.safe(name))` (\(place(declaration))) depends on itself: "
                        + (cycle + ["`\(Quote.safe(name))`"]).joined(separator: " → ")
                )
            )
        }
        guard stack.count < maximumDepth else {
            return .failure(
                Unresolved(reason: "`\(Quote.safe(name))` is more than \(maximumDepth) declarations deep; not followed")
            )
        }
        noteIfVariable(declaration, value: value)
        stack.append(declaration)
        defer { stack.removeLast() }
        return body(value).mapError { failure in
            var failure = failure
            failure.trail.insert("`\(Quote.safe(name))` at \(place(declaration))", at: 0)
            return failure
        }
    }

    /// A variable that is not `const` may change: a file-scope one gets a note; a local one gets
    /// a note when it is assigned again in its function.
    private func noteIfVariable(_ declaration: Int, value: Int) {
        let item = ast[declaration]
        let type = item["type.qualType"] ?? ""
        guard !Self.isConst(type) else { return }
        let name = Quote.safe(item["name"] ?? "?")
        let isLocal = item.parent.map { ast[$0].kind == "DeclStmt" } ?? false
        if !isLocal {
            note(
                at: declaration,
                "`\(name)` is not `const`; its initial value \(code(value)) is used, though it may change at run time"
            )
            return
        }
        guard let scope = item.parent.flatMap({ ast[$0].parent }) else { return }
        for node in ast.subtree(scope) where ast[node].kind == "BinaryOperator" && ast[node]["opcode"] == "=" {
            guard let target = ast[node].children.first, ast[ast.strip(target)]["referencedDecl.id"] == item.id
            else { continue }
            note(at: node, "`\(name)` is assigned again (\(code(node))); the reader keeps its first value")
        }
    }

    /// Whether a declared type is constant at the top level (`NSString *const`, `const int`).
    static func isConst(_ type: String) -> Bool {
        guard let star = type.lastIndex(of: "*") else { return type.hasPrefix("const ") }
        return type[type.index(after: star)...].contains("const")
    }

    /// The initialiser of a variable declaration (its last child that is not an attribute or a
    /// documentation comment, which clang dumps after the initialiser).
    func initializer(of declaration: Int) -> Int? {
        guard ast[declaration]["init"] != nil else { return nil }
        return ast[declaration].children.last {
            let kind = ast[$0].kind
            return !kind.hasSuffix("Attr") && !kind.hasSuffix("Comment")
        }
    }

    /// The file-scope definition with a value of an `extern` variable.
    private func definition(of declaration: Int) -> Int? {
        let name = ast[declaration]["name"]
        return ast.nodes.indices.first { index in
            let node = ast[index]
            return node.kind == "VarDecl" && node["name"] == name && node["init"] != nil
                && node.parent.map { ast[$0].kind == "TranslationUnitDecl" } ?? false
        }
    }

    // MARK: Reasons

    /// Why an expression that is not of an expected shape is not known.
    func reason(_ node: Int, expected: String) -> String {
        let written = code(node)
        let item = ast[node]
        if let runtime = runtimeReason(node) { return runtime }
        switch item.kind {
        case "ObjCMessageExpr": return "\(written) is a message sent at run time"
        case "CallExpr": return "\(written) is a function call, evaluated at run time"
        case "ConditionalOperator", "BinaryConditionalOperator":
            return "\(written) is chosen by a condition at run time"
        case "PseudoObjectExpr": return "\(written) is a property, known only at run time"
        case "ObjCIvarRefExpr", "MemberExpr": return "\(written) is an instance variable, known only at run time"
        case "BlockExpr": return "\(written) is a block, not \(expected)"
        default:
            if ast.isNull(node) { return "\(written) is nil, not \(expected)" }
            return "\(written) is not \(expected), nor a constant declared in the sources read"
        }
    }

    /// A better reason for well-known run-time values (`[[UIDevice currentDevice] name]`…).
    private func runtimeReason(_ node: Int) -> String? {
        var message = node
        if ast[node].kind == "PseudoObjectExpr", let last = ast[node].children.last {
            message = ast.strip(last)
        }
        guard ast[message].kind == "ObjCMessageExpr", let receiverClass = ast.receiverClass(ofMessage: message)
        else { return nil }
        let selector = ast[message]["selector"] ?? ""
        let written = code(node)
        switch receiverClass {
        case "UIDevice" where selector == "name", "NSHost" where selector == "localizedName":
            return "\(written) is the device's name, known only at run time"
        case "UIDevice": return "\(written) is a property of the device, known only at run time"
        case "NSProcessInfo": return "\(written) is a property of the running process, known only at run time"
        case "NSBundle": return "\(written) is read from the app bundle at run time"
        case "NSUserDefaults": return "\(written) is read from the user's defaults at run time"
        default: return nil
        }
    }
}
