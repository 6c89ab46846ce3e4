/// Links from a frame to a later one, which one pass cannot show on the earlier frame: the
/// channel opened on a PSM a frame published. `read -2` collects them in a first pass over the
/// capture and hands them to the engine of the second, whose dissectors show them. Bounded.
public final class ForwardLinks {
    public enum Kind: UInt8, Sendable {
        /// From a frame that published a PSM to the request of a channel opened on it.
        case channelOnPSM
    }

    /// The most links kept; past it, later links are not collected.
    public static let maximum = 1 << 20

    /// False while collecting (the first pass), true once handed to the second pass.
    public private(set) var answering = false
    private var links: [Int: [(Kind, Int)]] = [:]
    private var count = 0

    public init() {}

    /// Records, in the first pass, that `from` leads to `to`.
    public func record(_ kind: Kind, from: Int, to: Int) {
        guard !answering, count < Self.maximum else { return }
        links[from, default: []].append((kind, to))
        count += 1
    }

    /// Ends the first pass.
    public func startAnswering() { answering = true }

    /// The later frames `frame` leads to, in the second pass.
    public func later(_ kind: Kind, of frame: Int) -> [Int] {
        guard answering, let list = links[frame] else { return [] }
        return list.compactMap { $0.0 == kind ? $0.1 : nil }
    }
}
