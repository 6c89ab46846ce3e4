#if canImport(Glibc)
    import Glibc
#endif

/// When to colour output.
public enum ColorMode: String, Sendable, CaseIterable {
    case auto, always, never

    /// Whether to colour output written to `fd`: `auto` colours a terminal unless NO_COLOR is
    /// set; FORCE_COLOR colours anyway.
    public func enabled(fd: Int32) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            if let v = getenv("NO_COLOR"), v.pointee != 0 { return false }
            if let v = getenv("FORCE_COLOR"), v.pointee != 0 { return true }
            return isatty(fd) == 1
        }
    }
}

/// ANSI colours, as a value: empty strings when colour is off.
public struct ANSIStyle: Sendable {
    public let enabled: Bool
    public init(enabled: Bool) { self.enabled = enabled }

    public var reset: String { enabled ? "\u{1B}[0m" : "" }
    public var bold: String { enabled ? "\u{1B}[1m" : "" }
    public var dim: String { enabled ? "\u{1B}[2m" : "" }
    public var red: String { enabled ? "\u{1B}[31m" : "" }
    public var green: String { enabled ? "\u{1B}[32m" : "" }
    public var yellow: String { enabled ? "\u{1B}[33m" : "" }
    public var blue: String { enabled ? "\u{1B}[34m" : "" }
    public var magenta: String { enabled ? "\u{1B}[35m" : "" }
    public var cyan: String { enabled ? "\u{1B}[36m" : "" }
}
