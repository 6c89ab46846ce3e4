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
        registry.declare(StandardTables.btle, "LE link-layer packets after the sniffer header")
        let nordic = registry.register(NordicField.self)
        let rf = registry.register(RFField.self)
        let ppi = registry.register(PPIField.self)
        let ll = registry.register(LinkLayerField.self)
        // The sniffer headers keep no state; they hand the packet to the link layer.
        let headers: [(UInt16, String, (Handoff<UInt8>) -> any Dissector)] = [
            (272, "nRF Sniffer", { NordicHeader(f: nordic, next: $0) }),
            (256, "LE link layer with RF header", { RFHeader(f: rf, next: $0) }),
            (251, "LE link layer", { BareLinkLayer(next: $0) }),
            (147, "User 0 (LE link layer, as Ubertooth writes it)", { BareLinkLayer(next: $0) }),
        ]
        for (linkType, label, make) in headers {
            registry.bind(to: StandardTables.linkType, key: linkType, label: label) { s in
                make(s.handoff(into: StandardTables.btle))
            }
        }
        registry.bind(to: StandardTables.linkType, key: 192, label: "PPI") { s in
            PPIHeader(f: ppi, next: s.handoff(into: StandardTables.linkType))
        }
        // The link layer follows connections (access addresses, channels, encryption).
        let control = LLControl.register(&registry)
        registry.bind(to: StandardTables.btle, key: 0, label: "LE link layer") { s in
            s.usesCaptureState()
            return LinkLayerDissector(
                f: ll,
                control: LLControlDissector(f: control, next: s.handoff(into: LLControl.table)),
                l2cap: s.handoff(into: StandardTables.l2cap),
                advertisingData: s.handoff(into: StandardTables.advertisingData)
            )
        }
    }
}
