public import BLEInspectCore

/// NDJSON rendering: one object per frame, shaped like tshark's `-T json` layers.
///
/// Schema `bleinspect/1`: `{"_schema":"bleinspect/1","frame":{…},"layers":{"btatt":{"btatt.opcode":18,…}}}`.
/// Each node with children becomes an object; a name that occurs more than once at one level
/// becomes an array. Integers are numbers, reals numbers with up to 15 significant digits (as
/// the tree shows them; NaN and the infinities, which JSON lacks, the strings "NaN", "inf" and
/// "-inf"), units are left out, booleans true/false, bytes lower-case hex strings,
/// addresses `aa:bb:cc:dd:ee:ff`, UUIDs `0x180f` or the 128-bit form, times epoch seconds as a
/// string with nine digits. Expert notes are objects with "severity" and "message".
public enum JSONFrame {
    public static let schema = "bleinspect/1"

    /// One frame's object, as a String. `FrameRenderer` writes the same bytes straight into its
    /// output and reuses its tables from frame to frame; this makes them for one call.
    public static func render(
        _ frame: CapturedFrame,
        _ tree: borrowing ProtocolTree,
        registry: DissectorRegistry,
        formatter: FieldFormatter
    ) -> String {
        let tables = RenderTables(registry: registry)
        let scratch = JSONScratch(keyCount: tables.keyCount)
        var out = TextBuffer()
        let texts = tree.texts
        FrameView.with(frameBytes: frame.bytes, tree: tree, sources: tree.sources) { view in
            scratch.render(view, texts: texts, tables: tables, to: &out)
        }
        return out.string
    }
}

/// The working memory of JSON output, reused from frame to frame.
///
/// A frame's nodes are a flat pre-order list with depths. Each node with children is an object;
/// its children are linked into a list, then grouped by key (a key that occurs more than once at
/// one level becomes an array at the place of its first occurrence), then written as a plan: the
/// literal text, and where each value goes (`ShapePlans`), kept for the next frames of the same
/// shape, which skip all of this. Nothing is allocated per frame once the buffers have grown to
/// the largest frame.
final class JSONScratch {
    struct Slot {
        /// For an object (slot 0 the top level, slot i + 1 node i): its first and last child.
        var firstChild: Int32 = -1
        var lastChild: Int32 = -1
        /// For node i (slot i + 1): its next sibling, the next node with its key at its level,
        /// and, when it is the first with its key, the last such node.
        var nextSibling: Int32 = -1
        var nextSame: Int32 = -1
        var sameTail: Int32 = -1
        var hasChildren = false
        /// Not the first node with its key at its level: written in the first one's array.
        var isRepeat = false
        /// For node i: its field's facts, JSON key and key id (`RenderTables.Entry`).
        var facts = FieldFacts(kind: .group, base: .decimal, bits: 8)
        var keyID: UInt32 = 0
        var key = RenderTables.Span(start: 0, count: 0)
    }

    private var slots: UnsafeMutablePointer<Slot>
    /// The objects that hold each depth while the tree is walked.
    private var stack: UnsafeMutablePointer<Int32>
    private var capacity: Int
    /// Per key: the grouping pass that saw it last, and the first node with it in that pass.
    private let keyStamp: UnsafeMutablePointer<UInt32>
    private let keyHead: UnsafeMutablePointer<Int32>
    private let keyCount: Int
    private var stamp: UInt32 = 0
    private var plans = ShapePlans<JSONOp>()

    init(keyCount: Int) {
        capacity = 64
        slots = .allocate(capacity: capacity)
        stack = .allocate(capacity: capacity)
        self.keyCount = max(1, keyCount)
        keyStamp = .allocate(capacity: self.keyCount)
        keyStamp.initialize(repeating: 0, count: self.keyCount)
        keyHead = .allocate(capacity: self.keyCount)
        keyHead.initialize(repeating: -1, count: self.keyCount)
    }

    deinit {
        slots.deallocate()
        stack.deallocate()
        keyStamp.deallocate()
        keyHead.deallocate()
    }

