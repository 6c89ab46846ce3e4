public import BLEInspectCore

/// Reads btsnoop files: datalinks 1001 (H1), 1002 (H4/UART) and 2001 (Linux monitor).
public final class BTSnoopReader: FrameReader {
    public static let magic: [UInt8] = Array("btsnoop\0".utf8)
    /// Microseconds from 0000-01-01 to the Unix epoch, as btsnoop counts time.
    public static let epochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    public let format: CaptureFormat
    private let input: ByteInput
    private let datalink: UInt32
    private var records = RecordStream()

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
        try records.next(input, header: 24, "header", read: record)
    }

    public func next(into frame: inout CapturedFrame) throws(CaptureError) -> Bool {
        try records.next(input, header: 24, "header", into: &frame, read: record)
    }

    @inline(__always)
    private func record(number: Int) throws(CaptureError) -> RecordStream.Record {
        // The 24-byte header is buffered (`RecordStream.next` made it available): one check.
        let (originalLength, includedLength, flags, rawTime) = input.withBuffered(24) { h in
            (
                Int(UInt32(bigEndian: h.loadUnaligned(fromByteOffset: 0, as: UInt32.self))),
                Int(UInt32(bigEndian: h.loadUnaligned(fromByteOffset: 4, as: UInt32.self))),
                UInt32(bigEndian: h.loadUnaligned(fromByteOffset: 8, as: UInt32.self)),
                UInt64(bigEndian: h.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
            )
        }
        try input.ensureRecord(header: 24, length: includedLength, allowed: 0...maximumRecordLength, frame: number)
        let (micros, overflow) = Int64(bitPattern: rawTime).subtractingReportingOverflow(Self.epochOffset)
        var record = RecordStream.Record(
            total: 24 + includedLength,
            payloadStart: 24,
            timestamp: overflow ? Timestamp.zero : Timestamp(unixMicroseconds: micros),
            direction: .unknown,
            kind: .unknown(0),
            originalLength: originalLength
        )
        switch datalink {
        case 1001:
            let received = flags & 1 != 0
            let commandOrEvent = flags & 2 != 0
            record.direction = received ? .controllerToHost : .hostToController
            record.kind = commandOrEvent ? (received ? .hciEvent : .hciCommand) : .aclData
        case 1002:
            record.direction = flags & 1 != 0 ? .controllerToHost : .hostToController
            if includedLength > 0 {
                record.kind = FrameKind(h4Type: input.byte(at: 24))
                record.payloadStart = 25
                record.originalLength -= 1
            }
        default:  // 2001
            (record.kind, record.direction) = MonitorRecord.classify(opcode: UInt16(truncatingIfNeeded: flags))
            record.controllerIndex = MonitorRecord.controller(UInt16(truncatingIfNeeded: flags >> 16))
        }
        return record
    }
}
