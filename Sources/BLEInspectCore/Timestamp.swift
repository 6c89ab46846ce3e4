/// A capture timestamp: seconds and nanoseconds since the Unix epoch, plus the precision the
/// capture file stored it with, so that output shows as many digits as the file has and no more.
public struct Timestamp: Sendable, Hashable, Comparable {
    /// How many fractional digits the source recorded.
    public enum Precision: UInt8, Sendable, Hashable {
        case microseconds = 6
        case nanoseconds = 9
    }

    public var seconds: Int64
    /// 0 ..< 1_000_000_000.
    public var nanoseconds: UInt32
    public var precision: Precision

    public init(seconds: Int64, nanoseconds: UInt32, precision: Precision) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
        self.precision = precision
    }

    /// A timestamp from a microsecond count since the Unix epoch (may be negative).
    public init(unixMicroseconds us: Int64) {
        // Floor division so that negative values keep 0 <= fraction < 1 s.
        var secs = us / 1_000_000
        var frac = us % 1_000_000
        if frac < 0 {
            frac += 1_000_000
            secs -= 1
        }
        self.init(seconds: secs, nanoseconds: UInt32(frac) * 1000, precision: .microseconds)
    }

    public static let zero = Timestamp(seconds: 0, nanoseconds: 0, precision: .microseconds)

    /// Microseconds since the Unix epoch, nil if that overflows Int64.
    public var unixMicroseconds: Int64? {
        let (scaled, o1) = seconds.multipliedReportingOverflow(by: 1_000_000)
        let (sum, o2) = scaled.addingReportingOverflow(Int64(nanoseconds / 1000))
        return o1 || o2 ? nil : sum
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool {
        (a.seconds, a.nanoseconds) < (b.seconds, b.nanoseconds)
    }

    /// `self - other` as whole seconds and nanoseconds (nanoseconds in 0..<1e9), saturating.
    public func difference(from other: Timestamp) -> (seconds: Int64, nanoseconds: UInt32) {
        let (s, overflow) = seconds.subtractingReportingOverflow(other.seconds)
        if overflow { return (s < 0 ? Int64.max : Int64.min, 0) }
        var secs = s
        var nanos = Int64(nanoseconds) - Int64(other.nanoseconds)
        if nanos < 0 {
            nanos += 1_000_000_000
            let (d, o) = secs.subtractingReportingOverflow(1)
            secs = o ? Int64.min : d
        }
        return (secs, UInt32(nanos))
    }

    /// Nanoseconds since the Unix epoch, saturating at Int64's bounds (about 292 years either
    /// side of 1970).
    public var unixNanoseconds: Int64 {
        Self.nanoseconds((seconds, nanoseconds))
    }

    /// `self - other` in nanoseconds (negative when `other` is later), saturating.
    public func nanoseconds(since other: Timestamp) -> Int64 {
        Self.nanoseconds(difference(from: other))
    }

    /// Whole seconds and a fraction (0 ..< 1e9 ns) as nanoseconds, saturating.
    private static func nanoseconds(_ t: (seconds: Int64, nanoseconds: UInt32)) -> Int64 {
        let (scaled, o1) = t.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if o1 { return t.seconds < 0 ? Int64.min : Int64.max }
        let (sum, o2) = scaled.addingReportingOverflow(Int64(t.nanoseconds))
        return o2 ? Int64.max : sum
    }
}
