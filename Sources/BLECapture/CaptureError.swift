#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Why a capture could not be read or written.
///
/// `frame` and `offset` locate the damage: the number the damaged record would have had, and the
/// byte offset of that record (or of the header) in the file.
public struct CaptureError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// The file could not be opened or read: missing, a directory, no permission, I/O error.
        case unreadable
        /// The file holds no bytes at all.
        case empty
        /// The first bytes are not any capture format this program reads.
        case badMagic
        /// A known format with a version or link type this program does not read.
        case unsupported
        /// The last record stops before its stated length: the file was cut short.
        case truncated
        /// A record states a length that cannot be right (too small, or over the cap).
        case badLength
        /// Other damage reported while reading (for example by libpcap).
        case damaged
        /// Writing an output capture failed.
        case writeFailed
        /// Live capture: the kernel has no Bluetooth support (EAFNOSUPPORT).
        case noBluetooth
        /// Live capture: not allowed to open the HCI monitor channel (EPERM, EACCES).
        case permissionDenied
        /// Live capture: the controller asked for does not exist.
        case noSuchController
        /// Live capture: the controller being captured went away.
        case controllerGone
        /// A live source failed while being read (an I/O error on the socket or stream).
        case readFailed
    }

    public var code: Code
    public var message: String
    public var frame: Int?
    public var offset: Int64?

    public init(_ code: Code, _ message: String, frame: Int? = nil, offset: Int64? = nil) {
        self.code = code
        self.message = message
        self.frame = frame
        self.offset = offset
    }

    /// Writing to `name` failed with the system error `code` (an `errno` value).
    public static func writeFailed(_ name: String, errno code: Int32) -> CaptureError {
        CaptureError(.writeFailed, "writing \(name) failed: \(String(cString: strerror(code)))")
    }

    /// True when the input exists and was read, but its content is damaged or not a capture
    /// (exit status 65); false when it could not be read at all (exit status 66).
    public var isDamage: Bool {
        switch code {
        case .unreadable, .empty, .writeFailed, .noBluetooth, .permissionDenied, .noSuchController, .controllerGone,
            .readFailed:
            false
        case .badMagic, .unsupported, .truncated, .badLength, .damaged: true
        }
    }

    /// "frame 12 at byte offset 345: message", with the parts that are known.
    public var description: String {
        var location: [String] = []
        if let frame { location.append("frame \(frame)") }
        if let offset { location.append("at byte offset \(offset)") }
        return location.isEmpty ? message : location.joined(separator: " ") + ": " + message
    }
}
