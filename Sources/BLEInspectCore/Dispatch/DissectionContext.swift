/// What lower layers tell upper ones about the current PDU (Wireshark calls this "pinfo").
public struct PacketInfo: Sendable {
    /// The connection the ACL data belongs to.
    public var connection: ConnectionKey?
    /// The L2CAP channel id of the current PDU.
    public var cid: UInt16?
    /// The PSM of the current credit-based channel.
    public var psm: UInt16?
    /// The ATT opcode of the PDU whose attribute value is being decoded (a read response, a
    /// notification, a write…), for value decoders that publish what the value says.
    public var attOpcode: UInt8?
    /// What a sniffer header said about the current link-layer packet.
    public var linkLayer: LinkLayerInfo?
    /// The address of the advertiser whose report is being decoded.
    public var advertiser: BDAddr?
    // Plain bits only: a field that holds a reference (an array, say) makes emptying it for
    // every frame a call that releases. The frame's edits are `DissectionContext.edits`.
    public init() {}
}

/// What a sniffer's header says about one over-the-air packet, for the link-layer dissector.
public struct LinkLayerInfo: Sendable {
    /// Whether the sniffer checked the CRC, and what it found.
    public enum CRC: UInt8, Sendable { case unchecked, valid, invalid }
    /// Who sent a data-channel packet, when the sniffer says.
    public enum Sender: UInt8, Sendable { case unknown, central, peripheral }

    /// RF channel index 0–39, when known.
    public var channel: UInt8?
    public var crc: CRC = .unchecked
    public var sender: Sender = .unknown
    /// Whether the sniffer says which packets were sent encrypted (`encrypted`); when it does
    /// not, the link layer follows the encryption procedure itself.
    public var reportsEncryption = false
    /// The sniffer says the packet was sent encrypted.
    public var encrypted = false
    /// The sniffer decrypted the packet: its payload is plain text (and carries no MIC).
    public var decrypted = false
    /// The sniffer says the MIC was checked and is wrong.
    public var badMIC = false
    /// The sniffer says the packet is an auxiliary advertising PDU (secondary channel).
    public var auxiliary = false
    /// 0 LE 1M, 1 LE 2M, 2 LE Coded, when known.
    public var phy: UInt8?
    /// How the sniffer header says a packet was decrypted with its MIC checked (its flag bits
    /// set), for writing a decrypted packet, as sent by the central; `peripheralMarkBits`, the
    /// bits that differ in the mark of a packet the peripheral sent (its direction bits: a MIC
    /// that verifies in the other direction than the sniffer's corrects them; 0 when the header
    /// does not say who sent a packet); and where its 16-bit payload length is, with its value,
    /// when the header counts the packet's bytes.
    public var decryptedMark: ByteMark?
    public var peripheralMarkBits: UInt16 = 0
    public var headerLength: (offset: Int, value: UInt16)?

    public init() {}
}

/// The state of dissecting one frame: the tree being built, the capture-wide state, the frame's
/// metadata, and the dispatcher. Passed `inout` to every dissector.
public struct DissectionContext {
    public let registry: DissectorRegistry
    /// The capture's state; dissectors reach it through `state`, which checks that their binding
    /// asked for it.
    @usableFromInline let captureState: CaptureState
    /// Links to later frames, from a first pass (`read -2`); nil in one pass.
    public internal(set) var forward: ForwardLinks?
    /// Whether the binding running now asked for capture state (`BindingScope.usesCaptureState`).
    @usableFromInline var stateGranted = true
    /// Whether a binding that keeps no state is running (beneath which all must keep none).
    var withinStateless = false
    public var tree: ProtocolTree
    public internal(set) var frameNumber: Int
    public internal(set) var timestamp: Timestamp
    /// Which way the frame went: from the capture, or set by a dissector that learns it from the
    /// frame itself (a sniffer's central-to-peripheral packets count as sent, as tshark shows them).
    public var direction: Direction
    public internal(set) var controller: UInt16
    public var packet = PacketInfo()
    /// Changes the frame's dissectors made to it, for writing it as decoded (`FrameEdit`):
    /// `DissectionEngine.edits`. Emptied when the next frame begins.
    public var edits: [FrameEdit] = []
    /// Whether one-line summaries are wanted; when false, `setInfo` does not build strings.
    public internal(set) var wantsInfo: Bool
    @usableFromInline var dispatchDepth = 0
    /// Tables (bit: the table's slot) whose dispatches are skipped: see
    /// `DissectionEngine.skip(_:)`.
    var skippedTables: UInt64
    /// Single keys of tables whose dispatches are skipped.
    var skippedKeys: SkippedKeys
    /// Whether expert messages are built; when false their nodes carry empty text.
    public internal(set) var wantsExpertText: Bool

