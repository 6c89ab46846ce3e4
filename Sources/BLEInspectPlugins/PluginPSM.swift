import BLEInspectCore

extension PluginHost {
    /// A plugin field marked `psm: true`: the PSM an app publishes in its own attribute or in
    /// its advertising data. Like the L2CAP PSM characteristic's value, it is published for the
    /// L2CAP layer (`PublishedPSMs`), so that a channel opened on it names this frame, with the
    /// LE range warning; an attribute write is not a publication.
    func publishPSM(_ value: UInt64, _ range: Range<Int>, source: Int, _ c: inout DissectionContext) {
        guard value <= 0xFFFF else {
            c.expert(.warning, "PSM \(value) does not fit 16 bits", range, source: source)
            return
        }
        let psm = UInt16(value)
        if let warning = PublishedPSMs.rangeWarning(psm) { c.expert(.warning, warning, range, source: source) }
        let note = PublishedPSMs.channelsNote(c)
        c.appendInfo("L2CAP PSM: " + HexText.prefixed(UInt64(psm), digits: 4, upperCase: false) + note)
        let via: PublishedPSMs.Via?
        switch target {
        case .manufacturer, .serviceData: via = .advert
        case .attribute: via = PublishedPSMs.via(attOpcode: c.packet.attOpcode)
        case .psm: via = nil
        }
        guard let via else { return }
        PublishedPSMs.publish(psm, via: via, connection: via == .advert ? nil : c.packet.connection, &c)
    }
}
