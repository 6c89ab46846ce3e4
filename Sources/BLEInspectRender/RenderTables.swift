import BLEInspectCore

/// A frame's nodes and bytes as the renderers read them: plain pointers, valid inside
/// `FrameView.with`, so that passing the view around (or capturing it in a closure) costs nothing.
struct FrameView {
    let nodes: UnsafeBufferPointer<FieldNode>
    let frameBytes: UnsafeBufferPointer<UInt8>
    /// The tree's data sources, one after another; source n spans
    /// `sourceStarts[n - 1] ..< sourceStarts[n]`.
    let sourceBytes: UnsafeBufferPointer<UInt8>
    let sourceStarts: UnsafeBufferPointer<Int>

    /// Calls `body` with a view of `frameBytes`, the tree's nodes and `sources` (its `sources`).
    static func with<R>(
        frameBytes: [UInt8],
        tree: borrowing ProtocolTree,
        sources: [[UInt8]],
        _ body: (FrameView) -> R
    ) -> R {
        frameBytes.withUnsafeBufferPointer { frameBytes in
            tree.withNodes { nodes in
                if sources.isEmpty {
                    return body(
                        FrameView(
                            nodes: nodes,
                            frameBytes: frameBytes,
                            sourceBytes: .init(start: nil, count: 0),
                            sourceStarts: .init(start: nil, count: 0)
                        )
                    )
                }
                // Frames with reassembled PDUs are few: their sources are copied into one run.
                var all: [UInt8] = []
                var starts = [0]
                for source in sources {
                    all.append(contentsOf: source)
                    starts.append(all.count)
                }
                return all.withUnsafeBufferPointer { sourceBytes in
                    starts.withUnsafeBufferPointer { sourceStarts in
                        body(
                            FrameView(
                                nodes: nodes,
                                frameBytes: frameBytes,
                                sourceBytes: sourceBytes,
                                sourceStarts: sourceStarts
                            )
                        )
                    }
                }
            }
        }
    }

    /// The bytes a node points at when showing its value reads them, else none.
    @inline(__always)
    func bytes(of node: FieldNode, shownAs facts: FieldFacts) -> UnsafeBufferPointer<UInt8> {
        FieldText.needsBytes(node.value, facts) ? bytes(of: node) : UnsafeBufferPointer(start: nil, count: 0)
    }

    /// The bytes a node points at (`FieldFormatter.bytes(of:frame:tree:)`).
    @inline(__always)
    func bytes(of node: FieldNode) -> UnsafeBufferPointer<UInt8> {
        let data: UnsafeBufferPointer<UInt8>
        if node.source == 0 {
            data = frameBytes
        } else if Int(node.source) < sourceStarts.count {
            let s = Int(node.source)
            data = UnsafeBufferPointer(rebasing: sourceBytes[sourceStarts[s - 1]..<sourceStarts[s]])
        } else {
            return UnsafeBufferPointer(start: nil, count: 0)
        }
        let range = node.range.clamped(to: 0..<data.count)
        return UnsafeBufferPointer(rebasing: data[range])
    }
}

/// Per-field facts and names laid out for the render loops: every name is stored once as bytes
/// in one pool, so that writing a label or a JSON key copies bytes and touches no String.
/// Made once per run; read-only afterwards.
final class RenderTables {
    struct Span: BitwiseCopyable {
        var start: UInt32
        var count: UInt32
    }

    struct Entry: BitwiseCopyable {
        var facts: FieldFacts
        /// The display name (`FieldDescriptor.name`).
        var name: Span
        /// The JSON key with its colon: `"btatt.opcode":`.
        var key: Span
        /// For layers, the one-line protocol column (`DissectorRegistry.shortNames`).
        var short: Span
        /// The unit shown after a value (`FieldDescriptor.unit`), escaped: it may come from a
        /// user's plugin. Read only when `facts.hasUnit`.
        var unit: Span
        /// The number of the field's JSON key, by which JSON merges repeated fields into one key:
        /// the field's id, since a registry's names are unique.
        var keyID: UInt32
        var hasValueNames: Bool
    }

