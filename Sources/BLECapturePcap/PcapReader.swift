public import BLECapture
public import BLEInspectCore
internal import CCaptureShims
internal import CPcap

#if canImport(Glibc)
    import Glibc
#endif

/// Reads pcap and pcapng captures through libpcap.
///
/// HCI link types (187 H4, 201 H4 with direction, 254 Linux monitor) are turned into HCI frames;
/// the sniffer link types (251, 256, 272, 192/147) are handed on as link-layer frames.
public final class PcapReader: FrameReader {
    public let format: CaptureFormat
    private let input: ByteInput  // keeps the descriptor open for libpcap's stream
    private let feed: StreamFeed  // what libpcap's stream reads from
    private let handle: OpaquePointer
    private let stream: UnsafeMutablePointer<FILE>
    private let linkType: UInt16
    private var frameNumber = 0
    private var finished = false
    private var lastOffset: Int64

    /// Link types read as HCI.
    public static let hciLinkTypes: [UInt16: String] = [
        187: "link type 187 (HCI H4)",
        201: "link type 201 (HCI H4 with direction)",
        254: "link type 254 (Linux monitor)",
    ]
    /// Sniffer link types handed on as link-layer frames.
    public static let linkLayerLinkTypes: [UInt16: String] = [
        251: "link type 251 (LE link layer)",
        256: "link type 256 (LE link layer with RF header)",
        272: "link type 272 (Nordic BLE sniffer)",
        192: "link type 192 (PPI)",
        147: "link type 147 (user 0, Ubertooth)",
    ]

