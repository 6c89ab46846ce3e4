/// A value over time (an advert's RSSI) as a point of a `ThinnedSeries`: a merged point keeps
/// its samples' mean, minimum and maximum and the time of its first sample; the page says how
/// many samples a point holds.
struct ReportPoint: Equatable, PairMergeable {
    var time: Int64
    var sum: Int64
    var count: Int
    var low: Int64
    var high: Int64

    var mean: Double { count > 0 ? Double(sum) / Double(count) : 0 }

    mutating func merge(_ other: ReportPoint) {
        sum &+= other.sum
        count &+= other.count
        low = min(low, other.low)
        high = max(high, other.high)
    }
}

typealias ReportSeries = ThinnedSeries<ReportPoint>

extension ThinnedSeries where Point == ReportPoint {
    mutating func add(time: Int64, value: Int64) {
        add(ReportPoint(time: time, sum: value, count: 1, low: value, high: value))
    }
}

/// Bytes over time in buckets of equal width, at most `limit` of them: the first bucket starts
/// at the first sample, and when a sample falls past the last bucket the width doubles and
/// neighbouring buckets merge, so that any span fits. For SDU throughput.
struct ReportRate {
    static let limit = 256

    private(set) var origin: Int64?
    /// The width of a bucket (µs): 10 ms, doubling as needed.
    private(set) var width: Int64 = 10_000
    private(set) var buckets: [UInt64] = []
    private(set) var total: UInt64 = 0

    mutating func add(_ time: Int64, bytes: UInt64) {
        let start = origin ?? time
        origin = start
        total &+= bytes
        // A time before the first sample (timestamps going back) counts in the first bucket.
        let offset = max(time &- start, 0)
        while offset / width >= Self.limit, width < Int64.max / 4 {
            var merged: [UInt64] = []
            var i = 0
            while i < buckets.count {
                merged.append(buckets[i] &+ (i + 1 < buckets.count ? buckets[i + 1] : 0))
                i += 2
            }
            buckets = merged
            width *= 2
        }
        let k = min(Int(offset / width), Self.limit - 1)
        if buckets.count <= k { buckets += [UInt64](repeating: 0, count: k + 1 - buckets.count) }
        buckets[k] &+= bytes
    }
}
