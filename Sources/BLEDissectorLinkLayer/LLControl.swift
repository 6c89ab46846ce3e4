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
    case opcode, interval, latency, timeout, errorCode, phyCentral, phyPeripheral
    case maxRxOctets, maxRxTime, maxTxOctets, maxTxTime

    public static let layer = FieldDescriptor("btle.control", "LL Control PDU", .layer, short: "LL_CTRL")

    public var descriptor: FieldDescriptor {
        switch self {
        case .opcode: FieldDescriptor("btle.control_opcode", "Control Opcode", .unsigned(bits: 8), base: .hex)
        case .interval: FieldDescriptor("btle.control.interval", "Interval", .unsigned(bits: 16))
        case .latency: FieldDescriptor("btle.control.latency", "Latency", .unsigned(bits: 16))
        case .timeout: FieldDescriptor("btle.control.timeout", "Timeout", .unsigned(bits: 16))
        case .errorCode: FieldDescriptor("btle.control.error_code", "Error", .unsigned(bits: 8), base: .hex)
        case .phyCentral: FieldDescriptor("btle.control.m_to_s_phy", "PHY C to P", .unsigned(bits: 8), base: .hex)
        case .phyPeripheral: FieldDescriptor("btle.control.s_to_m_phy", "PHY P to C", .unsigned(bits: 8), base: .hex)
        case .maxRxOctets: FieldDescriptor("btle.control.max_rx_octets", "Max RX octets", .unsigned(bits: 16))
        case .maxRxTime: FieldDescriptor("btle.control.max_rx_time", "Max RX time", .unsigned(bits: 16))
        case .maxTxOctets: FieldDescriptor("btle.control.max_tx_octets", "Max TX octets", .unsigned(bits: 16))
        case .maxTxTime: FieldDescriptor("btle.control.max_tx_time", "Max TX time", .unsigned(bits: 16))
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
        switch opcode {
        case 0x00:
            try r.skip(3)
            try ctx.addUInt16(f[.interval], &r)
            try ctx.addUInt16(f[.latency], &r)
            try ctx.addUInt16(f[.timeout], &r)
        case 0x02: try ctx.addUInt8(f[.errorCode], &r)
        case 0x14, 0x15:
            for x in [LLControlField.maxRxOctets, .maxRxTime, .maxTxOctets, .maxTxTime] { try ctx.addUInt16(f[x], &r) }
        case 0x18:
            try ctx.addUInt8(f[.phyCentral], &r)
            try ctx.addUInt8(f[.phyPeripheral], &r)
        default: break
        }
        ctx.tree.close()
    }
}
