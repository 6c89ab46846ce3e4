/// One decoded field in a frame's tree.
public struct FieldNode: Sendable, BitwiseCopyable {
    public var field: FieldID
    /// Nesting depth: 0 for layers under the frame, +1 for each level inside.
    public var depth: UInt16
    /// Data source: 0 for the frame's bytes, n for `ProtocolTree.sources[n - 1]`.
    public var source: UInt16
    public var start: Int32
    public var length: Int32
    public var value: FieldValue

    public var range: Range<Int> { Int(start)..<(Int(start) + Int(length)) }
}

/// A frame's decoded fields: a flat, pre-order array of nodes with depths, plus the extra data
/// sources (reassembled PDUs) that nodes may point into. Reused from frame to frame.
public struct ProtocolTree: Sendable {
    /// The direction the dissectors learnt from the frame itself, when the capture did not give
    /// one (a sniffer's packets: central to peripheral counts as sent). See
    /// `CapturedFrame.withDirection(of:)`.
    public internal(set) var learnedDirection: Direction?
    /// The nodes: the first `storedNodes` of one buffer kept from frame to frame. Copies of the
    /// tree may share the buffer. A tree appends in place only when its nodes are all the buffer
    /// holds (`storedNodes == storage.count`): what it writes is then past every copy's nodes,
    /// and a copy that appends next finds the buffer longer than its nodes and takes a buffer of
    /// its own (`ownNodes`). Any other change (growing, emptying, changing a node) takes one
    /// first too, so a copy read on another thread never sees its nodes move or change. Appending
    /// a node thus needs no uniqueness check (a call into the runtime). The one use this does not
    /// support is appending to two copies of one tree at the same time on two threads.
    @usableFromInline var storage = TreeBuffer<FieldNode>(capacity: 64, limit: ProtocolTree.maximumNodes)
    /// How many of `storage`'s nodes are this tree's.
    @usableFromInline var storedNodes = 0
    /// The nodes as an array (a copy: hot paths use `withNodes`).
    public var nodes: [FieldNode] { withNodes { Array($0) } }
    /// The number of nodes.
    public var nodeCount: Int { storedNodes }
    /// With a field mask: the nodes asked for so far, kept or not, and the handle of each kept
    /// node (see `nextIndex`).
    @usableFromInline var attempted = 0
    /// The first `keptCount` of `keptAt` are this tree's, shared with copies as `storage` is.
    private var keptAt = TreeBuffer<Int32>(capacity: 1)
    private var keptCount = 0
    /// Data sources besides the frame's bytes: reassembled PDUs and SDUs.
    public private(set) var sources: [[UInt8]] = []
    public private(set) var sourceNames: [String] = []
    /// The strings that `.string` and `.expert` values refer to.
    public private(set) var texts: [String] = []
    /// The depth new nodes get.
    public private(set) var depth: Int = 0
    /// The innermost protocol's summary, for one-line output, as UTF-8 bytes kept from frame to
    /// frame so that building it allocates nothing. Untrusted text in it is already escaped.
    @usableFromInline var infoStorage = TreeBuffer<UInt8>(capacity: 128)
    /// A summary set (`setInfo`) but not yet written into `infoStorage`. Most frames' lower
    /// layers (ACL, L2CAP) set a summary that the next layer replaces, so such a summary is
    /// written only when something appends to it or the frame is finished (`settleInfo`); until
    /// then it replaces what `infoStorage` holds.
    @usableFromInline var pendingInfo: PendingInfo? = nil
    /// Changes whenever the summary is set, cleared or appended to: a dissector that set a
    /// summary can tell whether anything changed it since.
    public private(set) var infoVersion = 0
    /// The length of the summary in bytes.
    public var infoCount: Int { pendingInfo?.count ?? infoStorage.count }
    /// The summary as a string (made on each call; renderers read `withInfoBytes`).
    public var info: String {
        get { withInfoBytes { String(decoding: $0, as: UTF8.self) } }
        set {
            clearInfo()
            appendInfo(newValue)
        }
    }

