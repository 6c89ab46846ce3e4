/// Where a dissector's input holds the key it hands off by, and where the payload it hands off
/// starts: for a header of fixed shape (an HCI event's code at 0, its parameters from 2). The
/// engine reads it to follow a frame down the layer graph without decoding it
/// (`DissectorRegistry.decodesWithoutState`).
public struct KeyPosition: Sendable, Hashable {
    /// The key's offset in the dissector's input.
    public let offset: Int
    /// The key's width in bytes, little-endian: 1 or 2.
    public let width: Int
    /// The offset of the payload handed off.
    public let payload: Int

    public init(offset: Int, width: Int = 1, payload: Int) {
        self.offset = max(0, offset)
        self.width = min(2, max(1, width))
        self.payload = max(0, payload)
    }

    /// The key in `bytes`, if they hold it.
    @inlinable
    func key(in bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard offset + width <= bytes.count else { return nil }
        return width == 1 ? UInt64(bytes[offset]) : UInt64(bytes[offset]) | UInt64(bytes[offset + 1]) << 8
    }
}

/// The right to hand payloads into one table, given to a dissector while its binding is made
/// (`BindingScope.handoff(into:)`): the registry learns the layer graph from these, and dispatch
/// finds the table by its slot. Plain bits (the slot only, no name), so that a dissector holding
/// some costs nothing to copy.
public struct Handoff<Key: TableKey>: Sendable, BitwiseCopyable {
    @usableFromInline let slot: Int

    init(_ table: Table<Key>, slot: Int) { self.slot = slot }

    /// This handoff with `key` fixed, for layouts (`LayoutItem.dispatchRest`).
    public func with(key: Key) -> KeyedHandoff { KeyedHandoff(slot: slot, key: key.dissectorKey) }
}

/// A handoff with its key fixed: what a layout row hands its rest to.
public struct KeyedHandoff: Sendable, Hashable {
    @usableFromInline let slot: Int
    public let key: DissectorKey
}

/// One edge of the layer graph: a binding hands off into `table`, by a key at `position` when its
/// input has a fixed shape.
struct HandoffEdge: Sendable {
    let table: TableID
    let slot: Int
    let position: KeyPosition?
}

/// What one binding's dissector may do besides decoding its own bytes, recorded while it is made
/// (`RegistryBuilder.bind(to:key:label:_:)`): the tables it hands off into, and whether it reads or
/// changes capture state. The registry derives the layer graph and which bindings keep no state
/// from this; `DissectionContext.state` traps in a binding that did not ask for it, so the record
/// cannot be wrong by omission.
public struct BindingScope {
    var slots: TableSlots
    var edges: [HandoffEdge] = []
    var usesState = false

    /// The handoff into `table`; `position` says where the key sits in this dissector's input
    /// when its header has a fixed shape (so that the engine can follow frames without decoding).
    public mutating func handoff<K>(into table: Table<K>, keyAt position: KeyPosition? = nil) -> Handoff<K> {
        let slot = slots.slot(table.id)
        edges.append(HandoffEdge(table: table.id, slot: slot, position: position))
        return Handoff(table, slot: slot)
    }

    /// Declares that the dissector reads or changes capture state (`DissectionContext.state`):
    /// its PDUs are then decoded in capture order by one engine.
    public mutating func usesCaptureState() { usesState = true }
}

/// The slots of the tables named so far, in the order first named.
struct TableSlots: Sendable {
    private(set) var byID: [TableID: Int] = [:]
    private(set) var ids: [TableID] = []

    mutating func slot(_ id: TableID) -> Int {
        if let s = byID[id] { return s }
        byID[id] = ids.count
        ids.append(id)
        return ids.count - 1
    }
}
