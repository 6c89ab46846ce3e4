import BLEInspectCore
import Foundation

/// Runs a compiled layout over bytes, adding the plugin's fields. One per PDU: it holds the
/// values later fields refer to, and counts the nodes added against the per-PDU limit (over every
/// message a framed SDU completes).
struct LayoutRun {
    let plugin: RegisteredPlugin
    var slots: [UInt64]
    var added = 0

    init(_ plugin: RegisteredPlugin) {
        self.plugin = plugin
        slots = [UInt64](repeating: 0, count: plugin.compiled.slotCount)
    }

    var special: SpecialFields { plugin.compiled.special }

    @inline(__always)
    func id(_ relative: Int) -> FieldID { plugin.id(relative) }

    /// Forgets the values of the last message, before the next one.
    mutating func resetSlots() {
        for i in slots.indices { slots[i] = 0 }
    }

    /// Decodes `layout` from `r`, then shows what the layout left as undecoded bytes.
    mutating func decodeAll(_ layout: Layout, _ r: inout ByteReader, _ c: inout DissectionContext) throws(DecodeError) {
        try run(layout, &r, &c, depth: 0)
        if !r.isAtEnd, special.undecoded >= 0 {
            c.addRest(id(special.undecoded), &r)
        }
    }

    mutating func run(_ layout: Layout, _ r: inout ByteReader, _ c: inout DissectionContext, depth: Int)
        throws(DecodeError)
    {
        // Layouts are not recursive and their nesting is checked on loading; this is a backstop.
        guard depth <= PluginLimits.maximumNesting * 2 else {
            throw DecodeError(.limitExceeded, offset: r.offset, "plugin layout nested too deep")
        }
        for item in layout.items {
            switch item {
            case .field(let f):
                if let condition = f.condition, !condition.holds(slots) { continue }
                try field(f, &r, &c, depth: depth)
            case .choice(let choice):
                let v = choice.slot < slots.count ? slots[choice.slot] : 0
                if let chosen = choice.cases[v] ?? choice.fallback {
                    try run(chosen, &r, &c, depth: depth + 1)
                }
            }
        }
    }

    mutating func count(_ r: ByteReader) throws(DecodeError) {
        added &+= 1
        if added > PluginLimits.maximumNodesPerPDU {
            throw DecodeError(
                .limitExceeded,
                offset: r.offset,
                "a plugin adds at most \(PluginLimits.maximumNodesPerPDU) fields to one PDU"
            )
        }
    }

    mutating func field(_ f: LayoutField, _ r: inout ByteReader, _ c: inout DissectionContext, depth: Int)
        throws(DecodeError)
    {
        try count(r)
        let fid = id(f.id)
        switch f.value {
        case .integer(let width, let signed, let big):
            let start = r.offset
            let (value, raw) = try Self.integer(width, signed, big, &r)
            // A signed value is kept as its bit pattern, as case values and `equals:` are.
            if let slot = f.slot, slot < slots.count { slots[slot] = value.unsignedValue ?? raw }
            if f.bits.isEmpty {
                c.tree.add(fid, value, start..<r.offset, source: r.source)
            } else {
                c.tree.open(fid, value, start..<r.offset, source: r.source)
                for b in f.bits {
                    try count(r)
                    if let slot = b.slot, slot < slots.count {
                        slots[slot] = (raw & b.mask) >> UInt64(b.mask.trailingZeroBitCount)
                    }
                    if b.flag {
                        c.addFlag(id(b.id), raw, mask: b.mask, start..<r.offset, source: r.source)
                    } else {
                        c.addBits(id(b.id), raw, mask: b.mask, start..<r.offset, source: r.source)
                    }
                }
                c.tree.close()
            }
        default:
            try value(f.value, fid, &r, &c, depth: depth)
        }
    }

