public import BLEInspectCore

/// The fields of the demo stream: one case per field, in the order they are registered. The
/// raw values must run 0, 1, 2… (the registry checks). Field names are public API once
/// released: add new ones at the end, never rename one.
public enum ThermoProbeField: UInt16, FieldSet {
    case header, sender, sduNumber, length, data, firstValue, countsUp, previousInFrame

    /// The layer: its abbreviation (`cocdemo`) prefixes every field's, and its short name is
    /// what one-line output shows in the protocol column.
    public static let layer = FieldDescriptor(
        "cocdemo",
        "LE CoC Demo Stream",
        .layer,
        help: "The test stream of bleinspect's LE credit-based channel recordings (PSM 0x0085)",
        short: "COCDEMO"
    )

    public var descriptor: FieldDescriptor {
        switch self {
        case .header:
            FieldDescriptor("cocdemo.header", "Header", .string, help: "The SDU's ASCII header, up to its '|'")
        case .sender:
            FieldDescriptor(
                "cocdemo.sender",
                "Sender",
                .unsigned(bits: 8),
                names: ValueNames([
                    (UInt64(ThermoProbeSender.central.rawValue), "Central (C>P)"),
                    (UInt64(ThermoProbeSender.peripheral.rawValue), "Peripheral (P>C)"),
                ]),
                help: "The header's tag: C>P from the central, P>C from the peripheral"
            )
        case .sduNumber:
            FieldDescriptor(
                "cocdemo.sdu_number",
                "SDU Number",
                .unsigned(bits: 32),
                help: "The sender's count of its SDUs, from 1"
            )
        case .length:
            FieldDescriptor(
                "cocdemo.length",
                "SDU Length",
                .unsigned(bits: 16),
                help: "The length the header gives: the whole SDU, header included",
                unit: "bytes"
            )
        case .data:
            FieldDescriptor("cocdemo.data", "Counting Bytes", .bytes, help: "The bytes after the header")
        case .firstValue:
            FieldDescriptor(
                "cocdemo.first_value",
                "First Value",
                .unsigned(bits: 8),
                base: .hex,
                help: "The first counting byte: 0x40 + 0x10 × n from the central, 0xA0 + 0x10 × n from the peripheral"
            )
        case .countsUp:
            FieldDescriptor(
                "cocdemo.counts_up",
                "Counts Up",
                .boolean,
                help: "Every counting byte is the one before plus 1 (modulo 256)"
            )
        case .previousInFrame:
            FieldDescriptor(
                "cocdemo.previous_in_frame",
                "Previous SDU in Frame",
                .unsigned(bits: 32),
                help: "The frame of the same sender's previous SDU on this channel"
            )
        }
    }
}

/// Who sent an SDU, from the tag its header starts with. The raw values are `cocdemo.sender`'s.
public enum ThermoProbeSender: UInt8, Sendable, Hashable {
    case central = 1
    case peripheral = 2

    /// The header's tag.
    public var tag: String { self == .central ? "C>P" : "P>C" }

    /// The value the counting bytes of SDU 0 would start at; SDU n starts 0x10 × n higher.
    var countingBase: UInt64 { self == .central ? 0x40 : 0xA0 }
}
