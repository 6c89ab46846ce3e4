/// One connection's timeline as SVG, on one time axis: the connection's events (parameters,
/// MTU, PHY, data length, encryption), ATT request→response times as points (error responses as
/// red squares), and each credit-based channel's credits per direction as a step line with its
/// stalls shaded. Every number comes from the `conns` record.
struct ReportTimeline {
    static let width = 1100.0
    static let left = 110.0
    static let right = 20.0
    static let rowHeight = 16.0
    static let latencyHeight = 110.0
    static let creditHeight = 70.0
    static let gap = 14.0

    let record: ConnsRecord
    let names: ConnsNames
    let time: ReportScale
    let origin: Int64
    /// Makes each mark a control that shows its frame's decode.
    let frames: ReportFrames

    /// Nil when the connection's times are unknown.
    init?(_ r: ConnsRecord, _ names: ConnsNames, _ frames: ReportFrames) {
        guard let start = r.origin.time, let end = (r.end ?? r.last).time else { return nil }
        record = r
        self.names = names
        self.frames = frames
        origin = start
        // Microseconds since the origin; Double keeps a hostile capture's far-apart times finite.
        let span = max(Double(end) - Double(start), 0)
        time = ReportScale(domain: 0, span, pixels: Self.left, Self.width - Self.right)
    }

    /// A row of the events lane: its label and the moments with their descriptions.
    struct EventRow {
        var label: String
        var kind: String
        var events: [(moment: ConnsMoment, text: String)]
    }

    var eventRows: [EventRow] {
        let r = record
        return [
            EventRow(
                label: "parameters",
                kind: "param",
                events: r.parameters.items.map { ($0.moment, Self.squeezed(ConnsText.parameters($0, names))) }
            ),
            EventRow(label: "ATT MTU", kind: "mtu", events: r.mtu.items.map { ($0.moment, "ATT MTU \($0.mtu)") }),
            EventRow(
                label: "PHY",
                kind: "phy",
                events: r.phy.items.map { ($0.moment, "PHY tx " + names.phy($0.tx) + ", rx " + names.phy($0.rx)) }
            ),
            EventRow(
                label: "data length",
                kind: "dle",
                events: r.dataLength.items.map {
                    (
                        $0.moment,
                        "data length tx \(ConnsText.number($0.maxTxOctets)) bytes, rx \(ConnsText.number($0.maxRxOctets)) bytes"
                    )
                }
            ),
            EventRow(
                label: "encryption",
                kind: "enc",
                events: r.encryption.items.map {
                    ($0.moment, $0.refresh ? "key refreshed" : $0.enabled == 0 ? "encryption off" : "encryption on")
                }
            ),
        ]
    }

    /// The credit lanes: one per channel direction that has credit steps or stalls (stalls are
    /// drawn even when the steps were dropped, `ReportCapture.pointBudget`).
    var creditLanes: [(channel: ConnsChannel, side: Int, steps: [ConnsCreditStep])] {
        record.channels.flatMap { c in
            c.sides.indices.compactMap { s -> (ConnsChannel, Int, [ConnsCreditStep])? in
                let steps = c.sides[s].creditSteps?.points ?? []
                guard !steps.isEmpty || !c.sides[s].stalls.isEmpty else { return nil }
                return (c, s, steps)
            }
        }
    }

    /// The x of a moment, nil without a time.
    func x(_ m: ConnsMoment) -> Double? { m.time.map { time(Double($0) - Double(origin)) } }

    /// `text` with each run of spaces as one (the terminal text pads columns).
    static func squeezed(_ text: String) -> String { text.split(separator: " ").joined(separator: " ") }

    /// `+1.500000 s` from the connection's origin.
    func offset(_ m: ConnsMoment) -> String { ConnsTime.offset(m, from: record.origin) }
}
