public import BLECapture
import BLECapturePcap
public import BLEInspectCore

#if canImport(Glibc)
    import Glibc
#endif

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

/// How HCI frames are laid out in the capture written.
public enum CaptureLayout: Sendable, Hashable {
    /// HCI packets as H4 with their direction: pcap/pcapng link type 201, btsnoop datalink 1002.
    /// Records with no H4 form (monitor index records, notes, logs) are skipped and counted.
    case h4
    /// The Linux monitor layout: pcap/pcapng link type 254, btsnoop datalink 2001. Every frame
    /// with a monitor opcode is written, with its controller index: HCI packets, index records,
    /// notes, logs, vendor diagnostics and control records. What a live monitor capture shows.
    case monitor

    /// The layout that keeps everything a capture in `format` holds: the monitor layout for a
    /// Linux monitor capture, H4 otherwise.
    public init(for format: CaptureFormat) {
        self = format.isLinuxMonitor ? .monitor : .h4
    }

    /// The pcap and pcapng link type of HCI frames in this layout.
    public var pcapLinkType: UInt16 {
        self == .monitor ? PcapRecordLayout.linuxMonitor : PcapRecordLayout.hciH4WithDirection
    }

    /// The btsnoop datalink of this layout.
    public var btsnoopDatalink: BTSnoopWriter.Datalink { self == .monitor ? .monitor : .h4 }
}

/// A ring buffer of capture files, as tshark's `-b filesize:… -b files:…`.
public struct CaptureRotation: Sendable, Hashable {
    /// A file is closed and the next one started when the next frame would take it past this
    /// many bytes. A file always holds at least one frame, so one larger frame can pass it.
    public var maxBytes: Int64
    /// Only the newest this many files are kept; older ones are deleted. Nil keeps them all.
    public var maxFiles: Int?

    public init(maxBytes: Int64, maxFiles: Int? = nil) {
        self.maxBytes = maxBytes
        self.maxFiles = maxFiles
    }
}

/// A capture file being written. The concrete writer is made on the first frame that can be
/// stored, so that the link type follows the input: with the `.h4` layout HCI frames are written
/// as H4 with direction (pcap link type 201, btsnoop 1002), with `.monitor` as Linux monitor
/// records (254, btsnoop 2001); sniffer frames keep their own link type.
///
/// With a rotation, the frames go to a series of files named as tshark's ring buffer does:
/// `NAME_00001_YYYYMMDDhhmmss.EXT`, from the path `NAME.EXT` and the local time each file was
/// opened. Each file is a complete capture with its own header.
public final class CaptureOutput {
    public let path: String
    public let format: OutputFormat
    public let layout: CaptureLayout
    public let rotation: CaptureRotation?
    private var writer: (any FrameWriter)?
    private var linkType: UInt16?
    private var precision: Timestamp.Precision = .microseconds
    /// Frames in the current file.
    private var framesInFile = 0
    /// The number of the last file opened (1-based), for ring-buffer names.
    private var fileNumber = 0
    /// Records that the output format has no place for, by kind name.
    public private(set) var skipped: [String: Int] = [:]
    public private(set) var written = 0
    /// The files written and still kept, oldest first: the path itself without a rotation, the
    /// ring buffer's files with one. Empty until the first file is opened.
    public private(set) var files: [String] = []

    public init(path: String, format: OutputFormat, layout: CaptureLayout = .h4, rotation: CaptureRotation? = nil) {
        self.path = path
        self.format = format
        self.layout = layout
        self.rotation = rotation
    }

    /// Why `path` and `rotation` do not go together, as a usage message; nil when they do.
    public static func validate(path: String, rotation: CaptureRotation?) -> String? {
        guard let rotation else { return nil }
        if path == "-" { return "a ring buffer (--max-size) needs a file name: -w - writes to standard output" }
        if rotation.maxBytes <= 0 { return "--max-size takes a size of 1 byte or more" }
        if let maxFiles = rotation.maxFiles, maxFiles < 1 { return "--max-files takes a count of 1 or more" }
        return nil
    }

