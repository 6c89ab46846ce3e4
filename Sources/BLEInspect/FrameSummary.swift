public import BLEInspectCore

/// The one-line text of a frame, before protocol dissection: its kind and size, or its text.
public enum FrameSummary {
    /// The longest note text shown on one line.
    public static let maximumTextBytes = 200

    public static func summary(of frame: CapturedFrame) -> String {
        if frame.kind.isText {
            let text = frame.bytes.prefix(maximumTextBytes).prefix { $0 != 0 }
            let more = frame.bytes.count > maximumTextBytes ? "…" : ""
            return "\(frame.kind.name): \(TerminalSafeText.escape(text))\(more)"
        }
        var line = "\(frame.kind.name), \(frame.bytes.count) byte\(frame.bytes.count == 1 ? "" : "s")"
        if frame.isTruncated {
            line += " of \(frame.originalLength) (truncated by snaplen)"
        }
        return line
    }
}
