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
