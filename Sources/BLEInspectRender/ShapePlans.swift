import BLEInspectCore

/// The text of frames of one shape, made once: most frames of a capture repeat a few shapes
/// (ATT writes and notifications, Number Of Completed Packets, advertising reports), and for
/// those only the values change.
///
/// A frame's shape is its nodes' fields, depths and kinds of value (`shapeWord`). A plan is the
/// text a renderer writes for a shape with the values left out, and where each value goes (an
/// `Op`, whose `literalEnd` says where the literal text before it ends). Plans are kept in a
/// fixed number of slots (the last shape that hashed to each), their contents in pools that are
/// emptied when they are full, so nothing is allocated per frame.
struct ShapePlans<Op: PlanOp>: ~Copyable {
    /// A plan's literal text and values; the text after the last value ends the frame.
    struct Plan {
        let literals: UnsafeBufferPointer<UInt8>
        let ops: UnsafeBufferPointer<Op>
    }

    private struct Slot {
        var hash: UInt64 = 0
        var nodeCount = -1
        var shapeStart = 0
        var opStart = 0
        var opCount = 0
        var literalStart = 0
        var literalCount = 0
    }

    private static var slotCount: Int { 256 }
    /// Shapes with more nodes are not kept (they are made each time).
    private static var largestKept: Int { 1024 }
    private static var shapeLimit: Int { 1 << 12 }
    private static var opLimit: Int { 1 << 12 }
    private static var literalLimit: Int { 1 << 16 }

    private let slots: UnsafeMutablePointer<Slot>
    private let shapes: UnsafeMutablePointer<UInt64>
    private var shapeCount = 0
    private let ops: UnsafeMutablePointer<Op>
    private var opCount = 0
    private var literals = TextBuffer(capacity: 1 << 14)

    /// The shape of the frame being written, one word a node (`shapeWord`).
    private var shape: UnsafeMutablePointer<UInt64>
    private var capacity = 64
    /// A new plan's values, at least one a node, and its literal text.
    private(set) var newOps: UnsafeMutablePointer<Op>
    var newLiterals = TextBuffer(capacity: 1 << 12)

    init() {
        slots = .allocate(capacity: Self.slotCount)
        slots.initialize(repeating: Slot(), count: Self.slotCount)
        shapes = .allocate(capacity: Self.shapeLimit)
        ops = .allocate(capacity: Self.opLimit)
        shape = .allocate(capacity: capacity)
        newOps = .allocate(capacity: capacity)
    }

    deinit {
        slots.deallocate()
        shapes.deallocate()
        ops.deallocate()
        shape.deallocate()
        newOps.deallocate()
    }

    /// A node's word of a shape: its field, its depth, and which case its value is (or, when
    /// the plans' ops do not depend on it, only whether it is `none`).
    @inline(__always)
    static func shapeWord(_ node: FieldNode) -> UInt64 {
        let kind: UInt64
        if !Op.readsValueCase {
            if case .none = node.value { kind = 0 } else { kind = 1 }
            return UInt64(node.field.rawValue) | UInt64(node.depth) << 32 | kind << 48
        }
        switch node.value {
        case .none: kind = 0
        case .unsigned: kind = 1
        case .signed: kind = 2
        case .real: kind = 3
        case .boolean: kind = 4
        case .bytes: kind = 5
        case .string: kind = 6
        case .address: kind = 7
        case .uuid: kind = 8
        case .expert: kind = 9
        }
        return UInt64(node.field.rawValue) | UInt64(node.depth) << 32 | kind << 48
    }

    /// Notes the shape of `nodes` and returns its hash and its plan, nil when none is kept; the
    /// plan is valid until `keep`. Then `newOps` has room for one op a node.
    @inline(__always)
    mutating func find(_ nodes: UnsafeBufferPointer<FieldNode>) -> (UInt64, Plan?) {
        let n = nodes.count
        if n > capacity {
            shape.deallocate()
            newOps.deallocate()
            capacity = max(n, 2 * capacity)
            shape = .allocate(capacity: capacity)
            newOps = .allocate(capacity: capacity)
        }
        // A multiply and an add a node; the bits are mixed once at the end. Collisions only cost
        // a plan made again: the shape is compared whole.
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(n)
        for i in 0..<n {
            let word = Self.shapeWord(nodes[i])
            shape[i] = word
            hash = (hash &+ word) &* 0xFF51_AFD7_ED55_8CCD
        }
        hash ^= hash >> 29
        hash &*= 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 32
        let s = slot(hash).pointee
        guard s.hash == hash, s.nodeCount == n else { return (hash, nil) }
        let kept = shapes + s.shapeStart
        for i in 0..<n where kept[i] != shape[i] { return (hash, nil) }
        let plan = Plan(
            literals: UnsafeBufferPointer(rebasing: literals.bytes[s.literalStart..<s.literalStart + s.literalCount]),
            ops: UnsafeBufferPointer(start: ops + s.opStart, count: s.opCount)
        )
        return (hash, plan)
    }

    @inline(__always)
    private func slot(_ hash: UInt64) -> UnsafeMutablePointer<Slot> {
        slots + Int(truncatingIfNeeded: (hash ^ (hash >> 23)) & UInt64(Self.slotCount - 1))
    }

    /// Keeps the new plan (`newLiterals` and the first `opCount` of `newOps`) for the shape
    /// `find` noted, of `nodeCount` nodes, in place of its slot's last one, and returns it: valid
    /// until the next `find`.
    mutating func keep(opCount newCount: Int, hash: UInt64, nodeCount n: Int) -> Plan {
        newLiterals.zeroSlack()
        let plan = Plan(literals: newLiterals.bytes, ops: UnsafeBufferPointer(start: newOps, count: newCount))
        guard n <= Self.largestKept else { return plan }
        if shapeCount + n > Self.shapeLimit || opCount + newCount > Self.opLimit
            || literals.count + newLiterals.count > Self.literalLimit
        {
            slots.update(repeating: Slot(), count: Self.slotCount)
            shapeCount = 0
            opCount = 0
            literals.removeAll()
        }
        slot(hash).pointee = Slot(
            hash: hash,
            nodeCount: n,
            shapeStart: shapeCount,
            opStart: opCount,
            opCount: newCount,
            literalStart: literals.count,
            literalCount: newLiterals.count
        )
        (shapes + shapeCount).update(from: shape, count: n)
        shapeCount += n
        (ops + opCount).update(from: newOps, count: newCount)
        opCount += newCount
        literals.append(contentsOf: newLiterals.bytes)
        literals.zeroSlack()
        return plan
    }
}

extension ShapePlans.Plan {
    /// Writes each stretch of literal text, and at the end of each the op's value by `value`.
    /// The literal text is followed by `TextBuffer.zeroSlack`'s slack (`keep`).
    @inline(__always)
    func write(to out: inout TextBuffer, _ value: (Op, inout TextBuffer) -> Void) {
        guard let text = literals.baseAddress else {
            for op in ops { value(op, &out) }
            return
        }
        var from = 0
        for op in ops {
            let end = min(Int(op.literalEnd), literals.count)
            out.appendRun(text + from, count: end &- from)
            from = end
            value(op, &out)
        }
        out.appendRun(text + from, count: literals.count &- from)
    }
}

/// A value in a plan (`ShapePlans`).
protocol PlanOp: BitwiseCopyable {
    /// Where the literal text before the value ends.
    var literalEnd: UInt32 { get }
    /// Whether a plan depends on which case each value is, not only on which values are `none`.
    static var readsValueCase: Bool { get }
}
