public import BLECrypto
public import BLEInspectCore

/// A long term key (or any 128-bit key a connection is encrypted with), and what says which
/// connection it belongs to.
public struct LongTermKey: Hashable, Sendable {
    /// The peer whose connections it decrypts; nil for any connection.
    public var peer: BDAddr?
    public var key: Value128
    /// The EDIV and Rand that LL_ENC_REQ carries to select it (legacy pairing), when known.
    public var ediv: UInt16?
    public var rand: UInt64?
    public var source: KeySource

    public init(peer: BDAddr?, key: Value128, ediv: UInt16? = nil, rand: UInt64? = nil, source: KeySource) {
        self.peer = peer
        self.key = key
        self.ediv = ediv
        self.rand = rand
        self.source = source
    }
}

/// A peer's identity resolving key and identity address.
public struct IdentityKey: Hashable, Sendable {
    public var identity: BDAddr
    /// Whether the identity address is a static random one; nil when the source does not say.
    public var isRandom: Bool?
    public var irk: Value128
    public var source: KeySource

    public init(identity: BDAddr, isRandom: Bool?, irk: Value128, source: KeySource) {
        self.identity = identity
        self.isRandom = isRandom
        self.irk = irk
        self.source = source
    }
}

/// Every key learnt from the command line and key stores.
public struct KeySet: Hashable, Sendable {
    public var longTermKeys: [LongTermKey] = []
    public var identityKeys: [IdentityKey] = []

    public init(longTermKeys: [LongTermKey] = [], identityKeys: [IdentityKey] = []) {
        self.longTermKeys = longTermKeys
        self.identityKeys = identityKeys
    }

    /// How many keys of both kinds.
    public var count: Int { longTermKeys.count + identityKeys.count }

    public mutating func add(_ other: KeySet) {
        longTermKeys += other.longTermKeys
        identityKeys += other.identityKeys
    }
}
