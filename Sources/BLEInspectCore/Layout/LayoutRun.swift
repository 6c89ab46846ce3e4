/// Runs field layouts over bytes, adding their fields. One run per PDU: it holds the values later
/// fields refer to, and counts the nodes added against its limits.
///
/// A run without slots and limits (`LayoutRun()`) allocates nothing.
public struct LayoutRun {
    /// Added to every field id of the layouts.
    public let base: UInt32
    public var slots: [UInt64]
    /// The value of the integer field read last (`LayoutReference.previous`).
    public var previous: UInt64 = 0
    /// Nodes added so far.
    public var added = 0
    public let limits: LayoutLimits
    /// Where a structure of a fixed size shows the bytes its layout left; nil: they are not shown.
    public let undecoded: FieldID?
    /// Whether an in-place group's node covers the bytes left until its fields are read (a
    /// plugin's), or none (a built-in module's): what it shows when a field inside is cut short.
    public let groupsCoverRest: Bool

    public init(
        base: UInt32 = 0,
        slots: Int = 0,
        limits: LayoutLimits = .none,
        undecoded: FieldID? = nil,
        groupsCoverRest: Bool = false
    ) {
        self.base = base
        self.slots = slots == 0 ? [] : [UInt64](repeating: 0, count: slots)
        self.limits = limits
        self.undecoded = undecoded
        self.groupsCoverRest = groupsCoverRest
    }

    @inline(__always)
    public func id(_ relative: FieldID) -> FieldID { FieldID(base &+ relative.rawValue) }

    /// Forgets the values of the last message, before the next one.
    public mutating func resetSlots() {
        for i in slots.indices { slots[i] = 0 }
        previous = 0
    }

    @inline(__always)
    public func value(_ reference: LayoutReference) -> UInt64 {
        switch reference {
        case .previous: return previous
        case .slot(let s): return s < slots.count ? slots[s] : 0
        }
    }

    public func holds(_ condition: LayoutCondition) -> Bool {
        let v = value(condition.reference)
        guard let values = condition.values else { return v != 0 }
        return values.contains(v)
    }

    /// Counts one node against the limit.
    @inline(__always)
    public mutating func count(_ r: ByteReader) throws(DecodeError) {
        added &+= 1
        if added > limits.nodes { throw DecodeError(.limitExceeded, offset: r.offset, limits.nodesMessage) }
    }

    /// Decodes `layout` from `r`.
    public mutating func run<H: LayoutHost>(
        _ layout: FieldLayout,
        _ r: inout ByteReader,
        _ c: inout DissectionContext,
        host: inout H,
        depth: Int = 0
    ) throws(DecodeError) {
        guard depth <= limits.depth else {
            throw DecodeError(.limitExceeded, offset: r.offset, limits.depthMessage)
        }
        let steps = layout.steps
        for i in steps.indices {
            let step = steps[i]
            switch step.kind {
            case .integer:
                try count(r)
                let start = r.offset
                let raw = try r.readUnsigned(bytes: step.width, bigEndian: step.bigEndian) & step.mask
                let shown: FieldValue = step.signed ? .signed(Self.signExtend(raw, step.width)) : .unsigned(raw)
                keep(raw, shown, slot: step.slot)
                c.tree.add(id(step.id), shown, start..<r.offset, source: r.source)
                continue
            case .skip:
                try r.skip(step.width)
                continue
            case .other: break
            }
            switch layout.items[i] {
            case .field(let f):
                if let condition = f.condition, !holds(condition) { continue }
                try field(f, &r, &c, host: &host, depth: depth)
            case .choice(let choice):
                if let chosen = choice.cases[value(choice.reference)] ?? choice.fallback {
                    try run(chosen, &r, &c, host: &host, depth: depth + 1)
                }
            case .repeated(let extent, let each):
                for _ in 0..<(try length(extent, r, bytes: false)) {
                    try run(each, &r, &c, host: &host, depth: depth + 1)
                }
            case .skip(let n):
                try r.skip(n)  // read as a step above
            case .dispatch(let handoff, let extent):
                var data = try r.readSlice(try length(extent, r))
                c.handOff(handoff, &data)
            }
        }
    }

