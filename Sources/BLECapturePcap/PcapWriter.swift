public import BLECapture
public import BLEInspectCore
internal import CPcap

#if canImport(Glibc)
    import Glibc
#endif

/// Writes classic pcap files through libpcap.
public final class PcapWriter: FrameWriter {
    private let handle: OpaquePointer
    private let dumper: OpaquePointer
    private let name: String
    public let linkType: UInt16
    private let precision: Timestamp.Precision
    private var closed = false
    /// The file header and every record dumped so far (libpcap buffers them in stdio).
    public private(set) var bytesWritten: Int64 = 24

    /// Creates `path` (`-` for standard output) as a pcap file of `linkType`.
    public init(path: String, linkType: UInt16, precision: Timestamp.Precision) throws(CaptureError) {
        let tsPrecision = precision == .nanoseconds ? PCAP_TSTAMP_PRECISION_NANO : PCAP_TSTAMP_PRECISION_MICRO
        guard let p = pcap_open_dead_with_tstamp_precision(Int32(linkType), 262_144, UInt32(tsPrecision)) else {
            throw CaptureError(.writeFailed, "libpcap could not set up a writer for link type \(linkType)")
        }
        guard let d = pcap_dump_open(p, path) else {
            let message = String(cString: pcap_geterr(p))
            pcap_close(p)
            throw CaptureError(.writeFailed, "cannot create \(path): \(message)")
        }
        handle = p
        dumper = d
        name = path
        self.linkType = linkType
        self.precision = precision
    }

    deinit {
        if !closed { pcap_dump_close(dumper) }
        pcap_close(handle)
    }

    public func write(_ frame: CapturedFrame) throws(CaptureError) -> Bool {
        guard !closed, let record = PcapRecordLayout.record(for: frame, linkType: linkType) else { return false }
        var header = pcap_pkthdr()
        header.ts.tv_sec = Int(clamping: min(max(frame.timestamp.seconds, 0), Int64(UInt32.max)))
        let fraction = precision == .nanoseconds ? frame.timestamp.nanoseconds : frame.timestamp.nanoseconds / 1000
        header.ts.tv_usec = Int(fraction)
        header.caplen = UInt32(clamping: record.bytes.count)
        header.len = UInt32(clamping: record.originalLength)
        record.bytes.withUnsafeBufferPointer { p in
            pcap_dump(UnsafeMutablePointer<u_char>(dumper), &header, p.baseAddress)
        }
        // libpcap writes through stdio, which reports a failed write (a full disk, a closed
        // pipe) only by the stream's error flag, and only once: a later flush of the emptied
        // buffer succeeds. Checked here, while errno still says why.
        try checkStream()
        bytesWritten += 16 + Int64(record.bytes.count)
        return true
    }

    /// Throws when the stream has failed a write.
    private func checkStream() throws(CaptureError) {
        if let file = pcap_dump_file(dumper), ferror(file) != 0 {
            throw CaptureError.writeFailed(name, errno: errno)
        }
    }

    public func encodedSize(of frame: CapturedFrame) -> Int? {
        guard let record = PcapRecordLayout.record(for: frame, linkType: linkType) else { return nil }
        return 16 + record.bytes.count
    }

    public func flush() throws(CaptureError) {
        guard !closed else { return }
        if pcap_dump_flush(dumper) != 0 {
            throw CaptureError.writeFailed(name, errno: errno)
        }
        try checkStream()
    }

    public func finish() throws(CaptureError) {
        guard !closed else { return }
        closed = true
        let flushed = pcap_dump_flush(dumper)
        let failed = pcap_dump_file(dumper).map { ferror($0) != 0 } ?? false
        pcap_dump_close(dumper)
        if flushed != 0 || failed {
            throw CaptureError.writeFailed(name, errno: errno)
        }
    }
}
