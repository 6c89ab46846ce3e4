public import BLEInspectCore

/// Reads btsnoop files: datalinks 1001 (H1), 1002 (H4/UART) and 2001 (Linux monitor).
public final class BTSnoopReader: FrameReader {
    public static let magic: [UInt8] = Array("btsnoop\0".utf8)
    /// Microseconds from 0000-01-01 to the Unix epoch, as btsnoop counts time.
    public static let epochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    public let format: CaptureFormat
    private let input: ByteInput
    private let datalink: UInt32
    private var frameNumber = 0
    /// Storage for frame bytes, reused from frame to frame while callers do not keep frames.
    private var frameBytes: [UInt8] = []
    private var finished = false

    /// Reads the 16-byte file header from `input`.
    public init(input: ByteInput) throws(CaptureError) {
        self.input = input
        let have = try input.ensure(16)
        guard have >= 16 else {
            throw CaptureError(.truncated, "btsnoop file header is \(have) bytes, needs 16", offset: 0)
        }
        for (i, b) in Self.magic.enumerated() where input.byte(at: i) != b {
            throw CaptureError(.badMagic, "not a btsnoop file", offset: 0)
        }
        let version = input.uint32BE(at: 8)
        guard version == 1 else {
            throw CaptureError(.unsupported, "btsnoop version \(version) is not supported (only version 1)", offset: 8)
        }
        datalink = input.uint32BE(at: 12)
        let name: String
        switch datalink {
        case 1001: name = "datalink 1001 (HCI H1)"
        case 1002: name = "datalink 1002 (HCI H4/UART)"
        case 2001: name = "datalink 2001 (Linux monitor)"
        default:
            throw CaptureError(
                .unsupported,
                "btsnoop datalink \(datalink) is not supported (1001, 1002, 2001 are)",
                offset: 12
            )
        }
        format = CaptureFormat(container: .btsnoop, linkType: datalink, linkTypeName: name, precision: .microseconds)
        input.consume(16)
    }

    public var bytesRead: Int64 { input.position }
    public var totalBytes: Int64? { input.regularFileSize }

    public func next() throws(CaptureError) -> CapturedFrame? {
        guard !finished else { return nil }
        do {
            return try readRecord()
        } catch {
            finished = true
            throw error
        }
    }

    private func readRecord() throws(CaptureError) -> CapturedFrame? {
        let number = frameNumber + 1
        let offset = input.position
        guard try input.ensureRecordHeader(24, "header", frame: number) else {
            finished = true
            return nil
        }
        let originalLength = Int(input.uint32BE(at: 0))
        let includedLength = Int(input.uint32BE(at: 4))
        let flags = input.uint32BE(at: 8)
        let rawTime = input.uint64BE(at: 16)
        guard includedLength <= maximumRecordLength else {
            throw CaptureError(
                .badLength,
                "record length \(includedLength) is over the limit of \(maximumRecordLength)",
                frame: number,
                offset: offset
            )
        }
        try input.ensureRecord(header: 24, length: includedLength, frame: number)
        let total = 24 + includedLength
        let (micros, overflow) = Int64(bitPattern: rawTime).subtractingReportingOverflow(Self.epochOffset)
        let timestamp = overflow ? Timestamp.zero : Timestamp(unixMicroseconds: micros)

        var kind: FrameKind
        var direction: Direction
        var controller: UInt16? = nil
        var payloadStart = 24
        var headerBytes = 0
        switch datalink {
        case 1001:
            let received = flags & 1 != 0
            let commandOrEvent = flags & 2 != 0
            direction = received ? .controllerToHost : .hostToController
            kind = commandOrEvent ? (received ? .hciEvent : .hciCommand) : .aclData
        case 1002:
            direction = flags & 1 != 0 ? .controllerToHost : .hostToController
            if includedLength > 0 {
                kind = FrameKind(h4Type: input.byte(at: 24))
                payloadStart = 25
                headerBytes = 1
            } else {
                kind = .unknown(0)
            }
        default:  // 2001
            (kind, direction) = MonitorRecord.classify(opcode: UInt16(truncatingIfNeeded: flags))
            controller = MonitorRecord.controller(UInt16(truncatingIfNeeded: flags >> 16))
        }
        input.takeRecord(from: payloadStart, total: total, into: &frameBytes)
        let bytes = frameBytes
        frameNumber = number
        return CapturedFrame(
            number: number,
            timestamp: timestamp,
            direction: direction,
            controllerIndex: controller,
            kind: kind,
            bytes: bytes,
            originalLength: max(originalLength - headerBytes, bytes.count),
            sourceOffset: offset
        )
    }
}