    /// Appends one frame's object: by the plan kept for the frame's shape (`ShapePlans`), made
    /// first when the shape is new.
    func render(_ view: FrameView, texts: [String], tables: RenderTables, to out: inout TextBuffer) {
        let (hash, kept) = plans.find(view.nodes)
        if let kept {
            Self.write(kept, view: view, texts: texts, to: &out)
            return
        }
        let n = view.nodes.count
        if n + 1 > capacity {
            slots.deallocate()
            stack.deallocate()
            capacity = max(n + 1, 2 * capacity)
            slots = .allocate(capacity: capacity)
            stack = .allocate(capacity: capacity)
        }
        // A new shape: lay the frame out, writing its literal text and noting where each value
        // goes.
        plans.newLiterals.removeAll()
        var writer = JSONWriter(
            nodes: view.nodes,
            slots: slots,
            stack: stack,
            keyStamp: keyStamp,
            keyHead: keyHead,
            keyCount: keyCount,
            stamp: stamp,
            tables: tables,
            ops: plans.newOps
        )
        writer.layOut()
        writer.writeFrame(to: &plans.newLiterals)
        stamp = writer.stamp
        let plan = plans.keep(opCount: writer.opCount, hash: hash, nodeCount: n)
        Self.write(plan, view: view, texts: texts, to: &out)
    }

    /// Writes a frame by its plan.
    private static func write(
        _ plan: ShapePlans<JSONOp>.Plan,
        view: FrameView,
        texts: [String],
        to out: inout TextBuffer
    ) {
        plan.write(to: &out) { op, out in
            let node = view.nodes[Int(op.node)]
            // Most values are plain numbers: written here, without the call.
            if case .unsigned(let v) = node.value, op.facts.kind == .unsigned {
                out.appendDecimal(v)
                return
            }
            FieldText.appendJSONScalar(
                node.value,
                op.facts,
                texts: texts,
                bytes: view.bytes(of: node, shownAs: op.facts),
                to: &out
            )
        }
    }
}

/// A value in a frame's JSON: node `node`'s scalar, shown as `facts`.
struct JSONOp: PlanOp {
    var literalEnd: UInt32
    var node: UInt32
    var facts: FieldFacts

    /// `JSONWriter` writes `null` for a node with no value, and any other value as a scalar.
    static var readsValueCase: Bool { false }
}

/// One frame's JSON, over `JSONScratch`'s memory.
private struct JSONWriter {
    let nodes: UnsafeBufferPointer<FieldNode>
    let slots: UnsafeMutablePointer<JSONScratch.Slot>
    let stack: UnsafeMutablePointer<Int32>
    let keyStamp: UnsafeMutablePointer<UInt32>
    let keyHead: UnsafeMutablePointer<Int32>
    let keyCount: Int
    var stamp: UInt32
    let tables: RenderTables
    /// Where each value goes (`JSONOp`): the writer writes the literal text only.
    let ops: UnsafeMutablePointer<JSONOp>
    var opCount = 0

    /// Links every node into its parent object's list of children, as `JSONFrame` has always
    /// nested them: a node's parent is the innermost open object at or above its depth.
    func layOut() {
        let n = nodes.count
        slots[0] = JSONScratch.Slot()
        stack[0] = 0
        var top = 0
        for i in 0..<n {
            let depth = Int(nodes[i].depth)
            if top > depth { top = depth }
            let parent = Int(stack[min(depth, top)])
            let hasChildren = i + 1 < n && Int(nodes[i + 1].depth) > depth
            let e = tables.entry(nodes[i].field)
            var slot = JSONScratch.Slot()
            slot.hasChildren = hasChildren
            slot.facts = e.facts
            slot.keyID = e.keyID
            slot.key = e.key
            slots[i + 1] = slot
            let last = slots[parent].lastChild
            if last < 0 {
                slots[parent].firstChild = Int32(i)
            } else {
                slots[Int(last) + 1].nextSibling = Int32(i)
            }
            slots[parent].lastChild = Int32(i)
            if hasChildren {
                top += 1
                stack[top] = Int32(i + 1)
            }
        }
    }