    /// Opens the pcap or pcapng capture whose first bytes are buffered in `input`.
    public init(input: ByteInput, container: CaptureFormat.Container) throws(CaptureError) {
        self.input = input
        let precision = try Self.nativePrecision(input: input, container: container)
        lastOffset = input.position
        let feed = StreamFeed(input: input)
        self.feed = feed
        guard
            let file = bleinspect_fopen_reader(
                Unmanaged.passUnretained(feed).toOpaque(),
                StreamFeed.read,
                input.position
            )
        else {
            throw CaptureError(.unreadable, "cannot open stream: \(String(cString: strerror(errno)))")
        }
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE) + 1)
        guard let p = pcap_fopen_offline_with_tstamp_precision(file, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errbuf)
        else {
            fclose(file)
            let message = String(decoding: errbuf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw CaptureError(.damaged, "libpcap: \(message)", offset: 0)
        }
        handle = p
        stream = file
        let dlt = pcap_datalink(p)
        guard dlt >= 0, dlt <= Int32(UInt16.max),
            let name = Self.hciLinkTypes[UInt16(dlt)] ?? Self.linkLayerLinkTypes[UInt16(dlt)]
        else {
            let dltName = pcap_datalink_val_to_name(dlt).map { String(cString: $0) } ?? "unknown"
            pcap_close(p)
            throw CaptureError(
                .unsupported,
                "link type \(dlt) (\(dltName)) is not a Bluetooth link type this program reads"
                    + " (187, 201, 254, 251, 256, 272, 192)",
                offset: 0
            )
        }
        linkType = UInt16(dlt)
        format = CaptureFormat(
            container: container,
            linkType: UInt32(dlt),
            linkTypeName: name,
            precision: precision
        )
    }

    deinit {
        pcap_close(handle)  // also closes the stream; `input` closes the descriptor
    }

    public var bytesRead: Int64 { lastOffset }
    public var totalBytes: Int64? { input.regularFileSize }

    public func next() throws(CaptureError) -> CapturedFrame? {
        guard !finished else { return nil }
        let offset = Int64(ftello(stream))
        if offset >= 0 { lastOffset = offset }
        var header: UnsafeMutablePointer<pcap_pkthdr>? = nil
        var data: UnsafePointer<u_char>? = nil
        let rc = pcap_next_ex(handle, &header, &data)
        let number = frameNumber + 1
        switch rc {
        case 1:
            guard let header, let data else {
                finished = true
                throw CaptureError(.damaged, "libpcap returned no packet", frame: number, offset: lastOffset)
            }
            frameNumber = number
            return makeFrame(number: number, header: header.pointee, data: data, offset: lastOffset)
        case -2:  // end of file
            finished = true
            if let error = feed.error { throw error }
            return nil
        default:
            finished = true
            if let error = feed.error { throw error }
            let message = String(cString: pcap_geterr(handle))
            let code: CaptureError.Code = message.contains("truncated") ? .truncated : .damaged
            throw CaptureError(code, "libpcap: \(message)", frame: number, offset: lastOffset)
        }
    }

    private func makeFrame(number: Int, header: pcap_pkthdr, data: UnsafePointer<u_char>, offset: Int64)
        -> CapturedFrame
    {
        let captured = Int(header.caplen)
        let original = max(Int(header.len), captured)
        let raw = UnsafeBufferPointer(start: data, count: captured)
        let timestamp = Timestamp(
            seconds: Int64(header.ts.tv_sec),
            nanoseconds: UInt32(clamping: header.ts.tv_usec % 1_000_000_000),
            precision: format.precision
        )
        var kind: FrameKind = .linkLayer(linkType: linkType)
        var direction = Direction.unknown
        var controller: UInt16? = nil
        // The HCI link types' header before the packet: a 4-byte direction and the H4 indicator
        // (201), the H4 indicator (187), the monitor header (254). A frame shorter is unknown.
        let header =
            switch linkType {
            case 201: 5
            case 187: 1
            case 254: 4
            default: 0
            }
        let skip = captured >= header ? header : 0
        switch linkType {
        case _ where captured < header:
            kind = .unknown(0)
        case 201:
            let dir = UInt32(raw[0]) << 24 | UInt32(raw[1]) << 16 | UInt32(raw[2]) << 8 | UInt32(raw[3])
            direction = dir != 0 ? .controllerToHost : .hostToController
            kind = FrameKind(h4Type: raw[4])
        case 187:
            kind = FrameKind(h4Type: raw[0])
        case 254:
            controller = MonitorRecord.controller(UInt16(raw[0]) << 8 | UInt16(raw[1]))
            (kind, direction) = MonitorRecord.classify(opcode: UInt16(raw[2]) << 8 | UInt16(raw[3]))
        default:
            break
        }
        return CapturedFrame(
            number: number,
            timestamp: timestamp,
            direction: direction,
            controllerIndex: controller,
            kind: kind,
            bytes: Array(raw[skip...]),
            originalLength: original - skip,
            sourceOffset: offset
        )
    }

    /// The timestamp precision the file itself records: from the pcap magic, or from the first
    /// pcapng interface's if_tsresol option (microseconds when absent).
    static func nativePrecision(input: ByteInput, container: CaptureFormat.Container) throws(CaptureError)
        -> Timestamp.Precision
    {
        guard try input.ensure(24) >= 12 else { return .microseconds }
        if container == .pcap {
            let magic = input.uint32BE(at: 0)
            return magic == 0xA1B2_3C4D || magic == 0x4D3C_B2A1 ? .nanoseconds : .microseconds
        }
        let little = input.uint32BE(at: 8) == 0x4D3C_2B1A
        func u32(_ i: Int) -> Int { Int(little ? input.uint32LE(at: i) : input.uint32BE(at: i)) }
        func u16(_ i: Int) -> Int {
            little
                ? Int(input.byte(at: i)) | Int(input.byte(at: i + 1)) << 8
                : Int(input.byte(at: i)) << 8 | Int(input.byte(at: i + 1))
        }
        let shbLength = u32(4)
        guard shbLength >= 28, shbLength < 1 << 16, try input.ensure(shbLength + 8) >= shbLength + 8 else {
            return .microseconds
        }
        guard u32(shbLength) == 1 else { return .microseconds }
        let idbLength = u32(shbLength + 4)
        guard idbLength >= 20, idbLength < 1 << 16, try input.ensure(shbLength + idbLength) >= shbLength + idbLength
        else { return .microseconds }
        var i = shbLength + 16
        let end = shbLength + idbLength - 4
        while i + 4 <= end {
            let code = u16(i)
            let length = u16(i + 2)
            if code == 0 { break }
            if code == 9, length >= 1, i + 4 < end {
                let resolution = input.byte(at: i + 4)
                return resolution & 0x80 == 0 && resolution > 6 ? .nanoseconds : .microseconds
            }
            i += 4 + ((length + 3) & ~3)
        }
        return .microseconds
    }
}

/// Feeds libpcap's stdio stream from a `ByteInput`, so that the bytes read for format detection
/// come first and a live input's waiting and stopping apply to libpcap's reads too.
final class StreamFeed {
    let input: ByteInput
    /// The input's error, which libpcap sees only as a failed read.
    var error: CaptureError?

    init(input: ByteInput) {
        self.input = input
    }

    static let read: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?, Int) -> Int = {
        context,
        buffer,
        size in
        guard let context, let buffer else { return -1 }
        let feed = Unmanaged<StreamFeed>.fromOpaque(context).takeUnretainedValue()
        do throws(CaptureError) {
            return try feed.input.readSome(into: UnsafeMutableRawPointer(buffer), count: size)
        } catch {
            feed.error = error
            errno = EIO
            return -1
        }
    }
}
