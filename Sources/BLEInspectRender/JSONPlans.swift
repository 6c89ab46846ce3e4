import BLEInspectCore

/// The JSON of frames of one shape, made once: most frames of a capture repeat a few shapes
/// (ATT writes and notifications, Number Of Completed Packets, advertising reports), and for
/// those only the values change.
///
/// A frame's shape is its nodes' fields and depths, and which of them have no value: the
/// objects, arrays, keys and `null`s `JSONWriter` writes depend on nothing else. A plan is that
/// text with the values left out, and where each value goes. Plans are kept in a fixed number of
/// slots (the last shape that hashed to each), their contents in pools that are emptied when
/// they are full, so nothing is allocated per frame.
struct JSONPlans: ~Copyable {
    /// A value in a plan: the literal text before it ends at `literalEnd`, then node `node`'s
    /// JSON scalar, shown as `facts`.
    struct Op: BitwiseCopyable {
        var literalEnd: UInt32
        var node: UInt32
        var facts: FieldFacts
    }

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

    private static let slotCount = 1024
    /// Shapes with more nodes are not kept (they are made each time).
    private static let largestKept = 1024
    private static let shapeLimit = 1 << 15
    private static let opLimit = 1 << 15
    private static let literalLimit = 1 << 19

    private let slots: UnsafeMutablePointer<Slot>
    private let shapes: UnsafeMutablePointer<UInt64>
    private var shapeCount = 0
    private let ops: UnsafeMutablePointer<Op>
    private var opCount = 0
    private var literals = TextBuffer(capacity: 1 << 14)

    init() {
        slots = .allocate(capacity: Self.slotCount)
        slots.initialize(repeating: Slot(), count: Self.slotCount)
        shapes = .allocate(capacity: Self.shapeLimit)
        ops = .allocate(capacity: Self.opLimit)
    }

    deinit {
        slots.deallocate()
        shapes.deallocate()
        ops.deallocate()
    }

    /// Writes the shape of `nodes` into `shape` (one word a node) and returns its hash.
    @inline(__always)
    static func shape(of nodes: UnsafeBufferPointer<FieldNode>, into shape: UnsafeMutablePointer<UInt64>) -> UInt64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(nodes.count)
        for i in 0..<nodes.count {
            let node = nodes[i]
            var word = UInt64(node.field.rawValue) | UInt64(node.depth) << 32
            if case .none = node.value { word |= 1 << 48 }
            shape[i] = word
            hash = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 32
        }
        return hash
    }

    @inline(__always)
    private func slot(_ hash: UInt64) -> UnsafeMutablePointer<Slot> {
        slots + Int(truncatingIfNeeded: (hash ^ (hash >> 23)) & UInt64(Self.slotCount - 1))
    }

    /// The plan kept for `shape`, nil when there is none. Valid until the next `insert`.
    @inline(__always)
    func find(hash: UInt64, shape: UnsafeBufferPointer<UInt64>) -> Plan? {
        let s = slot(hash).pointee
        guard s.hash == hash, s.nodeCount == shape.count else { return nil }
        let kept = shapes + s.shapeStart
        for i in 0..<shape.count where kept[i] != shape[i] { return nil }
        return Plan(
            literals: UnsafeBufferPointer(rebasing: literals.bytes[s.literalStart..<s.literalStart + s.literalCount]),
            ops: UnsafeBufferPointer(start: ops + s.opStart, count: s.opCount)
        )
    }

    /// Keeps `plan` (whose memory is the caller's) for `shape`, in place of the slot's last one.
    mutating func insert(_ plan: Plan, hash: UInt64, shape: UnsafeBufferPointer<UInt64>) {
        guard shape.count <= Self.largestKept, let shapeBase = shape.baseAddress else { return }
        if shapeCount + shape.count > Self.shapeLimit || opCount + plan.ops.count > Self.opLimit
            || literals.count + plan.literals.count > Self.literalLimit
        {
            slots.update(repeating: Slot(), count: Self.slotCount)
            shapeCount = 0
            opCount = 0
            literals.removeAll()
        }
        let s = slot(hash)
        s.pointee = Slot(
            hash: hash,
            nodeCount: shape.count,
            shapeStart: shapeCount,
            opStart: opCount,
            opCount: plan.ops.count,
            literalStart: literals.count,
            literalCount: plan.literals.count
        )
        (shapes + shapeCount).update(from: shapeBase, count: shape.count)
        shapeCount += shape.count
        if let opBase = plan.ops.baseAddress { (ops + opCount).update(from: opBase, count: plan.ops.count) }
        opCount += plan.ops.count
        literals.append(contentsOf: plan.literals)
    }

    /// Writes a frame by its plan: each stretch of literal text, then each value.
    static func execute(_ plan: Plan, view: FrameView, texts: [String], to out: inout TextBuffer) {
        let literals = plan.literals
        var from = 0
        for op in plan.ops {
            let end = Int(op.literalEnd)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: literals[from..<end]))
            from = end
            let node = view.nodes[Int(op.node)]
            FieldText.appendJSONScalar(
                node.value,
                op.facts,
                texts: texts,
                bytes: view.bytes(of: node, shownAs: op.facts),
                to: &out
            )
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: literals[from..<literals.count]))
    }
}
