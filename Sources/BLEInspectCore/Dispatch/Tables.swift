/// The name of a dissector table: a place where modules bind dissectors by key. Identity is the
/// name; the registry gives each table a slot when it is first named, for dispatch by index.
public struct TableID: Hashable, Sendable, CustomStringConvertible {
    public let name: String

    public init(_ name: String) { self.name = name }

    public var description: String { name }
}

/// The type of a table's keys: what a binding and a handoff give, checked against the table's
/// declared key kind when the registry freezes.
public protocol TableKey: Sendable {
    static var keyKind: TableKeyKind { get }
    var dissectorKey: DissectorKey { get }
}

extension UInt8: TableKey {
    public static var keyKind: TableKeyKind { .integer(bits: 8) }
    @inlinable public var dissectorKey: DissectorKey { DissectorKey(self) }
}

extension UInt16: TableKey {
    public static var keyKind: TableKeyKind { .integer(bits: 16) }
    @inlinable public var dissectorKey: DissectorKey { DissectorKey(self) }
}

extension BluetoothUUID: TableKey {
    public static var keyKind: TableKeyKind { .uuid }
    public var dissectorKey: DissectorKey { DissectorKey(self) }
}

/// A dissector table whose keys are `Key`s. The module that dispatches into it declares it
/// (`RegistryBuilder.declare(_:_:)`); others bind into it by the same name.
public struct Table<Key: TableKey>: Sendable, Hashable, CustomStringConvertible {
    public let id: TableID

    public init(_ name: String) { id = TableID(name) }

    public var description: String { id.name }
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
public enum TableKeyKind: Sendable, Hashable, CustomStringConvertible {
    case integer(bits: UInt8)
    case uuid

    public var description: String {
        switch self {
        case .integer(let bits): "\(bits)-bit integers"
        case .uuid: "UUIDs"
        }
    }
}

/// The names of the tables the built-in modules share, so that modules that never import one
/// another spell each name once. Each table is declared by the module that dispatches into it (the
/// owner, named below), which gives its description; the registry numbers them.
public enum StandardTables {
    /// HCI packet indicator (1 command, 2 ACL, 3 SCO, 4 event, 5 ISO). Owner: the engine.
    public static let hciPacketType = Table<UInt8>("hci.packet_type")
    /// HCI command opcode (OGF << 10 | OCF): command parameters. Owner: HCI.
    public static let hciCommand = Table<UInt16>("bthci_cmd.opcode")
    /// HCI command opcode: return parameters of Command Complete. Owner: HCI.
    public static let hciCommandComplete = Table<UInt16>("bthci_evt.command_complete.opcode")
    /// HCI event code. Owner: HCI.
    public static let hciEvent = Table<UInt8>("bthci_evt.code")
    /// LE Meta event subevent code. Owner: HCI.
    public static let leMetaSubevent = Table<UInt8>("bthci_evt.le_meta_subevent")
    /// Complete L2CAP PDUs reassembled from ACL data or link-layer fragments (key 0). Owner:
    /// L2CAP, which binds its dissector there for HCI and the link layer to hand off to.
    public static let l2cap = Table<UInt8>("btl2cap")
    /// L2CAP fixed channel id (4 ATT, 5 LE signalling, 6 SMP). Owner: L2CAP.
    public static let l2capCID = Table<UInt16>("btl2cap.cid")
    /// L2CAP PSM of a credit-based channel: SDUs, already reassembled. Owner: L2CAP.
    public static let l2capPSM = Table<UInt16>("btl2cap.psm")
    /// ATT opcode. Owner: ATT.
    public static let attOpcode = Table<UInt8>("btatt.opcode")
    /// GATT characteristic or descriptor UUID: decoders of attribute values. Owner: ATT.
    public static let gattUUID = Table<BluetoothUUID>("bluetooth.uuid")
    /// Advertising data (AD) type. Owner: Advertising.
    public static let adType = Table<UInt8>("btcommon.eir_ad.type")
    /// Manufacturer-specific data by company identifier. Owner: Advertising.
    public static let companyID = Table<UInt16>("btcommon.eir_ad.company_id")
    /// Service data by service UUID. Owner: Advertising.
    public static let serviceData = Table<BluetoothUUID>("btcommon.eir_ad.service_data")
    /// A whole advertising-data block (the AD structures of a report or a Set Data command), key
    /// 0. Owner: Advertising, which binds its block dissector there for HCI and the link layer.
    public static let advertisingData = Table<UInt8>("btcommon.eir_ad")
    /// SMP opcode. Owner: SMP.
    public static let smpOpcode = Table<UInt8>("btsmp.opcode")
    /// Linux monitor record opcode (`FrameKind.monitorOpcode`) of the records that are neither HCI
    /// packets nor text: index records (0 New, 1 Delete, 8 Open, 9 Close, 10 Info), vendor
    /// diagnostics, management control. The dissector gets the record's payload. Owner: the engine.
    public static let monitorOpcode = Table<UInt16>("hci_mon.opcode")
    /// Link-layer frames from sniffers by pcap link type (`FrameKind.linkLayer`): 251 LE link
    /// layer, 256 LE link layer with RF header, 272 nRF Sniffer, 192 PPI, 147 (user 0, which
    /// Ubertooth and crackle use for the LE link layer). The dissector gets the whole record.
    /// Owner: the engine.
    public static let linkType = Table<UInt16>("pcap.dlt")
    /// LE link-layer packets (access address, header, PDU, CRC), key 0: what the sniffer headers
    /// hand on. `PacketInfo.linkLayer` carries what the sniffer header said about the packet.
    /// Owner: LinkLayer.
    public static let btle = Table<UInt8>("btle")
}

/// Decodes one kind of PDU. Reads through `reader`, adds fields to `context.tree`, and hands
/// payloads on through the `Handoff`s it was made with (`context.handOff`). Throws `DecodeError`
/// for bad bytes; the engine turns that into a malformed note at this layer and keeps what was
/// decoded.
public protocol Dissector: Sendable {
    func dissect(_ reader: inout ByteReader, _ context: inout DissectionContext) throws(DecodeError)
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
