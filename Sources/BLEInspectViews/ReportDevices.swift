import Plot

/// The devices' adverts: RSSI and advertising interval in the overview's table, and a chart of
/// RSSI over time for the devices heard most, with their connections marked.
extension ReportPage {
    /// The most devices with an RSSI chart.
    static let rssiCharts = 40

    /// `-71 / -64.2 / -58` (minimum, mean, maximum), empty without adverts.
    static func rssi(_ d: ReportDevice) -> String {
        let points = d.rssi.points
        guard let low = points.map(\.low).min(), let high = points.map(\.high).max(), d.rssi.samples > 0 else {
            return ""
        }
        let mean = Double(points.reduce(Int64(0)) { $0 &+ $1.sum }) / Double(d.rssi.samples)
        return "\(low) / " + Markup.number(mean) + " / \(high)"
    }

    /// The median time between adverts.
    static func interval(_ d: ReportDevice) -> String { d.interval.map(ConnsTime.short) ?? "" }

    /// The connections to `d`: those whose peer had its address.
    func connections(to d: ReportDevice) -> [ConnsRecord] {
        capture.sorted.filter {
            $0.peerAddress == d.address || $0.peerIdentity == d.address || $0.peerAddresses.contains(d.address)
        }
    }

    /// The section of RSSI charts, or nothing when no device advertised twice with an RSSI.
    var deviceCharts: Node<HTML.BodyContext> {
        let heard = capture.devices.values.filter { $0.rssi.points.count >= 2 }
            .sorted {
                $0.rssi.samples != $1.rssi.samples ? $0.rssi.samples > $1.rssi.samples : $0.first.frame < $1.first.frame
            }
        guard let first = capture.first?.time, let last = capture.last?.time, !heard.isEmpty else { return .empty }
        let shown = heard.prefix(Self.rssiCharts)
        return .section(
            .id("devices"),
            .h2("Devices: RSSI over time"),
            .p(
                Self.text(
                    "The RSSI of each device's adverts over the capture (the line: the mean of each point; the band, when a point holds several adverts: their minimum to maximum), with a dashed line where a connection to it starts."
                        + (heard.count > shown.count
                            ? " The \(shown.count) devices heard most are drawn, of \(heard.count)." : "")
                )
            ),
            .forEach(Array(shown.enumerated())) { k, d in
                .group(
                    .h3(
                        Self.text(
                            ViewText.address(d.address, upperCase: true) + (d.name.map { " \"" + $0 + "\"" } ?? "")
                        )
                    ),
                    .p(
                        Self.text(
                            "\(d.rssi.samples) adverts; RSSI min / mean / max " + Self.rssi(d) + " dBm"
                                + (d.interval.map { "; advertising interval (median) " + ConnsTime.short($0) } ?? "")
                                + (d.rssi.downsampled
                                    ? "; downsampled: each point is the mean of up to \(d.rssi.perPoint) adverts" : "")
                                + "."
                        )
                    ),
                    .raw(
                        ReportDeviceChart(
                            device: d,
                            span: (first, last),
                            connections: connections(to: d),
                            frames: frames
                        )
                        .svg(id: "rssi-\(k + 1)")
                    )
                )
            }
        )
    }
}
