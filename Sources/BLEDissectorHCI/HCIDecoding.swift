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

/// A dissector for parameters written as a layout (`LayoutRun`); bytes after them are shown
/// with a note.
struct LayoutParameters: Dissector {
    let layout: FieldLayout

    init(_ items: [LayoutItem]) { layout = FieldLayout(items) }

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        try Self.run(layout, &r, &ctx)
        ctx.leftover(&r)
    }

    /// Reads `layout` from `r` (nothing is allocated).
    @inline(__always)
    static func run(_ layout: FieldLayout, _ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        var run = LayoutRun()
        var host = PlainLayout()
        try run.run(layout, &r, &ctx, host: &host)
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
    /// Adds the H4 layer, then opens the packet's `layer` over what `r` has left.
    static func open(
        _ f: HCIFieldIDs,
        _ type: UInt8,
        _ layer: FieldID,
        _ r: ByteReader,
        _ ctx: inout DissectionContext
    ) {
        addH4(f, type, &ctx)
        ctx.tree.open(layer, .none, r.offset..<(r.offset + r.remaining), source: r.source)
    }

    /// Opens a data packet (ACL, SCO, ISO) as `open` does and reads the first word of its header:
    /// the connection handle, added as `handleField`, with flags above it. Returns the word and
    /// its bytes, for the flags.
    static func openData(
        _ f: HCIFieldIDs,
        _ type: UInt8,
        _ layer: FieldID,
        handle handleField: FieldID,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) -> (word: UInt16, range: Range<Int>) {
        open(f, type, layer, r, &ctx)
        let start = r.offset
        let word = try r.readUInt16()
        ctx.tree.add(handleField, .unsigned(UInt64(word & 0x0FFF)), start..<r.offset, source: r.source)
        return (word, start..<r.offset)
    }

    /// The kinds of data packet, as their summaries name them.
    enum DataKind: Int {
        case acl, sco, iso
    }

    /// Each data summary's text before the handle, by kind, then direction (`Direction.rawValue`:
    /// unknown, sent, received), as fixed texts.
    static let dataPrefixes: [[StaticString]] = [
        ["ACL Data, Handle ", "Sent ACL Data, Handle ", "Rcvd ACL Data, Handle "],
        ["SCO Data, Handle ", "Sent SCO Data, Handle ", "Rcvd SCO Data, Handle "],
        ["ISO Data, Handle ", "Sent ISO Data, Handle ", "Rcvd ISO Data, Handle "],
    ]

    /// Sets a data packet's summary: the direction word when the capture knows it, `kind`, then
    /// the handle ("Sent ACL Data, Handle 0x0040"), without building a string.
    static func dataInfo(_ kind: DataKind, handle: UInt16, _ ctx: inout DissectionContext) {
        let direction = ctx.direction
        ctx.setInfo(dataPrefixes[kind.rawValue][Int(direction.rawValue)], hex16: handle)
    }

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
            if !r.isAtEnd { ctx.leftover(&r, what: "the packet's announced length") }
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
