import BLEAdvBudget

/// One key-value pair of an advertisement dictionary: from its literal or constructor, or set
/// later on a mutable local.
struct DictionaryEntry {
    let key: Int
    /// nil for `removeObjectForKey:`.
    let value: Int?
    let fromLiteral: Bool
    /// For a change inside a nested block or a block: where, for the note.
    let condition: String?
    /// The statement as written, for notes.
    let text: String
}

/// What a `startAdvertising:` argument stands for.
struct FoundDictionary {
    var entries: [DictionaryEntry] = []
    /// `[region peripheralDataWithMeasuredPower:…]`.
    var beacon: SourceBeacon?
}

extension ObjCResolver {
    // MARK: UUIDs

    /// One service UUID: `[CBUUID UUIDWithString:]`, `[CBUUID UUIDWithNSUUID:]`, or a variable
    /// holding one. The string is given as written.
    func uuid(_ expression: Int) -> Result<String, Unresolved> {
        let node = ast.strip(expression)
        let item = ast[node]
        switch item.kind {
        case "ObjCMessageExpr" where ast.receiverClass(ofMessage: node) == "CBUUID" && item["receiverKind"] == "class":
            let argument = ast.arguments(ofMessage: node).first
            switch (item["selector"], argument) {
            case ("UUIDWithString:", let argument?):
                return exactString(argument)
            case ("UUIDWithNSUUID:", let argument?):
                return nsuuid(argument)
            default:
                return .failure(Unresolved(reason: "\(code(node)) builds a CBUUID from data known at run time"))
            }
        case "ObjCStringLiteral":
            return .failure(
                Unresolved(
                    reason: "\(code(node)) is an NSString, not a CBUUID: CoreBluetooth advertises only CBUUID values"
                )
            )
        case "DeclRefExpr":
            return follow(reference: node) { self.uuid($0) }
        default:
            if let followed = followProperty(node, { self.uuid($0) }) { return followed }
            return .failure(Unresolved(reason: reason(node, expected: "a CBUUID")))
        }
    }

    private func nsuuid(_ expression: Int) -> Result<String, Unresolved> {
        let node = ast.strip(expression)
        let item = ast[node]
        if item.kind == "ObjCMessageExpr", item["selector"] == "initWithUUIDString:",
            ast.receiverClass(ofMessage: node) == "NSUUID", let argument = ast.arguments(ofMessage: node).first
        {
            return exactString(argument)
        }
        if item.kind == "DeclRefExpr" { return follow(reference: node) { self.nsuuid($0) } }
        if let followed = followProperty(node, { self.nsuuid($0) }) { return followed }
        return .failure(
            Unresolved(reason: "\(code(node)) is not `[[NSUUID alloc] initWithUUIDString:]` with a string known here")
        )
    }

    /// A string that must be known whole.
    func exactString(_ expression: Int) -> Result<String, Unresolved> {
        string(expression).flatMap {
            switch $0 {
            case .exact(let text): .success(text)
            case .partial:
                .failure(Unresolved(reason: "\(code(expression)) is known only in part; the rest is set at run time"))
            }
        }
    }

    /// The service UUID list, each element resolved on its own.
    func uuidList(_ expression: Int) -> Result<[(Int, Result<String, Unresolved>)], Unresolved> {
        let node = ast.strip(expression)
        if ast[node].kind == "ObjCMessageExpr", ast.receiverClass(ofMessage: node) == "CBUUID" {
            return .failure(
                Unresolved(reason: "\(code(node)) is one CBUUID, not an array: CoreBluetooth expects NSArray<CBUUID *>")
            )
        }
        return arrayElements(node).map { elements in elements.map { ($0, uuid($0)) } }
    }