    /// Calls `body` with the summary's bytes, in place once the summary is settled (as the
    /// engine leaves every finished tree).
    @inlinable
    public func withInfoBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        guard let pendingInfo else { return try infoStorage.withElements(body) }
        let bytes = pendingInfo.bytes()
        return try bytes.withUnsafeBufferPointer(body)
    }

    /// Sets the summary to `info`, to be written when needed (see `pendingInfo`).
    public mutating func setInfo(_ info: PendingInfo) {
        pendingInfo = info
        infoVersion &+= 1
    }

    /// Writes a pending summary into the summary's storage.
    public mutating func settleInfo() {
        guard let info = pendingInfo else { return }
        pendingInfo = nil
        emptyInfoStorage()
        info.write(to: &self)
    }
    /// Set when the node limit dropped nodes.
    public internal(set) var overflowed = false
    /// Index of the first node added by a post-dissector (derived fields such as `device.*`);
    /// the nodes before it are the frame's own protocol layers.
    public var derivedStart: Int = Int.max

    /// The most nodes one frame may have; past it, one expert note says so.
    public static let maximumNodes = 4096
    /// The deepest nesting allowed.
    public static let maximumDepth = 32

    public init() {}

    /// Empties the tree, keeping its capacity.
    public mutating func reset() {
        attempted = 0
        learnedDirection = nil
        if fieldMask != nil {
            if isKnownUniquelyReferenced(&keptAt) { keptAt.count = 0 } else { keptAt = TreeBuffer<Int32>(capacity: 64) }
            keptCount = 0
        }
        if isKnownUniquelyReferenced(&storage) {
            storage.count = 0
        } else {
            storage = TreeBuffer<FieldNode>(capacity: 64, limit: ProtocolTree.maximumNodes)
        }
        storedNodes = 0
        // Most frames have no sources, a few have one, and a frame has a text or two: popping
        // them costs less than `removeAll`'s generic path (and nothing when there are none).
        while sources.popLast() != nil {}
        while sourceNames.popLast() != nil {}
        while texts.popLast() != nil {}
        depth = 0
        clearInfo()
        overflowed = false
        derivedStart = Int.max
    }

    /// Adds a node at the current depth.
    @inlinable
    public mutating func add(_ field: FieldID, _ value: FieldValue, _ range: Range<Int>, source: Int = 0) {
        // Inlined into dissectors, so that a node the mask drops costs a test, not a call.
        if let mask = fieldMask {
            attempted &+= 1
            guard mask.keeps(field) else { return }
        }
        store(field, value, range, source: source)
    }

    /// Stores a node the mask kept. The common case (no field mask, room in the buffer, this
    /// tree's nodes at its end, a depth, range and source that fit a node's fields as they are) is
    /// a few instructions and no call; the rest (growth, the node limit, clamping, the mask's
    /// handles, a buffer shared with a copy) is `storeSlowly`.
    @usableFromInline
    mutating func store(_ field: FieldID, _ value: FieldValue, _ range: Range<Int>, source: Int) {
        let lower = range.lowerBound
        let upper = range.upperBound
        let count = storedNodes
        let buffer = storage
        // Both ends in 0...Int32.max (so the length is too), the source and depth in
        // 0...UInt16.max: no clamping to do. The capacity never exceeds the node limit, so below
        // it the limit is not reached.
        if UInt(bitPattern: lower | upper) <= UInt(Int32.max), UInt(bitPattern: source | depth) <= UInt(UInt16.max),
            count == buffer.count, count < buffer.capacity
        {
            if fieldMask != nil {
                // The handle the node was asked for under, appended as a node is.
                let kept = keptAt
                let k = keptCount
                guard k == kept.count, k < kept.capacity else {
                    storeSlowly(field, value, range, source: source)
                    return
                }
                (kept.base + k).initialize(to: Int32(truncatingIfNeeded: attempted &- 1))
                kept.count = k &+ 1
                keptCount = k &+ 1
            }
            (buffer.base + count).initialize(
                to: FieldNode(
                    field: field,
                    depth: UInt16(truncatingIfNeeded: depth),
                    source: UInt16(truncatingIfNeeded: source),
                    start: Int32(truncatingIfNeeded: lower),
                    length: Int32(truncatingIfNeeded: upper &- lower),
                    value: value
                )
            )
            buffer.count = count &+ 1
            storedNodes = count &+ 1
            return
        }
        storeSlowly(field, value, range, source: source)
    }

    @inline(never)
    private mutating func storeSlowly(_ field: FieldID, _ value: FieldValue, _ range: Range<Int>, source: Int) {
        guard storedNodes < Self.maximumNodes else {
            overflowed = true
            return
        }
        if fieldMask != nil {
            // As for nodes (`append`): in place only at the buffer's end and within its capacity.
            if keptCount != keptAt.count || keptCount == keptAt.capacity {
                if isKnownUniquelyReferenced(&keptAt) {
                    keptAt.count = keptCount
                } else {
                    keptAt = keptAt.copy(keeping: keptCount)
                }
            }
            keptAt.append(Int32(truncatingIfNeeded: attempted &- 1))
            keptCount = keptAt.count
        }
        append(
            FieldNode(
                field: field,
                depth: UInt16(clamping: depth),
                source: UInt16(clamping: source),
                start: Int32(clamping: range.lowerBound),
                length: Int32(clamping: range.count),
                value: value
            )
        )
    }

    /// Makes the node buffer this tree's alone, holding only this tree's nodes, before a change
    /// other than an append at its end within its capacity.
    private mutating func ownNodes() {
        if isKnownUniquelyReferenced(&storage) {
            storage.count = storedNodes
        } else {
            storage = storage.copy(keeping: storedNodes)
        }
    }

    /// Empties the summary.
    public mutating func clearInfo() {
        pendingInfo = nil
        infoVersion &+= 1
        emptyInfoStorage()
    }

    private mutating func emptyInfoStorage() {
        if infoStorage.count == 0 { return }
        if isKnownUniquelyReferenced(&infoStorage) {
            infoStorage.count = 0
        } else {
            infoStorage = TreeBuffer<UInt8>(capacity: 128)
        }
    }

    /// The summary's storage, ready to be changed.
    private mutating func writableInfo() -> TreeBuffer<UInt8> {
        if pendingInfo != nil { settleInfo() }
        infoVersion &+= 1
        if !isKnownUniquelyReferenced(&infoStorage) { infoStorage = infoStorage.copy() }
        return infoStorage
    }

    /// Appends trusted UTF-8 `bytes` to the summary.
    mutating func appendInfo(bytes: UnsafeBufferPointer<UInt8>) { writableInfo().append(bytes) }

    /// Appends `text` to the summary as it is (trusted text: names from tables, numbers).
    public mutating func appendInfo(_ text: String) {
        let storage = writableInfo()
        // In place when the string is contiguous UTF-8 (native and small strings are): no copy of
        // the string, and no reference counted.
        if text.utf8.withContiguousStorageIfAvailable({ storage.append($0) }) == nil {
            var copy = text
            copy.withUTF8 { storage.append($0) }
        }
    }

    /// Appends `0x` and `value` in hex (upper case unless told), zero-padded to `digits` digits.
    public mutating func appendInfoHex(_ value: UInt64, digits: Int, upperCase: Bool = true) {
        let storage = writableInfo()
        storage.append(0x30)
        storage.append(0x78)
        let needed = max(digits, (64 - value.leadingZeroBitCount + 3) / 4)
        var shift = needed * 4
        while shift > 0 {
            shift -= 4
            storage.append(
                HexText.digit(UInt8(truncatingIfNeeded: (value >> UInt64(shift)) & 0xF), upperCase: upperCase)
            )
        }
    }

    /// Appends `value` in decimal.
    public mutating func appendInfoDecimal<T: BinaryInteger>(_ value: T) {
        let storage = writableInfo()
        if value < 0 { storage.append(0x2D) }
        var v = UInt64(truncatingIfNeeded: value.magnitude)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var i = 20
            repeat {
                i -= 1
                digits[i] = 0x30 + UInt8(truncatingIfNeeded: v % 10)
                v /= 10
            } while v > 0 && i > 0
            storage.append(UnsafeBufferPointer(rebasing: digits[i...]))
        }
    }

    /// Appends untrusted `text` to the summary with `TerminalSafeText`'s escaping.
    public mutating func appendInfo(escaping text: String) {
        var out = InfoAppender(storage: writableInfo())
        TerminalSafeText.appendEscaped(text, to: &out)
    }

    /// Keeps `text` beside the tree and returns the reference a `.string` value holds.
    public mutating func intern(_ text: String) -> TextRef {
        texts.append(text)
        return TextRef(index: UInt32(truncatingIfNeeded: texts.count - 1))
    }

    /// Keeps `more` beside the tree, after the texts it has (the texts of a tree handed over
    /// apart from it: `load(flat:texts:)`).
    mutating func intern(contentsOf more: ArraySlice<String>) {
        // One append a text: a frame has few, and `append(contentsOf:)` costs more than several.
        for i in more.indices { texts.append(more[i]) }
    }

    /// The string a `.string` or `.expert` value refers to.
    @inlinable
    public func text(_ ref: TextRef) -> String {
        Int(ref.index) < texts.count ? texts[Int(ref.index)] : ""
    }

    /// The string of a `.string` or `.expert` value, nil for other values.
    public func text(of value: FieldValue) -> String? {
        switch value {
        case .string(let ref), .expert(_, let ref): text(ref)
        default: nil
        }
    }

    /// Adds a node whose value is `text`; the text is made only when the mask keeps the node.
    public mutating func add(_ field: FieldID, text: @autoclosure () -> String, _ range: Range<Int>, source: Int = 0) {
        if let mask = fieldMask, !mask.keeps(field) {
            attempted &+= 1
            return
        }
        let ref = intern(text())
        add(field, .string(ref), range, source: source)
    }

    /// Opens a node whose value is `text` (see `open`); the text is made only when the mask keeps
    /// the node.
    public mutating func open(_ field: FieldID, text: @autoclosure () -> String, _ range: Range<Int>, source: Int = 0) {
        if let mask = fieldMask, !mask.keeps(field) {
            attempted &+= 1
            depth += 1
            return
        }
        let ref = intern(text())
        open(field, .string(ref), range, source: source)
    }

    /// Adds a node and makes the following nodes its children until `close()`.
    public mutating func open(_ field: FieldID, _ value: FieldValue = .none, _ range: Range<Int>, source: Int = 0) {
        add(field, value, range, source: source)
        depth += 1
    }

    /// Ends the children of the last `open`.
    public mutating func close() {
        if depth > 0 { depth -= 1 }
    }

    /// Restores the depth saved before a dissector ran (after an error left nodes open).
    public mutating func restoreDepth(_ saved: Int) { depth = saved }

    /// Extends the byte range of the node at `index` to `end` (for layers whose length is known
    /// only after decoding).
    public mutating func setEnd(ofNode handle: Int, to end: Int) {
        guard let node = storedNode(handle) else { return }
        node.pointee.length = Int32(clamping: max(0, end - Int(node.pointee.start)))
    }

    /// Replaces the value of the node at `handle` (a fact a later layer settles, such as who sent
    /// a packet); nothing when the node was not kept. The value must be of the node's field's type.
    public mutating func setValue(ofNode handle: Int, _ value: FieldValue) {
        guard let node = storedNode(handle) else { return }
        node.pointee.value = value
    }

    /// The stored node a handle from `nextIndex` names, in this tree's own buffer; nil when the
    /// field mask dropped it.
    private mutating func storedNode(_ handle: Int) -> UnsafeMutablePointer<FieldNode>? {
        var index = handle
        if fieldMask != nil {
            // The handle counts every node asked for; find the kept one it names, if it was kept.
            let handles = UnsafeBufferPointer(start: keptAt.base, count: keptCount)
            guard let kept = withExtendedLifetime(keptAt, { handles.lastIndex(of: Int32(truncatingIfNeeded: handle)) })
            else {
                return nil
            }
            index = kept
        }
        guard index >= 0, index < storedNodes else { return nil }
        ownNodes()
        return storage.base + index
    }

    /// Whether a node of `field` would be kept (always, without a field mask): a dissector
    /// that must look something up only for a node (a name, say) asks first.
    @inlinable
    public func keeps(_ field: FieldID) -> Bool {
        guard let mask = fieldMask else { return true }
        return mask.keeps(field)
    }

    /// Index the next node will get.
    /// A handle for the next node, for `setEnd(ofNode:to:)`: its index, or with a field mask,
    /// its place among all the nodes asked for.
    public var nextIndex: Int { fieldMask == nil ? storedNodes : attempted }

    /// Keeps only the nodes of the fields in `mask` (nil: all of them). For callers that read
    /// only some fields (a display filter, `-T fields`) and nothing that needs the whole tree:
    /// the other nodes are not stored. Set it before the first node of a frame.
    public var fieldMask: FieldMask? {
        didSet { reset() }
    }

    /// Calls `body` with the nodes, in place.
    @inlinable
    public func withNodes<R>(_ body: (UnsafeBufferPointer<FieldNode>) throws -> R) rethrows -> R {
        try withExtendedLifetime(storage) { try body(UnsafeBufferPointer(start: storage.base, count: storedNodes)) }
    }

    /// Adds a data source (a reassembled PDU) and returns its source number for readers.
    public mutating func addSource(_ bytes: [UInt8], name: String) -> Int {
        sources.append(bytes)
        sourceNames.append(name)
        return sources.count
    }

    /// Inlined: it runs for every node.
    @inline(__always)
    mutating func append(_ node: FieldNode) {
        guard storedNodes < Self.maximumNodes else {
            overflowed = true
            return
        }
        // At the buffer's end, appending in place changes no copy's nodes (see `storage`); growing
        // replaces the buffer's memory, which only a buffer of this tree's alone may do.
        if storedNodes != storage.count || storedNodes == storage.capacity { ownNodes() }
        storage.append(node)
        storedNodes = storage.count
    }

    /// The bytes of a data source: 0 is `frameBytes`.
    public func bytes(of source: UInt16, frameBytes: [UInt8]) -> [UInt8] {
        source == 0 ? frameBytes : (Int(source) <= sources.count ? sources[Int(source) - 1] : [])
    }
}

