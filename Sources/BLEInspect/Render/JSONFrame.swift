public import BLEInspectCore

/// NDJSON rendering: one object per frame, shaped like tshark's `-T json` layers.
///
/// Schema `bleinspect/1`: `{"_schema":"bleinspect/1","frame":{…},"layers":{"btatt":{"btatt.opcode":18,…}}}`.
/// Each node with children becomes an object; a name that occurs more than once at one level
/// becomes an array. Integers are numbers, booleans true/false, bytes lower-case hex strings,
/// addresses `aa:bb:cc:dd:ee:ff`, UUIDs `0x180f` or the 128-bit form, times epoch seconds as a
/// string with nine digits. Expert notes are objects with "severity" and "message".
public enum JSONFrame {
    public static let schema = "bleinspect/1"

    public static func render(
        _ frame: CapturedFrame,
        _ tree: borrowing ProtocolTree,
        registry: DissectorRegistry,
        formatter: FieldFormatter
    ) -> String {
        // Build a small object tree from the flat nodes, then print it.
        var objects: [JSONObject] = [JSONObject()]
        // parentForDepth[d] is the object that holds nodes of depth d.
        var parentForDepth: [Int] = [0]
        for (i, node) in tree.nodes.enumerated() {
            let d = registry.descriptor(node.field)
            let depth = Int(node.depth)
            if parentForDepth.count > depth + 1 { parentForDepth.removeLast(parentForDepth.count - depth - 1) }
            let parent = parentForDepth[min(depth, parentForDepth.count - 1)]
            let hasChildren = i + 1 < tree.nodes.count && Int(tree.nodes[i + 1].depth) > depth
            let key = d.abbrev
            if hasChildren {
                let childIndex = objects.count
                var child = JSONObject()
                if let scalar = scalarValue(node, d, frame: frame, tree: tree, formatter: formatter), d.kind != .layer {
                    child.append(key: "_value", value: .raw(scalar))
                }
                objects.append(child)
                objects[parent].append(key: key, value: .object(childIndex))
                parentForDepth.append(childIndex)
            } else {
                let value = scalarValue(node, d, frame: frame, tree: tree, formatter: formatter) ?? "null"
                objects[parent].append(key: key, value: .raw(value))
            }
        }
        let root = objects[0]
        var out = "{\"_schema\":\"\(schema)\""
        // Top level: the frame layer, then the others under "layers".
        var layers: [(String, JSONObject.Value)] = []
        for (key, value) in root.entries {
            if key == "frame" {
                out += ",\"frame\":"
                write(value, objects: objects, into: &out)
            } else {
                layers.append((key, value))
            }
        }
        out += ",\"layers\":{"
        var grouped = JSONObject()
        for (k, v) in layers { grouped.append(key: k, value: v) }
        writeEntries(grouped, objects: objects, into: &out)
        out += "}}"
        return out
    }

    static func scalarValue(
        _ node: FieldNode,
        _ d: FieldDescriptor,
        frame: CapturedFrame,
        tree: borrowing ProtocolTree,
        formatter: FieldFormatter
    ) -> String? {
        switch node.value {
        case .none:
            if d.kind == .bytes { return quote(Hex.string(FieldFormatter.bytes(of: node, frame: frame, tree: tree))) }
            return nil
        case .unsigned(let v):
            if d.kind == .boolean { return v != 0 ? "true" : "false" }
            if case .time = d.kind { return quote(FieldFormatter.epoch(Int64(bitPattern: v))) }
            return String(v)
        case .signed(let v):
            if case .time = d.kind { return quote(FieldFormatter.epoch(v)) }
            return String(v)
        case .boolean(let b): return b ? "true" : "false"
        case .bytes: return quote(Hex.string(FieldFormatter.bytes(of: node, frame: frame, tree: tree)))
        case .string(let ref): return quote(tree.text(ref))
        case .address(let a): return quote(a.description.lowercased())
        case .uuid(let u): return quote(u.description.lowercased())
        case .expert(let severity, let ref):
            return "{\"severity\":\(quote(severity.description)),\"message\":\(quote(tree.text(ref)))}"
        }
    }

    static func write(_ value: JSONObject.Value, objects: [JSONObject], into out: inout String) {
        switch value {
        case .raw(let s): out += s
        case .object(let i):
            out += "{"
            writeEntries(objects[i], objects: objects, into: &out)
            out += "}"
        case .array(let items):
            out += "["
            for (n, item) in items.enumerated() {
                if n > 0 { out += "," }
                write(item, objects: objects, into: &out)
            }
            out += "]"
        }
    }

    static func writeEntries(_ object: JSONObject, objects: [JSONObject], into out: inout String) {
        for (n, (key, value)) in object.entries.enumerated() {
            if n > 0 { out += "," }
            out += quote(key) + ":"
            write(value, objects: objects, into: &out)
        }
    }

    /// A JSON string literal. Control characters, DEL, C1 controls and bidi overrides are
    /// written as \u escapes, so the output is safe on a terminal too; invalid UTF-8 cannot occur
    /// (strings were decoded with replacement).
    public static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if TerminalSafeText.isUnsafe(scalar) {
                    let h = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: max(0, 4 - h.count)) + h
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

/// An ordered JSON object under construction; a repeated key turns into an array.
struct JSONObject {
    indirect enum Value {
        case raw(String)
        case object(Int)
        case array([Value])
    }

    var entries: [(String, Value)] = []

    mutating func append(key: String, value: Value) {
        if let i = entries.firstIndex(where: { $0.0 == key }) {
            switch entries[i].1 {
            case .array(var items):
                items.append(value)
                entries[i].1 = .array(items)
            default:
                entries[i].1 = .array([entries[i].1, value])
            }
        } else {
            entries.append((key, value))
        }
    }
}