    /// The elements of an array: `@[…]`, `arrayWithObjects:`, `arrayWithObject:`, `initWithObjects:`,
    /// `arrayByAddingObject:`, or a variable holding one.
    func arrayElements(_ expression: Int) -> Result<[Int], Unresolved> {
        let node = ast.strip(expression)
        let item = ast[node]
        switch item.kind {
        case "ObjCArrayLiteral":
            return .success(item.children)
        case "DeclRefExpr":
            if case .success(let found) = declarationValue(reference: node), let change = arrayChange(found.declaration)
            {
                return .failure(
                    Unresolved(
                        reason: "\(code(node)) is changed by \(code(change)) (\(place(change))); how many elements it "
                            + "holds is known only at run time"
                    )
                )
            }
            return follow(reference: node) { self.arrayElements($0) }
        case "ObjCMessageExpr":
            let selector = item["selector"] ?? ""
            let isArray = ["NSArray", "NSMutableArray"].contains(ast.receiverClass(ofMessage: node) ?? "")
            if isArray, ["arrayWithObjects:", "initWithObjects:", "arrayWithObject:"].contains(selector) {
                return .success(ast.argumentsWithoutSentinel(ofMessage: node))
            }
            if isArray, selector == "array" || selector == "new" || selector == "init" {
                return .success([])
            }
            if let receiver = ast.receiver(ofMessage: node) {
                if ["copy", "mutableCopy"].contains(selector) { return arrayElements(receiver) }
                if selector == "arrayByAddingObject:", let argument = ast.arguments(ofMessage: node).first {
                    return arrayElements(receiver).map { $0 + [argument] }
                }
            }
            if isArray, selector == "arrayWithArray:" || selector == "initWithArray:",
                let argument = ast.arguments(ofMessage: node).first
            {
                return arrayElements(argument)
            }
        default:
            if let followed = followProperty(node, { self.arrayElements($0) }) { return followed }
        }
        return .failure(Unresolved(reason: reason(node, expected: "an array literal")))
    }

    // MARK: Keys

    func key(_ expression: Int) -> Result<AdvertisementKey, Unresolved> {
        let node = ast.strip(expression)
        let item = ast[node]
        guard item.kind == "DeclRefExpr" else { return exactString(node).map(AdvertisementKeys.key(raw:)) }
        if let name = item["referencedDecl.name"], let key = AdvertisementKeys.key(constant: name) {
            return .success(key)
        }
        return follow(reference: node) { self.key($0) }
    }

    // MARK: Dictionaries

    /// The dictionary a `startAdvertising:` argument stands for: nil for `nil`.
    func dictionary(_ expression: Int, call: Int) -> Result<FoundDictionary?, Unresolved> {
        let node = ast.strip(expression)
        let item = ast[node]
        if ast.isNull(node) { return .success(nil) }
        switch item.kind {
        case "ObjCDictionaryLiteral":
            var entries: [DictionaryEntry] = []
            var pairs = item.children[...]
            while let key = pairs.popFirst(), let value = pairs.popFirst() {
                entries.append(entry(key: key, value: value, fromLiteral: true))
            }
            return .success(FoundDictionary(entries: entries))
        case "ObjCMessageExpr":
            return dictionaryMessage(node, call: call)
        case "DeclRefExpr":
            switch declarationValue(reference: node) {
            case .failure(let failure):
                return .failure(failure)
            case .success(let (declaration, value)):
                var result = withDeclaration(declaration, value: value) { self.dictionary($0, call: call) }
                if case .success(var found?) = result {
                    found.entries += mutations(of: declaration, before: call)
                    result = .success(found)
                }
                return result
            }
        default:
            if let followed = followProperty(node, { self.dictionary($0, call: call) }) { return followed }
            return .failure(Unresolved(reason: reason(node, expected: "a dictionary literal")))
        }
    }

    private func entry(key: Int, value: Int?, fromLiteral: Bool, condition: String? = nil, text: String? = nil)
        -> DictionaryEntry
    {
        DictionaryEntry(
            key: key,
            value: value,
            fromLiteral: fromLiteral,
            condition: condition,
            text: text ?? value.map { "\(written(key)): \(written($0))" } ?? written(key)
        )
    }

