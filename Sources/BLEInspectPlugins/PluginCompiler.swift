import BLEInspectCore
import Foundation
import Yams

/// Turns a plugin file into a `CompiledPlugin`, or into every reason it cannot be one.
public enum PluginCompiler {
    /// Compiles `text` (the contents of `file`). `reservedNamespaces` are the protocol names of
    /// the built-in fields (`btatt`, `frame`, …), which no plugin may take.
    public static func compile(
        _ text: String,
        file: String,
        reservedNamespaces: Set<String> = []
    ) -> Result<CompiledPlugin, PluginRejection> {
        var c = Compilation(file: file, reserved: reservedNamespaces)
        let plugin = c.run(text)
        if let plugin, !c.reader.failed { return .success(plugin) }
        return .failure(PluginRejection(file: file, diagnostics: c.reader.diagnostics))
    }

    static let topKeys = [
        "plugin", "name", "description", "endian", "services", "characteristics", "descriptors", "advertising",
        "l2cap", "types",
    ]
    static let fieldKeys = [
        "name", "label", "type", "endian", "scale", "offset", "unit", "enum", "bits", "length", "count", "of",
        "fields", "members", "if", "base", "help",
    ]
    static let integerTypes: [String: (width: Int, signed: Bool)] = {
        var t: [String: (Int, Bool)] = [:]
        for bytes in 1...8 {
            t["uint\(bytes * 8)"] = (bytes, false)
            t["int\(bytes * 8)"] = (bytes, true)
        }
        return t
    }()
    static let otherTypes = [
        "float32", "float64", "utf8", "cstring", "bytes", "json", "uuid16", "uuid32", "uuid128", "bdaddr", "struct",
        "array",
    ]
    static var typeNames: [String] { integerTypes.keys.sorted() + otherTypes }
}

/// One field already declared, for references and for sharing a name between switch cases.
private struct Declared {
    let index: Int
    let kind: FieldKind
    let line: Int
    let column: Int
}

/// A name that later fields may refer to (`count: n`, `switch: opcode`, `if: flags.alarm`).
private struct ScopeEntry {
    let slot: Slot?
    let conditional: Bool
    var bits: [String: Slot] = [:]
}

private struct Compilation {
    var reader: YAMLReader
    let reserved: Set<String>
    var namespace = ""
    var fields: [FieldDescriptor] = []
    var declared: [String: Declared] = [:]
    var slotCount = 0
    var special = SpecialFields()
    var typeNodes: [String: Node] = [:]
    var typeStack: [String] = []
    var scopes: [[String: ScopeEntry]] = []
    var defaultBigEndian = false
    var tooManyFields = false
    /// Layout items compiled so far, types counted at every use: a few lines of types used many
    /// times over can stand for an exponential tree, so compiling stops at a limit.
    var itemsCompiled = 0

    init(file: String, reserved: Set<String>) {
        reader = YAMLReader(file: file)
        self.reserved = reserved
    }

    // MARK: The file

    mutating func run(_ text: String) -> CompiledPlugin? {
        guard text.utf8.count <= PluginLimits.maximumFileSize else {
            reader.error(line: 0, column: 0, "the file is larger than \(PluginLimits.maximumFileSize) bytes")
            return nil
        }
        guard let root = reader.parse(text),
            let entries = reader.mapping(root, "the plugin file", allowed: PluginCompiler.topKeys)
        else { return nil }
        guard let ns = entries["plugin"] else {
            reader.error(root, "missing 'plugin:', the plugin's namespace (a lower-case word such as 'envsense')")
            return nil
        }
        guard let name = reader.string(ns, "plugin"), checkNamespace(name, ns) else { return nil }
        namespace = name
        let title = display(entries["name"].flatMap { reader.string($0, "name") } ?? name)
        let summary = display(entries["description"].flatMap { reader.string($0, "description") } ?? "")
        if let e = entries["endian"] { defaultBigEndian = endian(e) ?? false }
        if let t = entries["types"] { collectTypes(t) }

        var names: [PluginName] = []
        var bindings: [PluginBinding] = []
        for (key, kind) in [
            ("services", PluginName.Kind.service), ("characteristics", .characteristic),
            ("descriptors", .descriptor),
        ] {
            guard let e = entries[key], let items = reader.sequence(e, key) else { continue }
            for item in items { attribute(item, kind, &names, &bindings) }
        }
        if let e = entries["advertising"], let items = reader.sequence(e, "advertising") {
            for item in items { advertising(item, &bindings) }
        }
        if let e = entries["l2cap"], let items = reader.sequence(e, "l2cap") {
            for item in items { channel(item, &bindings) }
        }
        checkDuplicates(bindings)
        checkNames(names)
        if bindings.isEmpty && names.isEmpty && !reader.failed {
            reader.error(
                root,
                "the plugin names nothing and decodes nothing: add services, characteristics, descriptors, advertising or l2cap entries"
            )
        }
        guard !reader.failed else { return nil }
        let layer = FieldDescriptor(namespace, title, .layer, help: summary, short: namespace.uppercased())
        return CompiledPlugin(
            namespace: namespace,
            title: title,
            summary: summary,
            file: reader.file,
            layer: layer,
            fields: fields,
            bindings: bindings,
            names: names,
            slotCount: slotCount,
            special: special
        )
    }

