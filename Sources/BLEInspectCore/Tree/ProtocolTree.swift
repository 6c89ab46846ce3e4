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
    public private(set) var nodes: [FieldNode] = []
    /// Data sources besides the frame's bytes: reassembled PDUs and SDUs.
    public private(set) var sources: [[UInt8]] = []
    public private(set) var sourceNames: [String] = []
    /// The strings that `.string` and `.expert` values refer to.
    public private(set) var texts: [String] = []
    /// The depth new nodes get.
    public private(set) var depth: Int = 0
    /// The innermost protocol's summary, for one-line output, as UTF-8 bytes kept from frame to
    /// frame so that building it allocates nothing. Untrusted text in it is already escaped.
    public private(set) var infoBytes: [UInt8] = []
    /// The summary as a string (made on each call; renderers read `infoBytes`).
    public var info: String {
        get { String(decoding: infoBytes, as: UTF8.self) }
        set {
            infoBytes.removeAll(keepingCapacity: true)
            appendInfo(newValue)
        }
    }
    /// Set when the node limit dropped nodes.
    public private(set) var overflowed = false
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
        nodes.removeAll(keepingCapacity: true)
        sources.removeAll(keepingCapacity: true)
        sourceNames.removeAll(keepingCapacity: true)
        texts.removeAll(keepingCapacity: true)
        depth = 0
        infoBytes.removeAll(keepingCapacity: true)
        overflowed = false
        derivedStart = Int.max
    }

    /// Adds a node at the current depth.
    public mutating func add(_ field: FieldID, _ value: FieldValue, _ range: Range<Int>, source: Int = 0) {
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

    /// Empties the summary.
    public mutating func clearInfo() { infoBytes.removeAll(keepingCapacity: true) }

    /// Appends `text` to the summary as it is (trusted text: names from tables, numbers).
    public mutating func appendInfo(_ text: String) {
        // A copy of the contiguous UTF-8 costs a fraction of appending the view as a sequence.
        var text = text
        text.withUTF8 { infoBytes.append(contentsOf: $0) }
    }

    /// Appends `0x` and `value` in hex (upper case unless told), zero-padded to `digits` digits.
    public mutating func appendInfoHex(_ value: UInt64, digits: Int, upperCase: Bool = true) {
        infoBytes.append(0x30)
        infoBytes.append(0x78)
        let needed = max(digits, (64 - value.leadingZeroBitCount + 3) / 4)
        var shift = needed * 4
        while shift > 0 {
            shift -= 4
            let d = UInt8(truncatingIfNeeded: (value >> UInt64(shift)) & 0xF)
            infoBytes.append(d < 10 ? 0x30 + d : (upperCase ? 0x37 : 0x57) + d)
        }
    }

    /// Appends untrusted `text` to the summary with `TerminalSafeText`'s escaping.
    public mutating func appendInfo(escaping text: String) {
        TerminalSafeText.appendEscaped(text, to: &infoBytes)
    }

    /// Keeps `text` beside the tree and returns the reference a `.string` value holds.
    public mutating func intern(_ text: String) -> TextRef {
        texts.append(text)
        return TextRef(index: UInt32(truncatingIfNeeded: texts.count - 1))
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

    /// Adds a node whose value is `text`.
    public mutating func add(_ field: FieldID, text: String, _ range: Range<Int>, source: Int = 0) {
        let ref = intern(text)
        add(field, .string(ref), range, source: source)
    }

    /// Opens a node whose value is `text` (see `open`).
    public mutating func open(_ field: FieldID, text: String, _ range: Range<Int>, source: Int = 0) {
        let ref = intern(text)
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
    public mutating func setEnd(ofNode index: Int, to end: Int) {
        guard nodes.indices.contains(index) else { return }
        nodes[index].length = Int32(clamping: max(0, end - Int(nodes[index].start)))
    }

    /// Index the next node will get.
    public var nextIndex: Int { nodes.count }

    /// Adds a data source (a reassembled PDU) and returns its source number for readers.
    public mutating func addSource(_ bytes: [UInt8], name: String) -> Int {
        sources.append(bytes)
        sourceNames.append(name)
        return sources.count
    }

    mutating func append(_ node: FieldNode) {
        if nodes.count < Self.maximumNodes {
            nodes.append(node)
        } else {
            overflowed = true
        }
    }

    /// The bytes of a data source: 0 is `frameBytes`.
    public func bytes(of source: UInt16, frameBytes: [UInt8]) -> [UInt8] {
        source == 0 ? frameBytes : (Int(source) <= sources.count ? sources[Int(source) - 1] : [])
    }
}
