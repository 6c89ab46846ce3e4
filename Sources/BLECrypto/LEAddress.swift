public import BLEInspectCore

/// An LE device address with its type, as c1, f5 and f6 take it.
public struct LEAddress: Hashable, Sendable, CustomStringConvertible {
    public var address: BDAddr
    /// A random (static, resolvable or non-resolvable private) address, not a public one.
    public var isRandom: Bool

    public init(_ address: BDAddr, isRandom: Bool) {
        self.address = address
        self.isRandom = isRandom
    }

    /// The address's type octet in c1 (iat', rat') and in f5's and f6's A1 and A2: 0 public, 1 random.
    var typeOctet: UInt8 { isRandom ? 1 : 0 }

    /// The 6 address octets, most significant first.
    var msoFirst: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: address.rawValue >> UInt64(40 - 8 * $0)) } }

    /// f5's and f6's 56-bit A1 or A2: the type octet, then the address, most significant first.
    var typeAndAddress: [UInt8] { [typeOctet] + msoFirst }

    /// Whether the address is a resolvable private address: random, and its two most significant
    /// bits 0b01 (Vol 6 Part B 1.3.2.2).
    public var isResolvablePrivate: Bool { isRandom && address.rawValue >> 46 == 0b01 }

    public var description: String { "\(address) (\(isRandom ? "random" : "public"))" }
}
