/// One record from any capture source, normalised: the single frame type every reader produces.
public struct CapturedFrame: Sendable {
    /// 1-based position in the source, counting every record the source reports (as tshark does).
    public var number: Int
    public var timestamp: Timestamp
    public var direction: Direction
    /// The controller (hciN) the record belongs to, when the format says.
    public var controllerIndex: UInt16?
    public var kind: FrameKind
    /// The record's bytes. HCI packets are stored without the H4 packet indicator, which `kind`
    /// carries; link-layer frames keep their sniffer header; text records hold their text.
    public var bytes: [UInt8]
    /// The length of the record on the wire, in the same terms as `bytes`. Larger than
    /// `bytes.count` when the capture was cut by a snapshot length.
    public var originalLength: Int
    /// Byte offset of the record in its source, for messages about it.
    public var sourceOffset: Int64

    public init(
        number: Int,
        timestamp: Timestamp,
        direction: Direction,
        controllerIndex: UInt16?,
        kind: FrameKind,
        bytes: [UInt8],
        originalLength: Int,
        sourceOffset: Int64
    ) {
        self.number = number
        self.timestamp = timestamp
        self.direction = direction
        self.controllerIndex = controllerIndex
        self.kind = kind
        self.bytes = bytes
        self.originalLength = originalLength
        self.sourceOffset = sourceOffset
    }

    /// An empty frame, for holders that refill one frame after another.
    public static func blank() -> CapturedFrame {
        CapturedFrame(
            number: 0,
            timestamp: Timestamp(seconds: 0, nanoseconds: 0, precision: .microseconds),
            direction: .unknown,
            controllerIndex: nil,
            kind: .unknown(0),
            bytes: [],
            originalLength: 0,
            sourceOffset: 0
        )
    }

    /// This frame with the direction its dissection learnt (`ProtocolTree.learnedDirection`),
    /// for the renderers and views, which show and count frames by direction.
    public func withDirection(of tree: borrowing ProtocolTree) -> CapturedFrame {
        guard let d = tree.learnedDirection, d != direction else { return self }
        var copy = self
        copy.direction = d
        return copy
    }

    /// Calls `body` with this frame, or with a copy carrying the direction its dissection learnt
    /// (as `withDirection(of:)` makes): nearly every frame keeps the capture's direction, and is
    /// then passed on without a copy.
    public func withDirection<R>(of tree: borrowing ProtocolTree, _ body: (borrowing CapturedFrame) -> R) -> R {
        guard let d = tree.learnedDirection, d != direction else { return body(self) }
        var copy = self
        copy.direction = d
        return body(copy)
    }

    /// True when the capture holds fewer bytes than the record had.
    public var isTruncated: Bool { bytes.count < originalLength }
}
