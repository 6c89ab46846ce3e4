import BLECrypto
public import BLEInspectCore
public import BLEKeys

extension LinkLayerModule {
    /// Long term keys to decrypt sniffed connections with: registry configuration, set by `--ltk`.
    /// A key with a peer address is tried on the connections of that device (as central or
    /// peripheral); one with EDIV and Rand only when LL_ENC_REQ carries them.
    public static let longTermKeys = RegistryConfiguration.Key<[LongTermKey]>("btle.long_term_keys", default: [])
}

/// The diversifiers and IVs of both sides, which with a key make a session's cipher.
struct SessionKeys: Sendable {
    var skdCentral: UInt64
    var ivCentral: UInt32
    var skdPeripheral: UInt64
    var ivPeripheral: UInt32

    /// The cipher of the session encrypted with `ltk` (an LTK or an STK).
    func cipher(_ ltk: Value128, using aes: AES128) throws(CryptoError) -> LinkLayerCipher {
        try LinkLayerCipher(
            ltk: ltk,
            skdCentral: skdCentral,
            ivCentral: ivCentral,
            skdPeripheral: skdPeripheral,
            ivPeripheral: ivPeripheral,
            using: aes
        )
    }
}

/// One encryption session of a connection (Vol 6 Part B 5.1.3, Part E): the diversifiers and
/// IVs of LL_ENC_REQ and LL_ENC_RSP, the ciphers of the keys that may fit until one verifies a
/// MIC, and the packet counter of each direction.
struct LLEncryption {
    /// A cipher and the key it was made from.
    struct Candidate {
        var cipher: LinkLayerCipher
        var key: LongTermKey
    }

    /// The most counters tried past the expected one when a MIC does not verify (packets the
    /// sniffer missed), besides the one before it (a retransmission not recognised as one).
    static let counterWindow: UInt64 = 8

    var rand: UInt64
    var ediv: UInt16
    var skdCentral: UInt64
    var ivCentral: UInt32
    /// Both sides' diversifiers and IVs, once LL_ENC_RSP is seen.
    var keys: SessionKeys?
    /// The keys' ciphers once LL_ENC_RSP is seen; the one that verified first, first.
    var candidates: [Candidate] = []
    var verified = false
    /// The next packet counter of each direction (0 central to peripheral, 1 the other way).
    var counters = Counters()
    /// The connection's MIC failure has been noted.
    var failureNoted = false

    /// A decrypted PDU carries the edits that write its packet decrypted
    /// (`LinkLayerModule.decryptedEdits`).
    let edits: Bool

    /// The session LL_ENC_REQ's payload (from its opcode) starts, nil when it is short.
    init?(request p: ByteReader, edits: Bool) {
        guard p.remaining >= 23 else { return nil }
        self.edits = edits
        rand = Self.littleEndian(p, 1, 8)
        ediv = UInt16(Self.littleEndian(p, 9, 2))
        skdCentral = Self.littleEndian(p, 11, 8)
        ivCentral = UInt32(Self.littleEndian(p, 19, 4))
    }

    /// Makes the ciphers of the keys that may fit, from LL_ENC_RSP's payload (from its opcode).
    mutating func respond(_ p: ByteReader, keys given: [LongTermKey], central: BDAddr?, peripheral: BDAddr?) {
        guard p.remaining >= 13 else { return }
        let session = SessionKeys(
            skdCentral: skdCentral,
            ivCentral: ivCentral,
            skdPeripheral: Self.littleEndian(p, 1, 8),
            ivPeripheral: UInt32(Self.littleEndian(p, 9, 4))
        )
        keys = session
        guard !given.isEmpty, let aes = try? AES128() else { return }
        candidates = []
        for key in given {
            if let peer = key.peer, peer != central, peer != peripheral { continue }
            if let e = key.ediv, e != ediv { continue }
            if let r = key.rand, r != rand { continue }
            guard let cipher = try? session.cipher(key.key, using: aes) else { continue }
            candidates.append(Candidate(cipher: cipher, key: key))
        }
        verified = false
        counters = Counters()
    }

    /// A packet counter for each direction, by index (0 central to peripheral, 1 the other way),
    /// held in place: no array to copy when the session is updated a packet.
    struct Counters {
        var central: UInt64 = 0
        var peripheral: UInt64 = 0

