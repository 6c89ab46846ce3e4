/// Dissects frames one after another, keeping the capture's state between them.
public struct DissectionEngine {
    public let registry: DissectorRegistry
    public let state: CaptureState
    /// One context for every frame: building one per frame counted references to the registry,
    /// the state and the tree's arrays, twice, for every frame.
    private var context: DissectionContext
    /// The changes the last frame's dissectors made to it (`FrameEdit`): empty for most frames.
    public var edits: [FrameEdit] { context.edits }
    /// Whether post-dissectors (derived fields such as `device.*`) run. A caller that neither
    /// shows nor filters derived fields turns them off to save their cost; their state then does
    /// not advance, so it must stay off for the whole capture.
    public var runsPostDissectors = true
    /// Whether the `frame` layer (number, times, lengths, direction, kind) is added. A caller that
    /// neither shows nor filters it leaves it out.
    public var addsFrameLayer = true
    private var skippedTables: UInt64 = 0
    /// Whether expert notes carry their message text. A caller that neither shows nor filters
    /// expert text turns it off; the notes and their severities stay.
    public var addsExpertText = true

    /// Keeps only the nodes of `fields` in every frame's tree (see `ProtocolTree.fieldMask`):
    /// for callers that read those fields and nothing else. Not with post-dissectors, which read
    /// the whole tree.
    public mutating func keepOnly(_ fields: Set<FieldID>) {
        context.tree.fieldMask = FieldMask(fields, fieldCount: registry.fields.count)
    }

    /// Skips every dispatch into the standard table `table`: its dissectors, and all beneath them,
    /// do not run and add nothing. For callers that need none of their fields; only tables whose
    /// dissectors keep no capture state that other modules read may be skipped.
    public mutating func skip(_ table: TableID) {
        if let slot = registry.slot(of: table), slot < 64 { skippedTables |= 1 << UInt64(slot) }
    }

    /// Skips every dispatch into `table` (see `skip(_:)`).
    public mutating func skip<K>(_ table: Table<K>) { skip(table.id) }

    /// Skips every stateless binding (`Binding.keepsNoState`) whose fields, and those of the
    /// bindings beneath it, belong to none of the modules `owners`: for callers that need only
    /// those modules' fields. A stateless binding leaves no trace in the capture state, so
    /// leaving it out changes nothing else. Bindings beneath another skipped one need no entry
    /// of their own. Past `SkippedKeys.capacity` entries the rest run: those with most bindings
    /// beneath them (the most work saved, such as advertising reports) come first, then table
    /// and key order.
    public mutating func skipStateless(unlessOwnedBy owners: Set<String>) {
        var skippable: [(weight: Int, slot: Int, table: TableID, key: DissectorKey, beneath: [TableID])] = []
        for (id, table) in registry.tables {
            for (key, binding) in table.bindings
            where binding.keepsNoState && registry.ownersBeneath(binding).isDisjoint(with: owners) {
                let weight = binding.dispatchesInto.reduce(0) { $0 + (registry.tables[$1]?.bindings.count ?? 0) }
                skippable.append((-weight, table.slot, id, key, binding.dispatchesInto))
            }
        }
        let covered = Set(skippable.flatMap(\.beneath))
        skippable.sort {
            ($0.weight, $0.slot, $0.key.high, $0.key.low) < ($1.weight, $1.slot, $1.key.high, $1.key.low)
        }
        for s in skippable where !covered.contains(s.table) { skip(s.table, key: s.key) }
    }

    /// Skips dispatches of `key` into the standard table `table` (integer keys up to 0xFFFF, at
    /// most `SkippedKeys.capacity` of them), with the same conditions as `skip(_:)`.
    public mutating func skip(_ table: TableID, key: DissectorKey) {
        guard let slot = registry.slot(of: table), slot < 0x8000, !key.isUUID, key.high == 0, key.low <= 0xFFFF
        else { return }
        skippedKeys.insert(UInt32(slot) << 16 | UInt32(key.low))
    }
    private var skippedKeys = SkippedKeys()
    /// The capture's frames so far, for the relative time fields of frames dissected without
    /// times of their own (`dissect(_:wantsInfo:_:)`). A caller that filters says which frames
    /// were not displayed (`FrameTimeline.lastNotDisplayed`).
    public var timeline = FrameTimeline()
    /// Links to later frames: collected by a first pass's engine, shown by a second's (`read -2`).
    public var forwardLinks: ForwardLinks? {
        get { context.forward }
        set { context.forward = newValue }
    }

    /// The engine's own tables, which it hands frames to by kind.
    private let packetTypes: Handoff<UInt8>?
    private let monitorRecords: Handoff<UInt16>?
    private let linkTypes: Handoff<UInt16>?

    public init(registry: DissectorRegistry) {
        self.registry = registry
        packetTypes = registry.handoff(into: StandardTables.hciPacketType)
        monitorRecords = registry.handoff(into: StandardTables.monitorOpcode)
        linkTypes = registry.handoff(into: StandardTables.linkType)
        let state = CaptureState()
        self.state = state
        context = DissectionContext(
            registry: registry,
            state: state,
            tree: ProtocolTree(),
            frame: CapturedFrame.blank(),
            wantsInfo: false
        )
    }

