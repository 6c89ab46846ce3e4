import BLEAdvBudget

/// Properties of the class being read (`self.region`), followed to what the file assigns them.
extension ObjCResolver {
    /// When `node` reads a property (`self.p`, or `_p`) that the file assigns exactly once
    /// (`self.p = value` or `_p = value`, typically in `-init` or `-viewDidLoad`), `body` of that
    /// value, with a note naming where it is assigned. Nil when `node` is not such a read, or the
    /// file never assigns the property (the caller's own reason then applies); a failure when it
    /// is assigned more than once.
    func followProperty<T>(_ node: Int, _ body: (Int) -> Result<T, Unresolved>) -> Result<T, Unresolved>? {
        guard let (key, name) = propertyKey(node) else { return nil }
        let values = assignments(to: key, name: name)
        guard !values.isEmpty else { return nil }
        guard values.count == 1, let value = values.first else {
            let places = values.map { place($0) }.joined(separator: ", ")
            return .failure(
                Unresolved(
                    reason:
                        "`\(Quote.safe(name))` is assigned \(values.count) times (\(places)); which one holds is known at run time"
                )
            )
        }
        guard !followingProperties.contains(key) else {
            return .failure(Unresolved(reason: "`\(Quote.safe(name))` (\(place(value))) depends on itself"))
        }
        note(at: value, "`\(Quote.safe(name))` is a property assigned only at \(place(value)); that value is used")
        followingProperties.insert(key)
        defer { followingProperties.remove(key) }
        return body(value)
    }

    /// The property's identity and name for a read `self.p` (a `PseudoObjectExpr` over an
    /// `ObjCPropertyRefExpr`) or an instance variable `_p`.
    private func propertyKey(_ node: Int) -> (key: String, name: String)? {
        let item = ast[node]
        if item.kind == "PseudoObjectExpr", let reference = item.children.first,
            ast[reference].kind == "ObjCPropertyRefExpr", let name = ast[reference]["property.name"]
        {
            return ("property " + name, name)
        }
        if item.kind == "ObjCIvarRefExpr", let name = item["decl.name"], name.hasPrefix("_") {
            return ("property " + name.dropFirst(), String(name.dropFirst()))
        }
        return nil
    }

    /// The values of every `self.name = value` and `_name = value` in the file's AST.
    private func assignments(to key: String, name: String) -> [Int] {
        var values: [Int] = []
        for index in ast.nodes.indices where ast[index].kind == "BinaryOperator" && ast[index]["opcode"] == "=" {
            let children = ast[index].children
            guard children.count == 2, let target = children.first else { continue }
            let stripped = ast.strip(target)
            let assigned: String? =
                switch ast[stripped].kind {
                case "ObjCPropertyRefExpr": ast[stripped]["property.name"].map { "property " + $0 }
                case "ObjCIvarRefExpr": ast[stripped]["decl.name"].map { "property " + $0.drop { $0 == "_" } }
                default: nil
                }
            if assigned == key, !ast.isNull(children[1]) { values.append(children[1]) }
        }
        return values
    }
}
