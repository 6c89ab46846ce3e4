/// The timeline's SDU throughput lanes: for each credit-based channel direction that finished
/// SDUs, the bytes of the SDUs finished in each bucket of time (`ReportRate`) as bars, scaled to
/// bytes a second.
extension ReportTimeline {
    static let rateHeight = 50.0

    /// The channel directions with SDU bytes.
    var rateLanes: [(channel: ConnsChannel, side: Int, rate: ReportRate)] {
        record.channels.flatMap { c in
            c.sides.indices.compactMap { s -> (ConnsChannel, Int, ReportRate)? in
                guard let rate = c.sides[s].sduRate, rate.total > 0 else { return nil }
                return (c, s, rate)
            }
        }
    }

    /// `12.5 kB/s`.
    static func rate(_ bytesPerSecond: Double) -> String {
        bytesPerSecond >= 1000
            ? Markup.number(bytesPerSecond / 1000) + " kB/s" : Markup.number(bytesPerSecond) + " B/s"
    }

    func rateLane(_ c: ConnsChannel, _ side: Int, _ rate: ReportRate, y: Double) -> String {
        let seconds = Double(rate.width) / 1_000_000
        let most = Double(rate.buckets.max() ?? 1) / seconds
        let scale = ReportScale(domain: 0, most, pixels: y + Self.rateHeight, y + 4)
        let direction = side == 0 ? "sent" : "received"
        var out = Markup.element(
            "text",
            [("x", Markup.number(Self.left - 6)), ("y", Markup.number(y + 12)), ("class", "label")],
            Markup.text("ch \(c.number) SDUs \(direction)")
        )
        out += Markup.element(
            "text",
            [("x", Markup.number(Self.left - 6)), ("y", Markup.number(y + 26)), ("class", "label")],
            Markup.text(Self.rate(most))
        )
        guard let origin = rate.origin else { return out }
        for (k, bytes) in rate.buckets.enumerated() where bytes > 0 {
            let start = origin &+ Int64(k) &* rate.width
            let x0 = time(Double(start) - Double(self.origin))
            let x1 = time(Double(start &+ rate.width) - Double(self.origin))
            let top = scale(Double(bytes) / seconds)
            out += Markup.element(
                "rect",
                [
                    ("class", "sdu \(direction)"), ("x", Markup.number(x0)), ("y", Markup.number(top)),
                    ("width", Markup.number(max(x1 - x0, 0.5))), ("height", Markup.number(y + Self.rateHeight - top)),
                    ("data-bytes", "\(bytes)"),
                ]
            )
        }
        return out
    }
}