    private let entries: UnsafeMutableBufferPointer<Entry>
    private let pool: UnsafeMutableBufferPointer<UInt8>
    /// Value-name lookups by field, nil where a field has none.
    let lookups: [ValueNameLookup?]
    /// How many distinct JSON keys there are.
    let keyCount: Int
    /// The key of the frame layer (`frame`), which JSON puts before the other layers.
    let frameKeyID: UInt32
    let coreLayer: FieldID
    let malformed: FieldID
    /// Names plugins and modules gave UUIDs (`DissectorRegistry.uuidNames`), shown before the SIG's.
    let uuidNames: [BluetoothUUID: String]

    init(registry: DissectorRegistry) {
        var pool: [UInt8] = []
        var entries: [Entry] = []
        var lookups: [ValueNameLookup?] = []
        entries.reserveCapacity(registry.fields.count)
        // Made at every start-up, for some 1,250 fields: the names go straight into the pool,
        // with no array or buffer of their own.
        func span(_ text: String) -> Span {
            let start = pool.count
            pool.append(contentsOf: text.utf8)
            return Span(start: UInt32(start), count: UInt32(pool.count - start))
        }
        func span(_ bytes: UnsafeBufferPointer<UInt8>) -> Span {
            let start = pool.count
            pool.append(contentsOf: bytes)
            return Span(start: UInt32(start), count: UInt32(bytes.count))
        }
        var quoted = TextBuffer()
        for (i, d) in registry.fields.enumerated() {
            // The name, with the indent of a tree line before it and `: ` after it
            // (`linePrefix`).
            pool.append(contentsOf: repeatElement(0x20, count: Self.indentWidth))
            let name = span(d.name)
            pool.append(0x3A)
            pool.append(0x20)
            quoted.removeAll()
            JSONFrame.appendQuoted(d.abbrev, to: &quoted)
            quoted.append(0x3A)
            let key = span(quoted.bytes)
            // A registry's field names are unique (`RegistryBuilder` refuses one registered
            // twice), so each field is its own JSON key.
            let keyID = UInt32(i)
            let short = i < registry.shortNames.count ? registry.shortNames[i] : ""
            let facts = FieldFacts(d)
            let unit = facts.hasUnit ? TerminalSafeText.escape(d.unit) : ""
            entries.append(
                Entry(
                    facts: facts,
                    name: name,
                    key: key,
                    short: span(short),
                    unit: span(unit),
                    keyID: keyID,
                    hasValueNames: d.valueNames != nil
                )
            )
            lookups.append(d.valueNames.map { ValueNameLookup(names: $0.lookup) })
        }
        self.entries = .allocate(capacity: entries.count)
        _ = self.entries.initialize(from: entries)
        self.pool = .allocate(capacity: max(1, pool.count))
        _ = self.pool.initialize(from: pool)
        self.lookups = lookups
        self.keyCount = registry.fields.count
        self.frameKeyID = registry.core.layer.rawValue
        self.uuidNames = registry.uuidNames
        self.coreLayer = registry.core.layer
        self.malformed = registry.core[.malformed]
    }

    deinit {
        entries.deallocate()
        pool.deallocate()
    }

    @inline(__always)
    func entry(_ field: FieldID) -> Entry {
        let i = Int(field.rawValue)
        precondition(i < entries.count, "field id out of range")
        return entries[i]
    }

    @inline(__always)
    func bytes(_ s: Span) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: pool[Int(s.start)..<Int(s.start + s.count)])
    }

    /// The widest indent kept before each name in the pool: a tree line's at depth 6.
    static let indentWidth = 16

    /// A tree line's start: `indent` spaces, the field's name and `: `, as one run of the pool;
    /// nil when `indent` is wider than `indentWidth`.
    @inline(__always)
    func linePrefix(_ e: Entry, indent: Int) -> UnsafeBufferPointer<UInt8>? {
        guard indent <= Self.indentWidth else { return nil }
        let start = Int(e.name.start) - indent
        return UnsafeBufferPointer(rebasing: pool[start..<Int(e.name.start + e.name.count) + 2])
    }

}

