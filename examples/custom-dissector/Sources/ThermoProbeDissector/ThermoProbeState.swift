import BLEInspectCore

/// What the module remembers across frames: per stream (a connection's channel and a sender),
/// the number and frame of the last SDU. One per capture (`CaptureState.module`); a connection's
/// streams are forgotten when it closes (`ConnectionScopedState`), and at most
/// `maximumStreams` are followed, so that no capture makes it grow without bound.
final class ThermoProbeState: ConnectionScopedState {
    struct Stream: Hashable {
        var connection: ConnectionKey?
        var cid: UInt16?
        var sender: ThermoProbeSender
    }

    /// What `record` found.
    enum Step {
        /// The stream's first SDU.
        case first
        /// The SDU after the previous one, which was in `previousFrame`.
        case next(previousFrame: Int)
        /// Not the SDU after the previous one: some are missing, or the number went back.
        case out(previousNumber: UInt32, previousFrame: Int)
        /// A new stream past `maximumStreams`: not followed.
        case untracked
    }

    /// The most streams followed at once.
    static let maximumStreams = 1024

    private var last: [Stream: (number: UInt32, frame: Int)] = [:]

    init() {}

    /// Records that `stream`'s SDU `number` is in `frame`.
    func record(_ stream: Stream, number: UInt32, frame: Int) -> Step {
        guard let previous = last[stream] else {
            guard last.count < Self.maximumStreams else { return .untracked }
            last[stream] = (number, frame)
            return .first
        }
        last[stream] = (number, frame)
        // `previous.number < number` first: no overflow in `+ 1`.
        if previous.number < number && previous.number + 1 == number {
            return .next(previousFrame: previous.frame)
        }
        return .out(previousNumber: previous.number, previousFrame: previous.frame)
    }

    func connectionClosed(_ key: ConnectionKey) {
        last = last.filter { $0.key.connection != key }
    }
}