    mutating func checkNamespace(_ name: String, _ node: Node) -> Bool {
        let valid =
            !name.isEmpty && name.count <= 32 && name.first.map { $0.isASCII && $0.isLowercase } == true
            && name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }
        guard valid else {
            reader.error(
                node,
                "plugin '\(name)': a namespace is a lower-case word (a-z, 0-9, _), at most 32 characters, starting with a letter"
            )
            return false
        }
        if reserved.contains(name) {
            reader.error(node, "plugin '\(name)': the namespace is a built-in protocol's; choose another")
            return false
        }
        return true
    }

    mutating func collectTypes(_ node: Node) {
        guard reader.plain(node) else { return }
        guard case .mapping(let m) = node else {
            reader.error(node, "types must be a mapping of type names to field lists")
            return
        }
        for (k, v) in m {
            guard reader.plain(k), let name = reader.string(k, "a type name") else { continue }
            if PluginCompiler.integerTypes[name] != nil || PluginCompiler.otherTypes.contains(name) {
                reader.error(k, "type '\(name)' has the name of a built-in type")
                continue
            }
            guard isWord(name) else {
                reader.error(k, "type name '\(name)' must be a word (a-z, 0-9, _)")
                continue
            }
            typeNodes[name] = v
        }
    }

    // MARK: Bindings

    mutating func attribute(
        _ node: Node,
        _ kind: PluginName.Kind,
        _ names: inout [PluginName],
        _ bindings: inout [PluginBinding]
    ) {
        let allowed = kind == .service ? ["uuid", "name"] : ["uuid", "name", "fields", "override"]
        guard let e = reader.mapping(node, "a \(kind.rawValue)", allowed: allowed) else { return }
        guard let uuidNode = e["uuid"] else {
            reader.error(node, "a \(kind.rawValue) needs 'uuid:'")
            return
        }
        guard let uuid = reader.uuid(uuidNode, "uuid") else { return }
        let name = display(e["name"].flatMap { reader.string($0, "name") } ?? "")
        let mark = uuidNode.mark
        if !name.isEmpty {
            names.append(
                PluginName(kind: kind, uuid: uuid, name: name, line: mark?.line ?? 0, column: mark?.column ?? 0)
            )
        }
        guard let fieldsNode = e["fields"] else { return }
        guard let layout = topLayout(fieldsNode) else { return }
        bindings.append(
            PluginBinding(
                target: .attribute(uuid),
                prefix: [],
                name: name,
                line: mark?.line ?? 0,
                column: mark?.column ?? 0,
                overrides: e["override"].flatMap { flag($0, "override") } ?? false,
                layout: layout,
                framing: nil
            )
        )
    }

    mutating func advertising(_ node: Node, _ bindings: inout [PluginBinding]) {
        let allowed = ["manufacturer", "service_data", "prefix", "name", "fields", "override"]
        guard let e = reader.mapping(node, "an advertising entry", allowed: allowed) else { return }
        let target: PluginBinding.Target
        let keyNode: Node
        switch (e["manufacturer"], e["service_data"]) {
        case (let m?, nil):
            guard let company = reader.integer(m, "manufacturer (a company identifier)", in: 0...0xFFFF) else {
                return
            }
            target = .manufacturer(UInt16(company))
            keyNode = m
        case (nil, let s?):
            guard let uuid = reader.uuid(s, "service_data") else { return }
            target = .serviceData(uuid)
            keyNode = s
        default:
            reader.error(node, "an advertising entry needs exactly one of 'manufacturer:' or 'service_data:'")
            return
        }
        let prefix = e["prefix"].flatMap { reader.bytes($0, "prefix") } ?? []
        if prefix.count > 32 { reader.error(e["prefix"], "a prefix is at most 32 bytes") }
        if !prefix.isEmpty && special.prefix < 0 {
            special.prefix = add(FieldDescriptor("\(namespace).prefix", "Prefix", .bytes))
        }
        guard let fieldsNode = e["fields"] else {
            reader.error(node, "an advertising entry needs 'fields:' (a type name or a list of fields)")
            return
        }
        guard let layout = topLayout(fieldsNode) else { return }
        let mark = keyNode.mark
        bindings.append(
            PluginBinding(
                target: target,
                prefix: prefix,
                name: display(e["name"].flatMap { reader.string($0, "name") } ?? ""),
                line: mark?.line ?? 0,
                column: mark?.column ?? 0,
                overrides: e["override"].flatMap { flag($0, "override") } ?? false,
                layout: layout,
                framing: nil
            )
        )
    }

    mutating func channel(_ node: Node, _ bindings: inout [PluginBinding]) {
        let allowed = ["psm", "name", "framing", "fields", "override"]
        guard let e = reader.mapping(node, "an l2cap entry", allowed: allowed) else { return }
        guard let psmNode = e["psm"] else {
            reader.error(node, "an l2cap entry needs 'psm:'")
            return
        }
        guard let psm = reader.integer(psmNode, "psm", in: 1...0xFFFF) else { return }
        var framing: Framing? = nil
        if let f = e["framing"] {
            guard let parsed = self.framing(f) else { return }
            framing = parsed
            if special.message < 0 {
                special.message = add(FieldDescriptor("\(namespace).message", "Message", .group))
                special.buffered = add(
                    FieldDescriptor(
                        "\(namespace).buffered",
                        "Bytes Buffered",
                        .unsigned(bits: 32),
                        help: "Bytes of a message whose end has not arrived yet"
                    )
                )
            }
        }
        guard let fieldsNode = e["fields"] else {
            reader.error(node, "an l2cap entry needs 'fields:' (a type name or a list of fields)")
            return
        }
        guard let layout = topLayout(fieldsNode) else { return }
        let mark = psmNode.mark
        bindings.append(
            PluginBinding(
                target: .psm(UInt16(psm)),
                prefix: [],
                name: display(e["name"].flatMap { reader.string($0, "name") } ?? ""),
                line: mark?.line ?? 0,
                column: mark?.column ?? 0,
                overrides: e["override"].flatMap { flag($0, "override") } ?? false,
                layout: layout,
                framing: framing
            )
        )
    }

    mutating func framing(_ node: Node) -> Framing? {
        let allowed = ["delimiter", "length", "chunk", "padding", "max_message"]
        guard let e = reader.mapping(node, "framing", allowed: allowed) else { return nil }
        var chunk: Int? = nil
        if let c = e["chunk"] {
            guard let v = reader.integer(c, "chunk", in: 1...Int64(PluginLimits.maximumMessageSize)) else { return nil }
            chunk = Int(v)
        }
        var padding: UInt8? = nil
        if let p = e["padding"] {
            guard let bytes = paddingByte(p) else { return nil }
            padding = bytes
        }
        var maximum = PluginLimits.defaultMessageSize
        if let m = e["max_message"] {
            guard let v = reader.integer(m, "max_message", in: 1...Int64(PluginLimits.maximumMessageSize)) else {
                return nil
            }
            maximum = Int(v)
        }
        let mode: Framing.Mode
        switch (e["delimiter"], e["length"]) {
        case (let d?, nil):
            guard let bytes = reader.bytes(d, "delimiter") else { return nil }
            guard !bytes.isEmpty, bytes.count <= 64 else {
                reader.error(d, "a delimiter is 1 to 64 bytes")
                return nil
            }
            mode = .delimiter(bytes)
        case (nil, let l?):
            guard let parsed = lengthPrefix(l) else { return nil }
            mode = parsed
        case (nil, nil):
            guard chunk != nil else {
                reader.error(node, "framing needs 'delimiter:', 'length:' or 'chunk:'")
                return nil
            }
            mode = .chunks
        default:
            reader.error(node, "framing takes 'delimiter:' or 'length:', not both")
            return nil
        }
        if padding != nil && chunk == nil {
            reader.error(e["padding"], "'padding:' needs 'chunk:' (padding runs to the end of a chunk)")
            return nil
        }
        if let chunk, chunk > maximum {
            maximum = chunk
        }
        return Framing(mode: mode, chunk: chunk, padding: padding, maximumMessage: maximum)
    }

    mutating func paddingByte(_ node: Node) -> UInt8? {
        guard let text = reader.string(node, "padding") else { return nil }
        if text.utf8.count == 1, let b = text.utf8.first { return b }
        if let v = YAMLReader.parseInteger(text), (0...255).contains(v) { return UInt8(v) }
        reader.error(node, "padding is one character (\" \") or a byte value (0x00)")
        return nil
    }

    mutating func lengthPrefix(_ node: Node) -> Framing.Mode? {
        guard let e = reader.mapping(node, "length", allowed: ["size", "endian", "adjust"]) else { return nil }
        guard let s = e["size"], let size = reader.integer(s, "size", in: 1...4) else {
            if e["size"] == nil { reader.error(node, "length needs 'size:' (1 to 4 bytes)") }
            return nil
        }
        let big = e["endian"].flatMap { endian($0) } ?? defaultBigEndian
        let adjust = e["adjust"].flatMap { reader.integer($0, "adjust", in: -1024...1024) } ?? 0
        return .lengthPrefix(size: Int(size), bigEndian: big, adjust: Int(adjust))
    }

    mutating func checkDuplicates(_ bindings: [PluginBinding]) {
        for (i, b) in bindings.enumerated() {
            if let earlier = bindings[..<i].first(where: { $0.overlaps(b) }) {
                reader.error(
                    line: b.line,
                    column: b.column,
                    "duplicate binding: \(b.keyDescription) is already bound at line \(earlier.line)"
                )
            }
        }
    }

    mutating func checkNames(_ names: [PluginName]) {
        for (i, n) in names.enumerated() {
            if let earlier = names[..<i].first(where: { $0.uuid == n.uuid && $0.name != n.name }) {
                reader.error(
                    line: n.line,
                    column: n.column,
                    "UUID \(n.uuid) is named twice ('\(earlier.name)' at line \(earlier.line), '\(n.name)' here)"
                )
            }
        }
    }

    // MARK: Layouts

    /// A binding's layout: a type name or a list of fields, and the undecoded-bytes field.
    mutating func topLayout(_ node: Node) -> Layout? {
        if special.undecoded < 0 {
            special.undecoded = add(
                FieldDescriptor(
                    "\(namespace).undecoded",
                    "Undecoded",
                    .bytes,
                    help: "Bytes after the last field the plugin's layout describes"
                )
            )
        }
        return layout(node, path: "", depth: 1)
    }

    /// A struct: a type name, or a list of fields, in a new scope.
    mutating func layout(_ node: Node, path: String, depth: Int) -> Layout? {
        guard depth <= PluginLimits.maximumNesting else {
            reader.error(node, "nesting deeper than \(PluginLimits.maximumNesting) levels")
            return nil
        }
        if case .scalar = node, let name = reader.string(node, "a type") {
            guard let body = typeNodes[name] else {
                reader.error(node, unknownType(name))
                return nil
            }
            if let start = typeStack.firstIndex(of: name) {
                let cycle = (typeStack[start...] + [name]).joined(separator: " → ")
                reader.error(node, "unbounded recursion: type '\(name)' contains itself (\(cycle))")
                return nil
            }
            typeStack.append(name)
            defer { typeStack.removeLast() }
            return layout(body, path: path, depth: depth)
        }
        guard let items = reader.sequence(node, "fields") else { return nil }
        scopes.append([:])
        defer { scopes.removeLast() }
        var out: [LayoutItem] = []
        for item in items {
            if let i = layoutItem(item, path: path, depth: depth) { out.append(i) }
        }
        return Layout(out)
    }

    mutating func layoutItem(_ node: Node, path: String, depth: Int) -> LayoutItem? {
        guard !tooManyFields else { return nil }
        itemsCompiled += 1
        guard itemsCompiled <= PluginLimits.maximumLayoutItems else {
            if itemsCompiled == PluginLimits.maximumLayoutItems + 1 {
                reader.error(
                    node,
                    "the layouts expand to more than \(PluginLimits.maximumLayoutItems) items (types used many times over)"
                )
            }
            return nil
        }
        if case .mapping(let m) = node, m.keys.contains(where: { $0.string == "switch" }) {
            return choice(node, path: path, depth: depth)
        }
        guard let e = reader.mapping(node, "a field", allowed: PluginCompiler.fieldKeys) else { return nil }
        guard let nameNode = e["name"], let name = reader.string(nameNode, "name") else {
            if e["name"] == nil { reader.error(node, "a field needs 'name:'") }
            return nil
        }
        guard isWord(name) else {
            reader.error(nameNode, "field name '\(name)' must be a word (a-z, 0-9, _)")
            return nil
        }
        if path.isEmpty, Self.reservedNames.contains(name) {
            reader.error(nameNode, "field name '\(name)' is reserved for the plugin's own field \(namespace).\(name)")
            return nil
        }
        if scopes.last?[name] != nil {
            reader.error(nameNode, "duplicate field name '\(name)' in this struct")
            return nil
        }
        guard let typeNode = e["type"], let type = reader.string(typeNode, "type") else {
            if e["type"] == nil { reader.error(node, "field '\(name)' needs 'type:'") }
            return nil
        }
        let fullPath = path.isEmpty ? name : path + "." + name
        var condition: LayoutCondition? = nil
        if let c = e["if"] {
            guard let parsed = self.condition(c) else { return nil }
            condition = parsed
        }
        guard let spec = fieldSpec(type, typeNode, e, path: fullPath, depth: depth) else { return nil }
        let label = display(e["label"].flatMap { reader.string($0, "label") } ?? Self.label(for: name))
        let help = display(e["help"].flatMap { reader.string($0, "help") } ?? "")
        let descriptor = FieldDescriptor(
            "\(namespace).\(fullPath)",
            label,
            spec.kind,
            base: spec.base,
            names: spec.names,
            help: help,
            unit: spec.unit
        )
        guard let index = declare(descriptor, nameNode) else { return nil }
        var slot: Slot? = nil
        var entry = ScopeEntry(slot: nil, conditional: condition != nil)
        if spec.isInteger {
            slot = newSlot()
            entry = ScopeEntry(slot: slot, conditional: condition != nil)
        }
        var bits: [LayoutBits] = []
        if let b = e["bits"] {
            guard let width = spec.integerWidth else {
                reader.error(b, "'bits:' needs an integer type, not \(type)")
                return nil
            }
            guard let parsed = self.bits(b, width: width, path: fullPath) else { return nil }
            bits = parsed
            for (bitName, bitSlot) in zip(bitNames(b), parsed.map(\.slot)) {
                if let bitSlot { entry.bits[bitName] = bitSlot }
            }
        }
        scopes[scopes.count - 1][name] = entry
        return .field(LayoutField(id: index, value: spec.value, condition: condition, slot: slot, bits: bits))
    }

    /// What a field's type and options compile to.
    struct Spec {
        var value: LayoutValue
        var kind: FieldKind
        var base: DisplayBase = .decimal
        var names: ValueNames? = nil
        var unit = ""
        var isInteger = false
        var integerWidth: Int? = nil
    }

    mutating func fieldSpec(
        _ type: String,
        _ typeNode: Node,
        _ e: [String: Node],
        path: String,
        depth: Int
    ) -> Spec? {
        let options = Set(e.keys).subtracting(["name", "label", "type", "help", "if"])
        func only(_ allowed: Set<String>) -> Bool {
            let extra = options.subtracting(allowed).sorted()
            guard let first = extra.first, let node = e[first] else { return true }
            reader.error(node, "'\(first):' does not apply to type \(type)")
            return false
        }
        let unit = e["unit"].flatMap { reader.string($0, "unit") } ?? ""
        if let (width, signed) = PluginCompiler.integerTypes[type] {
            guard only(["endian", "scale", "offset", "unit", "enum", "bits", "base"]) else { return nil }
            let big = e["endian"].flatMap { endian($0) } ?? defaultBigEndian
            if e["scale"] != nil || e["offset"] != nil {
                if let clash = e["enum"] ?? e["bits"] {
                    reader.error(clash, "a scaled value cannot also have 'enum:' or 'bits:'")
                    return nil
                }
                let scale = e["scale"].flatMap { reader.real($0, "scale") } ?? 1
                let offset = e["offset"].flatMap { reader.real($0, "offset") } ?? 0
                guard scale != 0 else {
                    reader.error(e["scale"], "scale must not be 0")
                    return nil
                }
                return Spec(
                    value: .scaled(
                        width: width,
                        signed: signed,
                        bigEndian: big,
                        scale: Scale(scale: scale, offset: offset)
                    ),
                    kind: .real,
                    unit: unit
                )
            }
            var spec = Spec(
                value: .integer(width: width, signed: signed, bigEndian: big),
                kind: signed ? .signed(bits: UInt8(width * 8)) : .unsigned(bits: UInt8(width * 8)),
                unit: unit,
                isInteger: true,
                integerWidth: width
            )
            if let n = e["enum"] {
                guard let names = valueNames(n, width: width, signed: signed) else { return nil }
                spec.names = names
            }
            if let b = e["base"] {
                guard let base = displayBase(b) else { return nil }
                spec.base = base
            } else if e["bits"] != nil {
                spec.base = .hex
            }
            return spec
        }
        switch type {
        case "float32", "float64":
            guard only(["endian", "unit"]) else { return nil }
            let big = e["endian"].flatMap { endian($0) } ?? defaultBigEndian
            return Spec(value: .float(width: type == "float32" ? 4 : 8, bigEndian: big), kind: .real, unit: unit)
        case "utf8", "cstring":
            guard only(["length"]) else { return nil }
            guard let extent = extent(e["length"], "length") else { return nil }
            return Spec(value: .text(extent, terminated: type == "cstring"), kind: .string)
        case "bytes":
            guard only(["length"]) else { return nil }
            guard let extent = extent(e["length"], "length") else { return nil }
            return Spec(value: .bytes(extent), kind: .bytes)
        case "json":
            guard only(["length", "members"]) else { return nil }
            guard let extent = extent(e["length"], "length") else { return nil }
            var members: [JSONMember] = []
            if let m = e["members"] {
                guard let parsed = jsonMembers(m, path: path) else { return nil }
                members = parsed
            }
            return Spec(value: .json(extent, members: members), kind: .string)
        case "uuid16", "uuid32", "uuid128":
            guard only([]) else { return nil }
            let width = type == "uuid16" ? 2 : type == "uuid32" ? 4 : 16
            return Spec(value: .uuid(width: width), kind: .uuid)
        case "bdaddr":
            guard only([]) else { return nil }
            return Spec(value: .address, kind: .address)
        case "struct":
            guard only(["fields", "length"]) else { return nil }
            guard let f = e["fields"] else {
                reader.error(typeNode, "a struct needs 'fields:'")
                return nil
            }
            guard let extent = extent(e["length"], "length"), let layout = layout(f, path: path, depth: depth + 1)
            else { return nil }
            return Spec(value: .structure(layout, extent), kind: .group)
        case "array":
            guard only(["of", "count", "length", "endian", "scale", "offset", "unit", "enum", "base"]) else {
                return nil
            }
            return array(typeNode, e, path: path, depth: depth)
        default:
            guard typeNodes[type] != nil else {
                reader.error(typeNode, unknownType(type))
                return nil
            }
            guard only(["length"]) else { return nil }
            guard let extent = extent(e["length"], "length"),
                let layout = layout(typeNode, path: path, depth: depth + 1)
            else { return nil }
            return Spec(value: .structure(layout, extent), kind: .group)
        }
    }

    mutating func array(_ typeNode: Node, _ e: [String: Node], path: String, depth: Int) -> Spec? {
        guard let of = e["of"] else {
            reader.error(typeNode, "an array needs 'of:' (a type name, or a list of fields)")
            return nil
        }
        if e["count"] != nil && e["length"] != nil {
            reader.error(e["length"], "an array takes 'count:' or 'length:', not both")
            return nil
        }
        guard depth + 1 <= PluginLimits.maximumNesting else {
            reader.error(typeNode, "nesting deeper than \(PluginLimits.maximumNesting) levels")
            return nil
        }
        let count: Extent
        if let c = e["count"] {
            guard let parsed = extent(c, "count") else { return nil }
            count = parsed
        } else {
            count = .rest
        }
        var element: Spec
        if case .scalar = of, let name = reader.string(of, "of") {
            if PluginCompiler.integerTypes[name] != nil || PluginCompiler.otherTypes.contains(name) {
                guard !["struct", "array", "json"].contains(name) else {
                    reader.error(of, "an array's 'of:' is a scalar type, a type name or a list of fields; not \(name)")
                    return nil
                }
                var elementOptions = e.filter {
                    ["endian", "scale", "offset", "unit", "enum", "base"].contains($0.key)
                }
                elementOptions["type"] = of
                guard let spec = fieldSpec(name, of, elementOptions, path: path, depth: depth + 1) else { return nil }
                if case .text(.rest, _) = spec.value, name == "utf8" {
                    reader.error(of, "an array of utf8 needs each element's length; use cstring")
                    return nil
                }
                if case .bytes(.rest) = spec.value {
                    reader.error(
                        of,
                        "an array of bytes needs each element's length; use a struct with bytes of a length"
                    )
                    return nil
                }
                element = spec
            } else {
                guard let layout = layout(of, path: path, depth: depth + 1) else { return nil }
                element = Spec(value: .structure(layout, .rest), kind: .group)
            }
        } else {
            guard let layout = layout(of, path: path, depth: depth + 1) else { return nil }
            element = Spec(value: .structure(layout, .rest), kind: .group)
        }
        var length: Extent? = nil
        if let l = e["length"] {
            guard let parsed = extent(l, "length") else { return nil }
            length = parsed
        }
        element.value = .array(element.value, count: count, length: length)
        element.isInteger = false
        element.integerWidth = nil
        return element
    }

    mutating func choice(_ node: Node, path: String, depth: Int) -> LayoutItem? {
        guard let e = reader.mapping(node, "a switch", allowed: ["switch", "cases", "default"]) else { return nil }
        guard let s = e["switch"], let slot = reference(s, "switch") else { return nil }
        guard depth + 1 <= PluginLimits.maximumNesting else {
            reader.error(node, "nesting deeper than \(PluginLimits.maximumNesting) levels")
            return nil
        }
        var cases: [UInt64: Layout] = [:]
        if let c = e["cases"] {
            guard reader.plain(c) else { return nil }
            guard case .mapping(let m) = c else {
                reader.error(c, "cases must map values to field lists")
                return nil
            }
            for (k, v) in m {
                guard let text = reader.string(k, "a case value") else { continue }
                guard let value = YAMLReader.parseInteger(text) else {
                    reader.error(k, "a case value must be an integer, not '\(text)'")
                    continue
                }
                guard let layout = caseLayout(v, path: path, depth: depth + 1) else { continue }
                cases[UInt64(bitPattern: value)] = layout
            }
        } else {
            reader.error(node, "a switch needs 'cases:'")
            return nil
        }
        var fallback: Layout? = nil
        if let d = e["default"] { fallback = caseLayout(d, path: path, depth: depth + 1) }
        return .choice(LayoutChoice(slot: slot, cases: cases, fallback: fallback))
    }

    /// A case's fields: in their own scope, but with the same path (a case adds no name).
    mutating func caseLayout(_ node: Node, path: String, depth: Int) -> Layout? {
        if case .sequence(let s) = node, s.isEmpty { return Layout([]) }
        return layout(node, path: path, depth: depth)
    }

    mutating func bits(_ node: Node, width: Int, path: String) -> [LayoutBits]? {
        guard let items = reader.sequence(node, "bits") else { return nil }
        var out: [LayoutBits] = []
        var used: [(UInt64, String, Int)] = []
        let all: UInt64 = width >= 8 ? .max : (1 << UInt64(width * 8)) - 1
        var seen = Set<String>()
        for item in items {
            guard
                let e = reader.mapping(
                    item,
                    "a bit field",
                    allowed: ["name", "label", "bit", "mask", "enum", "help"]
                )
            else { return nil }
            guard let nameNode = e["name"], let name = reader.string(nameNode, "name"), isWord(name) else {
                reader.error(item, "a bit field needs 'name:' (a word)")
                return nil
            }
            guard seen.insert(name).inserted else {
                reader.error(nameNode, "duplicate bit field name '\(name)'")
                return nil
            }
            let mask: UInt64
            switch (e["bit"], e["mask"]) {
            case (let b?, nil):
                guard let bit = reader.integer(b, "bit", in: 0...Int64(width * 8 - 1)) else { return nil }
                mask = 1 << UInt64(bit)
            case (nil, let m?):
                guard let text = reader.string(m, "mask"), let v = YAMLReader.parseInteger(text), v > 0 else {
                    reader.error(m, "mask must be a positive integer such as 0xF0")
                    return nil
                }
                mask = UInt64(v)
                guard mask & ~all == 0 else {
                    reader.error(m, "mask \(text) is wider than the \(width * 8)-bit field")
                    return nil
                }
            default:
                reader.error(item, "a bit field needs one of 'bit:' or 'mask:'")
                return nil
            }
            if let clash = used.first(where: { $0.0 & mask != 0 }) {
                reader.error(
                    e["bit"] ?? e["mask"],
                    "field overlap: bits 0x\(String(mask, radix: 16, uppercase: true)) of '\(name)' overlap '\(clash.1)' (line \(clash.2))"
                )
                return nil
            }
            used.append((mask, name, nameNode.mark?.line ?? 0))
            let single = mask & (mask - 1) == 0
            var names: ValueNames? = nil
            if let n = e["enum"] {
                guard let parsed = valueNames(n, width: width, signed: false) else { return nil }
                names = parsed
            }
            let kind: FieldKind = single && names == nil ? .boolean : .unsigned(bits: UInt8(width * 8))
            let descriptor = FieldDescriptor(
                "\(namespace).\(path).\(name)",
                display(e["label"].flatMap { reader.string($0, "label") } ?? Self.label(for: name)),
                kind,
                names: names,
                bitmask: mask,
                help: display(e["help"].flatMap { reader.string($0, "help") } ?? "")
            )
            guard let index = declare(descriptor, nameNode) else { return nil }
            out.append(LayoutBits(id: index, mask: mask, slot: newSlot(), flag: kind == .boolean))
        }
        return out
    }

    func bitNames(_ node: Node) -> [String] {
        guard case .sequence(let s) = node else { return [] }
        return s.map { $0["name"]?.string ?? "" }
    }

    mutating func jsonMembers(_ node: Node, path: String) -> [JSONMember]? {
        guard let items = reader.sequence(node, "members") else { return nil }
        var out: [JSONMember] = []
        for item in items {
            guard let e = reader.mapping(item, "a JSON member", allowed: ["name", "key", "type", "label", "unit"])
            else { return nil }
            guard let nameNode = e["name"], let name = reader.string(nameNode, "name"), isWord(name) else {
                reader.error(item, "a JSON member needs 'name:' (a word)")
                return nil
            }
            let typeText = e["type"].flatMap { reader.string($0, "type") } ?? "string"
            let kinds: [String: (JSONMember.Kind, FieldKind)] = [
                "string": (.string, .string), "integer": (.integer, .signed(bits: 64)), "number": (.number, .real),
                "boolean": (.boolean, .boolean),
            ]
            guard let (memberKind, fieldKind) = kinds[typeText] else {
                reader.error(e["type"], "unknown JSON member type '\(typeText)' (string, integer, number, boolean)")
                return nil
            }
            let descriptor = FieldDescriptor(
                "\(namespace).\(path).\(name)",
                display(e["label"].flatMap { reader.string($0, "label") } ?? Self.label(for: name)),
                fieldKind,
                unit: e["unit"].flatMap { reader.string($0, "unit") } ?? ""
            )
            guard let index = declare(descriptor, nameNode) else { return nil }
            let key = e["key"].flatMap { reader.string($0, "key") } ?? name
            out.append(JSONMember(id: index, key: key, kind: memberKind))
        }
        return out
    }

    // MARK: Pieces

    mutating func condition(_ node: Node) -> LayoutCondition? {
        if case .mapping = node {
            guard let e = reader.mapping(node, "if", allowed: ["field", "equals"]) else { return nil }
            guard let f = e["field"], let slot = reference(f, "if") else {
                if e["field"] == nil { reader.error(node, "'if:' needs 'field:'") }
                return nil
            }
            guard let eq = e["equals"] else { return LayoutCondition(slot: slot, values: nil) }
            var values: [UInt64] = []
            let nodes: [Node]
            if case .sequence(let s) = eq { nodes = Array(s) } else { nodes = [eq] }
            for n in nodes {
                guard let v = reader.integer(n, "equals", in: Int64.min...Int64.max) else { return nil }
                values.append(UInt64(bitPattern: v))
            }
            return LayoutCondition(slot: slot, values: values)
        }
        guard let slot = reference(node, "if") else { return nil }
        return LayoutCondition(slot: slot, values: nil)
    }

    /// A byte count or element count: an integer, or the name of an earlier integer field.
    mutating func extent(_ node: Node?, _ what: String) -> Extent? {
        guard let node else { return .rest }
        guard let text = reader.string(node, what) else { return nil }
        if let v = YAMLReader.parseInteger(text) {
            guard v >= 0, v <= Int64(PluginLimits.maximumMessageSize) else {
                reader.error(node, "\(what) \(text) is out of range 0…\(PluginLimits.maximumMessageSize)")
                return nil
            }
            return .fixed(Int(v))
        }
        guard let slot = reference(node, what) else { return nil }
        return .slot(slot)
    }

    /// The slot of the earlier, always-present integer field (or bit field) `node` names.
    mutating func reference(_ node: Node, _ what: String) -> Slot? {
        guard let text = reader.string(node, what) else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2, let first = parts.first, isWord(first) else {
            reader.error(node, "\(what) must name an earlier field ('opcode', or 'flags.bit_name'), not '\(text)'")
            return nil
        }
        guard let entry = scopes.reversed().lazy.compactMap({ $0[first] }).first else {
            reader.error(
                node,
                "\(what) refers to '\(text)', which is not an earlier field of this struct or an enclosing one"
            )
            return nil
        }
        guard !entry.conditional else {
            reader.error(
                node,
                "\(what) refers to '\(first)', which is conditional ('if:'); refer to a field that is always present"
            )
            return nil
        }
        if parts.count == 2 {
            guard let slot = entry.bits[parts[1]] else {
                reader.error(node, "\(what) refers to '\(text)', but '\(first)' has no bit field '\(parts[1])'")
                return nil
            }
            return slot
        }
        guard let slot = entry.slot else {
            reader.error(node, "\(what) refers to '\(first)', which is not an integer")
            return nil
        }
        return slot
    }

    mutating func valueNames(_ node: Node, width: Int, signed: Bool) -> ValueNames? {
        guard reader.plain(node) else { return nil }
        guard case .mapping(let m) = node else {
            reader.error(node, "enum must map values to names (1: Set Interval)")
            return nil
        }
        var pairs: [(UInt64, String)] = []
        let lower: Int64 = signed ? (width >= 8 ? .min : -(1 << Int64(width * 8 - 1))) : 0
        let upper: Int64 = width >= 8 ? .max : (signed ? (1 << Int64(width * 8 - 1)) - 1 : (1 << Int64(width * 8)) - 1)
        for (k, v) in m {
            guard let value = reader.integer(k, "an enum value", in: lower...upper),
                let name = reader.string(v, "an enum name")
            else { continue }
            pairs.append((UInt64(bitPattern: value), display(name)))
        }
        return ValueNames(pairs)
    }

    mutating func displayBase(_ node: Node) -> DisplayBase? {
        switch reader.string(node, "base") {
        case "dec": return .decimal
        case "hex": return .hex
        case "dec_hex": return .decimalAndHex
        case nil: return nil
        case let other?:
            reader.error(node, "base is dec, hex or dec_hex, not '\(other)'")
            return nil
        }
    }

    mutating func endian(_ node: Node) -> Bool? {
        switch reader.string(node, "endian") {
        case "little": return false
        case "big": return true
        case nil: return nil
        case let other?:
            reader.error(node, "endian is little or big, not '\(other)'")
            return nil
        }
    }

    mutating func flag(_ node: Node, _ what: String) -> Bool? {
        switch reader.string(node, what) {
        case "true", "yes": return true
        case "false", "no": return false
        case nil: return nil
        case let other?:
            reader.error(node, "\(what) is true or false, not '\(other)'")
            return nil
        }
    }

    /// Display text from the file (names, labels, help, enum names), with control characters
    /// escaped once, here: it is then shown as it is, like the built-in modules' names. Units are
    /// the exception: renderers escape every unit.
    func display(_ text: String) -> String { TerminalSafeText.escape(text) }

    func unknownType(_ name: String) -> String {
        let all = PluginCompiler.typeNames + typeNodes.keys.sorted()
        let hint = YAMLReader.closest(name, in: all).map { "; did you mean '\($0)'?" } ?? ""
        return
            "unknown type '\(name)'\(hint) (types: \(PluginCompiler.typeNames.joined(separator: ", ")), or one from 'types:')"
    }

    func isWord(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 64 && s.first.map { $0.isASCII && ($0.isLetter || $0 == "_") } == true
            && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }

    /// Top-level names the plugin's own fields use (`SpecialFields`).
    static let reservedNames: Set<String> = ["undecoded", "prefix", "message", "buffered"]

    static func label(for name: String) -> String {
        name.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }

    mutating func newSlot() -> Slot {
        slotCount += 1
        return slotCount - 1
    }

    /// Adds a field descriptor, or finds the one a switch case already declared with that name.
    mutating func declare(_ d: FieldDescriptor, _ node: Node) -> Int? {
        if let existing = declared[d.abbrev] {
            guard existing.kind == d.kind else {
                reader.error(
                    node,
                    "field \(d.abbrev) is declared again with type \(d.kind.typeName) (line \(existing.line) declared it \(existing.kind.typeName))"
                )
                return nil
            }
            return existing.index
        }
        let index = add(d)
        guard index >= 0 else {
            if !tooManyFields {
                tooManyFields = true
                reader.error(node, "the plugin declares more than \(PluginLimits.maximumFields) fields")
            }
            return nil
        }
        declared[d.abbrev] = Declared(
            index: index,
            kind: d.kind,
            line: node.mark?.line ?? 0,
            column: node.mark?.column ?? 0
        )
        return index
    }

    mutating func add(_ d: FieldDescriptor) -> Int {
        guard fields.count < PluginLimits.maximumFields else { return -1 }
        fields.append(d)
        return fields.count - 1
    }
}