    /// Groups the children of `object` by key.
    mutating func group(_ object: Int) {
        stamp &+= 1
        if stamp == 0 {
            keyStamp.update(repeating: 0, count: keyCount)
            stamp = 1
        }
        var c = slots[object].firstChild
        while c >= 0 {
            let k = Int(slots[Int(c) + 1].keyID)
            if keyStamp[k] == stamp {
                let head = Int(keyHead[k]) + 1
                let tail = Int(slots[head].sameTail) + 1
                slots[tail].nextSame = c
                slots[head].sameTail = c
                slots[Int(c) + 1].isRepeat = true
            } else {
                keyStamp[k] = stamp
                keyHead[k] = c
                slots[Int(c) + 1].sameTail = c
            }
            c = slots[Int(c) + 1].nextSibling
        }
    }

    mutating func writeFrame(to out: inout TextBuffer) {
        out.appendLiteral("{\"_schema\":\"bleinspect/1\"")
        group(0)
        // The frame layer first, then the others under "layers".
        var c = slots[0].firstChild
        while c >= 0 {
            let slot = slots[Int(c) + 1]
            if !slot.isRepeat && slot.keyID == tables.frameKeyID {
                out.appendLiteral(",\"frame\":")
                writeEntryValue(Int(c), to: &out)
            }
            c = slot.nextSibling
        }
        out.appendLiteral(",\"layers\":{")
        writeEntries(0, needsComma: false, skipFrame: true, to: &out)
        out.append(0x7D)
        out.append(0x7D)
    }

    /// Writes the grouped children of `object` as `"key":value` pairs.
    mutating func writeEntries(_ object: Int, needsComma: Bool, skipFrame: Bool, to out: inout TextBuffer) {
        var comma = needsComma
        var c = slots[object].firstChild
        while c >= 0 {
            let slot = slots[Int(c) + 1]
            if !slot.isRepeat && !(skipFrame && slot.keyID == tables.frameKeyID) {
                do {
                    if comma { out.append(0x2C) }
                    comma = true
                    out.append(contentsOf: tables.bytes(slot.key))
                    writeEntryValue(Int(c), to: &out)
                }
            }
            c = slot.nextSibling
        }
    }

    /// The value of the entry whose first node is `i`: its value, or an array of the values of
    /// every node with its key at its level.
    mutating func writeEntryValue(_ i: Int, to out: inout TextBuffer) {
        var next = slots[i + 1].nextSame
        if next < 0 {
            writeValue(i, to: &out)
            return
        }
        out.append(0x5B)
        writeValue(i, to: &out)
        while next >= 0 {
            out.append(0x2C)
            writeValue(Int(next), to: &out)
            next = slots[Int(next) + 1].nextSame
        }
        out.append(0x5D)
    }

    /// A node's value: an object when it has children (its own value under "_value"), else its
    /// scalar or null.
    mutating func writeValue(_ i: Int, to out: inout TextBuffer) {
        let node = nodes[i]
        let facts = slots[i + 1].facts
        if slots[i + 1].hasChildren {
            out.append(0x7B)
            group(i + 1)
            var comma = false
            if facts.kind != .layer && FieldText.hasJSONScalar(node.value, facts) {
                out.appendLiteral("\"_value\":")
                mark(i, facts, at: out.count)
                comma = true
            }
            writeEntries(i + 1, needsComma: comma, skipFrame: false, to: &out)
            out.append(0x7D)
        } else if FieldText.hasJSONScalar(node.value, facts) {
            mark(i, facts, at: out.count)
        } else {
            out.appendLiteral("null")
        }
    }

    /// Notes that node `i`'s scalar goes at `offset` of the literal text.
    private mutating func mark(_ i: Int, _ facts: FieldFacts, at offset: Int) {
        ops[opCount] = JSONOp(literalEnd: UInt32(truncatingIfNeeded: offset), node: UInt32(i), facts: facts)
        opCount += 1
    }
}