    /// The link type (pcap) a frame is stored under in this output, nil when it has none.
    private func linkType(for frame: CapturedFrame) -> UInt16? {
        if case .linkLayer(let type) = frame.kind { return format == .btsnoop ? nil : type }
        switch layout {
        case .h4: return frame.kind.isHCI ? PcapRecordLayout.hciH4WithDirection : nil
        case .monitor:
            return MonitorRecord.opcode(for: frame.kind, direction: frame.direction) == nil
                ? nil : PcapRecordLayout.linuxMonitor
        }
    }

    public func write(_ frame: CapturedFrame) throws(CaptureError) {
        if writer == nil {
            guard let type = linkType(for: frame) else {
                skipped[frame.kind.name, default: 0] += 1
                return
            }
            linkType = type
            precision = frame.timestamp.precision
            try openNext()
        }
        // Only a ring buffer needs the frame's size before it is written.
        if let rotation, framesInFile > 0, let current = writer, let size = current.encodedSize(of: frame),
            current.bytesWritten + Int64(size) > rotation.maxBytes
        {
            writer = nil
            try current.finish()
            try openNext()
        }
        guard let writer, try writer.write(frame) else {
            skipped[frame.kind.name, default: 0] += 1
            return
        }
        framesInFile += 1
        written += 1
    }

    /// Opens the next file (the only one without a rotation) with the link type chosen.
    private func openNext() throws(CaptureError) {
        if let problem = Self.validate(path: path, rotation: rotation) {
            throw CaptureError(.writeFailed, "cannot write \(path): \(problem)")
        }
        let type = linkType ?? layout.pcapLinkType
        linkType = type
        fileNumber += 1
        let name = rotation == nil ? path : Self.ringName(path: path, number: fileNumber, time: Int64(time(nil)))
        switch format {
        case .pcap:
            writer = try PcapWriter(path: name, linkType: type, precision: precision)
        case .pcapng:
            writer = PcapngWriter(
                sink: try OutputSink.create(path: name),
                name: name,
                linkType: type,
                precision: precision
            )
        case .btsnoop:
            writer = BTSnoopWriter(
                sink: try OutputSink.create(path: name),
                name: name,
                datalink: layout.btsnoopDatalink
            )
        }
        framesInFile = 0
        files.append(name)
        if let maxFiles = rotation?.maxFiles, files.count > maxFiles {
            while files.count > maxFiles {
                let old = files.removeFirst()
                if unlink(old) != 0 && errno != ENOENT {
                    throw CaptureError(.writeFailed, "cannot delete \(old): \(String(cString: strerror(errno)))")
                }
            }
        }
    }

    /// A ring-buffer file name: `NAME_NNNNN_YYYYMMDDhhmmss.EXT` for `path` `NAME.EXT`, with the
    /// local time `time`. A path without an extension gives `NAME_NNNNN_YYYYMMDDhhmmss`.
    public static func ringName(path: String, number: Int, time: Int64) -> String {
        var stem = Substring(path)
        var ext = Substring("")
        if let dot = path.lastIndex(of: "."), !path[dot...].contains("/"), dot > path.startIndex,
            path[path.index(before: dot)] != "/"
        {
            stem = path[..<dot]
            ext = path[dot...]
        }
        var t = time_t(clamping: time)
        var parts = tm()
        localtime_r(&t, &parts)
        func digits(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let year = Int(parts.tm_year) + 1900
        let stamp =
            digits(year, 4) + digits(Int(parts.tm_mon) + 1, 2) + digits(Int(parts.tm_mday), 2)
            + digits(Int(parts.tm_hour), 2) + digits(Int(parts.tm_min), 2) + digits(Int(parts.tm_sec), 2)
        return "\(stem)_\(digits(number, 5))_\(stamp)\(ext)"
    }

    /// Pushes what was written to the file, so that a reader sees every frame so far.
    public func flush() throws(CaptureError) {
        try writer?.flush()
    }

    /// Closes the file; an input with no storable frame still gives a valid, empty capture.
    public func finish() throws(CaptureError) {
        if writer == nil && files.isEmpty {
            try openNext()
        }
        try writer?.finish()
    }

    /// A one-line account of skipped records, nil when nothing was skipped.
    public var skippedSummary: String? {
        let target: String
        switch format {
        case .btsnoop: target = layout.btsnoopDatalink.name
        case .pcap, .pcapng: target = "\(format.rawValue) link type \(linkType ?? layout.pcapLinkType)"
        }
        return SkippedRecords.summary(skipped, action: "written to \(path)", target: target)
    }
}
