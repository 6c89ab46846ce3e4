/// The times a frame's relative time fields are measured from: the first frame of the capture,
/// the previous frame read, and the previous frame displayed (the previous one that passed the
/// display filter), as tshark measures `frame.time_relative`, `frame.time_delta` and
/// `frame.time_delta_displayed`. A frame with no such earlier frame is measured from itself.
public struct FrameTimes: Sendable, Hashable {
    public var time: Timestamp
    public var first: Timestamp
    public var previous: Timestamp
    public var previousDisplayed: Timestamp

    public init(time: Timestamp, first: Timestamp, previous: Timestamp, previousDisplayed: Timestamp) {
        self.time = time
        self.first = first
        self.previous = previous
        self.previousDisplayed = previousDisplayed
    }

    /// A frame measured from itself: every relative time is zero.
    public init(_ time: Timestamp) {
        self.init(time: time, first: time, previous: time, previousDisplayed: time)
    }

    /// Nanoseconds since the first frame; negative when timestamps go backwards.
    public var relative: Int64 { time.nanoseconds(since: first) }
    /// Nanoseconds since the previous frame read.
    public var delta: Int64 { time.nanoseconds(since: previous) }
    /// Nanoseconds since the previous frame displayed.
    public var deltaDisplayed: Int64 { time.nanoseconds(since: previousDisplayed) }
}

/// Follows a capture's frames, in the order read, for their `FrameTimes`. One per capture
/// (it lives in the engine, or with whoever reads the frames); never shared between captures.
///
/// Every frame counts as displayed unless the caller says otherwise (`lastNotDisplayed`) after
/// filtering it, as tshark does in one pass: a frame's displayed delta is measured from the last
/// frame that passed the filter before it.
public struct FrameTimeline: Sendable {
    // Plain values and flags rather than optionals: this runs for every frame on the reading
    // thread. `first` and `previous` are meaningful once `started`; `previousDisplayed` once
    // `displayedAny`.
    private var first = Timestamp.zero
    private var previous = Timestamp.zero
    private var previousDisplayed = Timestamp.zero
    private var started = false
    private var displayedAny = false
    /// Whether the last frame given times (`previous`) was displayed: true unless
    /// `lastNotDisplayed()` was called since.
    private var lastDisplayed = false

    public init() {}

    /// The times of the next frame, read at `time`; it becomes the previous frame.
    public mutating func next(_ time: Timestamp) -> FrameTimes {
        if !started {
            started = true
            first = time
            previous = time
        }
        if lastDisplayed {
            previousDisplayed = previous
            displayedAny = true
        }
        let times = FrameTimes(
            time: time,
            first: first,
            previous: previous,
            previousDisplayed: displayedAny ? previousDisplayed : time
        )
        previous = time
        lastDisplayed = true
        return times
    }

    /// The frame last given times was not displayed (the display filter rejected it): later
    /// frames' displayed deltas skip it.
    public mutating func lastNotDisplayed() {
        lastDisplayed = false
    }
}
