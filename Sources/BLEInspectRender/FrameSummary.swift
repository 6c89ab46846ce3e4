public import BLEInspectCore

/// The one-line text of a frame, before protocol dissection: its kind and size, or its text.
public enum FrameSummary {
    /// The longest note text shown on one line.
    public static let maximumTextBytes = 200

    public static func summary(of frame: CapturedFrame) -> String {
        var out = TextBuffer()
        append(of: frame, to: &out)
        return out.string
    }

    /// Appends the bytes of `summary(of: frame)` to `out`.
    static func append(of frame: CapturedFrame, to out: inout TextBuffer) {
        out.appendUTF8(frame.kind.name)
        if frame.kind.isText {
            out.append(0x3A)
            out.append(0x20)
            frame.bytes.withUnsafeBufferPointer { all in
                let shown = all.prefix(maximumTextBytes)
                let end = shown.firstIndex(of: 0) ?? shown.endIndex
                TerminalSafeText.appendEscaped(UnsafeBufferPointer(rebasing: all[0..<end]), to: &out)
            }
            if frame.bytes.count > maximumTextBytes { out.appendLiteral("…") }
            return
        }
        out.append(0x2C)
        out.append(0x20)
        out.appendDecimal(UInt64(frame.bytes.count))
        if frame.bytes.count == 1 { out.appendLiteral(" byte") } else { out.appendLiteral(" bytes") }
        if frame.isTruncated {
            out.appendLiteral(" of ")
            out.appendDecimal(Int64(frame.originalLength))
            out.appendLiteral(" (truncated by snaplen)")
        }
    }
}
