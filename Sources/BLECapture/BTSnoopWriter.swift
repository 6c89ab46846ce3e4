public import BLEInspectCore

/// Writes btsnoop files with datalink 1002 (HCI H4/UART).
public final class BTSnoopWriter: FrameWriter {
    private let sink: OutputSink
    private let name: String

    /// Writes the file header to `sink`; `name` is used in error messages.
    public init(sink: OutputSink, name: String) {
        self.sink = sink
        self.name = name
        sink.append(contentsOf: BTSnoopReader.magic)
        sink.appendUInt32BE(1)
        sink.appendUInt32BE(1002)
    }

    public func write(_ frame: CapturedFrame) throws(CaptureError) -> Bool {
        guard let h4 = frame.kind.h4Type else { return false }
        let included = UInt32(clamping: frame.bytes.count + 1)
        let original = UInt32(clamping: max(frame.originalLength, frame.bytes.count) + 1)
        var flags: UInt32 = 0
        let received: Bool
        switch frame.direction {
        case .controllerToHost: received = true
        case .hostToController: received = false
        case .unknown: received = frame.kind == .hciEvent
        }
        if received { flags |= 1 }
        if frame.kind == .hciCommand || frame.kind == .hciEvent { flags |= 2 }
        let micros = frame.timestamp.unixMicroseconds ?? 0
        let (raw, overflow) = micros.addingReportingOverflow(BTSnoopReader.epochOffset)
        sink.appendUInt32BE(original)
        sink.appendUInt32BE(included)
        sink.appendUInt32BE(flags)
        sink.appendUInt32BE(0)  // cumulative drops
        let stamp = UInt64(bitPattern: overflow ? BTSnoopReader.epochOffset : raw)
        sink.appendUInt32BE(UInt32(truncatingIfNeeded: stamp >> 32))
        sink.appendUInt32BE(UInt32(truncatingIfNeeded: stamp))
        sink.append(h4)
        sink.append(contentsOf: frame.bytes)
        return true
    }

    public func finish() throws(CaptureError) {
        try sink.finish(name: name)
    }
}
