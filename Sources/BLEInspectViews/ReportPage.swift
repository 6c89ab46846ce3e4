import BLEInspectCore
import Plot

/// The report's HTML document, built with Plot. Plot escapes neither attribute values nor
/// character references in text, so text from the capture goes in through `text(_:)` (escaped
/// by `Markup`), and every attribute value here is the report's own (ids, classes, links).
struct ReportPage {
    let title: String
    let capture: ReportCapture
    let findings: [ReportFinding]
    let names: ConnsNames
    let links: ConnsCaptureLinks
    /// What reading the inputs reported (damage, an input it could not read), as on the error
    /// output; the report holds the frames read before each.
    let problems: [String]
    /// The GATT databases, as `gatt` rebuilds and words them.
    let gatt: GATTModel
    let gattWords: GATTReport
    /// The frames the page refers to, each a control that shows its decode.
    let frames = ReportFrames()

    /// The most input problems the page lists.
    static let maximumProblems = 64

    /// The document. `decode` is given the frames the page refers to (after the rest of the page
    /// is built) and returns their decodes.
    func html(decode: (ReportFrames) -> ReportDecodes) -> String {
        let content: [Node<HTML.BodyContext>] =
            [overview, deviceCharts] + capture.sorted.map(connection) + [
                .raw(ReportGATT(model: gatt, words: gattWords, frames: frames).html)
            ]
        let decodes = decode(frames)
        let page = HTML(
            .lang(.english),
            .head(
                .encoding(.utf8),
                // Not Plot's `.title`, which also writes the title unescaped into meta attributes.
                .element(named: "title", nodes: [Self.text(title)]),
                .meta(.name("viewport"), .content("width=device-width, initial-scale=1")),
                .style(ReportStyle.css),
                .script(.raw(ReportStyle.script))
            ),
            .body(
                .header(.h1(Self.text(title))),
                .element(named: "main", nodes: content + [Self.decodeSection(decodes)]),
                .footer(.p(Self.text("Made by bleinspect report; it needs no network."))),
                Self.decodePanel,
                .raw(decodes.store)
            )
        ).render()
        return decodes.fill(page)
    }

    /// Untrusted text, escaped.
    static func text<C>(_ s: String) -> Node<C> { .raw(Markup.text(s)) }

    static func anchor(_ number: Int) -> String { "conn-\(number)" }

    static func row(_ cells: [String], header: Bool = false) -> Node<HTML.TableContext> {
        .tr(.forEach(cells) { header ? .th(text($0)) : .td(text($0)) })
    }

    static func table<C: HTML.BodyContext>(_ caption: String, _ head: [String], _ rows: [[String]]) -> Node<C> {
        .table(.caption(text(caption)), row(head, header: true), .forEach(rows) { row($0) })
    }

    /// A table whose cells are markup already (escaped text, or frame buttons).
    static func table<C: HTML.BodyContext>(_ caption: String, _ head: [String], markup rows: [[String]]) -> Node<C> {
        .table(
            .caption(text(caption)),
            row(head, header: true),
            .forEach(rows) { cells in .tr(.forEach(cells) { .td(.raw($0)) }) }
        )
    }

    // MARK: Overview

    private var overview: Node<HTML.BodyContext> {
        let span: String
        if let first = capture.first, let last = capture.last {
            span =
                ConnsTime.absolute(first) + " to " + ConnsTime.absolute(last) + " ("
                + (last.since(first).map(ConnsTime.seconds) ?? "?") + ")"
        } else {
            span = "no frames"
        }
        let layers = capture.layers.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let devices = capture.devices.values.sorted { $0.first.frame < $1.first.frame }
        return .section(
            .id("overview"),
            .h2("Overview"),
            .p(Self.text("\(capture.frames) frames, " + span + ".")),
            problems.isEmpty
                ? .empty
                : .div(
                    .class("problems"),
                    .attribute(named: "role", value: "alert"),
                    .p(
                        Self.text(
                            "Reading the input reported problems: this report holds only the frames read before each one."
                        )
                    ),
                    .ul(.forEach(problems) { .li(Self.text($0)) })
                ),
            Self.table("Frames by protocol", ["protocol", "frames"], layers.map { [$0.key, "\($0.value)"] }),
            Self.table(
                "Devices"
                    + (capture.devicesDropped > 0
                        ? " (\(capture.devicesDropped) frames of further devices not listed)" : "")
                    + (capture.multiReportEvents > 0
                        ? " (\(capture.multiReportEvents == 1 ? "an advertising report event" : "\(capture.multiReportEvents) advertising report events")"
                            + " carried several reports: each is counted here by its first report only; read shows them all)"
                        : ""),
                [
                    "address", "name", "frames", "first frame", "adverts", "RSSI min / mean / max (dBm)",
                    "advertising interval",
                ],
                markup: devices.map {
                    [
                        Markup.text(ViewText.address($0.address, upperCase: true)), Markup.text($0.name ?? ""),
                        "\($0.frames)", frames.button($0.first.frame), "\($0.rssi.samples)", Markup.text(Self.rssi($0)),
                        Markup.text(Self.interval($0)),
                    ]
                }
            ),
            .h3("Connections"),
            capture.connections.isEmpty
                ? .p("No connections.")
                : .ul(
                    .class("connections"),
                    .forEach(capture.sorted) { r in
                        .li(.a(.href("#" + Self.anchor(r.number)), Self.text(Self.heading(r, names))))
                    }
                ),
            gatt.devices.isEmpty
                ? .empty
                : .p(
                    .a(.href("#gatt"), .text("GATT databases")),
                    Self.text(" of \(gatt.devices.count) device" + (gatt.devices.count == 1 ? "" : "s") + ".")
                ),
            capture.connectionsDropped > 0
                ? .p(Self.text("\(capture.connectionsDropped) further connections are not drawn."))
                : .empty,
            capture.seriesDropped > 0
                ? .p(
                    Self.text(
                        "\(capture.seriesDropped) connections are drawn without their response times and credits: the report keeps at most \(capture.pointBudget) points in all."
                    )
                )
                : .empty,
            .h3("Findings"),
            findings.isEmpty
                ? .p("No findings: no stalls, ATT errors, failed pairings, malformed frames or warnings.")
                : .ul(.class("findings"), .forEach(findings) { finding($0) })
        )
    }

    func finding(_ f: ReportFinding) -> Node<HTML.ListContext> {
        .li(
            .class("finding " + f.kind.rawValue),
            .span(.class("kind"), Self.text(f.kind.rawValue.replacing("-", with: " "))),
            .text(" "),
            f.connection.map { n in .group(.a(.href("#" + Self.anchor(n)), .text("Connection \(n)")), .text(": ")) }
                ?? .empty,
            .raw(frames.linked(f.text))
        )
    }

    /// `Connection 2: C0:DE:C0:DE:00:02 "Thermo"`.
    static func heading(_ r: ConnsRecord, _ names: ConnsNames) -> String {
        "Connection \(r.number): " + ConnsText.peer(r, names)
    }
}