    /// Decodes one value of any kind but a referenced integer (arrays use it for their elements).
    mutating func value(
        _ v: LayoutValue,
        _ fid: FieldID,
        _ r: inout ByteReader,
        _ c: inout DissectionContext,
        depth: Int
    ) throws(DecodeError) {
        let start = r.offset
        switch v {
        case .integer(let width, let signed, let big):
            let (value, _) = try Self.integer(width, signed, big, &r)
            c.tree.add(fid, value, start..<r.offset, source: r.source)
        case .scaled(let width, let signed, let big, let scale):
            let raw = try r.readUnsigned(bytes: width, bigEndian: big)
            let number = signed ? Double(Self.signExtend(raw, width)) : Double(raw)
            c.tree.add(fid, .real(scale.apply(number)), start..<r.offset, source: r.source)
        case .float(let width, let big):
            let raw = try r.readUnsigned(bytes: width, bigEndian: big)
            let number =
                width == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : Double(bitPattern: raw)
            c.tree.add(fid, .real(number), start..<r.offset, source: r.source)
        case .text(let extent, let terminated):
            let bytes = try text(extent, terminated: terminated, &r)
            c.tree.add(fid, text: String(decoding: bytes, as: UTF8.self), start..<r.offset, source: r.source)
        case .bytes(let extent):
            try c.addBytes(fid, &r, length(extent, r))
        case .json(let extent, let members):
            let n = try length(extent, r)
            let slice = try r.readSlice(n)
            try json(slice, members, fid, &c)
        case .uuid(let width):
            let u = try r.readUUID(bytes: width)
            c.tree.add(fid, .uuid(u), start..<r.offset, source: r.source)
        case .address:
            try c.addAddress(fid, &r)
        case .structure(let layout, let extent):
            try structure(layout, extent, fid, .none, &r, &c, depth: depth + 1)
        case .array(let element, let countExtent, let lengthExtent):
            if let lengthExtent {
                let n = try length(lengthExtent, r)
                var inner = try r.readSlice(n)
                try array(element, countExtent, fid, &inner, &c, depth: depth + 1)
            } else {
                try array(element, countExtent, fid, &r, &c, depth: depth + 1)
            }
        }
    }

    mutating func structure(
        _ layout: Layout,
        _ extent: Extent,
        _ fid: FieldID,
        _ label: FieldValue,
        _ r: inout ByteReader,
        _ c: inout DissectionContext,
        depth: Int
    ) throws(DecodeError) {
        if case .rest = extent {
            // In place: the struct ends where its last field does.
            let handle = c.tree.nextIndex
            let start = r.offset
            c.tree.open(fid, label, start..<(start + r.remaining), source: r.source)
            try run(layout, &r, &c, depth: depth)
            c.tree.setEnd(ofNode: handle, to: r.offset)
            c.tree.close()
            return
        }
        let n = try length(extent, r)
        var inner = try r.readSlice(n)
        c.tree.open(fid, label, inner.offset..<(inner.offset + inner.remaining), source: r.source)
        try run(layout, &inner, &c, depth: depth)
        if !inner.isAtEnd, special.undecoded >= 0 {
            try count(inner)
            c.addRest(id(special.undecoded), &inner)
        }
        c.tree.close()
    }

    mutating func array(
        _ element: LayoutValue,
        _ countExtent: Extent,
        _ fid: FieldID,
        _ r: inout ByteReader,
        _ c: inout DissectionContext,
        depth: Int
    ) throws(DecodeError) {
        let declared: Int?
        switch countExtent {
        case .rest: declared = nil
        case .fixed(let n): declared = n
        case .slot(let s): declared = Int(clamping: s < slots.count ? slots[s] : 0)
        }
        let limit = PluginLimits.maximumArrayElements
        var index = 0
        while declared.map({ index < $0 }) ?? !r.isAtEnd {
            guard index < limit else {
                let what = declared.map { "declares \($0) elements" } ?? "has more elements"
                throw DecodeError(
                    .limitExceeded,
                    offset: r.offset,
                    "array \(what); plugins decode at most \(limit) per array"
                )
            }
            let before = r.offset
            if case .structure(let layout, _) = element {
                try count(r)
                try structure(layout, .rest, fid, .unsigned(UInt64(index + 1)), &r, &c, depth: depth)
            } else {
                try count(r)
                try value(element, fid, &r, &c, depth: depth)
            }
            if r.offset == before && declared == nil {
                throw DecodeError(.malformed, offset: r.offset, "an array element took no bytes")
            }
            index += 1
        }
    }

