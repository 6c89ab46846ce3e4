/// A frame's nodes as the readers outside the dissectors (views, the advert checker) read them: a
/// pre-order list with depths, where a node's subtree is the run of nodes after it that are deeper
/// than it, and each node's value as a handle, UUID, address, text or bytes. With `FieldLookup`,
/// the one way to find fields and read their values from a tree.
public struct TreeWalk {
    public let nodes: UnsafeBufferPointer<FieldNode>
    public let frame: CapturedFrame
    public let texts: [String]
    public let sources: [[UInt8]]

    public init(nodes: UnsafeBufferPointer<FieldNode>, frame: CapturedFrame, texts: [String], sources: [[UInt8]]) {
        self.nodes = nodes
        self.frame = frame
        self.texts = texts
        self.sources = sources
    }

    /// The index after the last node of `i`'s subtree.
    public func end(of i: Int) -> Int {
        let depth = nodes[i].depth
        var j = i + 1
        while j < nodes.count && nodes[j].depth > depth { j += 1 }
        return j
    }

    /// The first node with `field` among `range`.
    public func first(_ field: FieldID, in range: Range<Int>) -> Int? {
        for i in range where nodes[i].field == field { return i }
        return nil
    }

    /// The first node with `field` anywhere in the tree.
    public func first(_ field: FieldID) -> Int? { first(field, in: 0..<nodes.count) }

    /// The direct children of node `i`.
    public func children(of i: Int) -> [Int] {
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
    public func parent(of i: Int) -> Int? {
        let depth = nodes[i].depth
        var j = i
        while j > 0 {
            j -= 1
            if nodes[j].depth < depth { return j }
        }
        return nil
    }

    /// The nodes with `field` in `range` that are not inside another such node.
    public func all(_ field: FieldID, in range: Range<Int>) -> [Int] {
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

    public func unsigned(_ i: Int) -> UInt64? { nodes[i].value.unsignedValue }

    /// A handle or other 16-bit field's value.
    public func uint16(_ i: Int) -> UInt16? { unsigned(i).map { UInt16(truncatingIfNeeded: $0) } }

    public func uuid(_ i: Int) -> BluetoothUUID? {
        switch nodes[i].value {
        case .uuid(let u): u
        case .unsigned(let v) where v <= 0xFFFF: BluetoothUUID(uuid16: UInt16(v))
        default: nil
        }
    }

    public func address(_ i: Int) -> BDAddr? {
        if case .address(let a) = nodes[i].value { return a }
        return nil
    }

    public func text(_ i: Int) -> String? {
        switch nodes[i].value {
        case .string(let ref), .expert(_, let ref): Int(ref.index) < texts.count ? texts[Int(ref.index)] : nil
        default: nil
        }
    }

    /// The bytes node `i` covers in its data source.
    public func bytes(_ i: Int) -> ArraySlice<UInt8> {
        let node = nodes[i]
        let source = Int(node.source)
        let data = source == 0 ? frame.bytes : (source <= sources.count ? sources[source - 1] : [])
        return data[node.range.clamped(to: 0..<data.count)]
    }

    /// Calls `body` with a walk over `tree`.
    public static func with<R>(_ frame: CapturedFrame, _ tree: borrowing ProtocolTree, _ body: (TreeWalk) -> R) -> R {
        let texts = tree.texts
        let sources = tree.sources
        return tree.withNodes { body(TreeWalk(nodes: $0, frame: frame, texts: texts, sources: sources)) }
    }
}
