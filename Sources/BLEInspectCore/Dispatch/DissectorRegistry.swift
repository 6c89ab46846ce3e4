/// The frozen catalog of fields and tables, shared by the engine, the filter and the renderers.
public final class DissectorRegistry: Sendable {
    public let fields: [FieldDescriptor]
    /// Filter name (and alias) → field.
    public let index: [String: FieldID]
    /// For each field, the id of the layer it belongs to.
    let layerOfField: [UInt32]
    public let tables: [TableID: DissectorTable]
    /// Every table named at registration by its slot (nil for a name no module declared), and
    /// each name's slot.
    @usableFromInline let tablesBySlot: [DissectorTable?]
    let slotOf: [TableID: Int]
    /// The tables' dense key arrays, end to end: for a slot and a key below
    /// `denseSlots[slot].count`, `denseIndex[denseSlots[slot].start + key]` is 1 + the binding's
    /// index in `denseBindings` (from `denseSlots[slot].firstBinding`), or 0. Dispatch reads them
    /// without copying a `DissectorTable` (and counting the references it holds).
    @usableFromInline let denseIndex: [UInt16]
    /// Unretained: `tables` keeps every binding alive for the registry's life, so dispatch reads
    /// one without counting a reference (`unretainedBinding(slot:_:)`).
    @usableFromInline let denseBindings: [Unmanaged<Binding>]
    /// Per entry of `denseBindings`: its `Binding.keepsNoState`, read without touching the binding.
    @usableFromInline let denseStateless: [Bool]
    /// Per entry of `denseBindings`: for a binding that uses no state itself but hands off, by a
    /// key at a fixed place, into a table with stateful bindings, that handoff (see
    /// `decodesWithoutState(_:_:_:)`).
    @usableFromInline let densePeek: [PeekEdge?]
    /// Per slot, where its dense keys and bindings start and how many keys it has (one array, so
    /// that a lookup checks one bound for the three).
    @usableFromInline let denseSlots: [DenseSlot]
    /// Per slot, `SparseFilter.words` words: bit `SparseFilter.bit(key)` is set for every key
    /// bound in the table's dictionary, so that most lookups of an unbound key (a vendor's
    /// 128-bit UUID, say) end without hashing it or copying the table.
    @usableFromInline let sparseFilter: [UInt64]
    public let core: CoreFields
    /// Per field: true for layers (kept apart so that hot loops need not copy descriptors).
    public let isLayer: [Bool]
    /// Per field: the short protocol name of layers, empty otherwise.
    public let shortNames: [String]
    /// Dissectors run after every frame, in order.
    public let postDissectors: [Binding]
    /// Per field: true for the fields of modules that add them from a post-dissector (derived
    /// fields such as `device.*`). A run that shows and filters none of them can skip the
    /// post-dissectors.
    public let isDerived: [Bool]
    /// Per field: the module that registered it ("core" for the frame and expert fields).
    public let fieldOwners: [String]
    /// Names given to UUIDs by modules and plugins (`RegistryBuilder.name(_:_:)`).
    public let uuidNames: [BluetoothUUID: String]
    /// The run's settings (`RegistryConfiguration`), for the dissectors to read.
    public let configuration: RegistryConfiguration
    /// The built-in bindings plugins replaced.
    public let overrides: [BindingOverride]
    /// Opcode facts by table (`opcodeFacts(_:)`).
    let opcodeTables: [TableID: OpcodeFacts]
    /// Key roles by table (`roles(in:)`).
    let keyRoles: [TableID: [UInt64: KeyRole]]

    init(
        fields: [FieldDescriptor],
        index: [String: FieldID],
        layerOfField: [UInt32],
        tables: [TableID: DissectorTable],
        slots: TableSlots,
        postDissectors: [Binding],
        derived: [Bool],
        fieldOwners: [String],
        uuidNames: [BluetoothUUID: String],
        opcodeTables: [TableID: OpcodeFacts] = [:],
        keyRoles: [TableID: [UInt64: KeyRole]] = [:],
        configuration: RegistryConfiguration,
        overrides: [BindingOverride]
    ) {
        self.opcodeTables = opcodeTables
        self.keyRoles = keyRoles
        self.uuidNames = uuidNames
        self.configuration = configuration
        self.overrides = overrides
        self.postDissectors = postDissectors
        self.isDerived = derived
        self.fieldOwners = fieldOwners
        self.fields = fields
        self.index = index
        self.layerOfField = layerOfField
        self.tables = tables
        slotOf = slots.byID
        let bySlot = slots.ids.map { tables[$0] }
        tablesBySlot = bySlot
        var denseIndex: [UInt16] = []
        var denseBindings: [Unmanaged<Binding>] = []
        var denseSlots = [DenseSlot](repeating: DenseSlot(start: 0, count: 0, firstBinding: 0), count: bySlot.count)
        for (slot, table) in bySlot.enumerated() {
            guard let table else { continue }
            denseSlots[slot] = DenseSlot(
                start: denseIndex.count,
                count: table.dense.count,
                firstBinding: denseBindings.count
            )
            denseIndex += table.dense
            denseBindings += table.denseBindings.map { Unmanaged.passUnretained($0) }
        }
        self.denseIndex = denseIndex
        self.denseStateless = denseBindings.map { $0.takeUnretainedValue().keepsNoState }
        self.densePeek = denseBindings.map { PeekEdge.of($0.takeUnretainedValue(), tables) }
        self.denseBindings = denseBindings
        self.denseSlots = denseSlots
        var sparseFilter = [UInt64](repeating: 0, count: bySlot.count * SparseFilter.words)
        for (slot, table) in bySlot.enumerated() {
            guard let table else { continue }
            for key in table.bindings.keys {
                let bit = SparseFilter.bit(key)
                sparseFilter[slot * SparseFilter.words + bit / 64] |= 1 << UInt64(bit % 64)
            }
        }
        self.sparseFilter = sparseFilter
        // The core set is registered first, so its layer is field 0.
        self.core = CoreFields(layer: FieldID(0), base: 1)
        self.isLayer = fields.map { $0.kind == .layer }
        self.shortNames = fields.map { d in
            d.kind == .layer ? (d.short.isEmpty ? d.abbrev.uppercased() : d.short) : ""
        }
    }