    /// The deepest chain of dispatches allowed.
    public static let maximumDispatchDepth = 16

    public init(
        registry: DissectorRegistry,
        state: CaptureState,
        tree: ProtocolTree,
        frame: CapturedFrame,
        wantsInfo: Bool,
        skippedTables: UInt64 = 0,
        skippedKeys: SkippedKeys = SkippedKeys(),
        wantsExpertText: Bool = true
    ) {
        self.skippedTables = skippedTables
        self.skippedKeys = skippedKeys
        self.wantsExpertText = wantsExpertText
        self.registry = registry
        self.captureState = state
        self.tree = tree
        self.frameNumber = frame.number
        self.timestamp = frame.timestamp
        self.direction = frame.direction
        self.controller = frame.controllerIndex ?? 0
        self.wantsInfo = wantsInfo
    }

    /// Starts the next frame in this context (kept by the engine from frame to frame, so that
    /// no reference is counted per frame): its metadata, an empty tree, no packet info.
    mutating func begin(
        _ frame: borrowing CapturedFrame,
        wantsInfo: Bool,
        skippedTables: UInt64,
        skippedKeys: SkippedKeys,
        wantsExpertText: Bool
    ) {
        frameNumber = frame.number
        timestamp = frame.timestamp
        direction = frame.direction
        controller = frame.controllerIndex ?? 0
        packet = PacketInfo()
        if !edits.isEmpty { edits = [] }
        self.wantsInfo = wantsInfo
        dispatchDepth = 0
        stateGranted = true
        withinStateless = false
        self.skippedTables = skippedTables
        self.skippedKeys = skippedKeys
        self.wantsExpertText = wantsExpertText
        tree.reset()
    }

    /// The capture's state, for a dissector whose binding asked for it
    /// (`BindingScope.usesCaptureState()`). Any other dissector's PDUs may be decoded by another
    /// engine, out of order, so reaching the state from one is a programming error: it traps,
    /// naming the rule, rather than giving different output with and without threads.
    public var state: CaptureState {
        checkStateGranted()
        return captureState
    }

    /// The state object of type `T` (`CaptureState.module`), without counting a reference to it:
    /// for a dissector that holds it only while it decodes a PDU, through
    /// `Unmanaged._withUnsafeGuaranteedRef` (see `CaptureState.unretainedModule`). The same
    /// rule as `state`'s applies.
    @inlinable
    public func unretainedModule<T: AnyObject>(_ type: T.Type, make: () -> T) -> Unmanaged<T> {
        checkStateGranted()
        return captureState.unretainedModule(type, make: make)
    }

    @inlinable
    func checkStateGranted() {
        precondition(
            stateGranted,
            "a dissector read capture state without its binding asking for it (BindingScope.usesCaptureState())"
        )
    }

    /// Values made once per engine from configuration alone (`ConstantStore`).
    public var constants: ConstantStore { ConstantStore(state: captureState) }

    /// The core fields (frame, expert, data).
    public var core: CoreFields { registry.core }