    mutating func field<H: LayoutHost>(
        _ f: LayoutField,
        _ r: inout ByteReader,
        _ c: inout DissectionContext,
        host: inout H,
        depth: Int
    ) throws(DecodeError) {
        try count(r)
        let fid = id(f.id)
        let start = r.offset
        let shown: FieldValue
        let raw: UInt64
        switch f.value {
        case .integer(let width, let signed, let big):
            (shown, raw) = try Self.integer(width, signed, big, &r)
        case .masked(let width, let mask):
            raw = try r.readUnsigned(bytes: width) & mask
            shown = .unsigned(raw)
        default:
            try value(f.value, fid, &r, &c, host: &host, depth: depth)
            return
        }
        keep(raw, shown, slot: f.slot ?? -1)
        let range = start..<r.offset
        if f.bits.isEmpty {
            c.tree.add(fid, shown, range, source: r.source)
            return
        }
        switch f.parent {
        case .value: c.tree.open(fid, shown, range, source: r.source)
        case .bytes: c.tree.open(fid, .bytes, range, source: r.source)
        case .hidden: break
        }
        for b in f.bits {
            try count(r)
            if let slot = b.slot, slot < slots.count {
                slots[slot] = (raw & b.mask) >> UInt64(b.mask.trailingZeroBitCount)
            }
            let part = b.bytes.map { (start + $0.lowerBound)..<(start + $0.upperBound) } ?? range
            if b.flag {
                c.addFlag(id(b.id), raw, mask: b.mask, part, source: r.source)
            } else {
                c.addBits(id(b.id), raw, mask: b.mask, part, source: r.source)
            }
        }
        if case .hidden = f.parent { return }
        c.tree.close()
    }

    /// Keeps an integer field's value for later references: as the previous value, and in `slot`
    /// (-1: none).
    @inline(__always)
    mutating func keep(_ raw: UInt64, _ shown: FieldValue, slot: Int) {
        previous = raw
        // A signed value is kept as its bit pattern, as case values and `equals:` are.
        if slot >= 0, slot < slots.count { slots[slot] = shown.unsignedValue ?? raw }
    }

    /// Decodes one value of any kind but a referenced integer (arrays use it for their elements).
    mutating func value<H: LayoutHost>(
        _ v: LayoutValue,
        _ fid: FieldID,
        _ r: inout ByteReader,
        _ c: inout DissectionContext,
        host: inout H,
        depth: Int
    ) throws(DecodeError) {
        let start = r.offset
        switch v {
        case .integer(let width, let signed, let big):
            let (value, _) = try Self.integer(width, signed, big, &r)
            c.tree.add(fid, value, start..<r.offset, source: r.source)
        case .masked(let width, let mask):
            let raw = try r.readUnsigned(bytes: width) & mask
            c.tree.add(fid, .unsigned(raw), start..<r.offset, source: r.source)
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
        case .uuid(let width):
            let u = try r.readUUID(bytes: width)
            c.tree.add(fid, .uuid(u), start..<r.offset, source: r.source)
        case .address:
            try c.addAddress(fid, &r)
        case .structure(let layout, let extent, let label):
            let shown: FieldValue = if case .bytes = label { .bytes } else { .none }
            try structure(layout, extent, fid, shown, &r, &c, host: &host, depth: depth + 1)
        case .array(let element, let countExtent, let lengthExtent):
            // Given `length` bytes, the elements are read from those alone.
            var items = r
            if let lengthExtent { items = try r.readSlice(try length(lengthExtent, r)) }
            let declared: Int?
            switch countExtent {
            case .rest: declared = nil
            case .fixed(let n), .atMost(let n): declared = n
            case .value(let reference): declared = Int(clamping: value(reference))
            }
            var index = 0
            while declared.map({ index < $0 }) ?? !items.isAtEnd {
                guard index < limits.elements else {
                    let what = declared.map { "declares \($0) elements" } ?? "has more elements"
                    throw DecodeError(.limitExceeded, offset: items.offset, "array \(what); " + limits.elementsMessage)
                }
                let before = items.offset
                try count(items)
                if case .structure(let layout, _, _) = element {
                    let label = FieldValue.unsigned(UInt64(index + 1))
                    try structure(layout, .rest, fid, label, &items, &c, host: &host, depth: depth + 1)
                } else {
                    try self.value(element, fid, &items, &c, host: &host, depth: depth + 1)
                }
                if items.offset == before && declared == nil {
                    throw DecodeError(.malformed, offset: items.offset, "an array element took no bytes")
                }
                index += 1
            }
            if lengthExtent == nil { r = items }
        case .custom(let tag):
            try host.decode(custom: tag, fid, &self, &r, &c)
        }
    }

