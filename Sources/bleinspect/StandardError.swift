#if canImport(Glibc)
    import Glibc
#endif

/// Writes diagnostic lines to standard error, unbuffered.
enum StandardError {
    static func print(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { p in _ = write(2, p.baseAddress, p.count) }
    }
}
