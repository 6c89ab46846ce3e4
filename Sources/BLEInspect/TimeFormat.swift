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

    /// A date or clock part: `0` before values under 10.
    private static func appendTwo(_ v: Int32, to out: inout TextBuffer) {
        if v < 10 { out.append(0x30) }
        out.appendDecimal(Int64(v))
    }

    static func appendSeconds(
        _ value: (seconds: Int64, nanoseconds: UInt32),
        digits: Timestamp.Precision,
        to out: inout TextBuffer
    ) {
        out.appendDecimal(value.seconds)
        out.append(0x2E)
        appendFraction(value.nanoseconds, digits: digits, to: &out)
    }

    /// The fraction: micro- or nanoseconds, zero-padded to the precision's digits.
    static func appendFraction(_ nanoseconds: UInt32, digits: Timestamp.Precision, to out: inout TextBuffer) {
        let value = digits == .nanoseconds ? nanoseconds : nanoseconds / 1000
        out.appendDecimal(UInt64(value), minimumDigits: Int(digits.rawValue))
    }
}