    @inlinable
    public func descriptor(_ id: FieldID) -> FieldDescriptor { fields[Int(id.rawValue)] }

    public func field(named name: String) -> FieldID? { index[name] }

    /// True when `id` is a derived field (see `isDerived`).
    public func derived(_ id: FieldID) -> Bool {
        Int(id.rawValue) < isDerived.count && isDerived[Int(id.rawValue)]
    }

    /// The module that registered `id`.
    public func owner(of id: FieldID) -> String {
        Int(id.rawValue) < fieldOwners.count ? fieldOwners[Int(id.rawValue)] : ""
    }

    /// The modules whose fields `binding` can add: its own, and through the tables it dispatches
    /// into, those of every binding beneath it.
    public func ownersBeneath(_ binding: Binding) -> Set<String> {
        var owners: Set<String> = [binding.owner]
        owners.formUnion(binding.coOwners)
        var seen = Set<TableID>()
        var pending = binding.dispatchesInto
        while let id = pending.popLast() {
            guard seen.insert(id).inserted, let table = tables[id] else { continue }
            for inner in table.bindings.values {
                owners.insert(inner.owner)
                owners.formUnion(inner.coOwners)
                pending += inner.dispatchesInto
            }
        }
        return owners
    }

    /// The layer a field belongs to.
    public func layer(of id: FieldID) -> FieldID { FieldID(layerOfField[Int(id.rawValue)]) }

    /// The slot of the table named `table`, if any module named it.
    public func slot(of table: TableID) -> Int? { slotOf[table] }

    /// The handoff into `table` (for the engine's own tables, and tools that feed a table).
    public func handoff<K>(into table: Table<K>) -> Handoff<K>? {
        slotOf[table.id].map { Handoff(table, slot: $0) }
    }

    /// The dissector bound to `key` in `table`, if any.
    public func binding(_ table: TableID, _ key: DissectorKey) -> Binding? {
        guard let slot = slotOf[table] else { return nil }
        return unretainedBinding(slot: slot, key)?.takeUnretainedValue()
    }

    /// The dissector bound to `key` in `table`, if any.
    public func binding<K>(_ table: Table<K>, _ key: K) -> Binding? { binding(table.id, key.dissectorKey) }

    /// The dissector bound to `key` in `table`, if any (an untyped key, as listings hold them).
    public func binding<K>(_ table: Table<K>, _ key: DissectorKey) -> Binding? { binding(table.id, key) }

    /// For an integer key of a table with a dense range: the binding's position in
    /// `denseBindings`, or -1 when the key has none (past the range, none has). Nil for a table
    /// without one.
    @inlinable @inline(__always)
    func densePosition(slot: Int, _ key: DissectorKey) -> Int? {
        guard slot >= 0, slot < denseSlots.count, !key.isUUID else { return nil }
        let dense = denseSlots[slot]
        guard dense.count != 0 else { return nil }
        guard key.high == 0, key.low < UInt64(dense.count) else { return -1 }
        let i = Int(denseIndex[dense.start &+ Int(key.low)])
        return i == 0 ? -1 : dense.firstBinding &+ i &- 1
    }

    /// The binding of `key` in the table at `slot`, unretained, for the dispatch path: the
    /// registry keeps it alive, so a caller that holds the registry reads it with
    /// `_withUnsafeGuaranteedRef` without counting a reference. Nil when nothing is bound.
    /// Inlined: dispatch runs it for every layer of every frame.
    @inlinable @inline(__always)
    public func unretainedBinding(slot: Int, _ key: DissectorKey) -> Unmanaged<Binding>? {
        if let i = densePosition(slot: slot, key) { return i < 0 ? nil : denseBindings[i] }
        guard slot >= 0, slot < tablesBySlot.count else { return nil }
        let bit = SparseFilter.bit(key)
        guard sparseFilter[slot &* SparseFilter.words &+ bit / 64] & (1 << UInt64(bit % 64)) != 0,
            let b = tablesBySlot[slot]?.lookup(key)
        else { return nil }
        return Unmanaged.passUnretained(b)
    }

