import BLEInspectCore
import Foundation
import Yams

/// The small pieces of a plugin file: conditions, extents, references, enums, flags, names.
extension Compilation {
    // MARK: Pieces

    mutating func condition(_ node: Node) -> LayoutCondition? {
        if case .mapping = node {
            guard let e = reader.mapping(node, "if", allowed: ["field", "equals"]) else { return nil }
            guard let f = e["field"], let slot = reference(f, "if") else {
                if e["field"] == nil { reader.error(.invalid, node, "'if:' needs 'field:'") }
                return nil
            }
            guard let eq = e["equals"] else { return LayoutCondition(.slot(slot), values: nil) }
            var values: [UInt64] = []
            let nodes: [Node]
            if case .sequence(let s) = eq { nodes = Array(s) } else { nodes = [eq] }
            for n in nodes {
                guard let v = reader.integer(n, "equals", in: Int64.min...Int64.max) else { return nil }
                values.append(UInt64(bitPattern: v))
            }
            return LayoutCondition(.slot(slot), values: values)
        }
        guard let slot = reference(node, "if") else { return nil }
        return LayoutCondition(.slot(slot), values: nil)
    }

    /// A byte count or element count: an integer, or the name of an earlier integer field.
    mutating func extent(_ node: Node?, _ what: String) -> Extent? {
        guard let node else { return .rest }
        guard let text = reader.string(node, what) else { return nil }
        if let v = YAMLReader.parseInteger(text) {
            guard v >= 0, v <= Int64(PluginLimits.maximumMessageSize) else {
                reader.error(.limit, node, "\(what) \(text) is out of range 0…\(PluginLimits.maximumMessageSize)")
                return nil
            }
            return .fixed(Int(v))
        }
        guard let slot = reference(node, what) else { return nil }
        return .value(.slot(slot))
    }

    /// The slot of the earlier, always-present integer field (or bit field) `node` names.
    mutating func reference(_ node: Node, _ what: String) -> Slot? {
        guard let text = reader.string(node, what) else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2, let first = parts.first, isWord(first) else {
            reader.error(
                .reference,
                node,
                "\(what) must name an earlier field ('opcode', or 'flags.bit_name'), not '\(text)'"
            )
            return nil
        }
        guard let entry = scopes.reversed().lazy.compactMap({ $0[first] }).first else {
            reader.error(
                .reference,
                node,
                "\(what) refers to '\(text)', which is not an earlier field of this struct or an enclosing one"
            )
            return nil
        }
        guard !entry.conditional else {
            reader.error(
                .reference,
                node,
                "\(what) refers to '\(first)', which is conditional ('if:'); refer to a field that is always present"
            )
            return nil
        }
        if parts.count == 2 {
            guard let slot = entry.bits[parts[1]] else {
                reader.error(
                    .reference,
                    node,
                    "\(what) refers to '\(text)', but '\(first)' has no bit field '\(parts[1])'"
                )
                return nil
            }
            return slot
        }
        guard let slot = entry.slot else {
            reader.error(.reference, node, "\(what) refers to '\(first)', which is not an integer")
            return nil
        }
        return slot
    }

    mutating func valueNames(_ node: Node, width: Int, signed: Bool) -> ValueNames? {
        guard reader.plain(node) else { return nil }
        guard case .mapping(let m) = node else {
            reader.error(.invalid, node, "enum must map values to names (1: Set Interval)")
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
            reader.error(.invalid, node, "base is dec, hex or dec_hex, not '\(other)'")
            return nil
        }
    }

    mutating func endian(_ node: Node) -> Bool? {
        switch reader.string(node, "endian") {
        case "little": return false
        case "big": return true
        case nil: return nil
        case let other?:
            reader.error(.invalid, node, "endian is little or big, not '\(other)'")
            return nil
        }
    }

    mutating func flag(_ node: Node, _ what: String) -> Bool? {
        switch reader.string(node, what) {
        case "true", "yes": return true
        case "false", "no": return false
        case nil: return nil
        case let other?:
            reader.error(.invalid, node, "\(what) is true or false, not '\(other)'")
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
                    .invalid,
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
                reader.error(.limit, node, "the plugin declares more than \(PluginLimits.maximumFields) fields")
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