/// A one-line summary not yet written (`ProtocolTree.pendingInfo`): a fixed text, then `0x` and
/// four upper-case hex digits ("Rcvd ACL Data, Handle 0x0040"). Plain bits: setting one and
/// dropping it, as most frames do for their lower layers, costs no reference counting.
public struct PendingInfo: Sendable, BitwiseCopyable {
    let prefix: StaticString
    let hex16: UInt16

    public init(_ prefix: StaticString, hex16: UInt16) {
        self.prefix = prefix
        self.hex16 = hex16
    }

    /// The summary's length in bytes.
    @usableFromInline var count: Int { prefix.utf8CodeUnitCount + 6 }

    /// Appends the summary to `tree`'s (empty) summary.
    func write(to tree: inout ProtocolTree) {
        prefix.withUTF8Buffer { tree.appendInfo(bytes: $0) }
        tree.appendInfoHex(UInt64(hex16), digits: 4)
    }

    /// The summary's bytes, as `ProtocolTree.settleInfo` writes them.
    @usableFromInline func bytes() -> [UInt8] {
        prefix.withUTF8Buffer { Array($0) } + Array(HexText.prefixed(UInt64(hex16), digits: 4).utf8)
    }
}

/// A tree's node buffer or summary bytes: a buffer that grows by doubling (up to `limit`
/// elements) and is kept from frame to frame. The tree copies it before changing it when another
/// tree shares it, as an array would; appending costs a fraction of an array's append.
@usableFromInline
final class TreeBuffer<Element: BitwiseCopyable>: @unchecked Sendable {
    @usableFromInline var base: UnsafeMutablePointer<Element>
    @usableFromInline var count = 0
    var capacity: Int
    let limit: Int

