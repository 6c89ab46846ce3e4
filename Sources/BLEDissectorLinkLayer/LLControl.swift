public import BLEInspectCore

/// LL control PDUs (LLID 3; Core Specification Vol 6 Part B 2.4.2): the opcode, then its
/// parameters, decoded by the dissector bound to the opcode in `LLControl.table`. Every opcode
/// of the specification is bound there, from its layout in `LLControlLayouts`; a plugin may bind
/// vendor opcodes (or replace one), and is named in the summary by its binding's label.
public enum LLControl {
    /// Control PDU parameters by opcode; each dissector gets the reader after the opcode.
    public static let table = TableID("btle.control_opcode")

    /// Registers the control PDU fields and the opcode table with a decoder per opcode, and
    /// returns the dissector the data-channel dissector runs on a control PDU's payload (from
    /// its opcode on).
    static func register(_ registry: inout RegistryBuilder) -> LLControlDissector {
        let f = registry.register(LLControlField.self)
        registry.declareTable(table, "LL control PDU parameters by opcode", keys: .integer(bits: 8))
        // Wireshark shows the AdvA of LL_PERIODIC_SYNC_IND as the link layer's advertising
        // address, registered (with the link layer's fields) before these.
        let advertiser = registry.fieldNames.firstIndex(of: "btle.advertising_address").map { FieldID(UInt32($0)) }
        for layout in LLControlLayouts.all {
            registry.bind(
                LLControlPDU(layout, f, advertiser: advertiser),
                to: table,
                key: DissectorKey(layout.opcode),
                label: layout.name,
                keepsNoState: true
            )
        }
        return LLControlDissector(f: f)
    }

    /// The opcode's name (`LL_FEATURE_REQ`), nil for an unknown opcode.
    static func name(_ opcode: UInt8) -> String? { names[opcode] }

    private static let names = Dictionary(uniqueKeysWithValues: LLControlLayouts.all.map { ($0.opcode, $0.name) })
}

/// Decodes one control PDU: the opcode, then its parameters through `LLControl.table`.
struct LLControlDissector: Dissector {
    let f: Fields<LLControlField>

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        ctx.tree.open(f.layer, .none, r.offset..<(r.offset + r.remaining), source: r.source)
        let at = r.offset
        let opcode = try ctx.addUInt8(f[.opcode], &r)
        let label = ctx.registry.binding(LLControl.table, DissectorKey(opcode))?.label
        // The data-channel dissector has put the sender ("C→P ") in the summary: no comma after
        // it; after anything more ("C→P PDU with a bad CRC"), one.
        if ctx.wantsInfo {
            if ctx.tree.infoCount != 0, ctx.tree.info.last != " " { ctx.tree.appendInfo(", ") }
            if let label, !label.isEmpty {
                ctx.tree.appendInfo(label)
            } else {
                ctx.tree.appendInfo("Unknown control PDU " + HexText.prefixed(UInt64(opcode), digits: 2))
            }
        }
        if label == nil {
            ctx.expert(
                .note,
                "Unknown control opcode " + HexText.prefixed(UInt64(opcode), digits: 2),
                at..<r.offset,
                source: r.source
            )
        }
        // Without a binding the parameters are added as data.
        ctx.dispatch(LLControl.table, DissectorKey(opcode), &r)
        ctx.tree.close()
    }
}

/// Decodes the parameters of one opcode from its layout; bytes beyond them are shown and
/// warned of.
struct LLControlPDU: Dissector {
    let name: String
    let steps: [LLStep]
    let unchanged: [LLStep]?
    let decoded: Bool

    init(_ layout: LLControlLayout, _ f: Fields<LLControlField>, advertiser: FieldID?) {
        name = layout.name
        decoded = layout.decoded
        steps = layout.parameters.map { LLStep($0, f, advertiser: advertiser) }
        unchanged = layout.unchanged.map { $0.map { LLStep($0, f, advertiser: advertiser) } }
    }

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        guard decoded else {
            if !r.isAtEnd {
                ctx.expert(
                    .note,
                    "\(name) (Core 6.2): parameters not decoded",
                    r.offset..<(r.offset + r.remaining),
                    source: r.source
                )
            }
            ctx.addRest(ctx.core[.data], &r)
            return
        }
        var previous: UInt64 = 0
        var steps = self.steps
        if let unchanged, r.peekUInt8() == 0, r.peekUInt8(at: 1) == 0 { steps = unchanged }
        for step in steps { previous = try step.decode(&r, &ctx, previous: previous) }
        if !r.isAtEnd {
            ctx.expert(
                .warning,
                (r.remaining == 1 ? "1 byte" : "\(r.remaining) bytes") + " after the parameters of \(name)",
                r.offset..<(r.offset + r.remaining),
                source: r.source
            )
            ctx.addRest(ctx.core[.data], &r)
        }
    }
}

/// A parameter resolved to field ids: what `LLControlPDU` reads for it and how it shows it.
struct LLStep: Sendable {
    enum Kind: Sendable {
        case unsigned, signed, bytes, address, bits, channelStatus, featurePage
    }

    /// One field of a word split into bits.
    struct Part: Sendable {
        let id: FieldID
        let mask: UInt64
        let flag: Bool
        /// The bytes of the word the mask covers.
        let bytes: Range<Int>
    }