        subscript(index: Int) -> UInt64 {
            get { index == 0 ? central : peripheral }
            set { if index == 0 { central = newValue } else { peripheral = newValue } }
        }
    }

    /// What decrypting one PDU gave.
    enum Outcome {
        /// `index` is the direction whose counter verified: the sender's, or the other one when
        /// the sniffer had the sender wrong. The key is the first candidate's (`key`).
        case plaintext([UInt8], counter: UInt64, index: Int)
        /// No key and counter near the expected one verifies the MIC.
        case micFailure(expected: UInt64)
    }

    /// The key of the session, once one has verified a MIC.
    var key: LongTermKey? { verified ? candidates.first?.key : nil }

    /// Decrypts the payload and MIC of a PDU sent by `index` (0 central), trying the expected
    /// counter, then those the sniffer may have missed, then the one before (a retransmission);
    /// `repeated` (same sequence number as the sender's last, unacknowledged) tries the one before
    /// first. Then the same in the other direction: a sniffer that misses a packet can take one
    /// side's packet for the other's. The counter moves past the one that verifies; after a
    /// failure, the sender's by one.
    mutating func decrypt(header: UInt8, _ payloadAndMIC: UnsafeBufferPointer<UInt8>, index: Int, repeated: Bool)
        -> Outcome
    {
        let expected = counters[index]
        for flip in 0..<2 {
            let i = index ^ flip  // the sender's direction, then the other
            if let (text, counter) = attempt(header, payloadAndMIC, index: i, repeated: repeated) {
                return .plaintext(text, counter: counter, index: i)
            }
        }
        if !repeated { counters[index] = expected &+ 1 }
        return .micFailure(expected: expected)
    }

    /// The plaintext and counter of the first key and counter that verify the MIC; the key that
    /// fits is then the session's, and the only candidate left.
    private mutating func attempt(
        _ header: UInt8,
        _ payloadAndMIC: UnsafeBufferPointer<UInt8>,
        index: Int,
        repeated: Bool
    ) -> ([UInt8], UInt64)? {
        let expected = counters[index]
        let direction: LinkLayerDirection = index == 0 ? .centralToPeripheral : .peripheralToCentral
        for step in 0...(Self.counterWindow + 1) {
            guard let counter = Self.counter(step, expected: expected, repeated: repeated),
                counter <= LinkLayerCipher.maximumCounter
            else { continue }
            for i in candidates.indices {
                guard
                    case .plaintext(let text)? = try? candidates[i].cipher.decrypt(
                        headerFirstOctet: header,
                        payloadAndMIC: payloadAndMIC,
                        counter: counter,
                        direction: direction
                    )
                else { continue }
                if !verified {
                    verified = true
                    if candidates.count > 1 { candidates = [candidates[i]] }
                }
                counters[index] = max(expected, counter &+ 1)
                return (text, counter)
            }
        }
        return nil
    }

    /// The counter to try at `step` (from 0) for a PDU whose sender expects `expected`: `expected` and
    /// the `counterWindow` after it, and the one before it first (`repeated`) or last; nil for
    /// the one before counter 0.
    static func counter(_ step: UInt64, expected: UInt64, repeated: Bool) -> UInt64? {
        if step == (repeated ? 0 : counterWindow + 1) { return expected > 0 ? expected - 1 : nil }
        return expected &+ (repeated ? step - 1 : step)
    }

    /// `count` octets from `offset` read least significant first (the caller checked they exist).
    private static func littleEndian(_ p: ByteReader, _ offset: Int, _ count: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in (0..<count).reversed() { value = value << 8 | UInt64(p.peekUInt8(at: offset + i) ?? 0) }
        return value
    }
}

extension LongTermKey {
    /// How the tree names the key: its hex digits, its source, and the peer it is for.
    var label: String {
        key.hex + " (" + source.description + (peer.map { ", for \($0)" } ?? "") + ")"
    }
}

extension Value128 {
    /// 32 lower-case hex digits, most significant first.
    var hex: String {
        msoFirst.map { byte in byte < 16 ? "0" + String(byte, radix: 16) : String(byte, radix: 16) }.joined()
    }
}
