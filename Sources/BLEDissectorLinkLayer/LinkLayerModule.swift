public import BLEInspectCore

/// Over-the-air captures from LE sniffers: the sniffer headers of pcap link types 272 (nRF
/// Sniffer), 256 (LE link layer with RF header), 251 (LE link layer), 192 (PPI) and 147 (user 0,
/// as Ubertooth and crackle write the LE link layer), then the link layer itself
/// (`StandardTables.btle`): advertising PDUs, including extended advertising, with their AdvData
/// through the same advertising-data dissectors as HCI reports; CONNECT_IND and the connection it
/// starts, followed by access address; data-channel PDUs, with every LL control PDU; and L2CAP
/// PDUs reassembled from LL fragments and handed to `StandardTables.l2cap` like HCI ACL data.
public enum LinkLayerModule: DissectorModule {
    public static let name = "btle"

    public static func register(_ registry: inout RegistryBuilder) {
        let nordic = registry.register(NordicField.self)
        let rf = registry.register(RFField.self)
        let ppi = registry.register(PPIField.self)
        let ll = registry.register(LinkLayerField.self)
        let control = LLControl.register(&registry)
        let into = [StandardTables.btle]
        registry.bind(
            NordicHeader(f: nordic),
            to: StandardTables.linkType,
            key: DissectorKey(272),
            label: "nRF Sniffer",
            dispatchesInto: into
        )
        registry.bind(
            RFHeader(f: rf),
            to: StandardTables.linkType,
            key: DissectorKey(256),
            label: "LE link layer with RF header",
            dispatchesInto: into
        )
        registry.bind(
            BareLinkLayer(),
            to: StandardTables.linkType,
            key: DissectorKey(251),
            label: "LE link layer",
            dispatchesInto: into
        )
        registry.bind(
            BareLinkLayer(),
            to: StandardTables.linkType,
            key: DissectorKey(147),
            label: "User 0 (LE link layer, as Ubertooth writes it)",
            dispatchesInto: into
        )
        registry.bind(
            PPIHeader(f: ppi),
            to: StandardTables.linkType,
            key: DissectorKey(192),
            label: "PPI",
            dispatchesInto: [StandardTables.linkType]
        )
        registry.bind(
            LinkLayerDissector(f: ll, control: control),
            to: StandardTables.btle,
            key: DissectorKey(0),
            label: "LE link layer",
            dispatchesInto: [StandardTables.advertisingData, StandardTables.l2cap]
        )
    }
}
