/// What `report` draws that `conns` only sums: each request→response time at its moment, and
/// each sender's credit balance after each frame of a credit-based channel. The builder keeps
/// them only when asked (`ConnsBuilder.keepsSeries`), each list bounded, so `conns` pays
/// nothing for them.
enum ConnsSeries {
    /// The most points one list keeps; past it they are counted as dropped.
    static let limit = 4096
}

/// An ATT response or error response and the time since its request (`gatt.response_time`).
struct ConnsLatencyPoint {
    var moment: ConnsMoment
    var microseconds: Int64
    /// An Error Response rather than a response.
    var error: Bool
}

/// A point of a `ThinnedSeries`: how many samples it stands for, and how it takes in the next.
protocol PairMergeable {
    var count: Int { get }
    /// Takes in `later`, the point after this one (adding its count).
    mutating func merge(_ later: Self)
}

extension Array where Element: PairMergeable {
    /// The elements merged in pairs, the first with the second, the third with the fourth…; an
    /// odd last one as it is.
    func mergedInPairs() -> [Element] {
        var merged: [Element] = []
        merged.reserveCapacity(count / 2 + 1)
        var k = 0
        while k < count {
            var a = self[k]
            if k + 1 < count { a.merge(self[k + 1]) }
            merged.append(a)
            k += 2
        }
        return merged
    }
}

/// A series kept at most `limit` points however many samples come: past the limit, neighbouring
/// points merge in pairs and later points take twice as many samples, so that a long series is
/// thinned evenly over its whole length rather than cut. For the report's RSSI and credit lines.
struct ThinnedSeries<Point: PairMergeable> {
    let limit: Int
    private(set) var points: [Point] = []
    /// How many samples a point takes now: 1 until the first merge, then doubling.
    private(set) var perPoint = 1
    private(set) var samples = 0

    init(limit: Int) { self.limit = max(limit, 2) }

    /// Adds `point`, one sample.
    mutating func add(_ point: Point) {
        samples &+= 1
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

/// A sender's credits after a frame of its channel; once the series thins, after the last of
/// the frames the step stands for, with the lowest and highest balance among them.
struct ConnsCreditStep: PairMergeable {
    var moment: ConnsMoment
    var credits: UInt64
    var low: UInt64
    var high: UInt64
    var count = 1

    init(moment: ConnsMoment, credits: UInt64) {
        self.moment = moment
        self.credits = credits
        low = credits
        high = credits
    }

    /// Takes in `later`, the step after it: its balance is the last, its range both.
    mutating func merge(_ later: ConnsCreditStep) {
        credits = later.credits
        low = min(low, later.low)
        high = max(high, later.high)
        count &+= later.count
    }
}

/// A sender's credit balances for the chart, thinned evenly past `ConnsSeries.limit`: a merged
/// step keeps the lowest and highest balance it stands for (a dip to 0 stays seen), ends on the
/// last, and starts where its first balance did.
typealias ConnsCreditSeries = ThinnedSeries<ConnsCreditStep>

/// A connection's response times for the chart, at most `limit` however many come: past the
/// limit every other response is dropped and later ones are kept one in `stride` (doubling), so
/// the points thin evenly over the whole connection rather than stop. Error responses are never
/// thinned; once they alone fill the list, later ones are counted.
struct ConnsLatencySeries {
    let limit: Int
    private(set) var items: [ConnsLatencyPoint] = []
    /// Keep one response in `stride`.
    private(set) var stride = 1
    /// Responses seen (errors aside), and errors that found no room.
    private(set) var responses = 0
    private(set) var errorsDropped = 0

    init(limit: Int) { self.limit = max(limit, 2) }

    mutating func append(_ p: ConnsLatencyPoint) {
        if !p.error {
            responses &+= 1
            guard (responses &- 1) % stride == 0 else { return }
        }
        items.append(p)
        guard items.count > limit else { return }
        // Thin the responses (one in two); with fewer than two to thin, the new point goes.
        guard items.count(where: { !$0.error }) >= 2, stride < Int.max / 2 else {
            items.removeLast()
            if p.error { errorsDropped &+= 1 }
            return
        }
        var k = 0
        items = items.filter { q in
            guard !q.error else { return true }
            defer { k += 1 }
            return k % 2 == 0
        }
        stride *= 2
    }

    var isEmpty: Bool { items.isEmpty }
    /// Whether responses were left out.
    var thinned: Bool { stride > 1 }
}
