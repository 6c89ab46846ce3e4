import BLEInspectCore
import Foundation

/// Runs a plugin's compiled layouts (Core `LayoutRun`) with the plugin's limits, and decodes
/// their JSON values. One per PDU: the run holds the values later fields refer to, and counts the
/// nodes added against the per-PDU limit (over every message a framed SDU completes).
struct PluginRun {
    let host: PluginHost
    var run: LayoutRun

    init(_ plugin: RegisteredPlugin, _ target: PluginBinding.Target) {
        host = PluginHost(plugin: plugin, target: target)
        let undecoded = plugin.compiled.special.undecoded
        run = LayoutRun(
            base: plugin.base,
            slots: plugin.compiled.slotCount,
            limits: PluginLimits.layout,
            undecoded: undecoded >= 0 ? plugin.id(undecoded) : nil,
            groupsCoverRest: true
        )
    }

    /// Forgets the values of the last message, before the next one.
    mutating func resetSlots() { run.resetSlots() }

    /// Decodes `layout` from `r`, then shows what the layout left as undecoded bytes.
    mutating func decodeAll(_ layout: Layout, _ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        var host = self.host
        try run.run(layout, &r, &c, host: &host)
        if !r.isAtEnd, let undecoded = run.undecoded {
            c.addRest(undecoded, &r)
        }
    }
}

extension PluginLimits {
    /// The limits of one PDU's run, with what their errors say.
    static let layout: LayoutLimits = {
        var limits = LayoutLimits()
        limits.nodes = maximumNodesPerPDU
        limits.nodesMessage = "a plugin adds at most \(maximumNodesPerPDU) fields to one PDU"
        limits.elements = maximumArrayElements
        limits.elementsMessage = "plugins decode at most \(maximumArrayElements) per array"
        // Layouts are not recursive and their nesting is checked on loading; this is a backstop.
        limits.depth = maximumNesting * 2
        limits.depthMessage = "plugin layout nested too deep"
        return limits
    }()
}

/// Decodes a plugin layout's custom values: its JSON texts.
struct PluginHost: LayoutHost {
    let plugin: RegisteredPlugin
    /// What the layout decodes (a sequence counter's stream depends on it).
    let target: PluginBinding.Target

    func decode(
        custom tag: UInt32,
        _ id: FieldID,
        _ run: inout LayoutRun,
        _ r: inout ByteReader,
        _ c: inout DissectionContext
    ) throws(DecodeError) {
        if tag & SequenceCounter.tag != 0 {
            try counter(Int(tag & ~SequenceCounter.tag), id, &run, &r, &c)
            return
        }
        let values = plugin.compiled.json
        guard Int(tag) < values.count else {
            throw DecodeError(.malformed, offset: r.offset, "a layout value no decoder knows")
        }
        let value = values[Int(tag)]
        let slice = try r.readSlice(try run.length(value.extent, r))
        try json(slice, value.members, id, &run, &c)
    }

    /// A sequence counter: an unsigned integer, kept for references as any other, then checked
    /// against its stream.
    func counter(
        _ index: Int,
        _ id: FieldID,
        _ run: inout LayoutRun,
        _ r: inout ByteReader,
        _ c: inout DissectionContext
    ) throws(DecodeError) {
        let counters = plugin.compiled.counters
        guard index < counters.count else {
            throw DecodeError(.malformed, offset: r.offset, "a layout value no decoder knows")
        }
        let counter = counters[index]
        let start = r.offset
        let raw = try r.readUnsigned(bytes: counter.width, bigEndian: counter.bigEndian)
        run.previous = raw
        if counter.slot >= 0, counter.slot < run.slots.count { run.slots[counter.slot] = raw }
        let range = start..<r.offset
        c.tree.open(id, .unsigned(raw), range, source: r.source)
        checkSequence(raw, counter, range, source: r.source, &c)
        if counter.publishesPSM { publishPSM(raw, range, source: r.source, &c) }
        c.tree.close()
    }

    func json(
        _ slice: ByteReader,
        _ members: [JSONMember],
        _ fid: FieldID,
        _ run: inout LayoutRun,
        _ c: inout DissectionContext
    ) throws(DecodeError) {
        let bytes = slice.remainingSlice
        let range = slice.offset..<(slice.offset + slice.remaining)
        c.tree.open(fid, text: String(decoding: bytes, as: UTF8.self), range, source: slice.source)
        defer { c.tree.close() }
        // Parsing is for the members and the notes: skipped when the run keeps neither (and no
        // member is a sequence counter, whose stream must see every value).
        if let mask = c.tree.fieldMask, !mask.keeps(c.core[.expert]),
            !members.contains(where: { mask.keeps(plugin.id($0.id)) || $0.counter != nil })
        {
            return
        }
        guard bytes.count <= PluginLimits.maximumJSONSize else {
            c.expert(
                .note,
                "JSON text longer than \(PluginLimits.maximumJSONSize) bytes: not parsed",
                range,
                source: slice.source
            )
            return
        }
        guard JSONNesting.depth(bytes) <= PluginLimits.maximumJSONDepth else {
            c.expert(
                .warning,
                "JSON nested deeper than \(PluginLimits.maximumJSONDepth) levels: not parsed",
                range,
                source: slice.source
            )
            return
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            c.expert(.warning, "not valid JSON", range, source: slice.source)
            return
        }
        guard !members.isEmpty, let dictionary = object as? [String: Any] else { return }
        for m in members {
            guard let v = dictionary[m.key] else { continue }
            try run.count(slice)
            let mid = plugin.id(m.id)
            switch m.kind {
            case .string:
                if let s = v as? String { c.tree.add(mid, text: s, range, source: slice.source) }
            case .integer:
                if let n = v as? NSNumber, !Self.isBoolean(n), let i = Self.integer(n) {
                    guard let index = m.counter, index < plugin.compiled.counters.count, i >= 0 else {
                        c.tree.add(mid, .signed(i), range, source: slice.source)
                        continue
                    }
                    c.tree.open(mid, .signed(i), range, source: slice.source)
                    let counter = plugin.compiled.counters[index]
                    checkSequence(UInt64(i), counter, range, source: slice.source, &c)
                    if counter.publishesPSM { publishPSM(UInt64(i), range, source: slice.source, &c) }
                    c.tree.close()
                }
            case .number:
                if let n = v as? NSNumber, !Self.isBoolean(n) {
                    c.tree.add(mid, .real(n.doubleValue), range, source: slice.source)
                }
            case .boolean:
                if let n = v as? NSNumber, Self.isBoolean(n) {
                    c.tree.add(mid, .boolean(n.boolValue), range, source: slice.source)
                }
            }
        }
    }

    /// A JSON number as an integer: exactly, whether it was parsed as one (above 2^53 too) or as
    /// a whole double.
    static func integer(_ n: NSNumber) -> Int64? {
        switch n.objCType.pointee {
        case 0x64, 0x66: return Int64(exactly: n.doubleValue)  // d, f
        case 0x51: return n.uint64Value <= UInt64(Int64.max) ? Int64(n.uint64Value) : nil  // Q
        default: return n.int64Value
        }
    }

    static func isBoolean(_ n: NSNumber) -> Bool {
        // JSONSerialization makes true and false NSNumbers of C type `c` (char); numbers are
        // `i`, `q` or `d`.
        n.objCType.pointee == 0x63
    }
}
