public import BLEInspectCore

/// Writes frames to a capture file.
public protocol FrameWriter: AnyObject {
    /// Writes `frame`. Returns false, writing nothing, when the format has no place for this kind
    /// of record (for example a monitor index record in an H4 btsnoop file).
    func write(_ frame: CapturedFrame) throws(CaptureError) -> Bool
    /// The bytes `frame` would add to the file (record header included), nil when the format
    /// has no place for it; for deciding, before writing, whether a frame still fits in a file.
    func encodedSize(of frame: CapturedFrame) -> Int?
    /// Pushes buffered records to the file, so that a reader (or a crash) sees them.
    func flush() throws(CaptureError)
    /// The size of the file so far, headers and buffered records included.
    var bytesWritten: Int64 { get }
    /// Flushes and closes the file. Further writes are errors.
    func finish() throws(CaptureError)
}

/// How a frame is laid out in a pcap or pcapng record of a given link type.
public enum PcapRecordLayout {
    /// Link type 201: HCI H4 with a 4-byte direction pseudo-header.
    public static let hciH4WithDirection: UInt16 = 201
    /// Link type 187: HCI H4, no direction.
    public static let hciH4: UInt16 = 187
    /// Link type 254: Linux monitor, with a 4-byte big-endian pseudo-header (controller index,
    /// then monitor opcode).
    public static let linuxMonitor: UInt16 = 254

    /// The record bytes for `frame` under `linkType`, and the original length in the same terms;
    /// nil when the frame cannot be stored under that link type. Under 254 every frame with a
    /// monitor opcode (`MonitorRecord.opcode(for:direction:)`) is stored, with its controller
    /// index (0xFFFF for none).
    public static func record(for frame: CapturedFrame, linkType: UInt16) -> (bytes: [UInt8], originalLength: Int)? {
        if case .linkLayer(let frameLinkType) = frame.kind {
            return frameLinkType == linkType ? (frame.bytes, frame.originalLength) : nil
        }
        if linkType == linuxMonitor {
            guard let opcode = MonitorRecord.opcode(for: frame.kind, direction: frame.direction) else { return nil }
            let index = MonitorRecord.index(of: frame)
            var bytes: [UInt8] = [
                UInt8(truncatingIfNeeded: index >> 8), UInt8(truncatingIfNeeded: index),
                UInt8(truncatingIfNeeded: opcode >> 8), UInt8(truncatingIfNeeded: opcode),
            ]
            bytes.reserveCapacity(4 + frame.bytes.count)
            bytes.append(contentsOf: frame.bytes)
            return (bytes, max(frame.originalLength, frame.bytes.count) + 4)
        }
        guard linkType == hciH4WithDirection, let h4 = frame.kind.h4Type else { return nil }
        let received: UInt8
        switch frame.direction {
        case .controllerToHost: received = 1
        case .hostToController: received = 0
        case .unknown: received = frame.kind == .hciEvent ? 1 : 0
        }
        var bytes: [UInt8] = [0, 0, 0, received, h4]
        bytes.reserveCapacity(5 + frame.bytes.count)
        bytes.append(contentsOf: frame.bytes)
        return (bytes, frame.originalLength + 5)
    }
}

extension CaptureFormat {
    /// True for a Linux monitor capture (btsnoop datalink 2001, pcap or pcapng link type 254),
    /// whose index records, notes and controller indexes only a monitor layout keeps.
    public var isLinuxMonitor: Bool {
        switch container {
        case .btsnoop: linkType == 2001
        case .pcap, .pcapng: linkType == UInt32(PcapRecordLayout.linuxMonitor)
        case .packetLogger: false
        }
    }
}

/// Records an output had no place for, counted by kind name.
public enum SkippedRecords {
    /// "3 records not written to out.btsnoop (2 Note, 1 Log): TARGET has no place for them", with
    /// `action` as "written to out.btsnoop"; nil when nothing was skipped.
    public static func summary(_ skipped: [String: Int], action: String, target: String) -> String? {
        guard !skipped.isEmpty else { return nil }
        let total = skipped.values.reduce(0, +)
        let kinds = skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        return "\(total) record\(total == 1 ? "" : "s") not \(action) (\(kinds)): \(target) has no place for them"
    }
}