    private func dictionaryMessage(_ node: Int, call: Int) -> Result<FoundDictionary?, Unresolved> {
        let selector = ast[node]["selector"] ?? ""
        let isDictionary = ["NSDictionary", "NSMutableDictionary"].contains(ast.receiverClass(ofMessage: node) ?? "")
        let arguments = ast.arguments(ofMessage: node)
        if selector == "peripheralDataWithMeasuredPower:" {
            return .success(FoundDictionary(beacon: beacon(node)))
        }
        if let receiver = ast.receiver(ofMessage: node), ["copy", "mutableCopy"].contains(selector) {
            return dictionary(receiver, call: call)
        }
        guard isDictionary else { return .failure(Unresolved(reason: reason(node, expected: "a dictionary literal"))) }
        switch selector {
        case "dictionary", "new", "init", "dictionaryWithCapacity:", "initWithCapacity:":
            return .success(FoundDictionary())
        case "dictionaryWithDictionary:", "initWithDictionary:":
            guard let argument = arguments.first else { break }
            return dictionary(argument, call: call)
        case "dictionaryWithObject:forKey:":
            guard arguments.count == 2 else { break }
            return .success(
                FoundDictionary(entries: [entry(key: arguments[1], value: arguments[0], fromLiteral: true)])
            )
        case "dictionaryWithObjectsAndKeys:", "initWithObjectsAndKeys:":
            let list = ast.argumentsWithoutSentinel(ofMessage: node)
            guard list.count % 2 == 0 else {
                return .failure(
                    Unresolved(reason: "\(code(node)) has an odd number of objects and keys before its nil")
                )
            }
            var entries: [DictionaryEntry] = []
            var pairs = list[...]
            while let value = pairs.popFirst(), let key = pairs.popFirst() {
                entries.append(entry(key: key, value: value, fromLiteral: true))
            }
            return .success(FoundDictionary(entries: entries))
        case "dictionaryWithObjects:forKeys:", "initWithObjects:forKeys:":
            guard arguments.count == 2 else { break }
            return arrayElements(arguments[0]).flatMap { values in
                arrayElements(arguments[1]).flatMap { keys in
                    guard keys.count == values.count else {
                        return .failure(
                            Unresolved(reason: "\(code(node)) has \(values.count) objects for \(keys.count) keys")
                        )
                    }
                    return .success(
                        FoundDictionary(
                            entries: zip(keys, values).map { entry(key: $0, value: $1, fromLiteral: true) }
                        )
                    )
                }
            }
        default:
            break
        }
        return .failure(Unresolved(reason: reason(node, expected: "a dictionary literal")))
    }

    /// Keys set on a local dictionary between its declaration and the call, in the same function:
    /// `d[key] = value`, `[d setObject:value forKey:key]`, `setValue:forKey:`,
    /// `removeObjectForKey:`. Other changes are notes.
    private func mutations(of declaration: Int, before call: Int) -> [DictionaryEntry] {
        guard let statement = ast[declaration].parent, ast[statement].kind == "DeclStmt",
            let scope = ast[statement].parent, ast.ancestors(of: call).contains(scope),
            let start = ast[declaration].end, let stop = ast[call].begin, start.file == stop.file
        else { return [] }
        let id = ast[declaration].id
        let name = Quote.safe(ast[declaration]["name"] ?? "?")
        var entries: [DictionaryEntry] = []
        for node in ast.subtree(scope) {
            guard let begin = ast[node].begin, begin.file == start.file, begin.offset > start.offset,
                begin.offset < stop.offset
            else { continue }
            let nearest = ast.ancestors(of: node).first { ast[$0].kind == "CompoundStmt" }
            let condition = nearest == scope ? nil : "inside a nested block (\(place(node)))"
            if let (key, value) = subscriptAssignment(node, to: id) {
                entries.append(
                    entry(key: key, value: value, fromLiteral: false, condition: condition, text: written(node))
                )
                continue
            }
            guard ast[node].kind == "ObjCMessageExpr", let receiver = ast.receiver(ofMessage: node),
                ast[ast.strip(receiver)]["referencedDecl.id"] == id
            else { continue }
            let arguments = ast.arguments(ofMessage: node)
            switch ast[node]["selector"] ?? "" {
            case "setObject:forKey:", "setValue:forKey:", "setObject:forKeyedSubscript:":
                guard arguments.count == 2 else { continue }
                let value: Int? = ast.isNull(arguments[0]) ? nil : arguments[0]
                entries.append(
                    entry(
                        key: arguments[1],
                        value: value,
                        fromLiteral: false,
                        condition: condition,
                        text: written(node)
                    )
                )
            case "removeObjectForKey:":
                guard let key = arguments.first else { continue }
                entries.append(
                    entry(key: key, value: nil, fromLiteral: false, condition: condition, text: written(node))
                )
            case "addEntriesFromDictionary:", "removeAllObjects", "removeObjectsForKeys:", "setDictionary:":
                note(at: node, "\(code(node)) changes `\(name)` in a way the reader does not follow")
            default:
                continue
            }
        }
        return entries
    }