    /// Sets the one-line summary; the text is built only when summaries are wanted.
    @inlinable
    public mutating func setInfo(_ text: @autoclosure () -> String) {
        if wantsInfo {
            tree.clearInfo()
            tree.appendInfo(text())
        }
    }

    /// Appends to the one-line summary, separated by a comma.
    @inlinable
    public mutating func appendInfo(_ text: @autoclosure () -> String) {
        if wantsInfo {
            if tree.infoCount != 0 { tree.appendInfo(", ") }
            tree.appendInfo(text())
        }
    }

    /// Sets the summary to the concatenation of the parts, without building a string. Each part
    /// is evaluated only when summaries are wanted.
    public mutating func setInfo(
        parts a: @autoclosure () -> String,
        _ b: @autoclosure () -> String,
        _ c: @autoclosure () -> String = "",
        _ d: @autoclosure () -> String = ""
    ) {
        guard wantsInfo else { return }
        tree.clearInfo()
        tree.appendInfo(a())
        tree.appendInfo(b())
        // Most calls leave the last parts empty.
        let third = c()
        if !third.isEmpty { tree.appendInfo(third) }
        let fourth = d()
        if !fourth.isEmpty { tree.appendInfo(fourth) }
    }

    /// Sets the summary to `prefix` followed by `value` as `0x` and four upper-case hex digits
    /// ("L2CAP CID 0x0004"). It is written only when needed: the summary of a layer beneath
    /// another, which the next layer replaces, then costs nearly nothing
    /// (`ProtocolTree.pendingInfo`).
    public mutating func setInfo(_ prefix: StaticString, hex16 value: UInt16) {
        guard wantsInfo else { return }
        tree.setInfo(PendingInfo(prefix, hex16: value))
    }

    /// Appends untrusted `text` to the summary in double quotes, escaped, after a comma when the
    /// summary is not empty.
    public mutating func appendQuotedInfo(untrusted text: @autoclosure () -> String) {
        guard wantsInfo else { return }
        if tree.infoCount != 0 { tree.appendInfo(", ") }
        tree.appendInfo("\"")
        tree.appendInfo(escaping: text())
        tree.appendInfo("\"")
    }

    /// Adds an expert note at `range` of the data `source`.
    /// The message is built only when expert text is wanted (`wantsExpertText`); the node and its
    /// severity are always added.
    public mutating func expert(
        _ severity: ExpertSeverity,
        _ message: @autoclosure () -> String,
        _ range: Range<Int>,
        source: Int = 0
    ) {
        let ref = tree.intern(wantsExpertText ? message() : "")
        tree.open(core[.expert], .expert(severity, ref), range, source: source)
        tree.add(core[.expertMessage], .string(ref), range, source: source)
        tree.add(core[.expertSeverity], .unsigned(UInt64(severity.rawValue)), range, source: source)
        tree.close()
    }

    /// Hands `reader` to the dissector bound to `key` in the table of `handoff`.
    ///
    /// Errors stop here: a `DecodeError` from that dissector (or deeper) becomes a malformed
    /// note, the nodes already added stay, and the caller carries on. With no binding, the bytes
    /// are added as undissected data. Returns true when a dissector was found.
    @discardableResult
    @inlinable
    public mutating func handOff<K>(_ handoff: Handoff<K>, _ key: K, _ reader: inout ByteReader) -> Bool {
        dispatch(slot: handoff.slot, key.dissectorKey, &reader)
    }

    /// Hands `reader` on as a layout row says (`LayoutItem.dispatchRest`).
    @discardableResult
    public mutating func handOff(_ handoff: KeyedHandoff, _ reader: inout ByteReader) -> Bool {
        dispatch(slot: handoff.slot, handoff.key, &reader)
    }