    /// Whether this engine would decode `frame` without reading or changing capture state, so
    /// that another engine (on another thread) may decode it instead with the same result. False
    /// whenever post-dissectors run: they follow every frame.
    public func decodesWithoutState(_ frame: CapturedFrame) -> Bool {
        guard !runsPostDissectors, let h4 = frame.kind.h4Type, let packetTypes else { return false }
        return frame.bytes.withUnsafeBufferPointer {
            registry.decodesWithoutState(slot: packetTypes.slot, UInt64(h4), $0)
        }
    }

    /// Dissects `frame`, the next frame of `timeline`, and passes the tree to `body` (valid only
    /// during the call).
    public mutating func dissect<R>(_ frame: CapturedFrame, wantsInfo: Bool, _ body: (borrowing ProtocolTree) -> R) -> R
    {
        let times = timeline.next(frame.timestamp)
        return dissect(frame, times: times, wantsInfo: wantsInfo, body)
    }

    /// Dissects `frame` with its relative times measured as `times` says (from another engine's
    /// timeline, say), leaving `timeline` as it is.
    public mutating func dissect<R>(
        _ frame: borrowing CapturedFrame,
        times: FrameTimes,
        wantsInfo: Bool,
        _ body: (borrowing ProtocolTree) -> R
    ) -> R {
        context.begin(
            frame,
            wantsInfo: wantsInfo,
            skippedTables: skippedTables,
            skippedKeys: skippedKeys,
            wantsExpertText: addsExpertText
        )
        let core = registry.core
        let all = 0..<frame.bytes.count
        if addsFrameLayer {
            context.tree.open(core.layer, .none, all)
            context.tree.add(core[.number], .unsigned(UInt64(frame.number)), all)
            let epoch = frame.timestamp.unixNanoseconds
            context.tree.add(core[.time], .signed(epoch), all)
            context.tree.add(core[.timeEpoch], .signed(epoch), all)
            context.tree.add(core[.timeDelta], .signed(times.delta), all)
            context.tree.add(core[.timeDeltaDisplayed], .signed(times.deltaDisplayed), all)
            context.tree.add(core[.timeRelative], .signed(times.relative), all)
            context.tree.add(core[.length], .unsigned(UInt64(frame.originalLength)), all)
            context.tree.add(core[.capturedLength], .unsigned(UInt64(frame.bytes.count)), all)
            context.tree.add(core[.direction], .unsigned(UInt64(frame.direction.rawValue)), all)
            if let c = frame.controllerIndex { context.tree.add(core[.controller], .unsigned(UInt64(c)), all) }
            context.tree.add(core[.kind], text: frame.kind.name, all)
            context.tree.close()
        }

        if frame.kind.isText {
            let text = frame.bytes.prefix { $0 != 0 }
            context.tree.add(core[.note], text: String(decoding: text, as: UTF8.self), all)
            context.setInfo("\(frame.kind.name): " + TerminalSafeText.escape(text.prefix(200)))
        } else {
            // The frame's bytes are lent to the dissectors for the call: their readers count no
            // references.
            let kind = frame.kind
            frame.bytes.withUnsafeBufferPointer { buffer in
                var reader = ByteReader(borrowing: buffer)
                handOff(kind, &reader)
            }
        }
        context.tree.derivedStart = context.tree.nodeCount
        if runsPostDissectors {
            // Post-dissectors read the frame's bytes as lent (a field's bytes in data source 0).
            frame.bytes.withUnsafeBufferPointer { buffer in
                for post in registry.postDissectors {
                    var reader = ByteReader(borrowing: buffer)
                    context.tree.restoreDepth(0)
                    context.run(post, &reader)
                }
            }
        }
        if frame.isTruncated {
            context.expert(
                .warning,
                "Frame truncated by the capture: \(frame.bytes.count) of \(frame.originalLength) bytes",
                all
            )
        }
        if context.tree.overflowed {
            context.tree.restoreDepth(0)
            context.expert(
                .warning,
                "Tree limit of \(ProtocolTree.maximumNodes) fields reached; later fields are not shown",
                all
            )
        }
        if context.direction != frame.direction { context.tree.learnedDirection = context.direction }
        context.tree.settleInfo()
        return body(context.tree)
    }

    /// Hands a frame of `kind` (not text) to the table for its kind; with none, its bytes are
    /// data.
    private mutating func handOff(_ kind: FrameKind, _ reader: inout ByteReader) {
        if let h4 = kind.h4Type, let packetTypes {
            context.handOff(packetTypes, h4, &reader)
        } else if let opcode = kind.monitorOpcode, let monitorRecords, registry.isBound(monitorRecords, opcode) {
            // Linux monitor records other than HCI packets and text: index records and the like.
            context.handOff(monitorRecords, opcode, &reader)
        } else if case .linkLayer(let linkType) = kind, let linkTypes {
            // Unbound link types are shown as data by the dispatch itself.
            context.handOff(linkTypes, linkType, &reader)
        } else if !reader.isAtEnd {
            context.tree.add(registry.core[.data], .bytes, 0..<reader.remaining)
        }
    }
}