    init(capacity: Int, limit: Int = Int.max) {
        self.limit = max(1, limit)
        self.capacity = min(max(1, capacity), self.limit)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    func copy() -> TreeBuffer { copy(keeping: count) }

    /// A buffer of its own holding the first `kept` elements (at most `count`).
    func copy(keeping kept: Int) -> TreeBuffer {
        let n = max(0, min(kept, count))
        let other = TreeBuffer(capacity: capacity, limit: limit)
        other.base.initialize(from: base, count: n)
        other.count = n
        return other
    }

    /// Appends `element`; the caller keeps `count` below `limit`.
    @inline(__always)
    func append(_ element: Element) {
        if count == capacity { grow(to: count + 1) }
        (base + count).initialize(to: element)
        count += 1
    }

    @inline(__always)
    func append(_ run: UnsafeBufferPointer<Element>) {
        guard let source = run.baseAddress else { return }
        let n = run.count
        if count + n > capacity { grow(to: count + n) }
        if n <= 16 {
            // Summary pieces are short: a loop beats a call to memcpy.
            let to = base + count
            for i in 0..<n { (to + i).initialize(to: source[i]) }
        } else {
            (base + count).initialize(from: source, count: n)
        }
        count += n
    }

    /// Makes room for `needed` elements in all.
    func reserve(_ needed: Int) {
        if needed > capacity { grow(to: needed) }
    }

    private func grow(to needed: Int) {
        let grown = min(max(capacity * 2, needed, 16), max(limit, needed))
        let new = UnsafeMutablePointer<Element>.allocate(capacity: grown)
        new.initialize(from: base, count: count)
        base.deallocate()
        base = new
        capacity = grown
    }

    @inlinable
    func withElements<R>(_ body: (UnsafeBufferPointer<Element>) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(UnsafeBufferPointer(start: base, count: count)) }
    }
}

/// Escaped text into a summary.
struct InfoAppender: EscapedTextOutput {
    let storage: TreeBuffer<UInt8>
    mutating func appendByte(_ byte: UInt8) { storage.append(byte) }
    mutating func appendRun(_ run: UnsafeBufferPointer<UInt8>) { storage.append(run) }
}

/// The fields a tree keeps (see `ProtocolTree.fieldMask`).
public final class FieldMask: Sendable {
    @usableFromInline let keep: [Bool]

    public init(_ fields: Set<FieldID>, fieldCount: Int) {
        var keep = [Bool](repeating: false, count: fieldCount)
        for f in fields where Int(f.rawValue) < fieldCount { keep[Int(f.rawValue)] = true }
        self.keep = keep
    }

    @inlinable
    public func keeps(_ field: FieldID) -> Bool {
        let i = Int(field.rawValue)
        return i < keep.count && keep[i]
    }
}
