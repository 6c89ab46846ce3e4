public import BLEInspectCore

/// LL control PDUs (LLID 3; Core Specification Vol 6 Part B 2.4.2): the opcode, then its
/// parameters.
enum LLControl {
    /// Registers the control PDU fields and returns the dissector the data-channel dissector runs
    /// on a control PDU's payload (from its opcode on).
    static func register(_ registry: inout RegistryBuilder) -> LLControlDissector {
        LLControlDissector(f: registry.register(LLControlField.self))
    }

    /// The opcode's name (`LL_FEATURE_REQ`), nil for an unknown opcode.
    static func name(_ opcode: UInt8) -> String? { nil }
}

/// The fields of LL control PDUs: Wireshark's names (`btle.control_opcode`, `btle.control.*`).
public enum LLControlField: UInt16, FieldSet {
    case opcode

    public static let layer = FieldDescriptor("btle.control", "LL Control PDU", .layer, short: "LL_CTRL")

    public var descriptor: FieldDescriptor {
        switch self {
        case .opcode: FieldDescriptor("btle.control_opcode", "Control Opcode", .unsigned(bits: 8), base: .hex)
        }
    }
}

/// Decodes one control PDU.
struct LLControlDissector: Dissector {
    let f: Fields<LLControlField>

    func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
        ctx.tree.open(f.layer, .none, r.offset..<(r.offset + r.remaining), source: r.source)
        let opcode = try ctx.addUInt8(f[.opcode], &r)
        // The data-channel dissector has put the sender ("C→P ") in the summary: no comma.
        if ctx.wantsInfo {
            ctx.tree.appendInfo(LLControl.name(opcode) ?? "Unknown control PDU 0x\(String(opcode, radix: 16))")
        }
        ctx.tree.close()
    }
}
