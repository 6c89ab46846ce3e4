public import BLEInspectCore

/// Reads Apple PacketLogger (`.pklg`) files.
///
/// A file is a run of records: a 4-byte length (of what follows it), 4-byte seconds, 4-byte
/// microseconds, a type byte and the payload. Files from 2010-era tools store the three integers
/// big-endian; current iOS writes them little-endian. There is no magic number, so the byte order
/// is chosen from the first record: the one that gives a plausible length, type and microsecond
/// count.
public final class PacketLoggerReader: FrameReader {
    public enum ByteOrder: Sendable { case big, little }

    public let format: CaptureFormat
    public let byteOrder: ByteOrder
    private let input: ByteInput
    private var records = RecordStream()

    /// Smallest record length: the timestamp and the type byte.
    static let minimumLength = 9

    /// The byte order the first record is plausible in, or nil if it is not a PacketLogger record.
    /// `header` must hold at least the first 13 bytes of the file.
    public static func detectByteOrder(_ header: [UInt8]) -> ByteOrder? {
        guard header.count >= 13 else { return nil }
        func plausible(_ order: ByteOrder) -> Bool {
            let length = readUInt32(header, 0, order)
            let micros = readUInt32(header, 8, order)
            return length >= UInt32(minimumLength) && length <= UInt32(maximumRecordLength) && micros < 1_000_000
                && isKnownType(header[12])
        }
        if plausible(.big) { return .big }
        if plausible(.little) { return .little }
        return nil
    }

    static func isKnownType(_ type: UInt8) -> Bool {
        switch type {
        case 0x00...0x03, 0x08...0x0B, 0xF7...0xFE: true
        default: false
        }
    }

    private static func readUInt32(_ b: [UInt8], _ i: Int, _ order: ByteOrder) -> UInt32 {
        let be = UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
        return order == .big ? be : be.byteSwapped
    }

    /// The frame kind and direction of a PacketLogger record type.
    public static func classify(type: UInt8) -> (FrameKind, Direction) {
        switch type {
        case 0x00: (.hciCommand, .hostToController)
        case 0x01: (.hciEvent, .controllerToHost)
        case 0x02: (.aclData, .hostToController)
        case 0x03: (.aclData, .controllerToHost)
        case 0x08: (.scoData, .hostToController)
        case 0x09: (.scoData, .controllerToHost)
        case 0x0A: (.lmp, .hostToController)
        case 0x0B: (.lmp, .controllerToHost)
        case 0xFC: (.note, .unknown)
        case 0xF7, 0xF8, 0xF9, 0xFA, 0xFB, 0xFD: (.log, .unknown)
        case 0xFE: (.newController, .unknown)
        default: (.unknown(UInt16(type)), .unknown)
        }
    }

    /// Reads from `input`, whose first record decides the byte order.
    public init(input: ByteInput) throws(CaptureError) {
        self.input = input
        let have = try input.ensure(13)
        guard let order = Self.detectByteOrder(have >= 13 ? input.copy(from: 0, count: 13) : []) else {
            throw CaptureError(.badMagic, "not a PacketLogger file", offset: 0)
        }
        byteOrder = order
        format = CaptureFormat(
            container: .packetLogger,
            linkType: 0,
            linkTypeName: order == .big ? "big-endian records" : "little-endian records",
            precision: .microseconds
        )
    }

    public var bytesRead: Int64 { input.position }
    public var totalBytes: Int64? { input.regularFileSize }

    public func next() throws(CaptureError) -> CapturedFrame? {
        try records.next(input, header: 4, "length", read: record)
    }

    public func next(into frame: inout CapturedFrame) throws(CaptureError) -> Bool {
        try records.next(input, header: 4, "length", into: &frame, read: record)
    }

    private func uint32(at i: Int) -> UInt32 {
        byteOrder == .big ? input.uint32BE(at: i) : input.uint32LE(at: i)
    }

    @inline(__always)
    private func record(number: Int) throws(CaptureError) -> RecordStream.Record {
        let length = Int(uint32(at: 0))
        try input.ensureRecord(
            header: 4,
            length: length,
            allowed: Self.minimumLength...maximumRecordLength,
            frame: number
        )
        let seconds = Int64(uint32(at: 4))
        let micros = uint32(at: 8)
        let (kind, direction) = Self.classify(type: input.byte(at: 12))
        return RecordStream.Record(
            total: 4 + length,
            payloadStart: 13,
            timestamp: Timestamp(
                seconds: seconds + Int64(micros / 1_000_000),
                nanoseconds: (micros % 1_000_000) * 1000,
                precision: .microseconds
            ),
            direction: direction,
            kind: kind
        )
    }
}
