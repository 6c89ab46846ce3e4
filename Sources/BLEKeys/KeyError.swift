public import BLEInspectCore

/// Why a key value or key file was refused: a comparable code, the source (a file's path, or
/// `--ltk` for a command-line value), the 1-based line (0 for a value or a whole file) and the
/// byte offset within that line or value.
public struct KeyError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// The file could not be read, or is larger than `KeyLimits.maximumFileSize`.
        case unreadable
        /// A line that is not what the format allows (no `=`, an unknown directive, an
        /// unclosed section).
        case syntax
        /// A character that is not a hexadecimal digit, or an odd number of digits.
        case hex
        /// A key or blob of the wrong length (a key that is not 16 octets).
        case length
        /// A device address that is not six colon-separated octets.
        case address
        /// A number that does not parse or is out of range (EDiv, Rand, EncSize).
        case number
        /// A key section without its key.
        case missing
    }

    public let code: Code
    public let source: String
    public let line: Int
    /// Bytes from the start of the line (or value) to the problem.
    public let offset: Int
    public let message: String

    public init(_ code: Code, source: String, line: Int, offset: Int, _ message: String) {
        self.code = code
        self.source = source
        self.line = line
        self.offset = offset
        self.message = message
    }

    /// `source:line:column: error: message`, column being offset + 1, the form editors read; a
    /// command-line value says its byte offset.
    public var description: String {
        line > 0
            ? "\(source):\(line):\(offset + 1): error: \(message)"
            : "\(source): error at byte \(offset): \(message)"
    }

    /// `description` with control characters escaped: messages quote the input.
    public var safeDescription: String { TerminalSafeText.escape(description) }
}

/// Bounds on what is read.
public enum KeyLimits {
    /// The largest key file read.
    public static let maximumFileSize = 4 << 20
    /// The most keys one file gives.
    public static let maximumKeys = 65_536
}

/// Where a key came from, for messages about it.
public struct KeySource: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public var description: String { line > 0 ? "\(file):\(line)" : file }
}
