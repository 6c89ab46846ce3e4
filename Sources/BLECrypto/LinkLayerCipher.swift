import CCrypto

/// Which way an encrypted data physical channel PDU travelled: the nonce's directionBit.
public enum LinkLayerDirection: Sendable, Hashable {
    /// directionBit 1.
    case centralToPeripheral
    /// directionBit 0.
    case peripheralToCentral
}

/// What decrypting a PDU gave: its plaintext, or a MIC that did not verify (and no plaintext).
public enum LinkLayerDecryption: Sendable, Hashable {
    case plaintext([UInt8])
    case micFailure
}

/// AES-CCM of one encrypted LE connection (Vol 6 Part E): the session key and the IV, from the
/// LTK and the diversifiers and IVs of LL_ENC_REQ and LL_ENC_RSP. It keeps one libcrypto context
/// to decrypt with its key (`CCMContext`), shared by its copies; two ciphers are equal when their
/// session keys and IVs are.
public struct LinkLayerCipher: Sendable, Hashable {
    /// The largest payload an encrypted PDU carries (its length octet counts the 4-octet MIC too).
    public static let maximumPayload = 251
    /// The packet counter is 39 bits.
    public static let maximumCounter: UInt64 = 1 << 39 - 1

    public let sessionKey: Value128
    /// IV = IV_P || IV_C, so that its octets least significant first are IV_C then IV_P as the
    /// air carries them.
    public let iv: UInt64
    private let context: CCMContext

    /// `ivCentral` and `ivPeripheral` are the values of LL_ENC_REQ's IV_C and LL_ENC_RSP's IV_P
    /// fields (their octets read least significant first).
    public init(sessionKey: Value128, ivCentral: UInt32, ivPeripheral: UInt32) {
        self.sessionKey = sessionKey
        iv = UInt64(ivPeripheral) << 32 | UInt64(ivCentral)
        context = CCMContext(key: sessionKey)
    }

    public static func == (a: Self, b: Self) -> Bool { a.sessionKey == b.sessionKey && a.iv == b.iv }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sessionKey)
        hasher.combine(iv)
    }

    /// SK = e(LTK, SKD), SKD = SKD_P || SKD_C (Vol 6 Part E 1). The diversifiers are the values of
    /// LL_ENC_REQ's SKD_C and LL_ENC_RSP's SKD_P fields (their octets read least significant first).
    public init(
        ltk: Value128,
        skdCentral: UInt64,
        ivCentral: UInt32,
        skdPeripheral: UInt64,
        ivPeripheral: UInt32,
        using aes: AES128
    ) throws(CryptoError) {
        let sk = try aes.e(ltk, Value128(high: skdPeripheral, low: skdCentral))
        self.init(sessionKey: sk, ivCentral: ivCentral, ivPeripheral: ivPeripheral)
    }

    /// Encrypts `payload` (1 to 251 octets) of the PDU whose header's first octet is
    /// `headerFirstOctet`, sent with packet counter `counter` in `direction`: the encrypted
    /// payload followed by its 4-octet MIC.
    public func encrypt(headerFirstOctet: UInt8, payload: [UInt8], counter: UInt64, direction: LinkLayerDirection)
        throws(CryptoError) -> [UInt8]
    {
        guard (1...Self.maximumPayload).contains(payload.count) else {
            throw CryptoError(
                .outOfRange,
                offset: 0,
                "an encrypted payload holds 1 to 251 octets, not \(payload.count)"
            )
        }
        var out = [UInt8](repeating: 0, count: payload.count + 4)
        let ok = try withNonce(counter: counter, direction: direction) { nonce in
            CCMContext.once(key: sessionKey, encrypt: true) { ctx in
                out.withUnsafeMutableBufferPointer { o in
                    let (text, tag) = (o.baseAddress, o.baseAddress.map { $0 + payload.count })
                    return bleinspect_ccm_encrypt(
                        ctx,
                        nonce,
                        Self.aad(headerFirstOctet),
                        payload,
                        payload.count,
                        text,
                        tag
                    ) == 1
                }
            }
        }
        guard ok else { throw .library("AES-CCM encryption") }
        return out
    }

    /// Decrypts an encrypted payload with its MIC (`payloadAndMIC`, 5 to 255 octets, as the PDU's
    /// length octet counts them). The plaintext is returned only when the MIC verifies.
    public func decrypt(
        headerFirstOctet: UInt8,
        payloadAndMIC: [UInt8],
        counter: UInt64,
        direction: LinkLayerDirection
    ) throws(CryptoError) -> LinkLayerDecryption {
        try payloadAndMIC.withUnsafeBufferPointer { (bytes) throws(CryptoError) in
            try decrypt(
                headerFirstOctet: headerFirstOctet,
                payloadAndMIC: bytes,
                counter: counter,
                direction: direction
            )
        }
    }

    /// `decrypt(headerFirstOctet:payloadAndMIC:counter:direction:)` on octets in place (a
    /// packet's, lent by its reader): nothing is copied but the plaintext.
    public func decrypt(
        headerFirstOctet: UInt8,
        payloadAndMIC: UnsafeBufferPointer<UInt8>,
        counter: UInt64,
        direction: LinkLayerDirection
    ) throws(CryptoError) -> LinkLayerDecryption {
        let length = payloadAndMIC.count - 4
        guard length >= 1, let input = payloadAndMIC.baseAddress else {
            throw CryptoError(
                .truncated,
                offset: payloadAndMIC.count,
                "an encrypted payload needs 1 octet and a 4-octet MIC, got \(payloadAndMIC.count) octets"
            )
        }
        guard length <= Self.maximumPayload else {
            throw CryptoError(
                .outOfRange,
                offset: 0,
                "an encrypted payload holds at most 255 octets with its MIC, not \(payloadAndMIC.count)"
            )
        }
        // The plaintext goes to a temporary buffer (on the stack), and into an array only when
        // the MIC verifies.
        let decryption: LinkLayerDecryption? = try withNonce(counter: counter, direction: direction) { nonce in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { out in
                let result = context.run { ctx in
                    bleinspect_ccm_decrypt(
                        ctx,
                        nonce,
                        Self.aad(headerFirstOctet),
                        input,
                        length,
                        input + length,
                        out.baseAddress
                    )
                }
                switch result {
                case 1: return .plaintext(Array(out))
                case 0: return .micFailure
                default: return nil
                }
            }
        }
        guard let decryption else { throw .library("AES-CCM decryption") }
        return decryption
    }

    /// The additional authenticated data: the header's first octet with NESN, SN and MD cleared
    /// (mask 0xE3); LLID, CP and the RFU bits stay (Vol 6 Part E 2.2).
    static func aad(_ headerFirstOctet: UInt8) -> UInt8 { headerFirstOctet & 0xE3 }

    /// `body` with the 13-octet nonce: the 39-bit counter and the directionBit in 5 octets, least
    /// significant first, then the IV least significant first (Vol 6 Part E 2.1). The octets are
    /// the first 13 of two 64-bit words stored least significant octet first; nothing is allocated.
    func withNonce<R>(
        counter: UInt64,
        direction: LinkLayerDirection,
        _ body: (UnsafePointer<UInt8>?) -> R
    ) throws(CryptoError) -> R {
        guard counter <= Self.maximumCounter else {
            throw CryptoError(.outOfRange, offset: 0, "packet counter \(counter) exceeds 39 bits")
        }
        let first = counter | (direction == .centralToPeripheral ? 1 << 39 : 0)
        var words = ((first | iv << 40).littleEndian, (iv >> 24).littleEndian)
        return withUnsafeBytes(of: &words) { body($0.octets) }
    }
}
