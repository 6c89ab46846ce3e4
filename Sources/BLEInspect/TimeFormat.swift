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
        switch self {
        case .relative:
            return Self.seconds(time.difference(from: first), digits: time.precision)
        case .delta:
            return Self.seconds(time.difference(from: previous), digits: time.precision)
        case .epoch:
            return Self.seconds((time.seconds, time.nanoseconds), digits: time.precision)
        case .absolute:
            var t = time_t(clamping: time.seconds)
            var parts = tm()
            guard gmtime_r(&t, &parts) != nil else {
                return Self.seconds((time.seconds, time.nanoseconds), digits: time.precision)
            }
            func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
            let date = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
            let clock = "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
            return "\(date) \(clock).\(Self.fraction(time.nanoseconds, digits: time.precision))"
        }
    }

    static func seconds(_ value: (seconds: Int64, nanoseconds: UInt32), digits: Timestamp.Precision) -> String {
        "\(value.seconds).\(fraction(value.nanoseconds, digits: digits))"
    }

    static func fraction(_ nanoseconds: UInt32, digits: Timestamp.Precision) -> String {
        let value = digits == .nanoseconds ? nanoseconds : nanoseconds / 1000
        let text = String(value)
        let width = Int(digits.rawValue)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
