/// The name of a dissector table: a place where modules bind dissectors by key.
public struct TableID: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    /// For the standard tables: their position in `StandardTables.declarations`, so that dispatch
    /// finds them by index instead of hashing the name. Not part of identity.
    public let standardSlot: Int?

    public init(_ name: String) {
        self.name = name
        self.standardSlot = nil
    }

    init(_ name: String, standardSlot: Int) {
        self.name = name
        self.standardSlot = standardSlot
    }

    public var description: String { name }
    public static func == (a: TableID, b: TableID) -> Bool { a.name == b.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// A key in a dissector table: an integer (opcode, CID, PSM, AD type, company id) or a UUID.
public struct DissectorKey: Hashable, Sendable, CustomStringConvertible {
    public let high: UInt64
    public let low: UInt64
    public let isUUID: Bool

    @inlinable
    public init(_ value: UInt64) {
        high = 0
        low = value
        isUUID = false
    }

    @inlinable
    public init<I: BinaryInteger>(_ value: I) { self.init(UInt64(truncatingIfNeeded: value)) }

    public init(_ uuid: BluetoothUUID) {
        high = uuid.high
        low = uuid.low
        isUUID = true
    }

    public var description: String {
        isUUID
            ? BluetoothUUID(high: high, low: low, width: 16).description
            : "0x" + String(low, radix: 16, uppercase: true)
    }
}

/// What kind of keys a table takes, for listings and plugin validation.
public enum TableKeyKind: Sendable, Hashable {
    case integer(bits: UInt8)
    case uuid
}

/// The tables the standard modules own. Modules meet only through these names, never by
/// importing one another.
public enum StandardTables {
    /// HCI packet indicator (1 command, 2 ACL, 3 SCO, 4 event, 5 ISO).
    public static let hciPacketType = TableID("hci.packet_type", standardSlot: 0)
    /// HCI command opcode (OGF << 10 | OCF): command parameters.
    public static let hciCommand = TableID("bthci_cmd.opcode", standardSlot: 1)
    /// HCI command opcode: return parameters of Command Complete.
    public static let hciCommandComplete = TableID("bthci_evt.command_complete.opcode", standardSlot: 2)
    /// HCI event code.
    public static let hciEvent = TableID("bthci_evt.code", standardSlot: 3)
    /// LE Meta event subevent code.
    public static let leMetaSubevent = TableID("bthci_evt.le_meta_subevent", standardSlot: 4)
    /// Complete L2CAP PDUs reassembled from LE ACL data (key 0).
    public static let l2cap = TableID("btl2cap", standardSlot: 5)
    /// L2CAP fixed channel id (4 ATT, 5 LE signalling, 6 SMP).
    public static let l2capCID = TableID("btl2cap.cid", standardSlot: 6)
    /// L2CAP PSM of a credit-based channel: SDUs, already reassembled.
    public static let l2capPSM = TableID("btl2cap.psm", standardSlot: 7)
    /// ATT opcode.
    public static let attOpcode = TableID("btatt.opcode", standardSlot: 8)
    /// GATT characteristic or descriptor UUID: decoders of attribute values.
    public static let gattUUID = TableID("bluetooth.uuid", standardSlot: 9)
    /// Advertising data (AD) type.
    public static let adType = TableID("btcommon.eir_ad.type", standardSlot: 10)
    /// Manufacturer-specific data by company identifier.
    public static let companyID = TableID("btcommon.eir_ad.company_id", standardSlot: 11)
    /// Service data by service UUID.
    public static let serviceData = TableID("btcommon.eir_ad.service_data", standardSlot: 12)
    /// A whole advertising-data block (the AD structures of a report or a Set Data command), key 0.
    public static let advertisingData = TableID("btcommon.eir_ad", standardSlot: 13)
    /// SMP opcode.
    public static let smpOpcode = TableID("btsmp.opcode", standardSlot: 14)
    /// Linux monitor record opcode (`FrameKind.monitorOpcode`) of the records that are neither HCI
    /// packets nor text: index records (0 New, 1 Delete, 8 Open, 9 Close, 10 Info), vendor
    /// diagnostics, management control. The dissector gets the record's payload.
    public static let monitorOpcode = TableID("hci_mon.opcode", standardSlot: 15)
    /// Link-layer frames from sniffers by pcap link type (`FrameKind.linkLayer`): 251 LE link
    /// layer, 256 LE link layer with RF header, 272 nRF Sniffer, 192 PPI, 147 (user 0, which
    /// Ubertooth and crackle use for the LE link layer). The dissector gets the whole record.
    public static let linkType = TableID("pcap.dlt", standardSlot: 16)
    /// LE link-layer packets (access address, header, PDU, CRC), key 0: what the sniffer headers
    /// hand on. `PacketInfo.linkLayer` carries what the sniffer header said about the packet.
    public static let btle = TableID("btle", standardSlot: 17)

    /// Every standard table with its description and key kind.
    public static let declarations: [(TableID, String, TableKeyKind)] = [
        (hciPacketType, "HCI packet type (H4 indicator)", .integer(bits: 8)),
        (hciCommand, "HCI command parameters by opcode", .integer(bits: 16)),
        (hciCommandComplete, "HCI return parameters by command opcode", .integer(bits: 16)),
        (hciEvent, "HCI event parameters by event code", .integer(bits: 8)),
        (leMetaSubevent, "LE Meta event parameters by subevent code", .integer(bits: 8)),
        (l2cap, "Complete L2CAP PDUs from ACL data", .integer(bits: 8)),
        (l2capCID, "L2CAP fixed channels by CID", .integer(bits: 16)),
        (l2capPSM, "L2CAP credit-based channel SDUs by PSM", .integer(bits: 16)),
        (attOpcode, "ATT PDUs by opcode", .integer(bits: 8)),
        (gattUUID, "GATT attribute values by characteristic or descriptor UUID", .uuid),
        (adType, "Advertising data structures by AD type", .integer(bits: 8)),
        (companyID, "Manufacturer-specific data by company identifier", .integer(bits: 16)),
        (serviceData, "Service data by service UUID", .uuid),
        (advertisingData, "Advertising data blocks", .integer(bits: 8)),
        (smpOpcode, "SMP PDUs by opcode", .integer(bits: 8)),
        (monitorOpcode, "Linux monitor records (not HCI, not text) by opcode", .integer(bits: 16)),
        (linkType, "Sniffer link-layer frames by pcap link type", .integer(bits: 16)),
        (btle, "LE link-layer packets after the sniffer header", .integer(bits: 8)),
    ]
}

/// Decodes one kind of PDU. Reads through `reader`, adds fields to `context.tree`, and hands
/// payloads on with `context.dispatch`. Throws `DecodeError` for bad bytes; the engine turns that
/// into a malformed note at this layer and keeps what was decoded.
public protocol Dissector: Sendable {
    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError)

    /// For a dissector bound to a frame kind (`StandardTables.hciPacketType`): whether decoding
    /// `bytes` (the whole frame) neither reads nor changes capture state, so that any engine may
    /// decode it. Called on every frame by the parallel reader, so it must be cheap; it usually
    /// looks at a code or two and asks the registry whether the binding for it `keepsNoState`.
    /// The default, false, is always safe.
    func decodesWithoutState(_ bytes: UnsafeBufferPointer<UInt8>, registry: DissectorRegistry) -> Bool
}

extension Dissector {
    public func decodesWithoutState(_ bytes: UnsafeBufferPointer<UInt8>, registry: DissectorRegistry) -> Bool {
        false
    }
}

/// A dissector made from a closure, for small decoders.
public struct ClosureDissector: Dissector {
    let body: @Sendable (inout ByteReader, inout DissectionContext) throws(DecodeError) -> Void

    public init(_ body: @escaping @Sendable (inout ByteReader, inout DissectionContext) throws(DecodeError) -> Void) {
        self.body = body
    }

    public func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError) {
        try body(&reader, &context)
    }
}