    /// `d[key] = value` on the variable with this id: the key and the value.
    private func subscriptAssignment(_ node: Int, to id: String) -> (key: Int, value: Int?)? {
        guard ast[node].kind == "BinaryOperator", ast[node]["opcode"] == "=", ast[node].children.count == 2
        else { return nil }
        let target = ast[node].children[0]
        guard ast[target].kind == "ObjCSubscriptRefExpr", ast[target].children.count == 2,
            ast[ast.strip(ast[target].children[0])]["referencedDecl.id"] == id
        else { return nil }
        let value = ast[node].children[1]
        return (ast[target].children[1], ast.isNull(value) ? nil : value)
    }

    // MARK: iBeacon

    /// `[region peripheralDataWithMeasuredPower:power]`, with the region's UUID, major and minor
    /// when its `initWithUUID:major:minor:identifier:` (or `initWithProximityUUID:…`) is written
    /// with values known here.
    private func beacon(_ node: Int) -> SourceBeacon {
        var beacon = SourceBeacon(expression: written(node))
        if let power = ast.arguments(ofMessage: node).first, !ast.isNull(power),
            case .success(let value) = integer(power)
        {
            beacon.measuredPower = value
        }
        guard let receiver = ast.receiver(ofMessage: node) else { return beacon }
        var region = ast.strip(receiver)
        if ast[region].kind == "DeclRefExpr", case .success(let (_, value)) = declarationValue(reference: region) {
            region = ast.strip(value)
        } else if case .success(let value)? = followProperty(region, { Result<Int, Unresolved>.success($0) }) {
            region = ast.strip(value)
        }
        guard ast[region].kind == "ObjCMessageExpr", let selector = ast[region]["selector"],
            selector.hasPrefix("initWithUUID:") || selector.hasPrefix("initWithProximityUUID:")
        else { return beacon }
        for (label, argument) in zip(ClangAST.labels(ofSelector: selector), ast.arguments(ofMessage: region)) {
            switch label {
            case "initWithUUID", "initWithProximityUUID":
                if case .success(let text) = nsuuid(argument) { beacon.uuid = text }
            case "major":
                if case .success(let value) = integer(argument) { beacon.major = value }
            case "minor":
                if case .success(let value) = integer(argument) { beacon.minor = value }
            default:
                break
            }
        }
        return beacon
    }
}

extension ObjCResolver {
    /// Messages that read an array without changing it.
    static let arrayReaders: Set<String> = [
        "count", "copy", "mutableCopy", "objectAtIndex:", "objectAtIndexedSubscript:", "firstObject", "lastObject",
        "containsObject:", "indexOfObject:", "description", "isEqualToArray:",
    ]

    /// The first message or assignment that changes the array variable `declaration` after its
    /// initialiser (`[a addObject:x]`, `a[i] = x`, `a = …`), in its function, or anywhere for a
    /// variable at file scope; nil when nothing does.
    func arrayChange(_ declaration: Int) -> Int? {
        let id = ast[declaration].id
        var scope = declaration
        while let parent = ast[scope].parent {
            scope = parent
            let kind = ast[scope].kind
            if kind == "ObjCMethodDecl" || kind == "FunctionDecl" || kind == "BlockDecl" { break }
        }
        func names(_ node: Int?) -> Bool { node.map { ast[ast.strip($0)]["referencedDecl.id"] == id } ?? false }
        for node in ast.subtree(scope) {
            let item = ast[node]
            switch item.kind {
            case "ObjCMessageExpr":
                if names(ast.receiver(ofMessage: node)), !Self.arrayReaders.contains(item["selector"] ?? "") {
                    return node
                }
            case "BinaryOperator", "CompoundAssignOperator":
                guard item["opcode"]?.hasSuffix("=") ?? false,
                    !["==", "!=", "<=", ">="].contains(item["opcode"] ?? ""),
                    let target = item.children.first
                else { continue }
                let stripped = ast.strip(target)
                if names(stripped) { return node }
                // `a[i] = x` is an ObjCSubscriptRefExpr (inside a PseudoObjectExpr) on `a`.
                if ast[stripped].kind == "ObjCSubscriptRefExpr", names(ast[stripped].children.first) { return node }
            default:
                continue
            }
        }
        return nil
    }
}
