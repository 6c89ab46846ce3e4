import BLEInspectCore

/// One reason a plugin file was rejected, with a comparable code and the place in the file it
/// concerns.
public struct PluginDiagnostic: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        /// The file could not be found or read, or is not a plugin file.
        case unreadable
        /// The text is not YAML bleinspect reads (a syntax error, anchors, an empty file).
        case yaml
        /// A node of the wrong kind or an unknown key: a mapping expected, a number malformed.
        case schema
        /// A value the plugin format does not allow (a bad name, a missing key, a bad mask).
        case invalid
        /// A reference to an earlier field, or a type, that does not exist or does not fit.
        case reference
        /// A name, binding or UUID given twice in the file.
        case duplicate
        /// One of the limits in `PluginLimits` (size, nesting, fields).
        case limit
        /// A clash with a plugin loaded before this one.
        case conflict
    }

    public let code: Code
    public let file: String
    /// 1-based line and column (0 when the problem concerns the whole file).
    public let line: Int
    public let column: Int
    public let message: String

    public init(_ code: Code, file: String, line: Int, column: Int, message: String) {
        self.code = code
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: error: message`, the form compilers and editors understand.
    public var description: String {
        line > 0 ? "\(file):\(line):\(column): error: \(message)" : "\(file): error: \(message)"
    }

    /// `description` with control characters escaped: messages quote the file's text.
    public var safeDescription: String { TerminalSafeText.escape(description) }
}

/// A plugin file that was not loaded, and every reason why (it is never half-loaded).
public struct PluginRejection: Error, Sendable, CustomStringConvertible {
    public let file: String
    public let diagnostics: [PluginDiagnostic]

    public init(file: String, diagnostics: [PluginDiagnostic]) {
        self.file = file
        self.diagnostics = diagnostics
    }

    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// The limits every plugin is held to, so that no plugin and no capture makes bleinspect run
/// without end or allocate without bound. Documented in docs/PLUGINS.md.
public enum PluginLimits {
    /// The largest plugin file read.
    public static let maximumFileSize = 1 << 20
    /// The deepest nesting of structs, arrays and switches in a layout (checked on loading).
    public static let maximumNesting = 16
    /// The most fields one plugin registers (types used in many places multiply them).
    public static let maximumFields = 1024
    /// The most layout items compiled for one plugin, each use of a type counted again: the bound
    /// on loading work when fields are shared (the same names in every case of a switch).
    public static let maximumLayoutItems = 16 * maximumFields
    /// The most elements one array decodes; a larger declared count stops the layout there.
    public static let maximumArrayElements = 1024
    /// The most nodes one plugin adds to one PDU's tree.
    public static let maximumNodesPerPDU = 2048
    /// The default and the largest message a framing step buffers.
    public static let defaultMessageSize = 16 * 1024
    public static let maximumMessageSize = 1 << 20
    /// All framing buffers of one capture together.
    public static let maximumBufferedBytes = 8 << 20
    /// The most byte streams (connection, channel, direction) framed at once.
    public static let maximumStreams = 512
    /// The most sequence-counter streams followed at once.
    public static let maximumSequenceStreams = 4096
    /// The deepest JSON text parsed (deeper text is shown, not parsed).
    public static let maximumJSONDepth = 64
    /// The most bytes of JSON text parsed.
    public static let maximumJSONSize = 64 * 1024
}
