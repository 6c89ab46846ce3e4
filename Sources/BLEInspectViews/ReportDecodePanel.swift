import Plot

/// Where the page shows a frame's decode: a panel the page's script fills when a frame number is
/// clicked, and a section saying how many decodes the file holds.
extension ReportPage {
    /// The panel: hidden until a frame is chosen; its heading takes the focus, Escape or the
    /// close button hides it and gives the focus back.
    static var decodePanel: Node<HTML.BodyContext> {
        .aside(
            .id("decode"),
            .attribute(named: "aria-labelledby", value: "decode-heading"),
            .hidden(true),
            .div(
                .class("decode-bar"),
                .h2(.id("decode-heading"), .attribute(named: "tabindex", value: "-1"), .text("Frame decode")),
                .button(.id("decode-close"), .attribute(named: "type", value: "button"), .text("Close"))
            ),
            .pre(.id("decode-text"))
        )
    }

    /// What the page says about the decodes, with the hint the frame buttons point to.
    static func decodeSection(_ decodes: ReportDecodes) -> Node<HTML.BodyContext> {
        .section(
            .id("decodes"),
            .h2("Frame decodes"),
            .p(.id("frame-hint"), text(decodes.note))
        )
    }
}
