public import BLECapture
import BLECapturePcap
public import BLEInspectCore

/// The capture formats `-w` writes.
public enum OutputFormat: String, Sendable, CaseIterable {
    case pcap, pcapng, btsnoop

    /// The format named by a file's extension, nil when the extension says nothing.
    public static func fromExtension(of path: String) -> OutputFormat? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "pcap", "cap": return .pcap
        case "pcapng", "ntar": return .pcapng
        case "btsnoop", "snoop", "log", "cfa": return .btsnoop
        default: return nil
        }
    }
}

/// A capture file being written. The concrete writer is made on the first frame that can be
/// stored, so that the link type follows the input: HCI frames are written as H4 with direction
/// (pcap link type 201, btsnoop 1002); sniffer frames keep their own link type.
public final class CaptureOutput {
    public let path: String
    public let format: OutputFormat
    private var writer: (any FrameWriter)?
    private var linkType: UInt16?
    /// Records that the output format has no place for, by kind name.
    public private(set) var skipped: [String: Int] = [:]
    public private(set) var written = 0

    public init(path: String, format: OutputFormat) {
        self.path = path
        self.format = format
    }

    public func write(_ frame: CapturedFrame) throws(CaptureError) {
        if writer == nil {
            guard let type = PcapRecordLayout.linkType(for: frame), format != .btsnoop || frame.kind.isHCI else {
                skipped[frame.kind.name, default: 0] += 1
                return
            }
            try open(linkType: type, precision: frame.timestamp.precision)
        }
        guard let writer, try writer.write(frame) else {
            skipped[frame.kind.name, default: 0] += 1
            return
        }
        written += 1
    }

    private func open(linkType: UInt16, precision: Timestamp.Precision) throws(CaptureError) {
        self.linkType = linkType
        switch format {
        case .pcap:
            writer = try PcapWriter(path: path, linkType: linkType, precision: precision)
        case .pcapng:
            writer = PcapngWriter(
                sink: try OutputSink.create(path: path),
                name: path,
                linkType: linkType,
                precision: precision
            )
        case .btsnoop:
            writer = BTSnoopWriter(sink: try OutputSink.create(path: path), name: path)
        }
    }

    /// Closes the file; an input with no storable frame still gives a valid, empty capture.
    public func finish() throws(CaptureError) {
        if writer == nil {
            try open(linkType: PcapRecordLayout.hciH4WithDirection, precision: .microseconds)
        }
        try writer?.finish()
    }

    /// A one-line account of skipped records, nil when nothing was skipped.
    public var skippedSummary: String? {
        guard !skipped.isEmpty else { return nil }
        let total = skipped.values.reduce(0, +)
        let kinds = skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let target: String
        switch format {
        case .btsnoop: target = "btsnoop datalink 1002 (HCI H4)"
        case .pcap, .pcapng: target = "\(format.rawValue) link type \(linkType ?? PcapRecordLayout.hciH4WithDirection)"
        }
        return
            "\(total) record\(total == 1 ? "" : "s") not written to \(path) (\(kinds)): \(target) has no place for them"
    }
}