    /// The dissector bound to `key` in the table of `handoff`, if any: a lookup by slot, for a
    /// dissector that must know whether something is bound before it hands off.
    public func binding<K>(_ handoff: Handoff<K>, _ key: K) -> Binding? {
        unretainedBinding(slot: handoff.slot, key.dissectorKey)?.takeUnretainedValue()
    }

    /// Whether the module `module` bound the dissector of `key` in the table of `handoff` (not a
    /// plugin that replaced it): a module that knows its own decoders leave it some work.
    @inlinable
    public func isBound<K>(_ handoff: Handoff<K>, _ key: K, byModule module: String) -> Bool {
        guard let binding = unretainedBinding(slot: handoff.slot, key.dissectorKey) else { return false }
        return binding._withUnsafeGuaranteedRef { $0.owner == module }
    }

    /// Whether anything is bound to `key` in `table`.
    public func isBound<K>(_ table: Handoff<K>, _ key: K) -> Bool {
        unretainedBinding(slot: table.slot, key.dissectorKey) != nil
    }

    /// Whether decoding `bytes` with the binding of `key` in the table at `slot` neither reads
    /// nor changes capture state, so that any engine may decode them: the binding keeps no
    /// state, or it uses none itself and hands off, by a key at a fixed place in `bytes`, to a
    /// binding that (by the same rule) does not. Follows the layer graph without decoding; false
    /// when unsure (nothing bound, bytes too short). Cheap: the parallel reader asks per frame.
    @inlinable
    public func decodesWithoutState(slot: Int, _ key: UInt64, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var slot = slot
        var key = key
        var bytes = bytes
        for _ in 0..<Self.maximumPeekDepth {
            guard let i = densePosition(slot: slot, DissectorKey(key)), i >= 0 else { return false }
            if denseStateless[i] { return true }
            guard let peek = densePeek[i], let next = peek.position.key(in: bytes),
                peek.position.payload <= bytes.count
            else { return false }
            slot = peek.slot
            key = next
            bytes = UnsafeBufferPointer(rebasing: bytes[peek.position.payload...])
        }
        return false
    }

    /// The most handoffs `decodesWithoutState` follows.
    public static let maximumPeekDepth = 8
}

/// Where one table's keys sit in `DissectorRegistry.denseIndex`, and its bindings in
/// `denseBindings`.
@usableFromInline
struct DenseSlot: Sendable {
    /// The table's first entry in `denseIndex`.
    @usableFromInline let start: Int
    /// Its keys (0 for a table without a dense range).
    @usableFromInline let count: Int
    /// Its first binding in `denseBindings`.
    @usableFromInline let firstBinding: Int

    init(start: Int, count: Int, firstBinding: Int) {
        self.start = start
        self.count = count
        self.firstBinding = firstBinding
    }
}

/// A handoff that `DissectorRegistry.decodesWithoutState` follows: into the table at `slot`, by
/// the key at `position`.
public struct PeekEdge: Sendable {
    @usableFromInline let slot: Int
    @usableFromInline let position: KeyPosition

    /// For `binding`: the one handoff with a key position into a table with stateful bindings,
    /// when the binding uses no state itself and its other handoffs lead only to stateless ones.
    static func of(_ binding: Binding, _ tables: [TableID: DissectorTable]) -> PeekEdge? {
        guard !binding.usesState, !binding.keepsNoState else { return nil }
        let stateful = binding.edges.filter { edge in
            tables[edge.table]?.bindings.values.contains { !$0.keepsNoState } ?? false
        }
        guard stateful.count == 1, let edge = stateful.first, let position = edge.position else { return nil }
        return PeekEdge(slot: edge.slot, position: position)
    }
}

extension DissectorRegistry {
    /// The name a module or plugin gave `uuid`, if any.
    @inlinable
    public func name(of uuid: BluetoothUUID) -> String? {
        uuidNames.isEmpty ? nil : uuidNames[uuid]
    }
}

/// The filter of keys bound in tables' dictionaries (`DissectorRegistry.sparseFilter`).
@usableFromInline
enum SparseFilter {
    /// Words per table: 1,024 bits, so that a table of a few hundred keys rejects most others.
    @usableFromInline static let words = 16

    /// The key's bit, from a multiplicative hash of its parts.
    @inlinable
    static func bit(_ key: DissectorKey) -> Int {
        let mixed = (key.high &* 0x9E37_79B9_7F4A_7C15 ^ key.low ^ (key.isUUID ? 1 : 0)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> 54)
    }
}