    /// The dispatch behind every handoff: skips, lookup, the binding's state right, the error
    /// boundary.
    @usableFromInline
    mutating func dispatch(slot: Int, _ key: DissectorKey, _ reader: inout ByteReader) -> Bool {
        if skippedTables != 0, slot < 64, skippedTables & (1 << UInt64(slot)) != 0 {
            return false
        }
        if skippedKeys.count != 0, slot >= 0, slot < 0x8000, !key.isUUID, key.high == 0, key.low <= 0xFFFF {
            // Most pairs are not skipped: one bit test answers, before the pairs are compared.
            let entry = UInt32(slot) << 16 | UInt32(key.low)
            if skippedKeys.mayHold(entry), skippedKeys.contains(entry) { return false }
        }
        guard let binding = registry.unretainedBinding(slot: slot, key) else {
            if !reader.isAtEnd {
                tree.add(core[.data], .bytes, reader.offset..<(reader.offset + reader.remaining), source: reader.source)
            }
            return false
        }
        binding._withUnsafeGuaranteedRef { run($0, &reader) }
        return true
    }

    /// Hands `reader` to the binding of `key` in the table named `table`, as a handoff would: for
    /// test harnesses and tools that feed one table directly. A dissector hands off through the
    /// `Handoff`s its scope gave it, so that the registry knows the layer graph.
    @_spi(Feeding)
    @discardableResult
    public mutating func feed(_ table: TableID, _ key: DissectorKey, _ reader: inout ByteReader) -> Bool {
        guard let slot = registry.slot(of: table) else {
            if !reader.isAtEnd {
                tree.add(core[.data], .bytes, reader.offset..<(reader.offset + reader.remaining), source: reader.source)
            }
            return false
        }
        return dispatch(slot: slot, key, &reader)
    }

    /// Runs `binding`'s dissector with the state right its scope gave. Beneath a binding that
    /// keeps no state, every binding must keep none too: one that does was reached by a handoff
    /// its scope did not record, and the registry counted the binding above as stateless wrongly.
    mutating func run(_ binding: Binding, _ reader: inout ByteReader) {
        if withinStateless && !binding.keepsNoState { unrecordedHandoff(binding) }
        let (granted, within) = (stateGranted, withinStateless)
        stateGranted = binding.usesState
        withinStateless = binding.keepsNoState
        // The existential is opened here, within the boundary: one call to the dissector, not
        // one to an unspecialized `run` and another from it.
        boundary(&reader) { (r, context) throws(DecodeError) in try binding.dissector.dissect(&r, &context) }
        (stateGranted, withinStateless) = (granted, within)
    }

    @inline(never)
    private func unrecordedHandoff(_ binding: Binding) -> Never {
        preconditionFailure(
            "\(binding.owner) (\(binding.label)) uses capture state but was reached by a handoff its caller's scope did not record (BindingScope.handoff(into:))"
        )
    }

    /// Runs `dissector` on `reader` inside an error boundary (as `dispatch` does). Generic, so
    /// that a caller that knows the decoder's type calls it directly, without an existential box.
    @inlinable
    public mutating func run<D: Dissector>(_ dissector: D, _ reader: inout ByteReader) {
        boundary(&reader) { (r, context) throws(DecodeError) in try dissector.dissect(&r, &context) }
    }

    /// The error boundary of `run`: the depth limit, and a malformed note for an error of `body`.
    @inlinable @inline(__always)
    mutating func boundary(
        _ reader: inout ByteReader,
        _ body: (inout ByteReader, inout DissectionContext) throws(DecodeError) -> Void
    ) {
        guard dispatchDepth < Self.maximumDispatchDepth else {
            malformed(DecodeError(.limitExceeded, offset: reader.offset, "dispatch nested too deep"), reader)
            return
        }
        let savedDepth = tree.depth
        dispatchDepth += 1
        do {
            try body(&reader, &self)
        } catch {
            tree.restoreDepth(savedDepth + (tree.depth > savedDepth ? 1 : 0))
            malformed(error, reader)
        }
        dispatchDepth -= 1
        tree.restoreDepth(savedDepth)
    }

