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
struct ViewFieldTable<Name: CaseIterable & Hashable & RawRepresentable<String>> {
    private let ids: [Name: FieldID]
    /// Names the registry lacks (empty unless a dissector was renamed); the views refuse to run
    /// with any, so a renamed field fails the tests.
    let missing: [String]

    init(_ registry: DissectorRegistry) {
        var ids: [Name: FieldID] = [:]
        var missing: [String] = []
        for name in Name.allCases {
            if let id = registry.field(named: name.rawValue) {
                ids[name] = id
            } else {
                missing.append(name.rawValue)
            }
        }
        self.ids = ids
        self.missing = missing
    }

    /// The id of `name`; one no node has when the registry lacks it.
    subscript(_ name: Name) -> FieldID { ids[name] ?? FieldID(UInt32.max) }
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