    /// A group node over `extent` bytes holding `layout`'s fields.
    public mutating func structure<H: LayoutHost>(
        _ layout: FieldLayout,
        _ extent: LayoutExtent,
        _ fid: FieldID,
        _ label: FieldValue,
        _ r: inout ByteReader,
        _ c: inout DissectionContext,
        host: inout H,
        depth: Int
    ) throws(DecodeError) {
        if case .rest = extent {
            // In place: the structure ends where its last field does.
            let handle = c.tree.nextIndex
            let start = r.offset
            c.tree.open(fid, label, start..<(groupsCoverRest ? start + r.remaining : start), source: r.source)
            try run(layout, &r, &c, host: &host, depth: depth)
            c.tree.setEnd(ofNode: handle, to: r.offset)
            c.tree.close()
            return
        }
        var inner = try r.readSlice(try length(extent, r))
        c.tree.open(fid, label, inner.offset..<(inner.offset + inner.remaining), source: r.source)
        try run(layout, &inner, &c, host: &host, depth: depth)
        if !inner.isAtEnd, let undecoded {
            try count(inner)
            c.addRest(undecoded, &inner)
        }
        c.tree.close()
    }

    /// The bytes (or, with `bytes` false, the elements) `extent` stands for; a referenced value
    /// larger than the bytes left is a truncation.
    public func length(_ extent: LayoutExtent, _ r: ByteReader, bytes: Bool = true) throws(DecodeError) -> Int {
        switch extent {
        case .rest: return r.remaining
        case .fixed(let n): return n
        case .atMost(let n): return min(n, r.remaining)
        case .value(let reference):
            let v = value(reference)
            guard !bytes || v <= UInt64(r.remaining) else {
                throw DecodeError.truncated(at: r.offset, need: Int(clamping: v), have: r.remaining)
            }
            return Int(clamping: v)
        }
    }

    /// The bytes of a text value (without its NUL or NUL padding); the reader moves past the
    /// whole extent (a terminated text with no fixed length ends after its NUL).
    func text(_ extent: LayoutExtent, terminated: Bool, _ r: inout ByteReader) throws(DecodeError) -> ArraySlice<
        UInt8
    > {
        if terminated, case .rest = extent {
            let rest = r.remainingSlice
            guard let nul = rest.firstIndex(of: 0) else {
                throw DecodeError(.malformed, offset: r.offset + r.remaining, "a NUL-terminated string has no NUL")
            }
            let bytes = rest[rest.startIndex..<nul]
            try r.skip(bytes.count + 1)
            return bytes
        }
        let slice = try r.readSlice(try length(extent, r)).remainingSlice
        if terminated, let nul = slice.firstIndex(of: 0) { return slice[slice.startIndex..<nul] }
        if case .fixed = extent {
            var end = slice.endIndex
            while end > slice.startIndex, slice[end - 1] == 0 { end -= 1 }
            return slice[slice.startIndex..<end]
        }
        return slice
    }

    /// An integer of `width` bytes as its field value, and its raw bits.
    @inline(__always)
    public static func integer(_ width: Int, _ signed: Bool, _ big: Bool, _ r: inout ByteReader) throws(DecodeError)
        -> (FieldValue, UInt64)
    {
        let raw = try r.readUnsigned(bytes: width, bigEndian: big)
        return (signed ? .signed(signExtend(raw, width)) : .unsigned(raw), raw)
    }

    @inline(__always)
    public static func signExtend(_ raw: UInt64, _ width: Int) -> Int64 {
        guard width < 8 else { return Int64(bitPattern: raw) }
        let shift = UInt64(64 - 8 * width)
        return Int64(bitPattern: raw << shift) >> Int64(shift)
    }
}
