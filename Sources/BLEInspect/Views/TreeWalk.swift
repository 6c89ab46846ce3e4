import BLEInspectCore

/// A frame's nodes as the views read them: a pre-order list with depths, where a node's subtree
/// is the run of nodes after it that are deeper than it.
struct TreeWalk {
    let nodes: UnsafeBufferPointer<FieldNode>
    let frame: CapturedFrame
    let texts: [String]
    let sources: [[UInt8]]

    /// The index after the last node of `i`'s subtree.
    func end(of i: Int) -> Int {
        let depth = nodes[i].depth
        var j = i + 1
        while j < nodes.count && nodes[j].depth > depth { j += 1 }
        return j
    }

    /// The first node with `field` among `range`.
    func first(_ field: FieldID, in range: Range<Int>) -> Int? {
        for i in range where nodes[i].field == field { return i }
        return nil
    }

    /// The first node with `field` anywhere in the tree.
    func first(_ field: FieldID) -> Int? { first(field, in: 0..<nodes.count) }

    /// The direct children of node `i`.
    func children(of i: Int) -> [Int] {
        var result: [Int] = []
        let depth = nodes[i].depth
        var j = i + 1
        while j < nodes.count && nodes[j].depth > depth {
            if nodes[j].depth == depth + 1 { result.append(j) }
            j += 1
        }
        return result
    }

    /// The node whose subtree `i` is directly in, nil for a top node.
    func parent(of i: Int) -> Int? {
        let depth = nodes[i].depth
        var j = i
        while j > 0 {
            j -= 1
            if nodes[j].depth < depth { return j }
        }
        return nil
    }

    /// The nodes with `field` in `range` that are not inside another such node.
    func all(_ field: FieldID, in range: Range<Int>) -> [Int] {
        var result: [Int] = []
        var j = range.lowerBound
        while j < range.upperBound {
            if nodes[j].field == field {
                result.append(j)
                j = end(of: j)
            } else {
                j += 1
            }
        }
        return result
    }

    func unsigned(_ i: Int) -> UInt64? { nodes[i].value.unsignedValue }

    /// A handle or other 16-bit field's value.
    func uint16(_ i: Int) -> UInt16? { unsigned(i).map { UInt16(truncatingIfNeeded: $0) } }

    func uuid(_ i: Int) -> BluetoothUUID? {
        switch nodes[i].value {
        case .uuid(let u): u
        case .unsigned(let v) where v <= 0xFFFF: BluetoothUUID(uuid16: UInt16(v))
        default: nil
        }
    }

    func address(_ i: Int) -> BDAddr? {
        if case .address(let a) = nodes[i].value { return a }
        return nil
    }

    func text(_ i: Int) -> String? {
        switch nodes[i].value {
        case .string(let ref), .expert(_, let ref): Int(ref.index) < texts.count ? texts[Int(ref.index)] : nil
        default: nil
        }
    }

    /// The bytes node `i` covers in its data source.
    func bytes(_ i: Int) -> ArraySlice<UInt8> {
        let node = nodes[i]
        let source = Int(node.source)
        let data = source == 0 ? frame.bytes : (source <= sources.count ? sources[source - 1] : [])
        return data[node.range.clamped(to: 0..<data.count)]
    }

    /// Calls `body` with a walk over `tree`.
    static func with<R>(_ frame: CapturedFrame, _ tree: borrowing ProtocolTree, _ body: (TreeWalk) -> R) -> R {
        let texts = tree.texts
        let sources = tree.sources
        return tree.withNodes { body(TreeWalk(nodes: $0, frame: frame, texts: texts, sources: sources)) }
    }
}

/// Field ids looked up by name once, before the first frame, for a view whose fields are the
/// cases of `Name` (each case's raw value is the field's name).
///
/// Looking a case up costs an array index, not a hash of its name: a case's position among
/// `allCases` is its tag byte, which `init` checks for every case (else it keeps a dictionary).
struct ViewFieldTable<Name: CaseIterable & Hashable & RawRepresentable<String>> {
    /// The id of each case, in `allCases` order.
    private let ids: [FieldID]
    private let byName: [Name: FieldID]?
    /// For each field id in the registry, the position of its case, or -1.
    private let positions: [Int16]
    /// Names the registry lacks (empty unless a dissector was renamed); the views refuse to run
    /// with any, so a renamed field fails the tests.
    let missing: [String]

