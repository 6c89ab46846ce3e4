/// A series of values over time, kept at most `limit` points however many samples come: past
/// the limit, neighbouring points merge in pairs and later points take twice as many samples,
/// so that a long series is downsampled evenly. Each point keeps its samples' mean, minimum and
/// maximum and the time of its first sample; the page says how many samples a point holds.
struct ReportSeries {
    struct Point: Equatable {
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
            var merged: [Point] = []
            merged.reserveCapacity(limit / 2 + 1)
            var i = 0
            while i < points.count {
                var p = points[i]
                if i + 1 < points.count { p.merge(points[i + 1]) }
                merged.append(p)
                i += 2
            }
            points = merged
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
