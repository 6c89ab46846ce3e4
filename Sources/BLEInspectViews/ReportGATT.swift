/// The GATT databases as `gatt` rebuilds them (`GATTBuilder`, `GATTLayout`) and words them
/// (`GATTReport`'s lines), as nested lists: a device's services, their includes and
/// characteristics, each characteristic's value and descriptors. Frame numbers (`#12`) are
/// controls. Bounded: past `lineLimit` lines in all, further devices are named without their tree.
struct ReportGATT {
    static let lineLimit = 20_000

    let model: GATTModel
    let words: GATTReport
    let frames: ReportFrames

    /// The section, or nothing when the capture has no GATT traffic.
    var html: String {
        let devices = model.sortedDevices
        guard !devices.isEmpty else { return "" }
        var body = Markup.element("h2", [], "GATT databases")
        body += Markup.element(
            "p",
            [],
            Markup.text(
                "Each device's database as bleinspect gatt rebuilds it from discovery, reads, writes and notifications: services, their characteristics, values (the last seen) and descriptors."
            )
        )
        var lines = 0
        var untold = 0
        for (k, device) in devices.enumerated() {
            guard lines < Self.lineLimit else {
                untold += 1
                continue
            }
            let layout = GATTLayout(device)
            var tree = ""
            for service in layout.services { tree += self.service(service, &lines) }
            let other = layout.other.map { item("gatt-attribute", words.attributeLine($0, indent: 0), &lines) }
            let id = "gatt-\(k + 1)"
            body += Markup.element(
                "section",
                [("class", "gatt-device"), ("id", id), ("aria-labelledby", id + "-heading")],
                Markup.element("h3", [("id", id + "-heading")], Markup.text(words.title(device)))
                    + words.facts(device, connections: model.connections(of: device)).map {
                        Markup.element("p", [], linked($0))
                    }.joined()
                    + (tree.isEmpty ? "" : Markup.element("ul", [("class", "gatt-tree")], tree))
                    + (other.isEmpty
                        ? ""
                        : Markup.element("p", [], "Attributes outside the discovered services:")
                            + Markup.element("ul", [("class", "gatt-tree")], other.joined()))
            )
        }
        var notes: [String] = []
        if untold > 0 {
            notes.append(
                "\(untold) further devices' databases are not drawn: the report lists at most \(Self.lineLimit) attributes."
            )
        }
        if model.limitReached {
            notes.append(
                "The attribute, device or connection-list limit of gatt was reached; later ones are not shown."
            )
        }
        body += notes.map { Markup.element("p", [("class", "note")], Markup.text($0)) }.joined()
        return Markup.element("section", [("id", "gatt")], body)
    }

    private func service(_ s: GATTLayout.Service, _ lines: inout Int) -> String {
        var inner = s.includes.map { item("gatt-include", words.includeLine($0), &lines) }.joined()
        for c in s.characteristics {
            var parts =
                c.value.map { item("gatt-value", words.attributeLine($0, indent: 0, label: "Value"), &lines) } ?? ""
            parts += c.descriptors.map { item("gatt-descriptor", words.attributeLine($0, indent: 0), &lines) }.joined()
            inner += item(
                "gatt-characteristic",
                words.characteristicLine(c) ?? "Characteristic",
                &lines,
                parts.isEmpty ? nil : Markup.element("ul", [], parts)
            )
        }
        return item("gatt-service", words.serviceLine(s), &lines, inner.isEmpty ? nil : Markup.element("ul", [], inner))
    }

    /// One `<li>` of the tree: its line (trailing newline dropped) and its children's list.
    private func item(_ kind: String, _ line: String, _ lines: inout Int, _ children: String? = nil) -> String {
        lines &+= 1
        var text = Substring(line)
        while text.last == "\n" { text = text.dropLast() }
        return Markup.element("li", [("class", kind)], linked(String(text)) + (children ?? ""))
    }

    /// `gatt`'s frame references (`#12`) as controls.
    private func linked(_ text: String) -> String { frames.linked(text) }
}
