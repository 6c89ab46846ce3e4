import BLEDissectorTestSupport
import BLEInspectCore
import Testing

/// Fields of the layouts under test.
enum LayoutTestField: UInt16, FieldSet {
    case kind, handle, address, data, name, count, group, item, flags, low, high, flag, value, wide, signed

    static let layer = FieldDescriptor("layouttest", "Layout test", .layer, short: "LAYOUT")

    var descriptor: FieldDescriptor {
        let abbrev = "layouttest.\(self)"
        switch self {
        case .address: return FieldDescriptor(abbrev, "\(self)", .address)
        case .data: return FieldDescriptor(abbrev, "\(self)", .bytes)
        case .name: return FieldDescriptor(abbrev, "\(self)", .string)
        case .group: return FieldDescriptor(abbrev, "\(self)", .group)
        case .flag: return FieldDescriptor(abbrev, "\(self)", .boolean)
        case .signed: return FieldDescriptor(abbrev, "\(self)", .signed(bits: 16))
        default: return FieldDescriptor(abbrev, "\(self)", .unsigned(bits: 64))
        }
    }
}

/// Runs one layout over the whole frame, with two slots and the given limits.
struct LayoutProbe: Dissector {
    let layout: FieldLayout
    var limits = LayoutLimits.none

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        var run = LayoutRun(slots: 2, limits: limits)
        var host = PlainLayout()
        try run.run(layout, &r, &ctx, host: &host)
    }
}

/// The layouts under test, one per frame kind (the frame's bytes are the layout's data).
enum LayoutTestModule: DissectorModule {
    static let name = "layouttest"

    static func layouts(_ f: Fields<LayoutTestField>) -> [FrameKind: LayoutProbe] {
        // Integers, a handle, an address and bytes.
        let fixed: [LayoutItem] = [.u8(f[.kind]), .handle(f[.handle]), .address(f[.address]), .bytes(f[.data], 2)]
        // A count and that many groups; a flat repetition.
        let groups = LayoutItem.groups(count: f[.count], f[.group], [.u8(f[.item]), .i16(f[.signed])])
        // Bits under a hidden parent (one byte each); a choice and a condition on a slot.
        let bits = LayoutItem.field(
            LayoutField(
                f[.flags],
                .integer(width: 2, signed: false, bigEndian: false),
                slot: 0,
                bits: [
                    LayoutBits(f[.low], mask: 0x00FF, bytes: 0..<1),
                    LayoutBits(f[.high], mask: 0x0F00, slot: 1, bytes: 1..<2),
                    LayoutBits(f[.flag], mask: 0x8000, flag: true, bytes: 1..<2),
                ],
                parent: .hidden
            )
        )
        let choice = LayoutItem.choice(
            LayoutChoice(
                .slot(1),
                cases: [1: FieldLayout([.u8(f[.value])]), 2: FieldLayout([.u16(f[.value])])],
                fallback: FieldLayout([.skip(1)])
            )
        )
        let conditional = LayoutItem.field(
            LayoutField(
                f[.wide],
                .integer(width: 3, signed: false, bigEndian: true),
                condition: .init(.slot(1), values: [2])
            )
        )
        return [
            .hciCommand: LayoutProbe(layout: FieldLayout(fixed)),
            .hciEvent: LayoutProbe(
                layout: FieldLayout(groups + LayoutItem.counted(f[.count], [.u8(f[.item])]))
            ),
            .aclData: LayoutProbe(layout: FieldLayout([bits, choice, conditional])),
            // Nodes limited to three.
            .scoData: LayoutProbe(
                layout: FieldLayout(LayoutItem.counted(f[.count], [.u8(f[.item])])),
                limits: {
                    var limits = LayoutLimits()
                    limits.nodes = 3
                    limits.nodesMessage = "three nodes at most"
                    return limits
                }()
            ),
            // A name of up to 8 bytes, then the rest of the data.
            .isoData: LayoutProbe(
                layout: FieldLayout([.name(f[.name], 8), .field(LayoutField(f[.data], .bytes(.rest)))])
            ),
        ]
    }

    static func register(_ registry: inout RegistryBuilder) {
        let f = registry.register(LayoutTestField.self)
        let keys: [FrameKind: UInt8] = [.hciCommand: 1, .aclData: 2, .scoData: 3, .hciEvent: 4, .isoData: 5]
        for (kind, probe) in layouts(f) {
            if let key = keys[kind] { registry.bind(probe, to: StandardTables.hciPacketType, key: DissectorKey(key)) }
        }
    }
}

