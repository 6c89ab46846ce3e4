public import BLEInspectCore

/// Writes btsnoop files with datalink 1002 (HCI H4/UART) or 2001 (Linux monitor).
public final class BTSnoopWriter: FrameWriter {
    /// The datalinks this writer writes.
    public enum Datalink: UInt32, Sendable, Hashable {
        /// HCI H4/UART: HCI packets only, with a direction flag (Android's btsnoop_hci.log).
        case h4 = 1002
        /// Linux monitor: flags hold the controller index (high 16 bits, 0xFFFF for none) and the
        /// monitor opcode (low 16 bits), so index records, notes and logs have a place too.
        case monitor = 2001

        /// A human name, as the reader gives it.
        public var name: String {
            switch self {
            case .h4: "btsnoop datalink 1002 (HCI H4)"
            case .monitor: "btsnoop datalink 2001 (Linux monitor)"
            }
        }
    }

    /// The bytes of a record header.
    public static let recordHeaderSize = 24

    private let sink: OutputSink
    private let name: String
    public let datalink: Datalink

    /// Writes the file header to `sink`; `name` is used in error messages.
    public init(sink: OutputSink, name: String, datalink: Datalink = .h4) {
        self.sink = sink
        self.name = name
        self.datalink = datalink
        sink.append(contentsOf: BTSnoopReader.magic)
        sink.appendUInt32BE(1)
        sink.appendUInt32BE(datalink.rawValue)
    }

    /// The record flags and the bytes before the frame's own (the H4 packet indicator), nil when
    /// the datalink has no place for `frame`.
    private func layout(of frame: CapturedFrame) -> (flags: UInt32, prefix: UInt8?)? {
        switch datalink {
        case .h4:
            guard let h4 = frame.kind.h4Type else { return nil }
            var flags: UInt32 = 0
            let received: Bool
            switch frame.direction {
            case .controllerToHost: received = true
            case .hostToController: received = false
            case .unknown: received = frame.kind == .hciEvent
            }
            if received { flags |= 1 }
            if frame.kind == .hciCommand || frame.kind == .hciEvent { flags |= 2 }
            return (flags, h4)
        case .monitor:
            guard let opcode = MonitorRecord.opcode(for: frame.kind, direction: frame.direction) else { return nil }
            return (UInt32(MonitorRecord.index(of: frame)) << 16 | UInt32(opcode), nil)
        }
    }

    public func encodedSize(of frame: CapturedFrame) -> Int? {
        guard let layout = layout(of: frame) else { return nil }
        return Self.recordHeaderSize + (layout.prefix == nil ? 0 : 1) + frame.bytes.count
    }

    public func write(_ frame: CapturedFrame) throws(CaptureError) -> Bool {
        guard let (flags, prefix) = layout(of: frame) else { return false }
        let extra = prefix == nil ? 0 : 1
        let included = UInt32(clamping: frame.bytes.count + extra)
        let original = UInt32(clamping: max(frame.originalLength, frame.bytes.count) + extra)
        let micros = frame.timestamp.unixMicroseconds ?? 0
        let (raw, overflow) = micros.addingReportingOverflow(BTSnoopReader.epochOffset)
        sink.appendUInt32BE(original)
        sink.appendUInt32BE(included)
        sink.appendUInt32BE(flags)
        sink.appendUInt32BE(0)  // cumulative drops
        let stamp = UInt64(bitPattern: overflow ? BTSnoopReader.epochOffset : raw)
        sink.appendUInt32BE(UInt32(truncatingIfNeeded: stamp >> 32))
        sink.appendUInt32BE(UInt32(truncatingIfNeeded: stamp))
        if let prefix { sink.append(prefix) }
        sink.append(contentsOf: frame.bytes)
        return true
    }

    public func flush() throws(CaptureError) {
        try sink.flush(name: name)
    }

    public var bytesWritten: Int64 { sink.bytesWritten }

    public func finish() throws(CaptureError) {
        try sink.flush(name: name)
    }
}