    init(_ registry: DissectorRegistry) {
        var ids: [FieldID] = []
        var missing: [String] = []
        var byTag = MemoryLayout<Name>.size == 1 && Name.allCases.count <= Int(Int16.max)
        for (k, name) in Name.allCases.enumerated() {
            if let id = registry.field(named: name.rawValue) {
                ids.append(id)
            } else {
                ids.append(FieldID(UInt32.max))
                missing.append(name.rawValue)
            }
            if byTag && Self.tag(name) != k { byTag = false }
        }
        var positions = [Int16](repeating: -1, count: registry.fields.count)
        for (k, id) in ids.enumerated() where Int(id.rawValue) < positions.count {
            positions[Int(id.rawValue)] = Int16(truncatingIfNeeded: k)
        }
        self.ids = ids
        self.positions = positions
        byName = byTag ? nil : Dictionary(zip(Name.allCases, ids), uniquingKeysWith: { a, _ in a })
        self.missing = missing
    }

    /// The case's tag: its position in declaration order for an enum of at most 256 cases
    /// without payloads (checked against `allCases` before it is used).
    private static func tag(_ name: Name) -> Int {
        withUnsafeBytes(of: name) { $0.isEmpty ? -1 : Int($0[0]) }
    }

    /// The id of `name`; one no node has when the registry lacks it.
    subscript(_ name: Name) -> FieldID {
        if let byName { return byName[name] ?? FieldID(UInt32.max) }
        return ids[Self.tag(name)]
    }

    /// The position of `name` in a `FirstNodes` list.
    func position(_ name: Name) -> Int {
        if byName != nil { return Array(Name.allCases).firstIndex(of: name) ?? -1 }
        return Self.tag(name)
    }

    /// The node `firstNodes` found for `name`, nil when the frame has none.
    func node(_ name: Name, in firsts: [Int32]) -> Int? {
        let p = position(name)
        guard p >= 0, p < firsts.count, firsts[p] >= 0 else { return nil }
        return Int(firsts[p])
    }

    /// The first node of each case's field in the frame, found in one pass over its nodes.
    func firstNodes(_ walk: TreeWalk, into firsts: inout [Int32]) {
        let count = ids.count
        if firsts.count != count { firsts = [Int32](repeating: -1, count: count) }
        for k in 0..<count { firsts[k] = -1 }
        let table = positions
        for i in 0..<walk.nodes.count {
            let raw = Int(walk.nodes[i].field.rawValue)
            guard raw < table.count else { continue }
            let p = Int(table[raw])
            if p >= 0 && firsts[p] < 0 { firsts[p] = Int32(truncatingIfNeeded: i) }
        }
    }
}

/// What a frame's `device` node says about the remote device.
struct DeviceNode {
    /// The first `device.addr`: the address seen over the air. (A second one, when a private
    /// address was linked to an identity, is that identity: `identity` has it.)
    var address: BDAddr?
    var addressType: UInt64?
    var identity: BDAddr?
    var name: String?
    var connection: UInt16?
}

/// Reads the first `device` node of a frame, for every view that keys on devices.
struct DeviceNodeFields {
    enum Field: String, CaseIterable {
        case device, address = "device.addr", addressType = "device.addr_type"
        case identity = "device.identity_addr", name = "device.name", connection = "device.connection"
    }

    private let f: ViewFieldTable<Field>
    var missing: [String] { f.missing }

    init(_ registry: DissectorRegistry) { f = ViewFieldTable(registry) }

    /// The frame's first device node, nil when it has none; `at` names it when the caller has
    /// already found it.
    func read(_ walk: TreeWalk, at node: Int? = nil) -> DeviceNode? {
        guard let d = node ?? walk.first(f[.device]) else { return nil }
        var out = DeviceNode()
        for i in (d + 1)..<walk.end(of: d) {
            switch walk.nodes[i].field {
            case f[.address]: if out.address == nil { out.address = walk.address(i) }
            case f[.addressType]: if out.addressType == nil { out.addressType = walk.unsigned(i) }
            case f[.identity]: out.identity = walk.address(i)
            case f[.name]: out.name = walk.text(i)
            case f[.connection]: out.connection = walk.uint16(i)
            default: break
            }
        }
        return out
    }
}

/// Recognises a successful LE Connection Complete, LE Enhanced Connection Complete (v1 or v2):
/// the event that starts a connection, for every view that counts connections.
struct ConnectionCompleteFields {
    enum Field: String, CaseIterable {
        case subevent = "bthci_evt.le_meta_subevent", status = "bthci_evt.status"
    }

    private let f: ViewFieldTable<Field>
    var missing: [String] { f.missing }

    init(_ registry: DissectorRegistry) { f = ViewFieldTable(registry) }

    func succeeded(_ walk: TreeWalk) -> Bool {
        guard let e = walk.first(f[.subevent]), let code = walk.unsigned(e),
            code == 0x01 || code == 0x0A || code == 0x29
        else { return false }
        return walk.first(f[.status]).flatMap(walk.unsigned) == 0
    }
}