/// Names already looked up, by field and value (and UUID names, by UUID), kept as bytes: a
/// label's name costs a hash probe and a copy instead of a dictionary lookup and a String.
///
/// Value names come from static tables (`ValueNames`, `AssignedNumbers`): a value's name never
/// changes, so remembering it changes no output. A fixed number of slots, each holding the last
/// value that hashed to it; the names are kept in one pool, emptied when it grows past a limit.
struct NameCache: ~Copyable {
    private struct Slot {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var field: UInt32 = 0
        /// 0 empty, 1 looked up and has no name, 2 has a name.
        var state: UInt8 = 0
        var start: UInt32 = 0
        var count: UInt32 = 0
    }

    private static let slotCount = 4096
    private static let poolLimit = 1 << 20
    /// The `field` of UUID entries (no field has this id).
    private static let uuidField = UInt32.max

    private let slots: UnsafeMutablePointer<Slot>
    private var pool = TextBuffer(capacity: 1 << 12)

    init() {
        slots = .allocate(capacity: Self.slotCount)
        slots.initialize(repeating: Slot(), count: Self.slotCount)
    }

    deinit { slots.deallocate() }

    /// The name of `value` of `field`, nil when it has none. Valid until the next call.
    @inline(__always)
    mutating func valueName(_ field: FieldID, _ value: UInt64, tables: RenderTables) -> UnsafeBufferPointer<UInt8>? {
        find(field.rawValue, 0, value) {
            tables.lookups[Int(field.rawValue)]?.names(value)
        }
    }

    /// The name of a UUID: a plugin's (`RenderTables.uuidNames`), else the SIG's
    /// (`FieldFormatter.uuidName`); nil when it has none. Valid until the next call.
    @inline(__always)
    mutating func uuidName(_ u: BluetoothUUID, tables: RenderTables) -> UnsafeBufferPointer<UInt8>? {
        find(Self.uuidField, u.high, u.low) { FieldFormatter.uuidName(u, names: tables.uuidNames) }
    }

    private mutating func find(
        _ field: UInt32,
        _ high: UInt64,
        _ low: UInt64,
        _ resolve: () -> String?
    ) -> UnsafeBufferPointer<UInt8>? {
        let hash = (low &* 0x9E37_79B9_7F4A_7C15) ^ (high &* 0xC2B2_AE3D_27D4_EB4F) ^ (UInt64(field) &* 0x1656_67B1)
        let slot = slots + Int(truncatingIfNeeded: (hash ^ (hash >> 29)) & UInt64(Self.slotCount - 1))
        if slot.pointee.state == 0 || slot.pointee.field != field || slot.pointee.low != low
            || slot.pointee.high != high
        {
            insert(slot, field, high, low, resolve())
        }
        guard slot.pointee.state == 2 else { return nil }
        let start = Int(slot.pointee.start)
        return UnsafeBufferPointer(rebasing: pool.bytes[start..<start + Int(slot.pointee.count)])
    }

    @inline(never)
    private mutating func insert(
        _ slot: UnsafeMutablePointer<Slot>,
        _ field: UInt32,
        _ high: UInt64,
        _ low: UInt64,
        _ name: String?
    ) {
        if pool.count > Self.poolLimit {
            slots.update(repeating: Slot(), count: Self.slotCount)
            pool.removeAll()
        }
        let start = pool.count
        if let name { pool.appendUTF8(name) }
        slot.pointee = Slot(
            high: high,
            low: low,
            field: field,
            state: name == nil ? 1 : 2,
            start: UInt32(start),
            count: UInt32(pool.count - start)
        )
    }
}
