public import BLEInspectCore

/// A source of frames, read one at a time so memory does not grow with the capture.
///
/// After `next()` throws once, the reader is finished and returns nil from then on.
public protocol FrameReader: AnyObject {
    /// What the source is, for messages: format, link type, timestamp precision.
    var format: CaptureFormat { get }
    /// Bytes of the source read so far, for progress reports.
    var bytesRead: Int64 { get }
    /// The source's size when known (a regular file).
    var totalBytes: Int64? { get }
    /// The next frame, nil at the end.
    func next() throws(CaptureError) -> CapturedFrame?
    /// Reads the next frame into `frame`, reusing its storage (the buffer of its bytes, when
    /// nothing else holds it): for a caller that handles one frame after another. False at the
    /// end, leaving `frame` as it was.
    func next(into frame: inout CapturedFrame) throws(CaptureError) -> Bool
}

extension FrameReader {
    /// Through `next()`, for readers that keep no storage of their own to reuse.
    public func next(into frame: inout CapturedFrame) throws(CaptureError) -> Bool {
        guard let next = try next() else { return false }
        frame = next
        return true
    }
}

/// A description of a capture source.
public struct CaptureFormat: Sendable, Hashable, CustomStringConvertible {
    public enum Container: String, Sendable, Hashable {
        case btsnoop, pcap, pcapng, packetLogger = "pklg"
    }

    public var container: Container
    /// The link type or datalink number (btsnoop 1001/1002/2001, pcap DLT, 0 for PacketLogger).
    public var linkType: UInt32
    /// A human name for the link type.
    public var linkTypeName: String
    public var precision: Timestamp.Precision

    public init(container: Container, linkType: UInt32, linkTypeName: String, precision: Timestamp.Precision) {
        self.container = container
        self.linkType = linkType
        self.linkTypeName = linkTypeName
        self.precision = precision
    }

    public var description: String { "\(container.rawValue), \(linkTypeName)" }
}

/// The largest HCI record accepted from a capture file, in bytes of record payload.
///
/// An ACL packet is at most 4 + 65,535 bytes, an event 2 + 255, an ISO packet 4 + 16,383; the H4
/// indicator, a pseudo-header and a monitor header add a few more. Anything longer is damage.
public let maximumRecordLength = 65_535 + 64
