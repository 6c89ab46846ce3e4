import BLECapture
import BLECaptureIO
import BLEInspectCore
import BLEInspectRender

/// The decodes the page shows on click: `read -V`'s text of the frames the page refers to, made
/// by `read`'s own renderer (`FrameRenderer`, tree mode, no colour, times relative to the first
/// frame) in a second reading of the inputs, which stops once it has them all. Only those frames
/// are embedded, at most `limit`, each in an inert `<template>` as escaped text; the page's
/// script copies a template's text into the decode panel with `textContent`.
struct ReportDecodes {
    static let limit = 2000
    /// The most frames without a decode the page names.
    static let namedMissing = 50

    /// The decode text by frame number.
    var texts: [Int: String] = [:]
    /// The one-line summary (the info column of `read`) by frame number, terminal-safe.
    var summaries: [Int: String] = [:]
    /// The frames referred to without a decode, in the order of `ReportFrames.ordered`.
    var missing: [Int] = []
    /// References past what `ReportFrames` tracks, which have no decode either.
    var untracked = 0
    /// Why there are no decodes at all, when there is a reason beyond the cap.
    var unavailable: String?

    /// Reads `paths` again (the first `frameLimit` frames in all) for the decodes of `frames`'
    /// references. With several inputs, whose frame numbers each start at 1, a number's decode
    /// is that of the first input holding it. Standard input cannot be read again: no decodes.
    static func read(
        _ frames: ReportFrames,
        paths: [String],
        frameLimit: Int?,
        registry: DissectorRegistry
    ) -> ReportDecodes {
        let ordered = frames.ordered
        var out = ReportDecodes(untracked: frames.untracked)
        if paths.contains("-") {
            out.missing = ordered
            out.unavailable = "standard input cannot be read a second time for them"
            return out
        }
        let wanted = Set(ordered.prefix(limit))
        let summaries = frames.summaries
        let count = wanted.count + summaries.count
        guard count > 0 else { return out }
        let renderer = FrameRenderer(
            registry: registry,
            mode: .text(verbose: true, hexDump: false),
            style: ANSIStyle(enabled: false),
            timeFormat: .relative
        )
        var remaining = frameLimit ?? Int.max
        var found = 0
        for path in paths where remaining > 0 && found < count {
            // One engine a file, as `read` decodes each file given.
            var engine = DissectionEngine(registry: registry)
            do throws(CaptureError) {
                let reader = try CaptureOpener.open(path: path)
                while remaining > 0 && found < count, let frame = try reader.next() {
                    remaining -= 1
                    let times = engine.timeline.next(frame.timestamp)
                    let n = frame.number
                    let shown = wanted.contains(n) && out.texts[n] == nil
                    let summarized = summaries.contains(n) && out.summaries[n] == nil
                    engine.dissect(frame, times: times, wantsInfo: shown || summarized) { tree in
                        if summarized {
                            out.summaries[n] = tree.withInfoBytes { TerminalSafeText.escape($0) }
                            found += 1
                        }
                        guard shown else { return }
                        found += 1
                        frame.withDirection(of: tree) { f in
                            renderer.render(f, tree, first: times.first, previous: times.previous) { bytes in
                                out.texts[n] = String(decoding: bytes, as: UTF8.self)
                            }
                        }
                    }
                }
            } catch {
                // The first reading reported it; the frames before it have their decodes.
                continue
            }
        }
        out.missing = ordered.filter { out.texts[$0] == nil }
        return out
    }

    /// `html` with each summary placeholder (`ReportFrames.summary`) replaced by the frame's
    /// one-line summary, escaped (empty when the second reading did not reach the frame).
    func fill(_ html: String) -> String {
        let s = Array(html.utf8)
        let open = Array("<!--summary:".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(s.count)
        var i = 0
        while i < s.count {
            guard s[i] == open[0], s[i...].starts(with: open) else {
                out.append(s[i])
                i += 1
                continue
            }
            var k = i + open.count
            var n = 0
            while k < s.count, (0x30...0x39).contains(s[k]), n < Int.max / 20 {
                n = n * 10 + Int(s[k] - 0x30)
                k += 1
            }
            guard s[k...].starts(with: "-->".utf8) else {
                out.append(s[i])
                i += 1
                continue
            }
            if let summary = summaries[n] { out += Array(Markup.text(summary).utf8) }
            i = k + 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The templates, one per decode, in a hidden store.
    var store: String {
        var out = "<div id=\"decodes-store\" hidden>"
        for (n, text) in texts.sorted(by: { $0.key < $1.key }) {
            out += Markup.element("template", [("id", "decode-\(n)")], Markup.text(text))
        }
        return out + "</div>"
    }

    /// What the page says of the decodes: how many are embedded, and which frames have none.
    var note: String {
        var text =
            "Click a frame number (or focus it and press Enter) to see its decode, as bleinspect read -V prints it. "
        text += "\(texts.count) decode" + (texts.count == 1 ? " is" : "s are") + " embedded"
        let without = missing.count &+ untracked
        guard without > 0 else { return text + ", one for every frame the report refers to." }
        text +=
            "; \(without) frame" + (without == 1 ? "" : "s") + " the report refers to "
            + (without == 1 ? "has" : "have")
        text += " none: " + (unavailable ?? "the report embeds at most \(Self.limit) decodes") + ". Without a decode: "
        text += missing.prefix(Self.namedMissing).map(String.init).joined(separator: ", ")
        return text + (without > Self.namedMissing ? ", …" : "") + "."
    }
}
