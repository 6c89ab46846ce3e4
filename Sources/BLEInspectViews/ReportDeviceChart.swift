/// One device's RSSI over the capture's span as SVG: the mean of each point as a line, the
/// minimum to maximum as a band when points hold several adverts (`ReportSeries`), and each
/// connection to the device as a dashed line at its start, a decode control for its frame.
struct ReportDeviceChart {
    static let width = 1100.0
    static let height = 80.0
    static let left = 110.0
    static let right = 20.0

    let device: ReportDevice
    /// The capture's first and last times (µs).
    let span: (Int64, Int64)
    /// The connections whose peer is this device.
    let connections: [ConnsRecord]
    let frames: ReportFrames

    func svg(id: String) -> String {
        let points = device.rssi.points
        let time = ReportScale(
            domain: 0,
            Double(span.1) - Double(span.0),
            pixels: Self.left,
            Self.width - Self.right
        )
        let low = Double(points.map(\.low).min() ?? -100)
        let high = Double(points.map(\.high).max() ?? -20)
        let y = ReportScale(domain: low - 2, high + 2, pixels: Self.height - 14, 6)
        let x = { (t: Int64) in time(Double(t) - Double(self.span.0)) }
        var body =
            label("\(ReportScale.integer(high)) dBm", y: y(high) + 4)
            + label("\(ReportScale.integer(low)) dBm", y: y(low) + 4)
        if device.rssi.downsampled {
            let top = points.map { "\(Markup.number(x($0.time))) \(Markup.number(y(Double($0.high))))" }
            let bottom = points.reversed().map { "\(Markup.number(x($0.time))) \(Markup.number(y(Double($0.low))))" }
            body += Markup.element(
                "polygon",
                [("class", "rssi-band"), ("points", (top + bottom).joined(separator: " "))]
            )
        }
        body += Markup.element(
            "polyline",
            [
                ("class", "rssi"),
                (
                    "points",
                    points.map { "\(Markup.number(x($0.time))) \(Markup.number(y($0.mean)))" }.joined(separator: " ")
                ),
            ]
        )
        for r in connections {
            guard let start = r.start, let t = start.time else { continue }
            let cx = x(t)
            body += frames.svgLink(
                start.frame,
                .primary,
                Markup.element(
                    "line",
                    [
                        ("class", "connect"), ("x1", Markup.number(cx)), ("y1", "2"), ("x2", Markup.number(cx)),
                        ("y2", Markup.number(Self.height - 10)),
                    ],
                    Markup.element("title", [], Markup.text("connection \(r.number) starts (frame \(start.frame))"))
                )
            )
        }
        let title = "RSSI of " + ViewText.address(device.address, upperCase: true)
        let desc =
            "\(device.rssi.samples) adverts from \(ReportScale.integer(low)) to \(ReportScale.integer(high)) dBm"
            + (device.rssi.downsampled ? ", each point the mean of up to \(device.rssi.perPoint) adverts" : "")
            + ", and \(connections.count) connection starts."
        return Markup.chart(
            id: id,
            class: "rssi-chart",
            width: Self.width,
            height: Self.height,
            title: title,
            desc: desc,
            body
        )
    }

    private func label(_ text: String, y: Double) -> String {
        Markup.element(
            "text",
            [("x", Markup.number(Self.left - 6)), ("y", Markup.number(y)), ("class", "label")],
            Markup.text(text)
        )
    }
}
