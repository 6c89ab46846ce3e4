public import BLEInspectCore

/// LL control PDUs (LLID 3; Core Specification Vol 6 Part B 2.4.2): the opcode, then its
/// parameters, decoded by the dissector bound to the opcode in `LLControl.table`. Every opcode
/// of the specification is bound there, from its layout in `LLControlLayouts`; a plugin may bind
/// vendor opcodes (or replace one), and is named in the summary by its binding's label.
public enum LLControl {
    /// Control PDU parameters by opcode; each dissector gets the reader after the opcode.
    public static let table = Table<UInt8>("btle.control_opcode")

    /// Registers the control PDU fields and the opcode table with a decoder per opcode, and
    /// returns the fields of `LLControlDissector`, which the data-channel dissector runs on a
    /// control PDU's payload (from its opcode on).
    static func register(_ registry: inout RegistryBuilder) -> Fields<LLControlField> {
        let f = registry.register(LLControlField.self)
        registry.declare(table, "LL control PDU parameters by opcode")
        // Wireshark shows the AdvA of LL_PERIODIC_SYNC_IND as the link layer's advertising
        // address, registered (with the link layer's fields) before these.
        let advertiser = registry.fieldNames.firstIndex(of: "btle.advertising_address").map { FieldID(UInt32($0)) }
        for layout in LLControlLayouts.all {
            registry.bind(
                LLControlPDU(layout, f, advertiser: advertiser),
                to: table,
                key: layout.opcode,
                label: layout.name
            )
        }
        return f
    }

    /// The opcode's name (`LL_FEATURE_REQ`), nil for an unknown opcode.
    static func name(_ opcode: UInt8) -> String? { names[opcode] }

    private static let names = Dictionary(uniqueKeysWithValues: LLControlLayouts.all.map { ($0.opcode, $0.name) })
}

/// Decodes one control PDU: the opcode, then its parameters through `LLControl.table`.
struct LLControlDissector: Dissector {
    let f: Fields<LLControlField>
    let next: Handoff<UInt8>

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        ctx.tree.open(f.layer, .none, r.offset..<(r.offset + r.remaining), source: r.source)
        let at = r.offset
        let opcode = try ctx.addUInt8(f[.opcode], &r)
        let label = ctx.registry.binding(LLControl.table, opcode)?.label
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
        ctx.handOff(next, opcode, &r)
        ctx.tree.close()
    }
}

/// Decodes the parameters of one opcode from its layout; bytes beyond them are shown and
/// warned of.
struct LLControlPDU: Dissector {
    let name: String
    let layout: FieldLayout
    let unchanged: FieldLayout?
    let decoded: Bool
    let host: LLControlHost

    init(_ layout: LLControlLayout, _ f: Fields<LLControlField>, advertiser: FieldID?) {
        name = layout.name
        decoded = layout.decoded
        self.layout = FieldLayout(layout.parameters.map { $0.item(f, advertiser: advertiser) })
        unchanged = layout.unchanged.map { FieldLayout($0.map { $0.item(f, advertiser: advertiser) }) }
        host = LLControlHost(f: f)
    }

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        guard decoded else {
            ctx.restAsData(.note, "\(name) (Core 6.2): parameters not decoded", &r)
            return
        }
        var chosen = layout
        if let unchanged, r.peekUInt8() == 0, r.peekUInt8(at: 1) == 0 { chosen = unchanged }
        var run = LayoutRun()
        var host = self.host
        try run.run(chosen, &r, &ctx, host: &host)
        let left = r.remaining
        ctx.restAsData(.warning, (left == 1 ? "1 byte" : "\(left) bytes") + " after the parameters of \(name)", &r)
    }
}

/// The values of control PDU layouts that are not plain fields.
enum LLCustom: UInt32 {
    /// LL_CHANNEL_STATUS_IND's classification of the 37 data channels, 2 bits each.
    case channelStatus
    /// Six bytes of an address with no field to show it as: data.
    case addressData
    /// The 16-bit Instant, also put in the summary.
    case instant
    /// An 8-bit error code, also put in the summary by name.
    case errorCode
}

/// Decodes `LLCustom` values.
struct LLControlHost: LayoutHost {
    let status: FieldID
    /// The fields of the four channel classes, by their 2-bit value.
    let classes: [FieldID]

    init(f: Fields<LLControlField>) {
        status = f[.channelStatus]
        classes = [LLControlField.channelUnknown, .channelGood, .channelReserved, .channelBad].map { f[$0] }
    }

