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

/// A point of a series that thins by merging neighbours (`mergedInPairs`).
protocol PairMergeable {
    /// Takes in `later`, the point after this one.
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

/// A sender's credits after a frame of its channel; once the series thins, after the last of
/// the frames the step stands for, with the lowest and highest balance among them.
struct ConnsCreditStep: PairMergeable {
    var moment: ConnsMoment
    var credits: UInt64
    var low: UInt64
    var high: UInt64

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
    }
}

/// A sender's credit balances for the chart, at most `limit` steps however many come: past the
/// limit, neighbouring steps merge in pairs and later balances join the last step until it
/// stands for `stride` of them, so the line thins evenly over the whole channel rather than
/// stop. A merged step keeps the lowest and highest balance it covers (a dip to 0 stays seen)
/// and starts where its first balance did.
struct ConnsCreditSeries {
    let limit: Int
    private(set) var items: [ConnsCreditStep] = []
    /// Balances a step stands for, and how many the last one holds so far.
    private(set) var stride = 1
    private var lastHolds = 0
    /// Every balance taken.
    private(set) var balances = 0

    init(limit: Int) { self.limit = max(limit, 2) }

    mutating func append(_ step: ConnsCreditStep) {
        balances &+= 1
        if lastHolds > 0, lastHolds < stride, !items.isEmpty {
            items[items.count - 1].merge(step)
            lastHolds += 1
            return
        }
        items.append(step)
        lastHolds = 1
        guard items.count > limit, stride < Int.max / 2 else { return }
        // Every step before the last holds `stride` balances; a pair merges into one.
        let paired = items.count % 2 == 0
        items = items.mergedInPairs()
        lastHolds = paired ? stride + lastHolds : lastHolds
        stride *= 2
    }

    /// Whether steps were merged.
    var thinned: Bool { stride > 1 }
}

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
