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

extension ANSIStyle {
    /// SGR codes, for writing a style's escape sequences as bytes.
    enum Code: UInt8 {
        case reset = 0
        case bold = 1
        case dim = 2
        case red = 31
        case green = 32
        case yellow = 33
        case blue = 34
        case magenta = 35
        case cyan = 36
    }

    /// Appends `ESC [ code m` when colour is on (the bytes of the matching String property).
    @inline(__always)
    func append(_ code: Code, to out: inout TextBuffer) {
        guard enabled else { return }
        out.append(0x1B)
        out.append(0x5B)
        out.appendDecimal(UInt64(code.rawValue))
        out.append(0x6D)
    }
}
