public import BLECapture
public import BLEInspectCore

/// What of each frame's tree an output reads. The pipeline sets the engine from it (and from the
/// filter's fields): what no output reads and no filter tests need not be decoded or kept.
public enum TreeNeeds: Sendable, Equatable {
    /// Every node, the derived fields (`device.*`) and the expert text: the tree and JSON.
    case everything
    /// The one-line summary: the layers' short names, the malformed mark and the summary text
    /// (made beside the tree); no derived fields and no expert text.
    case summary
    /// These fields' nodes only (`-T fields`).
    case fields(Set<FieldID>)
}

/// An output format of dissected frames. Each one says what it reads (`reads`), so that a new
/// format cannot be handed trees the engine has thinned for another: the runners configure the
/// engine from `reads` alone.
public protocol FrameRendering {
    /// What of each tree the format reads.
    var reads: TreeNeeds { get }
    /// Whether the format shows the summary text, which the dissectors build beside the tree.
    var wantsInfo: Bool { get }
    /// Renders one frame and hands its bytes, valid only during the call, to `emit`.
    func render(
        _ frame: CapturedFrame,
        _ tree: borrowing ProtocolTree,
        first: Timestamp,
        previous: Timestamp,
        emit: (UnsafeBufferPointer<UInt8>) -> Void
    )
}

extension FrameRendering {
    /// Writes one frame to `out`. Inlinable, so that a runner's call is specialized for its
    /// format and reaches the format's `render` directly.
    @inlinable
    public func render(
        _ frame: CapturedFrame,
        _ tree: borrowing ProtocolTree,
        first: Timestamp,
        previous: Timestamp,
        to out: OutputSink
    ) {
        render(frame, tree, first: first, previous: previous) { out.append(bytes: $0) }
    }
}
