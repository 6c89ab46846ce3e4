import BLEAdvBudget

/// Finds the `startAdvertising:` messages of one parsed translation unit that go to
/// `CBPeripheralManager`, and reads each one's dictionary into a `SourceAdvertisement`.
struct ObjCCallReader {
    let ast: ClangAST
    let source: SourceText
    let mainFile: String
    let maximumDepth: Int

    /// Every `startAdvertising:` message to a `CBPeripheralManager` written in the main file, in
    /// source order.
    func adverts() -> [SourceAdvertisement] {
        let hierarchy = classHierarchy()
        let idResolvesToCoreBluetooth = firstStartAdvertisingDeclaration(hierarchy: hierarchy)
        var result: [(offset: Int, advert: SourceAdvertisement)] = []
        let resolver = ObjCResolver(ast: ast, source: source, maximumDepth: maximumDepth)
        for index in ast.nodes.indices {
            let node = ast[index]
            // A node dumped twice (in a block listed under its method, then in its statement) is
            // read once, where its parents are its statements.
            guard node.kind == "ObjCMessageExpr", node["selector"] == "startAdvertising:",
                let begin = node.begin, begin.file == mainFile, ast.nodes(withID: node.id).last == index,
                isCoreBluetooth(index, hierarchy: hierarchy, idResolvesToCoreBluetooth: idResolvesToCoreBluetooth),
                let argument = ast.arguments(ofMessage: index).last
            else { continue }
            let selector = selectorLocation(index, argument: argument)
            result.append((selector.offset, read(index, argument: argument, at: selector, resolver: resolver)))
        }
        return result.sorted { $0.offset < $1.offset }.map(\.advert)
    }

    // MARK: Recognising the call

    /// Class name → superclass name, from the `@interface`s clang saw.
    private func classHierarchy() -> [String: String] {
        var result: [String: String] = [:]
        for node in ast.nodes where node.kind == "ObjCInterfaceDecl" {
            if let name = node["name"], let superclass = node["super.name"] { result[name] = superclass }
        }
        return result
    }

    private static func inherits(_ name: String, hierarchy: [String: String]) -> Bool {
        var current: String? = name
        for _ in 0..<64 {
            guard let name = current else { return false }
            if name == "CBPeripheralManager" { return true }
            current = hierarchy[name]
        }
        return false
    }

    /// Whether clang resolves `[(id)x startAdvertising:]` to CBPeripheralManager's method: the
    /// first instance method of that name declared in the unit belongs to it (or a subclass).
    private func firstStartAdvertisingDeclaration(hierarchy: [String: String]) -> Bool {
        for index in ast.nodes.indices where ast[index].kind == "ObjCMethodDecl" {
            let node = ast[index]
            guard node["name"] == "startAdvertising:", node["instance"] != "false", node["instance"] != "0",
                let container = node.parent
            else { continue }
            let owner = ast[container]
            let className = owner.kind == "ObjCCategoryDecl" ? owner["interface.name"] : owner["name"]
            return Self.inherits(className ?? "", hierarchy: hierarchy)
        }
        return false
    }

    private func isCoreBluetooth(_ index: Int, hierarchy: [String: String], idResolvesToCoreBluetooth: Bool) -> Bool {
        let node = ast[index]
        guard node["receiverKind"] != "class", node["receiverKind"] != "super (class)",
            let receiverClass = ast.receiverClass(ofMessage: index)
        else { return false }
        if receiverClass == "id" { return idResolvesToCoreBluetooth }
        return Self.inherits(receiverClass, hierarchy: hierarchy)
    }