    /// What the summary shows of the value.
    enum Summary: Sendable {
        case none, instant, error
    }

    let kind: Kind
    let id: FieldID?
    let size: Int
    /// For `.bits`: whether the parent is a bytes field.
    var parentBytes = false
    var parts: [Part] = []
    /// For `.featurePage`: the decoding of each page number that has one.
    var pages: [LLStep] = []
    var summary = Summary.none

    init(_ parameter: LLParam, _ f: Fields<LLControlField>, advertiser: FieldID?) {
        switch parameter {
        case .field(let field):
            id = f[field]
            switch field.descriptor.kind {
            case .signed(let bits): (kind, size) = (.signed, Int(bits) / 8)
            case .unsigned(let bits): (kind, size) = (.unsigned, Int(bits) / 8)
            default: (kind, size) = (.bytes, 1)
            }
            summary = field == .instant ? .instant : field == .errorCode ? .error : .none
        case .bytes(let field, let count):
            (kind, id, size) = (.bytes, f[field], count)
        case .bits(let parent, let count, let fields):
            (kind, id, size) = (.bits, parent.map { f[$0] }, count)
            parentBytes = parent?.descriptor.kind == .bytes
            parts = fields.map { field in
                let d = field.descriptor
                let low = min(d.bitmask.trailingZeroBitCount / 8, count - 1)
                let high = min(max(low, (63 - d.bitmask.leadingZeroBitCount) / 8), count - 1)
                return Part(id: f[field], mask: d.bitmask, flag: d.kind == .boolean, bytes: low..<(high + 1))
            }
        case .advertiserAddress:
            (kind, id, size) = (advertiser == nil ? .bytes : .address, advertiser, 6)
        case .channelStatus:
            (kind, id, size) = (.channelStatus, f[.channelStatus], 10)
            parts = [LLControlField.channelUnknown, .channelGood, .channelReserved, .channelBad].map {
                Part(id: f[$0], mask: 0b11, flag: false, bytes: 0..<1)
            }
        case .featurePage:
            (kind, id, size) = (.featurePage, f[.featurePage], 24)
            pages = [LLControlLayouts.features, LLControlLayouts.featurePage1].map {
                LLStep($0, f, advertiser: advertiser)
            }
        }
    }

    /// Reads the parameter and adds its fields; returns its value (0 when it has none), which
    /// the feature page reads its page number from.
    func decode(_ r: inout ByteReader, _ ctx: inout DissectionContext, previous: UInt64) throws(DecodeError)
        -> UInt64
    {
        let start = r.offset
        switch kind {
        case .unsigned, .signed:
            let v = try r.readUnsigned(bytes: size)
            let shift = UInt64(64 - 8 * size)
            let value: FieldValue =
                kind == .signed ? .signed(Int64(bitPattern: v << shift) >> Int64(shift)) : .unsigned(v)
            if let id { ctx.tree.add(id, value, start..<r.offset, source: r.source) }
            summarize(v, &ctx)
            return v
        case .bytes, .address:
            let v = kind == .address ? FieldValue.address(try r.readAddress()) : .bytes
            if kind == .bytes { try r.skip(size) }
            ctx.tree.add(id ?? ctx.core[.data], v, start..<r.offset, source: r.source)
        case .bits:
            let word = try r.readUnsigned(bytes: size)
            if let id { ctx.tree.open(id, parentBytes ? .bytes : .unsigned(word), start..<r.offset, source: r.source) }
            for p in parts {
                let range = (start + p.bytes.lowerBound)..<(start + p.bytes.upperBound)
                if p.flag {
                    ctx.addFlag(p.id, word, mask: p.mask, range, source: r.source)
                } else {
                    ctx.addBits(p.id, word, mask: p.mask, range, source: r.source)
                }
            }
            if id != nil { ctx.tree.close() }
            return word
        case .channelStatus:
            let bytes = try r.readBytes(size)
            if let id { ctx.tree.open(id, .bytes, start..<r.offset, source: r.source) }
            for channel in 0..<37 where parts.count == 4 {
                let shift = UInt8(2 * (channel % 4))
                let at = start + channel / 4
                let part = parts[Int((bytes[channel / 4] >> shift) & 0b11)]
                ctx.tree.add(part.id, .unsigned(UInt64(channel)), at..<(at + 1), source: r.source)
            }
            if id != nil { ctx.tree.close() }
        case .featurePage:
            var page = try r.readSlice(size)
            if let id { ctx.tree.open(id, .bytes, start..<r.offset, source: r.source) }
            if previous < UInt64(pages.count) { _ = try pages[Int(previous)].decode(&page, &ctx, previous: 0) }
            if id != nil { ctx.tree.close() }
        }
        return 0
    }

    private func summarize(_ v: UInt64, _ ctx: inout DissectionContext) {
        guard ctx.wantsInfo else { return }
        switch summary {
        case .none: break
        case .instant: ctx.appendInfo("Instant \(v)")
        case .error:
            ctx.appendInfo(
                (LLControlNames.errors.lookup(v) ?? "Error") + " (" + HexText.prefixed(v, digits: 2) + ")"
            )
        }
    }
}
