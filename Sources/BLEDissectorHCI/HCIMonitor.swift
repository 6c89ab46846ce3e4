import BLEAssignedNumbers
public import BLEInspectCore

// The Linux monitor channel's index records (btsnoop datalink 2001, pcap link type 254, live
// capture): a controller appeared (New Index), went away (Delete Index), was opened or closed,
// and described (Index Info). Layouts from BlueZ's doc/btsnoop.rst; field names and the bytes
// they cover checked against tshark 4.0 (`tshark -G fields`, `tshark -V`).

/// Fields of the Linux monitor index records.
///
/// Wireshark names the first byte of New Index `hci_mon.bus` and the second `hci_mon.type`, the
/// other way round from BlueZ (whose first byte is the controller type, the second the bus). The
/// abbreviations here are Wireshark's, on the same bytes, so that filters and `-T fields` columns
/// agree with tshark; the display names and help say what each byte is.
public enum HCIMonitorField: UInt16, FieldSet {
    case controllerType, bus, bdAddr, adapterName, manufacturer

    public static let layer = FieldDescriptor(
        "hci_mon",
        "Bluetooth Linux Monitor Transport",
        .layer,
        help: "Linux monitor channel records that are not HCI packets or text: index records",
        short: "HCI_MON"
    )

    // swift-format-ignore
    public var descriptor: FieldDescriptor {
        switch self {
        case .controllerType: .uint("hci_mon.bus", "Controller Type", 8, hex: true, names: HCIMonitorNames.controllerTypes, help: "New Index: the controller's type (BlueZ's \"Type\"; Wireshark calls this byte Bus)")
        case .bus: .uint("hci_mon.type", "Bus", 8, hex: true, names: HCIMonitorNames.buses, help: "New Index: the bus the controller is attached by (BlueZ's \"Bus\"; Wireshark calls this byte Type)")
        case .bdAddr: FieldDescriptor("hci_mon.bd_addr", "BD_ADDR", .address, help: "The controller's public address")
        case .adapterName: FieldDescriptor("hci_mon.adapter_name", "Adapter Name", .string, help: "New Index: the name, e.g. hci0")
        case .manufacturer: .uint("hci_mon.manufacturer", "Manufacturer", 16, hex: true, names: HCIMonitorNames.companies, help: "Index Info: the controller's manufacturer (Bluetooth SIG company identifier)")
        }
    }
}

/// Value names of the index records' fields.
enum HCIMonitorNames {
    /// Controller types of New Index (older documents and Wireshark say BR/EDR for Primary).
    static let controllerTypes = ValueNames([(0x00, "Primary"), (0x01, "AMP")])

    /// HCI bus types of New Index: 0–6 as tshark names them, 7–11 from BlueZ's documentation.
    static let buses = ValueNames([
        (0, "Virtual"), (1, "USB"), (2, "PC Card"), (3, "UART"), (4, "RS232"), (5, "PCI"), (6, "SDIO"),
        (7, "SPI"), (8, "I2C"), (9, "SMD"), (10, "VIRTIO"), (11, "IPC"),
    ])

    static let companies = ValueNames(lookup: { v in
        v <= 0xFFFF ? AssignedNumbers.companyName(UInt16(truncatingIfNeeded: v)) : nil
    })
}

/// Decoders of the index records, bound in `StandardTables.monitorOpcode`.
enum HCIMonitor {
    /// The size of New Index's name field.
    static let nameSize = 8

    static func register(_ registry: inout RegistryBuilder) {
        let f = registry.register(HCIMonitorField.self)
        let kinds: [FrameKind] = [.newIndex, .deleteIndex, .openIndex, .closeIndex, .indexInfo]
        for kind in kinds {
            guard let opcode = kind.monitorOpcode else { continue }
            registry.bind(Record(f: f, kind: kind), to: StandardTables.monitorOpcode, key: opcode, label: kind.name)
        }
    }

    /// How a one-byte value is named in summaries: its name, or the label and its hex value.
    static func label(_ names: ValueNames, _ value: UInt8, unknown: String) -> String {
        names.lookup(UInt64(value)) ?? unknown + " " + HexText.prefixed(UInt64(value), digits: 2)
    }

    /// One index record: the `hci_mon` layer over the whole record, its parameters (New Index:
    /// controller type, bus, address, name; Index Info: address and manufacturer; Delete, Open and
    /// Close Index have none), and any bytes after them shown with a note.
    struct Record: Dissector {
        let f: Fields<HCIMonitorField>
        let kind: FrameKind

        func dissect(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
            ctx.tree.open(f.layer, .none, r.offset..<(r.offset + r.remaining), source: r.source)
            ctx.setInfo(kind.name)
            switch kind {
            case .newIndex:
                try newIndex(&r, &ctx)
                ctx.leftover(&r, what: "the New Index record")
            case .indexInfo:
                try indexInfo(&r, &ctx)
                ctx.leftover(&r, what: "the Index Info record")
            default:
                ctx.leftover(&r, what: "the \(kind.name) record, which has no parameters")
            }
            ctx.tree.close()
        }

        private func newIndex(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
            let type = try ctx.addUInt8(f[.controllerType], &r)
            let bus = try ctx.addUInt8(f[.bus], &r)
            let address = try ctx.addAddress(f[.bdAddr], &r)
            let s = r.offset
            let field = try r.readSlice(nameSize)
            let raw = field.remainingSlice.prefix { $0 != 0 }
            ctx.tree.add(f[.adapterName], text: String(decoding: raw, as: UTF8.self), s..<r.offset, source: r.source)
            ctx.setInfo(
                parts: "New Index: ",
                raw.isEmpty ? "" : TerminalSafeText.escape(raw) + " ",
                address.description,
                " (" + label(HCIMonitorNames.controllerTypes, type, unknown: "Type") + ", "
                    + label(HCIMonitorNames.buses, bus, unknown: "Bus") + ")"
            )
        }

        private func indexInfo(_ r: inout ByteReader, _ ctx: inout DissectionContext) throws(DecodeError) {
            let address = try ctx.addAddress(f[.bdAddr], &r)
            let company = try ctx.addUInt16(f[.manufacturer], &r)
            ctx.setInfo(
                parts: "Index Info: ",
                address.description,
                " (",
                (AssignedNumbers.companyName(company) ?? "Manufacturer " + HexText.prefixed(UInt64(company), digits: 4))
                    + ")"
            )
        }
    }
}