    /// Where `startAdvertising` is written: between the receiver and the argument (clang's JSON
    /// does not locate selectors), else the message's `[`.
    private func selectorLocation(_ index: Int, argument: Int) -> ASTLocation {
        let node = ast[index]
        guard let begin = node.begin else { return ASTLocation(file: mainFile, offset: 0, length: 0) }
        guard !begin.isMacro, let stop = ast[argument].begin, !stop.isMacro, stop.file == begin.file else {
            return begin
        }
        let start = ast.receiver(ofMessage: index).flatMap { ast[$0].end }.map { $0.offset + $0.length }
        guard
            let found = source.lastOccurrence(
                of: "startAdvertising",
                in: begin.file,
                from: start ?? begin.offset,
                to: stop.offset
            )
        else { return begin }
        return ASTLocation(file: begin.file, offset: found, length: 16)
    }

    // MARK: Reading the dictionary

    private func read(_ call: Int, argument: Int, at selector: ASTLocation, resolver: ObjCResolver)
        -> SourceAdvertisement
    {
        _ = resolver.takeNotes()
        var advert = SourceAdvertisement(location: source.location(selector))
        switch resolver.dictionary(argument, call: call) {
        case .failure(let failure):
            advert.dictionaryUnknown = resolver.written(argument)
            resolver.note(
                at: argument,
                "advertisement data \(resolver.code(argument)) could not be resolved: \(failure.message)"
            )
        case .success(nil):
            break
        case .success(let found?):
            advert.iBeacon = found.beacon
            readEntries(found.entries, into: &advert, resolver: resolver)
        }
        advert.findings = resolver.takeNotes().map { Rules.sourceReader.finding($0) }
        return advert
    }

    private func readEntries(
        _ entries: [DictionaryEntry],
        into advert: inout SourceAdvertisement,
        resolver: ObjCResolver
    ) {
        var literalKeys = Set<String>()
        for entry in entries {
            if let condition = entry.condition {
                resolver.note(
                    at: entry.key,
                    "`\(Quote.safe(entry.text))` is set \(condition); the reader counts it as always set"
                )
            }
            let keyName: String
            switch resolver.key(entry.key) {
            case .success(.localName):
                keyName = "CBAdvertisementDataLocalNameKey"
                advert.localName = entry.value.map { localName($0, resolver: resolver) }
            case .success(.serviceUUIDs):
                keyName = "CBAdvertisementDataServiceUUIDsKey"
                advert.serviceUUIDListUnknown = nil
                advert.serviceUUIDs = []
                if let value = entry.value { serviceUUIDs(value, into: &advert, resolver: resolver) }
            case .success(.other(let name)):
                keyName = name
                advert.otherKeys.removeAll { $0 == name }
                if entry.value != nil { advert.otherKeys.append(name) }
            case .failure(let failure):
                keyName = resolver.written(entry.key)
                advert.otherKeys.append(keyName)
                resolver.note(
                    at: entry.key,
                    "key \(resolver.code(entry.key)) could not be resolved: \(failure.message); if it is the "
                        + "local name or service UUIDs key, that value is not checked"
                )
            }
            if entry.fromLiteral, !literalKeys.insert(keyName).inserted {
                resolver.note(
                    at: entry.key,
                    "`\(Quote.safe(keyName))` appears twice in the dictionary; the reader uses the last value"
                )
            }
        }
    }

    private func localName(_ value: Int, resolver: ObjCResolver) -> SourceValue {
        let written = resolver.written(value)
        switch resolver.string(value) {
        case .success(.exact(let text)): return .resolved(text)
        case .success(.partial(let prefix, let suffix)):
            return .partial(expression: written, prefix: prefix, suffix: suffix)
        case .failure: return .unresolved(expression: written)
        }
    }

    private func serviceUUIDs(_ value: Int, into advert: inout SourceAdvertisement, resolver: ObjCResolver) {
        switch resolver.uuidList(value) {
        case .failure:
            advert.serviceUUIDListUnknown = resolver.written(value)
        case .success(let elements):
            advert.serviceUUIDs = elements.map { element, resolution in
                switch resolution {
                case .success(let text): .resolved(text)
                case .failure: .unresolved(expression: resolver.written(element))
                }
            }
        }
    }
}
