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

/// A sender's credits after a frame of its channel.
struct ConnsCreditStep {
    var moment: ConnsMoment
    var credits: UInt64
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
