/// A 128-bit value of the security functions: a key (LTK, IRK, TK, STK, session key), a random
/// number, a confirm value. It holds the number, not bytes: the Core specification writes these
/// most significant octet first (and AES takes them in that order), while the air interface, HCI
/// and SMP carry them least significant octet first. Bytes go in and out only through
/// `init(msoFirst:)`/`msoFirst` and `init(lsoFirst:)`/`lsoFirst`, so the order is always said.
public struct Value128: Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    /// The most significant 64 bits.
    public var high: UInt64
    /// The least significant 64 bits.
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public static let zero = Value128(high: 0, low: 0)

    /// The value of a small number (a TK from a passkey, a 24-bit prand).
    public init(_ value: UInt64) { self.init(high: 0, low: value) }

    /// The value of 16 octets given most significant first, as the specification prints them.
    public init(msoFirst bytes: some Collection<UInt8>) throws(CryptoError) {
        guard bytes.count == 16 else { throw .wrongLength("a 128-bit value", need: 16, have: bytes.count) }
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (i, b) in bytes.enumerated() {
            if i < 8 { high = high << 8 | UInt64(b) } else { low = low << 8 | UInt64(b) }
        }
        self.init(high: high, low: low)
    }

    /// The value of 16 octets given least significant first, as SMP, HCI and the air carry them.
    public init(lsoFirst bytes: some Collection<UInt8>) throws(CryptoError) {
        try self.init(msoFirst: bytes.reversed())
    }

    /// The 16 octets, most significant first.
    public var msoFirst: [UInt8] {
        (0..<16).map { i in UInt8(truncatingIfNeeded: (i < 8 ? high : low) >> UInt64(56 - 8 * (i % 8))) }
    }

    /// The 16 octets, least significant first.
    public var lsoFirst: [UInt8] { msoFirst.reversed() }

    public static func ^ (a: Value128, b: Value128) -> Value128 {
        Value128(high: a.high ^ b.high, low: a.low ^ b.low)
    }

    /// Calls `body` with the 16 octets most significant first, without allocating.
    @inlinable
    public func withMSOFirstBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        var words = (high.bigEndian, low.bigEndian)
        return try withUnsafeBytes(of: &words) { (raw) throws(E) -> R in try body(raw) }
    }

    /// 32 hexadecimal digits, most significant first (the specification's notation).
    public var description: String { msoFirst.hexString }
}

/// A 256-bit value: a P-256 coordinate or a Diffie-Hellman key (f4, f5, g2). Bytes go in and out
/// in a stated order, as for `Value128`.
public struct Value256: Hashable, Sendable, CustomStringConvertible {
    /// The 32 octets, most significant first.
    public let msoFirst: [UInt8]

    public init(msoFirst bytes: some Collection<UInt8>) throws(CryptoError) {
        guard bytes.count == 32 else { throw .wrongLength("a 256-bit value", need: 32, have: bytes.count) }
        msoFirst = Array(bytes)
    }

    public init(lsoFirst bytes: some Collection<UInt8>) throws(CryptoError) {
        try self.init(msoFirst: bytes.reversed())
    }

    /// The 32 octets, least significant first.
    public var lsoFirst: [UInt8] { msoFirst.reversed() }

    public var description: String { msoFirst.hexString }
}

extension Collection<UInt8> {
    /// Lowercase hexadecimal digits, two an octet, in the collection's order.
    var hexString: String {
        let digits: [Character] = Array("0123456789abcdef")
        var s = ""
        s.reserveCapacity(count * 2)
        for b in self {
            s.append(digits[Int(b >> 4)])
            s.append(digits[Int(b & 0xF)])
        }
        return s
    }
}