    func decode(
        custom tag: UInt32,
        _ id: FieldID,
        _ run: inout LayoutRun,
        _ r: inout ByteReader,
        _ ctx: inout DissectionContext
    ) throws(DecodeError) {
        let start = r.offset
        switch LLCustom(rawValue: tag) {
        case .channelStatus:
            let bytes = try r.readBytes(10)
            ctx.tree.open(status, .bytes, start..<r.offset, source: r.source)
            for channel in 0..<37 {
                let shift = UInt8(2 * (channel % 4))
                let at = start + channel / 4
                let part = classes[Int((bytes[channel / 4] >> shift) & 0b11)]
                ctx.tree.add(part, .unsigned(UInt64(channel)), at..<(at + 1), source: r.source)
            }
            ctx.tree.close()
        case .addressData:
            try r.skip(6)
            ctx.tree.add(ctx.core[.data], .bytes, start..<r.offset, source: r.source)
        case .instant:
            let v = UInt64(try r.readUInt16())
            ctx.tree.add(id, .unsigned(v), start..<r.offset, source: r.source)
            run.previous = v
            if ctx.wantsInfo { ctx.appendInfo("Instant \(v)") }
        case .errorCode:
            let v = UInt64(try r.readUInt8())
            ctx.tree.add(id, .unsigned(v), start..<r.offset, source: r.source)
            run.previous = v
            if ctx.wantsInfo {
                ctx.appendInfo(
                    (LLControlNames.errors.lookup(v) ?? "Error") + " (" + HexText.prefixed(v, digits: 2) + ")"
                )
            }
        case nil:
            throw DecodeError(.malformed, offset: r.offset, "a layout value no decoder knows")
        }
    }
}

extension DissectionContext {
    /// Shows what `r` has left as data, with an expert note; nothing when nothing is left.
    mutating func restAsData(_ severity: ExpertSeverity, _ message: @autoclosure () -> String, _ r: inout ByteReader) {
        guard !r.isAtEnd else { return }
        expert(severity, message(), r.offset..<(r.offset + r.remaining), source: r.source)
        addRest(core[.data], &r)
    }
}

extension LLParam {
    /// The parameter as a layout row.
    func item(_ f: Fields<LLControlField>, advertiser: FieldID?) -> LayoutItem {
        switch self {
        case .field(let field):
            if field == .instant { return .field(LayoutField(f[field], .custom(LLCustom.instant.rawValue))) }
            if field == .errorCode { return .field(LayoutField(f[field], .custom(LLCustom.errorCode.rawValue))) }
            switch field.descriptor.kind {
            case .signed(let bits): return .integer(f[field], Int(bits) / 8, signed: true)
            case .unsigned(let bits): return .integer(f[field], Int(bits) / 8)
            default: return .bytes(f[field], 1)
            }
        case .bytes(let field, let count):
            return .bytes(f[field], count)
        case .bits(let parent, let count, let fields):
            let parts = fields.map { field in
                let d = field.descriptor
                let low = min(d.bitmask.trailingZeroBitCount / 8, count - 1)
                let high = min(max(low, (63 - d.bitmask.leadingZeroBitCount) / 8), count - 1)
                return LayoutBits(f[field], mask: d.bitmask, flag: d.kind == .boolean, bytes: low..<(high + 1))
            }
            let shown: LayoutParent =
                parent == nil ? .hidden : parent?.descriptor.kind == .bytes ? .bytes : .value
            let value = LayoutValue.integer(width: count, signed: false, bigEndian: false)
            return .field(LayoutField(parent.map { f[$0] } ?? f.layer, value, bits: parts, parent: shown))
        case .advertiserAddress:
            guard let advertiser else { return .field(LayoutField(f.layer, .custom(LLCustom.addressData.rawValue))) }
            return .address(advertiser)
        case .channelStatus:
            return .field(LayoutField(f[.channelStatus], .custom(LLCustom.channelStatus.rawValue)))
        case .featurePage:
            // The page number read just before says which page this is.
            let pages = [LLControlLayouts.features, LLControlLayouts.featurePage1].enumerated().map {
                (UInt64($0.offset), FieldLayout([$0.element.item(f, advertiser: advertiser)]))
            }
            let choice = LayoutChoice(.previous, cases: Dictionary(uniqueKeysWithValues: pages), fallback: nil)
            return .field(
                LayoutField(f[.featurePage], .structure(FieldLayout([.choice(choice)]), .fixed(24), label: .bytes))
            )
        }
    }
}
