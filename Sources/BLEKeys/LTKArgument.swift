public import BLECrypto
import BLEInspectCore

extension LongTermKey {
    /// A `--ltk` value: `HEX` (a key for any connection) or `ADDR=HEX` (for the peer `ADDR`),
    /// HEX being 32 hexadecimal digits most significant first, as the specification and crackle
    /// write keys. Errors name the value and the byte offset in it.
    public static func argument(_ text: String, source: String = "--ltk") throws(KeyError) -> LongTermKey {
        let line = KeyLine(source: source, number: 0, text: Substring(text))
        var keyText = line.text
        var peer: BDAddr? = nil
        if let equals = line.text.firstIndex(of: "=") {
            peer = try KeyField.address(line.text[..<equals], in: line)
            keyText = line.text[line.text.index(after: equals)...]
        }
        let octets = try KeyField.octets(keyText, count: 16, in: line, what: "a long term key")
        return LongTermKey(peer: peer, key: Value128(octets: octets), source: KeySource(file: source, line: 0))
    }
}

extension Value128 {
    /// The value of 16 octets most significant first (their count checked by the caller).
    init(octets: some Collection<UInt8>) {
        let octets = Array(octets)
        self.init(high: octets.bigEndian(0, 8), low: octets.bigEndian(8, 16))
    }
}

extension [UInt8] {
    /// The octets from `start` up to `end` read most significant first.
    func bigEndian(_ start: Int, _ end: Int) -> UInt64 {
        self[start..<end].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The octets from `start` up to `end` read least significant first.
    func littleEndian(_ start: Int, _ end: Int) -> UInt64 {
        self[start..<end].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
