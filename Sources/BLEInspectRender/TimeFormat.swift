public import BLEInspectCore

#if canImport(Glibc)
    import Glibc
#endif

/// How frame times are shown.
public enum TimeFormat: String, Sendable, CaseIterable {
    /// Seconds since the first frame of the file (the default, as tshark shows).
    case relative = "r"
    /// Seconds since the previous frame.
    case delta = "d"
    /// Date and time of day, UTC.
    case absolute = "a"
    /// Seconds since the Unix epoch.
    case epoch = "e"

    /// `time` formatted per this format, given the first and previous frames' times.
    public func format(_ time: Timestamp, first: Timestamp, previous: Timestamp) -> String {
        var out = TextBuffer()
        append(time, first: first, previous: previous, to: &out)
        return out.string
    }

    /// Appends the bytes of `format(time, first:, previous:)` to `out`.
    func append(_ time: Timestamp, first: Timestamp, previous: Timestamp, to out: inout TextBuffer) {
        switch self {
        case .relative:
            Self.appendSeconds(time.difference(from: first), digits: time.precision, to: &out)
        case .delta:
            Self.appendSeconds(time.difference(from: previous), digits: time.precision, to: &out)
        case .epoch:
            Self.appendSeconds((time.seconds, time.nanoseconds), digits: time.precision, to: &out)
        case .absolute:
            var t = time_t(clamping: time.seconds)
            var parts = tm()
            guard gmtime_r(&t, &parts) != nil else {
                Self.appendSeconds((time.seconds, time.nanoseconds), digits: time.precision, to: &out)
                return
            }
            out.appendDecimal(Int64(parts.tm_year + 1900))
            out.append(0x2D)
            Self.appendTwo(parts.tm_mon + 1, to: &out)
            out.append(0x2D)
            Self.appendTwo(parts.tm_mday, to: &out)
            out.append(0x20)
            Self.appendTwo(parts.tm_hour, to: &out)
            out.append(0x3A)
            Self.appendTwo(parts.tm_min, to: &out)
            out.append(0x3A)
            Self.appendTwo(parts.tm_sec, to: &out)
            out.append(0x2E)
            Self.appendFraction(time.nanoseconds, digits: time.precision, to: &out)
        }
    }

    /// Appends a time (nanoseconds since the epoch) as tshark shows an absolute time in the local
    /// time zone, `frame.time`: `Sep  3, 2010 12:52:06.465269000 UTC`. The zone is the C
    /// library's: `TZ` when set, else the system's (`/etc/localtime`), as tshark's. A time the C
    /// library cannot convert is shown as epoch seconds.
    static func appendLocalDate(nanoseconds nanos: Int64, to out: inout TextBuffer) {
        // Floor division: a time before 1970 is a date before 1970 and a fraction past its second.
        var seconds = nanos / 1_000_000_000
        var fraction = nanos % 1_000_000_000
        if fraction < 0 {
            fraction += 1_000_000_000
            seconds -= 1
        }
        if out.lastLocalDate.second == seconds {
            let kept = out.lastLocalDate
            withUnsafeBytes(of: kept.bytes) { bytes in
                let text = bytes.assumingMemoryBound(to: UInt8.self)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: text[..<kept.dateCount]))
                out.append(0x2E)
                out.appendNineDigits(UInt64(fraction))
                out.append(
                    contentsOf: UnsafeBufferPointer(rebasing: text[kept.dateCount..<(kept.dateCount + kept.zoneCount)])
                )
            }
            return
        }
        var t = time_t(clamping: seconds)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil, (0..<12).contains(parts.tm_mon) else {
            out.appendSeconds(nanoseconds: nanos)
            return
        }
        let dateStart = out.count
        out.appendLiteral(monthNames[Int(parts.tm_mon)])
        out.append(0x20)
        if parts.tm_mday < 10 { out.append(0x20) }
        out.appendDecimal(Int64(parts.tm_mday))
        out.append(0x2C, 0x20)
        out.appendDecimal(Int64(parts.tm_year) + 1900)
        out.append(0x20)
        appendTwo(parts.tm_hour, to: &out)
        out.append(0x3A)
        appendTwo(parts.tm_min, to: &out)
        out.append(0x3A)
        appendTwo(parts.tm_sec, to: &out)
        let dateEnd = out.count
        out.append(0x2E)
        out.appendNineDigits(UInt64(fraction))
        let zoneStart = out.count
        if let zone = parts.tm_zone {
            out.append(0x20)
            let name = UnsafeBufferPointer(start: zone, count: strlen(zone))
            name.withMemoryRebound(to: UInt8.self) { TerminalSafeText.appendEscaped($0, to: &out) }
        }
        let written = out.bytes
        out.lastLocalDate =
            LocalDateText(
                second: seconds,
                date: UnsafeBufferPointer(rebasing: written[dateStart..<dateEnd]),
                zone: UnsafeBufferPointer(rebasing: written[zoneStart...])
            ) ?? LocalDateText()
    }

    private static let monthNames: [StaticString] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    /// A date or clock part: `0` before values under 10.
    private static func appendTwo(_ v: Int32, to out: inout TextBuffer) {
        if v < 10 { out.append(0x30) }
        out.appendDecimal(Int64(v))
    }

    /// Appends whole seconds and a fraction (0 ..< 1e9 ns, as `Timestamp.difference` gives) as
    /// sign and magnitude, as tshark shows a time before another: `-0.300000`, not `-1.700000`.
    static func appendSeconds(
        _ value: (seconds: Int64, nanoseconds: UInt32),
        digits: Timestamp.Precision,
        to out: inout TextBuffer
    ) {
        guard value.seconds < 0 else {
            out.appendDecimal(value.seconds)
            out.append(0x2E)
            appendFraction(value.nanoseconds, digits: digits, to: &out)
            return
        }
        out.append(0x2D)
        let borrow = value.nanoseconds > 0
        out.appendDecimal(value.seconds.magnitude - (borrow ? 1 : 0))
        out.append(0x2E)
        appendFraction(borrow ? 1_000_000_000 - value.nanoseconds : 0, digits: digits, to: &out)
    }

    /// The fraction: micro- or nanoseconds, zero-padded to the precision's digits.
    static func appendFraction(_ nanoseconds: UInt32, digits: Timestamp.Precision, to out: inout TextBuffer) {
        let value = digits == .nanoseconds ? nanoseconds : nanoseconds / 1000
        out.appendDecimal(UInt64(value), minimumDigits: Int(digits.rawValue))
    }
}
