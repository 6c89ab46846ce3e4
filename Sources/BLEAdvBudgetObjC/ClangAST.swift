import Foundation

/// A place in a file as clang's JSON dump gives it: the buffer, the byte offset and the length of
/// the token there. For a location inside a macro expansion this is where the macro is used (the
/// expansion location); `spellingFile` is where its text is written.
struct ASTLocation: Hashable {
    var file: String
    var offset: Int
    var length: Int
    var spellingFile: String?

    var isMacro: Bool { spellingFile != nil }
}

/// One node of the dump: its kind, its scalar attributes (nested objects flattened one level:
/// `type.qualType`, `referencedDecl.id`), its range and its children, by index into `ClangAST.nodes`.
struct ASTNode {
    var id: String
    var kind: String
    var attributes: [String: String]
    var location: ASTLocation?
    var begin: ASTLocation?
    var end: ASTLocation?
    var children: [Int]
    var parent: Int?

    subscript(_ attribute: String) -> String? { attributes[attribute] }

    /// `type.desugaredQualType`, else `type.qualType`.
    var type: String? { attributes["type.desugaredQualType"] ?? attributes["type.qualType"] }
}

/// clang's `-ast-dump=json` output as a flat array of nodes in dump order.
///
/// clang writes a location's `file` (and `line`) only when it differs from the location written
/// just before, so files are tracked while the dump is walked in order: for each node `loc`, then
/// `range.begin`, then `range.end` (spelling before expansion), then the children.
struct ClangAST {
    enum Failure: Error {
        case notJSON(String)
        case tooLarge(nodes: Int)
    }

    private(set) var nodes: [ASTNode] = []
    private var byID: [String: [Int]] = [:]

    /// Reads the dump. At most `maximumNodes` nodes are kept.
    init(json: Data, maximumNodes: Int = 4_000_000) throws(Failure) {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: json, options: [])
        } catch {
            throw .notJSON(error.localizedDescription)
        }
        guard let root = object as? [String: Any] else { throw .notJSON("the top level is not an object") }
        var lastFile = ""
        var stack: [(object: [String: Any], parent: Int?)] = [(root, nil)]
        while let entry = stack.popLast() {
            let (object, parent) = entry
            guard nodes.count < maximumNodes else { throw .tooLarge(nodes: nodes.count) }
            var node = ASTNode(
                id: object["id"] as? String ?? "",
                kind: object["kind"] as? String ?? "",
                attributes: Self.attributes(of: object),
                children: [],
                parent: parent
            )
            node.location = Self.location(object["loc"], lastFile: &lastFile)
            if let range = object["range"] as? [String: Any] {
                node.begin = Self.location(range["begin"], lastFile: &lastFile)
                node.end = Self.location(range["end"], lastFile: &lastFile)
            }
            let index = nodes.count
            nodes.append(node)
            if let parent { nodes[parent].children.append(index) }
            byID[node.id, default: []].append(index)
            if let inner = object["inner"] as? [Any] {
                for child in inner.reversed() {
                    if let child = child as? [String: Any] { stack.append((child, index)) }
                }
            }
        }
    }

    subscript(_ index: Int) -> ASTNode { nodes[index] }

    /// Every node dumped with this id (a node can be dumped twice: a method's local declarations
    /// are listed under the method and again in their statements).
    func nodes(withID id: String) -> [Int] { byID[id] ?? [] }

    /// The declaration with this id: the occurrence in a statement (`DeclStmt`) when there is one,
    /// so that its parents are its scope.
    func declaration(id: String) -> Int? {
        let found = nodes(withID: id)
        return found.first { index in nodes[index].parent.map { nodes[$0].kind == "DeclStmt" } ?? false }
            ?? found.first
    }

    /// The ancestors of a node, nearest first.
    func ancestors(of index: Int) -> [Int] {
        var result: [Int] = []
        var current = nodes[index].parent
        while let parent = current, result.count < nodes.count {
            result.append(parent)
            current = nodes[parent].parent
        }
        return result
    }

    /// The node and its descendants in dump order; the semantic forms of a `PseudoObjectExpr`
    /// (everything after its first child, which repeats it) are left out.
    func subtree(_ index: Int) -> [Int] {
        var result: [Int] = []
        var stack = [index]
        while let current = stack.popLast() {
            result.append(current)
            let node = nodes[current]
            let children = node.kind == "PseudoObjectExpr" ? Array(node.children.prefix(1)) : node.children
            stack += children.reversed()
        }
        return result
    }

    private static func attributes(of object: [String: Any]) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in object where !["id", "kind", "loc", "range", "inner"].contains(key) {
            if let nested = value as? [String: Any] {
                for (subkey, subvalue) in nested {
                    if let text = scalar(subvalue) { result["\(key).\(subkey)"] = text }
                }
            } else if let text = scalar(value) {
                result[key] = text
            }
        }
        return result
    }

    private static func scalar(_ value: Any) -> String? {
        if let text = value as? String { return text }
        if let number = value as? NSNumber { return number.stringValue }
        return nil
    }

    private static func location(_ value: Any?, lastFile: inout String) -> ASTLocation? {
        guard let object = value as? [String: Any] else { return nil }
        if let spelling = object["spellingLoc"] as? [String: Any],
            let expansion = object["expansionLoc"] as? [String: Any]
        {
            let spelled = bare(spelling, lastFile: &lastFile)
            var expanded = bare(expansion, lastFile: &lastFile)
            expanded?.spellingFile = spelled?.file ?? ""
            return expanded
        }
        return bare(object, lastFile: &lastFile)
    }

    private static func bare(_ object: [String: Any], lastFile: inout String) -> ASTLocation? {
        guard let offset = object["offset"] as? Int else { return nil }
        if let file = object["file"] as? String { lastFile = file }
        return ASTLocation(file: lastFile, offset: offset, length: object["tokLen"] as? Int ?? 0)
    }
}
