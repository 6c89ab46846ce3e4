/// Shorthands for writing a module's layout rows: `[.u8(status), .handle(handle), .address(addr)]`.
extension LayoutItem {
    @inlinable
    public static func integer(_ id: FieldID, _ width: Int, signed: Bool = false) -> LayoutItem {
        .field(LayoutField(id, .integer(width: width, signed: signed, bigEndian: false)))
    }

    public static func u8(_ id: FieldID) -> LayoutItem { integer(id, 1) }
    public static func u16(_ id: FieldID) -> LayoutItem { integer(id, 2) }
    public static func u24(_ id: FieldID) -> LayoutItem { integer(id, 3) }
    public static func u32(_ id: FieldID) -> LayoutItem { integer(id, 4) }
    public static func u64(_ id: FieldID) -> LayoutItem { integer(id, 8) }
    public static func i8(_ id: FieldID) -> LayoutItem { integer(id, 1, signed: true) }
    public static func i16(_ id: FieldID) -> LayoutItem { integer(id, 2, signed: true) }

    /// A connection handle: the low 12 bits of a 16-bit value.
    public static func handle(_ id: FieldID) -> LayoutItem { .field(LayoutField(id, .masked(width: 2, mask: 0x0FFF))) }

    public static func address(_ id: FieldID) -> LayoutItem { .field(LayoutField(id, .address)) }

    public static func bytes(_ id: FieldID, _ count: Int) -> LayoutItem {
        .field(LayoutField(id, .bytes(.fixed(count))))
    }

    /// A name in a fixed field of up to `size` bytes, ended by the first NUL. A shorter field is
    /// read to its end.
    public static func name(_ id: FieldID, _ size: Int) -> LayoutItem {
        .field(LayoutField(id, .text(.atMost(size), terminated: true)))
    }

    /// An unsigned integer of `width` bytes shown as `id`, with one unsigned field per mask
    /// under it.
    public static func bits(_ id: FieldID, _ width: Int, _ parts: KeyValuePairs<FieldID, UInt64>) -> LayoutItem {
        .field(
            LayoutField(
                id,
                .integer(width: width, signed: false, bigEndian: false),
                bits: parts.map { LayoutBits($0.key, mask: $0.value) }
            )
        )
    }

    /// A count of `width` bytes shown as `id`, then that many repetitions of `each`.
    public static func counted(_ id: FieldID, _ each: [LayoutItem], width: Int = 1) -> [LayoutItem] {
        [integer(id, width), .repeated(count: .value(.previous), FieldLayout(each))]
    }

    /// A count shown as `count`, then that many groups `group` (labelled 1, 2, …) of `each`.
    public static func groups(count: FieldID, _ group: FieldID, _ each: [LayoutItem]) -> [LayoutItem] {
        [
            integer(count, 1),
            .field(
                LayoutField(
                    group,
                    .array(.structure(FieldLayout(each), .rest, label: .none), count: .value(.previous), length: nil)
                )
            ),
        ]
    }

    /// Everything left, handed on as `handoff` says (a `Handoff` with its key fixed).
    public static func dispatchRest(_ handoff: KeyedHandoff) -> LayoutItem {
        .dispatch(handoff, .rest)
    }
}
