import BLEInspectCore
import Foundation
import Yams

/// Compiling field lists, types, arrays, switches and bits into layouts.
extension Compilation {
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
            reader.error(.limit, node, "nesting deeper than \(PluginLimits.maximumNesting) levels")
            return nil
        }
        if case .scalar = node, let name = reader.string(node, "a type") {
            guard let body = typeNodes[name] else {
                reader.error(.reference, node, unknownType(name))
                return nil
            }
            if let start = typeStack.firstIndex(of: name) {
                let cycle = (typeStack[start...] + [name]).joined(separator: " → ")
                reader.error(.limit, node, "unbounded recursion: type '\(name)' contains itself (\(cycle))")
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
                    .limit,
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
            if e["name"] == nil { reader.error(.invalid, node, "a field needs 'name:'") }
            return nil
        }
        guard isWord(name) else {
            reader.error(.invalid, nameNode, "field name '\(name)' must be a word (a-z, 0-9, _)")
            return nil
        }
        if path.isEmpty, Self.reservedNames.contains(name) {
            reader.error(
                .invalid,
                nameNode,
                "field name '\(name)' is reserved for the plugin's own field \(namespace).\(name)"
            )
            return nil
        }
        if scopes.last?[name] != nil {
            reader.error(.duplicate, nameNode, "duplicate field name '\(name)' in this struct")
            return nil
        }
        guard let typeNode = e["type"], let type = reader.string(typeNode, "type") else {
            if e["type"] == nil { reader.error(.invalid, node, "field '\(name)' needs 'type:'") }
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
        var value = spec.value
        if spec.sequenceWrap != nil || spec.publishesPSM, case .integer(let width, _, let big) = spec.value {
            var counter = SequenceCounter(
                id: index,
                width: width,
                bigEndian: big,
                slot: slot ?? -1,
                wrap: spec.sequenceWrap
            )
            counter.publishesPSM = spec.publishesPSM
            counters.append(counter)
            value = .custom(SequenceCounter.tag | UInt32(counters.count - 1))
        }
        var bits: [LayoutBits] = []
        if let b = e["bits"] {
            guard let width = spec.integerWidth else {
                reader.error(.invalid, b, "'bits:' needs an integer type, not \(type)")
                return nil
            }
            guard let parsed = self.bits(b, width: width, path: fullPath) else { return nil }
            bits = parsed
            for (bitName, bitSlot) in zip(bitNames(b), parsed.map(\.slot)) {
                if let bitSlot { entry.bits[bitName] = bitSlot }
            }
        }
        scopes[scopes.count - 1][name] = entry
        return .field(LayoutField(FieldID(UInt32(index)), value, condition: condition, slot: slot, bits: bits))
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
        /// A sequence counter's wrap (0: 2^64), when the field is one.
        var sequenceWrap: UInt64? = nil
        /// The field is a PSM the sender publishes (`psm: true`).
        var publishesPSM = false
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
            reader.error(.invalid, node, "'\(first):' does not apply to type \(type)")
            return false
        }
        let unit = e["unit"].flatMap { reader.string($0, "unit") } ?? ""
        if let (width, signed) = PluginCompiler.integerTypes[type] {
            guard only(["endian", "scale", "offset", "unit", "enum", "bits", "base", "sequence", "psm"]) else {
                return nil
            }
            let big = e["endian"].flatMap { endian($0) } ?? defaultBigEndian
            if e["scale"] != nil || e["offset"] != nil {
                if let clash = e["enum"] ?? e["bits"] ?? e["sequence"] {
                    reader.error(.invalid, clash, "a scaled value cannot also have 'enum:', 'bits:' or 'sequence:'")
                    return nil
                }
                let scale = e["scale"].flatMap { reader.real($0, "scale") } ?? 1
                let offset = e["offset"].flatMap { reader.real($0, "offset") } ?? 0
                guard scale != 0 else {
                    reader.error(.invalid, e["scale"], "scale must not be 0")
                    return nil
                }
                return Spec(
                    value: .scaled(
                        width: width,
                        signed: signed,
                        bigEndian: big,
                        scale: LayoutScale(scale: scale, offset: offset)
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
            if let q = e["sequence"] {
                if signed || e["bits"] != nil {
                    reader.error(.invalid, q, "a sequence counter is an unsigned integer without 'bits:'")
                    return nil
                }
                guard let wrap = sequenceWrap(q, bits: width * 8) else { return nil }
                spec.sequenceWrap = wrap
            }
            if let p = e["psm"] {
                if signed || e["bits"] != nil {
                    reader.error(.invalid, p, "a PSM is an unsigned integer without 'bits:'")
                    return nil
                }
                guard let flag = reader.boolean(p, "psm") else { return nil }
                spec.publishesPSM = flag
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
            json.append(JSONValue(extent: extent, members: members))
            return Spec(value: .custom(UInt32(json.count - 1)), kind: .string)
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
                reader.error(.invalid, typeNode, "a struct needs 'fields:'")
                return nil
            }
            guard let extent = extent(e["length"], "length"), let layout = layout(f, path: path, depth: depth + 1)
            else { return nil }
            return Spec(value: .structure(layout, extent, label: .none), kind: .group)
        case "array":
            guard only(["of", "count", "length", "endian", "scale", "offset", "unit", "enum", "base"]) else {
                return nil
            }
            return array(typeNode, e, path: path, depth: depth)
        default:
            guard typeNodes[type] != nil else {
                reader.error(.reference, typeNode, unknownType(type))
                return nil
            }
            guard only(["length"]) else { return nil }
            guard let extent = extent(e["length"], "length"),
                let layout = layout(typeNode, path: path, depth: depth + 1)
            else { return nil }
            return Spec(value: .structure(layout, extent, label: .none), kind: .group)
        }
    }

    mutating func array(_ typeNode: Node, _ e: [String: Node], path: String, depth: Int) -> Spec? {
        guard let of = e["of"] else {
            reader.error(.invalid, typeNode, "an array needs 'of:' (a type name, or a list of fields)")
            return nil
        }
        if e["count"] != nil && e["length"] != nil {
            reader.error(.invalid, e["length"], "an array takes 'count:' or 'length:', not both")
            return nil
        }
        guard depth + 1 <= PluginLimits.maximumNesting else {
            reader.error(.limit, typeNode, "nesting deeper than \(PluginLimits.maximumNesting) levels")
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
                    reader.error(
                        .invalid,
                        of,
                        "an array's 'of:' is a scalar type, a type name or a list of fields; not \(name)"
                    )
                    return nil
                }
                var elementOptions = e.filter {
                    ["endian", "scale", "offset", "unit", "enum", "base"].contains($0.key)
                }
                elementOptions["type"] = of
                guard let spec = fieldSpec(name, of, elementOptions, path: path, depth: depth + 1) else { return nil }
                if case .text(.rest, _) = spec.value, name == "utf8" {
                    reader.error(.invalid, of, "an array of utf8 needs each element's length; use cstring")
                    return nil
                }
                if case .bytes(.rest) = spec.value {
                    reader.error(
                        .invalid,
                        of,
                        "an array of bytes needs each element's length; use a struct with bytes of a length"
                    )
                    return nil
                }
                element = spec
            } else {
                guard let layout = layout(of, path: path, depth: depth + 1) else { return nil }
                element = Spec(value: .structure(layout, .rest, label: .none), kind: .group)
            }
        } else {
            guard let layout = layout(of, path: path, depth: depth + 1) else { return nil }
            element = Spec(value: .structure(layout, .rest, label: .none), kind: .group)
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
            reader.error(.limit, node, "nesting deeper than \(PluginLimits.maximumNesting) levels")
            return nil
        }
        var cases: [UInt64: Layout] = [:]
        if let c = e["cases"] {
            guard reader.plain(c) else { return nil }
            guard case .mapping(let m) = c else {
                reader.error(.invalid, c, "cases must map values to field lists")
                return nil
            }
            for (k, v) in m {
                guard let text = reader.string(k, "a case value") else { continue }
                guard let value = YAMLReader.parseInteger(text) else {
                    reader.error(.invalid, k, "a case value must be an integer, not '\(text)'")
                    continue
                }
                guard let layout = caseLayout(v, path: path, depth: depth + 1) else { continue }
                cases[UInt64(bitPattern: value)] = layout
            }
        } else {
            reader.error(.invalid, node, "a switch needs 'cases:'")
            return nil
        }
        var fallback: Layout? = nil
        if let d = e["default"] { fallback = caseLayout(d, path: path, depth: depth + 1) }
        return .choice(LayoutChoice(.slot(slot), cases: cases, fallback: fallback))
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
                reader.error(.invalid, item, "a bit field needs 'name:' (a word)")
                return nil
            }
            guard seen.insert(name).inserted else {
                reader.error(.duplicate, nameNode, "duplicate bit field name '\(name)'")
                return nil
            }
            let mask: UInt64
            switch (e["bit"], e["mask"]) {
            case (let b?, nil):
                guard let bit = reader.integer(b, "bit", in: 0...Int64(width * 8 - 1)) else { return nil }
                mask = 1 << UInt64(bit)
            case (nil, let m?):
                guard let text = reader.string(m, "mask"), let v = YAMLReader.parseInteger(text), v > 0 else {
                    reader.error(.invalid, m, "mask must be a positive integer such as 0xF0")
                    return nil
                }
                mask = UInt64(v)
                guard mask & ~all == 0 else {
                    reader.error(.invalid, m, "mask \(text) is wider than the \(width * 8)-bit field")
                    return nil
                }
            default:
                reader.error(.invalid, item, "a bit field needs one of 'bit:' or 'mask:'")
                return nil
            }
            if let clash = used.first(where: { $0.0 & mask != 0 }) {
                reader.error(
                    .invalid,
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
            out.append(LayoutBits(FieldID(UInt32(index)), mask: mask, slot: newSlot(), flag: kind == .boolean))
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
            guard
                let e = reader.mapping(
                    item,
                    "a JSON member",
                    allowed: ["name", "key", "type", "label", "unit", "sequence", "psm"]
                )
            else { return nil }
            guard let nameNode = e["name"], let name = reader.string(nameNode, "name"), isWord(name) else {
                reader.error(.invalid, item, "a JSON member needs 'name:' (a word)")
                return nil
            }
            let typeText = e["type"].flatMap { reader.string($0, "type") } ?? "string"
            let kinds: [String: (JSONMember.Kind, FieldKind)] = [
                "string": (.string, .string), "integer": (.integer, .signed(bits: 64)), "number": (.number, .real),
                "boolean": (.boolean, .boolean),
            ]
            guard let (memberKind, fieldKind) = kinds[typeText] else {
                reader.error(
                    .reference,
                    e["type"],
                    "unknown JSON member type '\(typeText)' (string, integer, number, boolean)"
                )
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
            var member = JSONMember(id: index, key: key, kind: memberKind)
            var wrap: UInt64? = nil
            if let q = e["sequence"] {
                guard memberKind == .integer else {
                    reader.error(.invalid, q, "a sequence counter needs 'type: integer', not \(typeText)")
                    return nil
                }
                guard let wrapped = sequenceWrap(q, bits: 64) else { return nil }
                wrap = wrapped
            }
            var psm = false
            if let p = e["psm"] {
                guard memberKind == .integer else {
                    reader.error(.invalid, p, "a PSM needs 'type: integer', not \(typeText)")
                    return nil
                }
                guard let flag = reader.boolean(p, "psm") else { return nil }
                psm = flag
            }
            if wrap != nil || psm {
                var counter = SequenceCounter(id: index, width: 0, bigEndian: false, slot: -1, wrap: wrap)
                counter.publishesPSM = psm
                counters.append(counter)
                member.counter = counters.count - 1
            }
            out.append(member)
        }
        return out
    }

    /// `sequence: true` (values wrap after the field's largest), `sequence: false`, or
    /// `sequence: {wrap: N}` (values run 0 … N − 1): the wrap (0 for 2^64), nil after an
    /// error. For `false`, an optional holding nil.
    mutating func sequenceWrap(_ node: Node, bits: Int) -> UInt64?? {
        let whole: UInt64 = bits >= 64 ? 0 : 1 << UInt64(bits)
        if case .scalar(let s) = node {
            switch s.string {
            case "true": return .some(whole)
            case "false": return .some(nil)
            default:
                reader.error(.invalid, node, "'sequence:' is true, false or {wrap: N}, not '\(s.string)'")
                return nil
            }
        }
        guard let e = reader.mapping(node, "a sequence counter", allowed: ["wrap"]) else { return nil }
        guard let w = e["wrap"] else { return .some(whole) }
        let most = bits >= 63 ? Int64.max : Int64(1) << Int64(bits)
        guard let n = reader.integer(w, "wrap", in: 2...most) else { return nil }
        return .some(UInt64(n))
    }
}