@Suite("The layout interpreter (LayoutRun)")
struct LayoutRunTests {
    static let registry: DissectorRegistry = {
        do {
            return try RegistryBuilder.build(modules: [LayoutTestModule.self])
        } catch {
            fatalError("layout test registry does not build: \(error)")
        }
    }()

    func run(_ kind: FrameKind, _ hex: String) -> FrameSnapshot {
        Dissect.frames([Dissect.hci(kind, hex)], registry: Self.registry)[0]
    }

    @Test("fixed integers, a 12-bit handle, an address and bytes")
    func fixed() {
        let s = run(.hciCommand, "07 40 F0 06 05 04 03 02 01 AA BB")
        #expect(!s.isMalformed)
        #expect(s.uints("layouttest.kind") == [7])
        #expect(s.uints("layouttest.handle") == [0x040])
        #expect(s.addresses("layouttest.address") == ["01:02:03:04:05:06"])
        #expect(s.hex("layouttest.data") == ["aabb"])
    }

    @Test("a count of groups, each labelled with its index, then a flat repetition")
    func groups() {
        let s = run(.hciEvent, "02 01 FE FF 02 02 00 02 0A 0B")
        #expect(!s.isMalformed)
        #expect(s.uints("layouttest.count") == [2, 2])
        #expect(s.uints("layouttest.group") == [1, 2])
        #expect(s.uints("layouttest.item") == [1, 2, 0x0A, 0x0B])
        #expect(s.ints("layouttest.signed") == [-2, 2])
        #expect(s.depth("layouttest.signed") == (s.depth("layouttest.group") ?? 0) + 1)
    }

    @Test("bits without their parent, a choice and a condition on a bit field's slot")
    func choice() {
        // flags 0x8234: low 0x34, high 2, flag set; case 2 reads a u16; the condition holds.
        let two = run(.aclData, "34 82 CD AB 01 02 03")
        #expect(!two.isMalformed)
        #expect(!two.has("layouttest.flags"))
        #expect(two.uints("layouttest.low") == [0x34])
        #expect(two.uints("layouttest.high") == [2])
        #expect(two.bools("layouttest.flag") == [true])
        #expect(two.uints("layouttest.value") == [0xABCD])
        #expect(two.uints("layouttest.wide") == [0x010203])
        // high 1: a u8, and no conditional field.
        let one = run(.aclData, "00 01 09")
        #expect(!one.isMalformed)
        #expect(one.uints("layouttest.value") == [9])
        #expect(!one.has("layouttest.wide"))
        #expect(one.bools("layouttest.flag") == [false])
        // high 5: the fallback skips a byte.
        let other = run(.aclData, "00 05 09")
        #expect(!other.isMalformed)
        #expect(!other.has("layouttest.value"))
    }

    @Test("a node limit stops the run with its message")
    func limit() {
        #expect(!run(.scoData, "02 01 02").isMalformed)
        let s = run(.scoData, "03 01 02 03")
        #expect(s.isMalformed)
        #expect(s.expertMessages.contains { $0.contains("three nodes at most") })
    }

    @Test("a name up to a NUL within its size, shorter when the data is")
    func name() {
        let s = run(.isoData, "41 42 00 43 44 45 46 47 99")
        #expect(s.strings("layouttest.name") == ["AB"])
        #expect(s.hex("layouttest.data") == ["99"])
        #expect(run(.isoData, "41 42").strings("layouttest.name") == ["AB"])
    }

    static let complete: [(FrameKind, String)] = [
        (.hciCommand, "07 40 F0 06 05 04 03 02 01 AA BB"),
        (.hciEvent, "02 01 FE FF 02 02 00 02 0A 0B"),
        (.aclData, "34 82 CD AB 01 02 03"),
        (.aclData, "00 01 09"),
    ]

    @Test("every strict prefix of a layout's data is truncated, never malformed otherwise", arguments: 0..<4)
    func prefixes(index: Int) {
        let (kind, hex) = Self.complete[index]
        let frame = Dissect.hci(kind, hex)
        expectEveryPrefix(of: frame.bytes, hex) { cut in
            var cutFrame = frame
            cutFrame.bytes = cut
            cutFrame.originalLength = cut.count
            return Dissect.frames([cutFrame], registry: Self.registry)[0]
        }
    }
}
