/// A series of values over time, kept at most `limit` points however many samples come: past
/// the limit, neighbouring points merge in pairs and later points take twice as many samples,
/// so that a long series is downsampled evenly. Each point keeps its samples' mean, minimum and
/// maximum and the time of its first sample; the page says how many samples a point holds.
struct ReportSeries {
    struct Point: Equatable, PairMergeable {
        var time: Int64
        var sum: Int64
        var count: Int
        var low: Int64
        var high: Int64

        var mean: Double { count > 0 ? Double(sum) / Double(count) : 0 }

        mutating func merge(_ other: Point) {
            sum &+= other.sum
            count &+= other.count
            low = min(low, other.low)
            high = max(high, other.high)
        }
    }

    let limit: Int
    private(set) var points: [Point] = []
    /// How many samples a point takes now: 1 until the first merge, then doubling.
    private(set) var perPoint = 1
    private(set) var samples = 0

    init(limit: Int) { self.limit = max(limit, 2) }

    mutating func add(time: Int64, value: Int64) {
        samples &+= 1
        let point = Point(time: time, sum: value, count: 1, low: value, high: value)
        if let k = points.indices.last, points[k].count < perPoint {
            points[k].merge(point)
            return
        }
        if points.count >= limit {
            points = points.mergedInPairs()
            perPoint = perPoint.multipliedReportingOverflow(by: 2).overflow ? perPoint : perPoint * 2
            if let k = points.indices.last, points[k].count < perPoint {
                points[k].merge(point)
                return
            }
        }
        points.append(point)
    }

    /// Whether points hold more than one sample.
    var downsampled: Bool { perPoint > 1 }
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
