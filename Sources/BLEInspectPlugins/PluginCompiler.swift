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
        "fields", "members", "if", "base", "help", "sequence", "psm",
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
struct Declared {
    let index: Int
    let kind: FieldKind
    let line: Int
    let column: Int
}

/// A name that later fields may refer to (`count: n`, `switch: opcode`, `if: flags.alarm`).
struct ScopeEntry {
    let slot: Slot?
    let conditional: Bool
    var bits: [String: Slot] = [:]
}

/// One file being compiled: what is declared so far and where the diagnostics go. Its steps are
/// here (the file and its bindings), in `PluginCompiler+Layouts.swift` and in
/// `PluginCompiler+Pieces.swift`.
struct Compilation {
    var reader: YAMLReader
    let reserved: Set<String>
    var namespace = ""
    var fields: [FieldDescriptor] = []
    var declared: [String: Declared] = [:]
    var slotCount = 0
    /// The JSON values of the layouts, by their `.custom` index.
    var json: [JSONValue] = []
    var counters: [SequenceCounter] = []
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
            reader.error(.limit, line: 0, column: 0, "the file is larger than \(PluginLimits.maximumFileSize) bytes")
            return nil
        }
        guard let root = reader.parse(text),
            let entries = reader.mapping(root, "the plugin file", allowed: PluginCompiler.topKeys)
        else { return nil }
        guard let ns = entries["plugin"] else {
            reader.error(
                .invalid,
                root,
                "missing 'plugin:', the plugin's namespace (a lower-case word such as 'envsense')"
            )
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
                .invalid,
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
            special: special,
            json: json,
            counters: counters
        )
    }

    mutating func checkNamespace(_ name: String, _ node: Node) -> Bool {
        let valid =
            !name.isEmpty && name.count <= 32 && name.first.map { $0.isASCII && $0.isLowercase } == true
            && name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }
        guard valid else {
            reader.error(
                .limit,
                node,
                "plugin '\(name)': a namespace is a lower-case word (a-z, 0-9, _), at most 32 characters, starting with a letter"
            )
            return false
        }
        if reserved.contains(name) {
            reader.error(.invalid, node, "plugin '\(name)': the namespace is a built-in protocol's; choose another")
            return false
        }
        return true
    }

    mutating func collectTypes(_ node: Node) {
        guard reader.plain(node) else { return }
        guard case .mapping(let m) = node else {
            reader.error(.invalid, node, "types must be a mapping of type names to field lists")
            return
        }
        for (k, v) in m {
            guard reader.plain(k), let name = reader.string(k, "a type name") else { continue }
            if PluginCompiler.integerTypes[name] != nil || PluginCompiler.otherTypes.contains(name) {
                reader.error(.invalid, k, "type '\(name)' has the name of a built-in type")
                continue
            }
            guard isWord(name) else {
                reader.error(.invalid, k, "type name '\(name)' must be a word (a-z, 0-9, _)")
                continue
            }
            typeNodes[name] = v
        }
    }
}

extension Compilation {
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
            reader.error(.invalid, node, "a \(kind.rawValue) needs 'uuid:'")
            return
        }
        guard let uuid = reader.uuid(uuidNode, "uuid") else { return }
        let name = entryName(e)
        let mark = uuidNode.mark
        if !name.isEmpty {
            names.append(
                PluginName(kind: kind, uuid: uuid, name: name, line: mark?.line ?? 0, column: mark?.column ?? 0)
            )
        }
        guard let fieldsNode = e["fields"] else { return }
        guard let layout = topLayout(fieldsNode) else { return }
        bindings.append(binding(.attribute(uuid), e, at: uuidNode, name: name, layout: layout))
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
            reader.error(.invalid, node, "an advertising entry needs exactly one of 'manufacturer:' or 'service_data:'")
            return
        }
        let prefix = e["prefix"].flatMap { reader.bytes($0, "prefix") } ?? []
        if prefix.count > 32 { reader.error(.limit, e["prefix"], "a prefix is at most 32 bytes") }
        if !prefix.isEmpty && special.prefix < 0 {
            special.prefix = add(FieldDescriptor("\(namespace).prefix", "Prefix", .bytes))
        }
        guard let fieldsNode = e["fields"] else {
            reader.error(.invalid, node, "an advertising entry needs 'fields:' (a type name or a list of fields)")
            return
        }
        guard let layout = topLayout(fieldsNode) else { return }
        bindings.append(binding(target, e, at: keyNode, name: entryName(e), layout: layout, prefix: prefix))
    }

    mutating func channel(_ node: Node, _ bindings: inout [PluginBinding]) {
        let allowed = ["psm", "name", "framing", "fields", "override"]
        guard let e = reader.mapping(node, "an l2cap entry", allowed: allowed) else { return }
        guard let psmNode = e["psm"] else {
            reader.error(.invalid, node, "an l2cap entry needs 'psm:'")
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
            reader.error(.invalid, node, "an l2cap entry needs 'fields:' (a type name or a list of fields)")
            return
        }
        guard let layout = topLayout(fieldsNode) else { return }
        bindings.append(
            binding(.psm(UInt16(psm)), e, at: psmNode, name: entryName(e), layout: layout, framing: framing)
        )
    }

    /// An entry's `name:`, made safe to show; empty when it has none.
    mutating func entryName(_ e: [String: Node]) -> String {
        display(e["name"].flatMap { reader.string($0, "name") } ?? "")
    }

    /// The binding entry `e` declares: `layout` on `target`, placed at `key`'s line and column,
    /// with the entry's `override:` flag.
    mutating func binding(
        _ target: PluginBinding.Target,
        _ e: [String: Node],
        at key: Node,
        name: String,
        layout: Layout,
        prefix: [UInt8] = [],
        framing: Framing? = nil
    ) -> PluginBinding {
        PluginBinding(
            target: target,
            prefix: prefix,
            name: name,
            line: key.mark?.line ?? 0,
            column: key.mark?.column ?? 0,
            overrides: e["override"].flatMap { flag($0, "override") } ?? false,
            layout: layout,
            framing: framing
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
                reader.error(.invalid, d, "a delimiter is 1 to 64 bytes")
                return nil
            }
            mode = .delimiter(bytes)
        case (nil, let l?):
            guard let parsed = lengthPrefix(l) else { return nil }
            mode = parsed
        case (nil, nil):
            guard chunk != nil else {
                reader.error(.invalid, node, "framing needs 'delimiter:', 'length:' or 'chunk:'")
                return nil
            }
            mode = .chunks
        default:
            reader.error(.invalid, node, "framing takes 'delimiter:' or 'length:', not both")
            return nil
        }
        if padding != nil && chunk == nil {
            reader.error(.invalid, e["padding"], "'padding:' needs 'chunk:' (padding runs to the end of a chunk)")
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
        reader.error(.invalid, node, "padding is one character (\" \") or a byte value (0x00)")
        return nil
    }

    mutating func lengthPrefix(_ node: Node) -> Framing.Mode? {
        guard let e = reader.mapping(node, "length", allowed: ["size", "endian", "adjust"]) else { return nil }
        guard let s = e["size"], let size = reader.integer(s, "size", in: 1...4) else {
            if e["size"] == nil { reader.error(.invalid, node, "length needs 'size:' (1 to 4 bytes)") }
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
                    .duplicate,
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
                    .duplicate,
                    line: n.line,
                    column: n.column,
                    "UUID \(n.uuid) is named twice ('\(earlier.name)' at line \(earlier.line), '\(n.name)' here)"
                )
            }
        }
    }
}
