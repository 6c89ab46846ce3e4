public import BLEInspectCore

/// Writes pcapng files: one section, one interface of the given link type, Enhanced Packet Blocks.
///
/// libpcap reads pcapng but does not write it, so this small writer does.
public final class PcapngWriter: FrameWriter {
    private let sink: OutputSink
    private let name: String
    public let linkType: UInt16
    private let precision: Timestamp.Precision

    /// Writes the section header and the interface description to `sink`.
    public init(sink: OutputSink, name: String, linkType: UInt16, precision: Timestamp.Precision) {
        self.sink = sink
        self.name = name
        self.linkType = linkType
        self.precision = precision
        // Section Header Block.
        sink.appendUInt32LE(0x0A0D_0D0A)
        sink.appendUInt32LE(28)
        sink.appendUInt32LE(0x1A2B_3C4D)
        sink.appendUInt16LE(1)
        sink.appendUInt16LE(0)
        sink.appendUInt32LE(0xFFFF_FFFF)  // section length unknown (-1)
        sink.appendUInt32LE(0xFFFF_FFFF)
        sink.appendUInt32LE(28)
        // Interface Description Block with if_tsresol (option 9) and opt_endofopt.
        sink.appendUInt32LE(1)
        sink.appendUInt32LE(32)
        sink.appendUInt16LE(linkType)
        sink.appendUInt16LE(0)
        sink.appendUInt32LE(0)  // snaplen: no limit
        sink.appendUInt16LE(9)
        sink.appendUInt16LE(1)
        sink.append(contentsOf: [precision.rawValue, 0, 0, 0])
        sink.appendUInt32LE(0)
        sink.appendUInt32LE(32)
    }

    public func write(_ frame: CapturedFrame) throws(CaptureError) -> Bool {
        guard let record = PcapRecordLayout.record(for: frame, linkType: linkType) else { return false }
        let perSecond: Int64 = precision == .nanoseconds ? 1_000_000_000 : 1_000_000
        let fraction = Int64(frame.timestamp.nanoseconds) / (precision == .nanoseconds ? 1 : 1000)
        let (scaled, o1) = max(frame.timestamp.seconds, 0).multipliedReportingOverflow(by: perSecond)
        let units = UInt64(o1 ? 0 : scaled + fraction)
        let length = record.bytes.count
        let padded = (length + 3) & ~3
        let blockLength = UInt32(clamping: 32 + padded)
        sink.appendUInt32LE(6)
        sink.appendUInt32LE(blockLength)
        sink.appendUInt32LE(0)  // interface 0
        sink.appendUInt32LE(UInt32(truncatingIfNeeded: units >> 32))
        sink.appendUInt32LE(UInt32(truncatingIfNeeded: units))
        sink.appendUInt32LE(UInt32(clamping: length))
        sink.appendUInt32LE(UInt32(clamping: record.originalLength))
        sink.append(contentsOf: record.bytes)
        for _ in length..<padded { sink.append(0) }
        sink.appendUInt32LE(blockLength)
        return true
    }

    public func encodedSize(of frame: CapturedFrame) -> Int? {
        guard let record = PcapRecordLayout.record(for: frame, linkType: linkType) else { return nil }
        return 32 + ((record.bytes.count + 3) & ~3)
    }

    public func flush() throws(CaptureError) {
        try sink.flush(name: name)
    }

    public var bytesWritten: Int64 { sink.bytesWritten }

    public func finish() throws(CaptureError) {
        try sink.flush(name: name)
    }
}