    func length(_ extent: Extent, _ r: ByteReader) throws(DecodeError) -> Int {
        switch extent {
        case .rest: return r.remaining
        case .fixed(let n): return n
        case .slot(let s):
            let v = s < slots.count ? slots[s] : 0
            guard v <= UInt64(r.remaining) else {
                throw DecodeError.truncated(at: r.offset, need: Int(clamping: v), have: r.remaining)
            }
            return Int(v)
        }
    }

    /// The bytes of a text value (without its NUL or NUL padding); the reader moves past the
    /// whole extent (a terminated text with no fixed length ends after its NUL).
    func text(_ extent: Extent, terminated: Bool, _ r: inout ByteReader) throws(DecodeError) -> ArraySlice<UInt8> {
        if terminated, case .rest = extent {
            let rest = r.remainingSlice
            guard let nul = rest.firstIndex(of: 0) else {
                throw DecodeError(.malformed, offset: r.offset + r.remaining, "a NUL-terminated string has no NUL")
            }
            let bytes = rest[rest.startIndex..<nul]
            try r.skip(bytes.count + 1)
            return bytes
        }
        let n = try length(extent, r)
        let slice = try r.readSlice(n).remainingSlice
        if terminated, let nul = slice.firstIndex(of: 0) { return slice[slice.startIndex..<nul] }
        if case .fixed = extent {
            var end = slice.endIndex
            while end > slice.startIndex, slice[end - 1] == 0 { end -= 1 }
            return slice[slice.startIndex..<end]
        }
        return slice
    }

    mutating func json(
        _ slice: ByteReader,
        _ members: [JSONMember],
        _ fid: FieldID,
        _ c: inout DissectionContext
    ) throws(DecodeError) {
        let bytes = slice.remainingSlice
        let range = slice.offset..<(slice.offset + slice.remaining)
        c.tree.open(fid, text: String(decoding: bytes, as: UTF8.self), range, source: slice.source)
        defer { c.tree.close() }
        // Parsing is for the members and the notes: skipped when the run keeps neither.
        if let mask = c.tree.fieldMask, !mask.keeps(c.core[.expert]),
            !members.contains(where: { mask.keeps(id($0.id)) })
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
        guard Self.jsonDepth(bytes) <= PluginLimits.maximumJSONDepth else {
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
            try count(slice)
            let mid = id(m.id)
            switch m.kind {
            case .string:
                if let s = v as? String { c.tree.add(mid, text: s, range, source: slice.source) }
            case .integer:
                if let n = v as? NSNumber, !Self.isBoolean(n), let i = Self.integer(n) {
                    c.tree.add(mid, .signed(i), range, source: slice.source)
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

    /// The deepest nesting of `[` and `{` outside strings.
    static func jsonDepth(_ bytes: ArraySlice<UInt8>) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for b in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if b == 0x5C {
                    escaped = true
                } else if b == 0x22 {
                    inString = false
                }
                continue
            }
            switch b {
            case 0x22: inString = true
            case 0x5B, 0x7B:
                depth += 1
                deepest = max(deepest, depth)
            case 0x5D, 0x7D: depth = max(0, depth - 1)
            default: break
            }
        }
        return deepest
    }

    /// An integer of `width` bytes as its field value, and its raw bits.
    @inline(__always)
    static func integer(_ width: Int, _ signed: Bool, _ big: Bool, _ r: inout ByteReader) throws(DecodeError) -> (
        FieldValue, UInt64
    ) {
        let raw = try r.readUnsigned(bytes: width, bigEndian: big)
        return (signed ? .signed(signExtend(raw, width)) : .unsigned(raw), raw)
    }

    @inline(__always)
    static func signExtend(_ raw: UInt64, _ width: Int) -> Int64 {
        guard width < 8 else { return Int64(bitPattern: raw) }
        let shift = UInt64(64 - 8 * width)
        return Int64(bitPattern: raw << shift) >> Int64(shift)
    }
}
