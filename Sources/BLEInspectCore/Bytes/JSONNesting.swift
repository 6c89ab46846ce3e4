/// How deep JSON text nests, checked before a parser sees text from a capture: a parser that
/// recurses would otherwise be given as deep a nesting as the bytes allow.
public enum JSONNesting {
    /// The deepest nesting of `[` and `{` outside strings.
    public static func depth(_ bytes: ArraySlice<UInt8>) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for b in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if b == 0x5C {
                    escaped = true
                } else if b == 0x22 {
                    inString = false
                }
                continue
            }
            switch b {
            case 0x22: inString = true
            case 0x5B, 0x7B:
                depth += 1
                deepest = max(deepest, depth)
            case 0x5D, 0x7D: depth = max(0, depth - 1)
            default: break
            }
        }
        return deepest
    }
}