    /// Records a malformed note for `error`, with the bytes that were not decoded.
    public mutating func malformed(_ error: DecodeError, _ reader: ByteReader) {
        let at = min(error.offset, reader.offset + reader.remaining)
        let end = reader.offset + reader.remaining
        let message: String
        switch error.code {
        case .truncated: message = "Malformed: packet too short: \(error.reason)"
        case .malformed: message = "Malformed: \(error.reason)"
        case .limitExceeded: message = "Limit reached: \(error.reason)"
        }
        let ref = tree.intern(message)
        tree.open(core[.malformed], .expert(.error, ref), at..<max(at, end), source: reader.source)
        tree.add(core[.expertMessage], .string(ref), at..<max(at, end), source: reader.source)
        tree.close()
        if wantsInfo { tree.appendInfo(tree.infoCount == 0 ? "[Malformed]" : " [Malformed]") }
    }
}

/// A few (standard table slot, key) pairs, packed as `slot << 16 | key`: plain bits, so that
/// passing them to every frame's context costs nothing.
public struct SkippedKeys: Sendable, BitwiseCopyable {
    /// The most pairs kept; more are ignored (and so not skipped). Twelve: the stateless bindings
    /// a filter on one protocol can skip (advertising reports, Number Of Completed Packets, vendor
    /// events, the monitor's index records, …) fit, with room.
    public static let capacity = 12
    private var entries: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
    public private(set) var count = 0
    /// A filter of the pairs held: bit `filterBit(entry)` of these 128 is set for each, so that
    /// most lookups of a pair not held (the tables of a frame's layers often hold one, under
    /// another key) end after one test, without comparing every pair.
    private var filter: (UInt64, UInt64) = (0, 0)

    public init() {}

    mutating func insert(_ entry: UInt32) {
        guard !contains(entry), count < Self.capacity else { return }
        let bit = Self.filterBit(entry)
        if bit < 64 { filter.0 |= 1 << UInt64(bit) } else { filter.1 |= 1 << UInt64(bit - 64) }
        let shift = UInt64(count % 2) * 32
        let value = UInt64(entry) << shift
        switch count / 2 {
        case 0: entries.0 |= value
        case 1: entries.1 |= value
        case 2: entries.2 |= value
        case 3: entries.3 |= value
        case 4: entries.4 |= value
        default: entries.5 |= value
        }
        count += 1
    }

    @inline(__always)
    func contains(_ entry: UInt32) -> Bool {
        guard mayHold(entry) else { return false }
        // Each word holds two entries; unused lanes are never compared.
        let pair = UInt64(entry) | UInt64(entry) << 32
        return lanes(entries.0 ^ pair, from: 0) || (count > 2 && lanes(entries.1 ^ pair, from: 2))
            || (count > 4 && lanes(entries.2 ^ pair, from: 4)) || (count > 6 && lanes(entries.3 ^ pair, from: 6))
            || (count > 8 && lanes(entries.4 ^ pair, from: 8)) || (count > 10 && lanes(entries.5 ^ pair, from: 10))
    }

    /// The entry's bit in `filter` (0 ..< 128), from a multiplicative hash.
    @inline(__always)
    private static func filterBit(_ entry: UInt32) -> Int { Int((entry &* 0x9E37_79B1) >> 25) }

    /// Whether `entry` may be held: false for most pairs not held, after one test.
    @inline(__always)
    func mayHold(_ entry: UInt32) -> Bool {
        let bit = Self.filterBit(entry)
        let word = bit < 64 ? filter.0 : filter.1
        return word & (1 << UInt64(bit & 63)) != 0
    }

    /// Whether a lane of `difference` (a word XOR-ed with the entry twice) is zero, for the lanes
    /// in use of the word holding entries `first` and `first + 1`.
    @inline(__always)
    private func lanes(_ difference: UInt64, from first: Int) -> Bool {
        (count > first && difference & 0xFFFF_FFFF == 0) || (count > first + 1 && difference >> 32 == 0)
    }

}
