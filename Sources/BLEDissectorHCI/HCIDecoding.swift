import BLEInspectCore

// Small reading helpers: each reads one value through the checked reader and adds it to the
// tree with the bytes it came from.

extension DissectionContext {
    /// A connection handle: the low 12 bits of a 16-bit value.
    @discardableResult
    mutating func handle(_ id: FieldID, _ r: inout ByteReader) throws(DecodeError) -> UInt16 {
        let s = r.offset
        let v = try r.readUInt16() & 0x0FFF
        tree.add(id, .unsigned(UInt64(v)), s..<r.offset, source: r.source)
        return v
    }

    /// A name in a fixed field of up to `size` bytes, ended by the first NUL. A shorter field
    /// (some controllers send only the name) is read to its end.
    mutating func name(_ id: FieldID, _ size: Int, _ r: inout ByteReader) throws(DecodeError) {
        let s = r.offset
        let slice = try r.readSlice(min(size, r.remaining))
        let raw = slice.remainingSlice
        let text = raw.prefix { $0 != 0 }
        tree.add(id, text: String(decoding: text, as: UTF8.self), s..<r.offset, source: r.source)
    }

    /// An integer value with bit fields under it: the parent node, then one child per mask.
    mutating func bits(
        _ id: FieldID,
        _ value: UInt64,
        _ range: Range<Int>,
        source: Int,
        _ children: [(FieldID, UInt64)]
    ) {
        tree.open(id, .unsigned(value), range, source: source)
        for (child, mask) in children {
            let shift = UInt64(mask.trailingZeroBitCount)
            tree.add(child, .unsigned((value & mask) >> shift), range, source: source)
        }
        tree.close()
    }

    /// Bytes left after a PDU's known parameters: shown, with a note.
    mutating func leftover(_ r: inout ByteReader, what: @autoclosure () -> String = "the parameters") {
        guard !r.isAtEnd else { return }
        let s = r.offset
        let n = r.remaining
        let rest = r.readRest()
        tree.add(core[.data], .bytes, s..<(s + n), source: rest.source)
        expert(.warning, "\(n) unexpected byte\(n == 1 ? "" : "s") after \(what())", s..<(s + n), source: rest.source)
    }

    /// The word tshark puts before a packet's name: Sent, Rcvd, or nothing when unknown.
    func directionWord(unknown: String) -> String {
        switch direction {
        case .hostToController: "Sent"
        case .controllerToHost: "Rcvd"
        case .unknown: unknown
        }
    }
}

/// One parameter of a fixed layout.
enum Step: Sendable {
    case u8(FieldID), u16(FieldID), u24(FieldID), u32(FieldID), u64(FieldID)
    case i8(FieldID), i16(FieldID), handle(FieldID), addr(FieldID)
    case bytes(FieldID, Int)
    case name(FieldID, Int)
    /// Reserved bytes: skipped.
    case reserved(Int)
}

/// A dissector for parameters that are a fixed sequence of values.
struct FixedParameters: Dissector {
    let steps: [Step]

    init(_ steps: [Step]) { self.steps = steps }

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        try Self.run(steps, &r, &ctx)
        ctx.leftover(&r)
    }

    static func run(_ steps: [Step], _ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        for step in steps {
            switch step {
            case .u8(let id): try ctx.addUInt8(id, &r)
            case .u16(let id): try ctx.addUInt16(id, &r)
            case .u24(let id): try ctx.addUInt24(id, &r)
            case .u32(let id): try ctx.addUInt32(id, &r)
            case .u64(let id): try ctx.addUInt64(id, &r)
            case .i8(let id): try ctx.addInt8(id, &r)
            case .i16(let id): try ctx.addInt16(id, &r)
            case .handle(let id): try ctx.handle(id, &r)
            case .addr(let id): try ctx.addAddress(id, &r)
            case .bytes(let id, let n): try ctx.addBytes(id, &r, n)
            case .name(let id, let n): try ctx.name(id, n, &r)
            case .reserved(let n): try r.skip(n)
            }
        }
    }
}

/// A count, then that many entries of a fixed layout (the responses of an Inquiry Result).
struct RepeatedParameters: Dissector {
    let count: FieldID
    let each: [Step]

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        let n = try ctx.addUInt8(count, &r)
        for _ in 0..<n { try FixedParameters.run(each, &r, &ctx) }
        ctx.leftover(&r)
    }
}

/// A dissector whose body is a function taking the HCI field ids.
struct HCIDecoder: Dissector {
    typealias Body = @Sendable (HCIFieldIDs, inout ByteReader, inout DissectionContext) throws(DecodeError) -> Void
    let fields: HCIFieldIDs
    let body: Body

    init(_ fields: HCIFieldIDs, _ body: @escaping Body) {
        self.fields = fields
        self.body = body
    }

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        try body(fields, &r, &ctx)
        ctx.leftover(&r)
    }
}

/// Shared pieces of the packet dissectors.
enum HCIPacket {
    /// Adds the H4 layer: packet type, and direction when the capture knows it.
    static func addH4(_ f: HCIFieldIDs, _ type: UInt8, _ ctx: inout DissectionContext) {
        ctx.tree.open(f.h4.layer, .none, 0..<0)
        ctx.tree.add(f.h4[.type], .unsigned(UInt64(type)), 0..<0)
        switch ctx.direction {
        case .hostToController: ctx.tree.add(f.h4[.direction], .unsigned(0), 0..<0)
        case .controllerToHost: ctx.tree.add(f.h4[.direction], .unsigned(1), 0..<0)
        case .unknown: break
        }
        ctx.tree.close()
    }

    /// The parameters announced by a header's length field. When fewer bytes are there, the
    /// packet is marked malformed and what there is is decoded; bytes after them are shown with
    /// a note.
    static func parameters(
        _ length: Int,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) -> ByteReader {
        if r.remaining >= length {
            let params = try r.readSlice(length)
            ctx.leftover(&r, what: "the packet's announced length")
            return params
        }
        ctx.malformed(DecodeError.truncated(at: r.offset, need: length, have: r.remaining), r)
        return r.readRest()
    }

    /// How a command is named in summaries.
    static func commandLabel(_ opcode: UInt16) -> String {
        if HCICommandNames.isKnown(opcode) { return HCICommandNames.name(opcode) }
        return HCICommandNames.name(opcode) + " " + hex16(opcode)
    }

    static func hex16(_ v: UInt16) -> String { HexText.prefixed(UInt64(v), digits: 4) }

    static func hex8(_ v: UInt8) -> String { HexText.prefixed(UInt64(v), digits: 2) }

    /// Adds an opcode with its OGF/OCF sub-fields.
    static func opcode(
        _ id: FieldID,
        ogf: FieldID,
        ocf: FieldID,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) -> UInt16 {
        let s = r.offset
        let op = try r.readUInt16()
        let range = s..<r.offset
        ctx.tree.open(id, .unsigned(UInt64(op)), range, source: r.source)
        ctx.tree.add(ogf, .unsigned(UInt64(op >> 10)), range, source: r.source)
        ctx.tree.add(ocf, .unsigned(UInt64(op & 0x03FF)), range, source: r.source)
        ctx.tree.close()
        return op
    }
}
