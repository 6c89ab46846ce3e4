public import BLECrypto
import BLEInspectCore

/// bleinspect's key file (docs/DECRYPTION.md): one key a line, `#` starting a comment,
///
///     ltk <addr|*> <32 hex digits> [ediv=<n>] [rand=<n>]
///     irk <addr> <32 hex digits> [public|random]
///
/// keys most significant octet first, numbers decimal or `0x` hexadecimal.
public enum KeyFile {
    public static func load(_ path: String) throws(KeyError) -> KeySet {
        try parse(KeyLine.read(path), source: path)
    }

    public static func parse(_ text: String, source: String) throws(KeyError) -> KeySet {
        var keys = KeySet()
        for line in KeyLine.lines(of: text, source: source) {
            let content = line.text.prefix { $0 != "#" }
            let fields = content.split(whereSeparator: \.isWhitespace)
            guard let directive = fields.first else { continue }
            guard keys.count < KeyLimits.maximumKeys else {
                throw line.error(.syntax, at: directive.startIndex, "more than \(KeyLimits.maximumKeys) keys")
            }
            guard fields.count >= 3 else {
                throw line.error(.syntax, at: directive.startIndex, "'\(directive)' needs an address and a key")
            }
            let source = KeySource(file: source, line: line.number)
            switch directive {
            case "ltk":
                let key = try value(fields[2], in: line)
                let peer = fields[1] == "*" ? nil : try KeyField.address(fields[1], in: line)
                var ltk = LongTermKey(peer: peer, key: key, source: source)
                for option in fields.dropFirst(3) { try ltkOption(option, into: &ltk, in: line) }
                keys.longTermKeys.append(ltk)
            case "irk":
                let key = try value(fields[2], in: line)
                let identity = try KeyField.address(fields[1], in: line)
                var isRandom: Bool? = nil
                if fields.count > 4 {
                    throw line.error(.syntax, at: fields[4].startIndex, "an irk line ends after the address type")
                }
                if fields.count == 4 {
                    guard fields[3] == "public" || fields[3] == "random" else {
                        throw line.error(
                            .syntax,
                            at: fields[3].startIndex,
                            "the address type is 'public' or 'random', not '\(fields[3])'"
                        )
                    }
                    isRandom = fields[3] == "random"
                }
                keys.identityKeys.append(IdentityKey(identity: identity, isRandom: isRandom, irk: key, source: source))
            default:
                throw line.error(.syntax, at: directive.startIndex, "unknown directive '\(directive)' (ltk or irk)")
            }
        }
        return keys
    }

    static func value(_ field: Substring, in line: KeyLine) throws(KeyError) -> Value128 {
        Value128(octets: try KeyField.octets(field, count: 16, in: line, what: "a key"))
    }

    static func ltkOption(_ option: Substring, into ltk: inout LongTermKey, in line: KeyLine) throws(KeyError) {
        guard let equals = option.firstIndex(of: "=") else {
            throw line.error(.syntax, at: option.startIndex, "'\(option)' is not ediv=<n> or rand=<n>")
        }
        let value = option[option.index(after: equals)...]
        switch option[..<equals] {
        case "ediv":
            ltk.ediv = UInt16(truncatingIfNeeded: try KeyField.number(value, maximum: 0xFFFF, in: line, what: "ediv"))
        case "rand": ltk.rand = try KeyField.number(value, maximum: .max, in: line, what: "rand")
        default: throw line.error(.syntax, at: option.startIndex, "'\(option[..<equals])' is not ediv or rand")
        }
    }
}
