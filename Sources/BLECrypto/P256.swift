import CCrypto

/// A P-256 public key as SMP's Pairing Public Key carries it (Vol 3 Part H 3.5.6): X and Y.
public struct P256PublicKey: Hashable, Sendable {
    public var x: Value256
    public var y: Value256

    public init(x: Value256, y: Value256) {
        self.x = x
        self.y = y
    }

    /// From the 64 octets of a Pairing Public Key PDU's parameters: X then Y, each least
    /// significant octet first.
    public init(smpParameters bytes: some Collection<UInt8>) throws(CryptoError) {
        let octets = Array(bytes)
        guard octets.count == 64 else { throw .wrongLength("a Pairing Public Key", need: 64, have: octets.count) }
        self.init(x: try Value256(lsoFirst: octets[0..<32]), y: try Value256(lsoFirst: octets[32..<64]))
    }
}

extension SecureConnections {
    /// The debug private key of LE Secure Connections (Vol 3 Part H 2.3.5.6.1), published so that
    /// a sniffer can follow a pairing that uses it: whoever sees a side send its public key can
    /// compute the DHKey, hence the LTK.
    public static let debugPrivateKey = try? Value256(
        msoFirst: [
            0x3F, 0x49, 0xF6, 0xD4, 0xA3, 0xC5, 0x5F, 0x38, 0x74, 0xC9, 0xB3, 0xE3, 0xD2, 0x10, 0x3F, 0x50,
            0x4A, 0xFF, 0x60, 0x7B, 0xEB, 0x40, 0xB7, 0x99, 0x58, 0x99, 0xB8, 0xA6, 0xCD, 0x3C, 0x1A, 0xBD,
        ]
    )

    /// The debug public key, the one a side sends when it uses the debug private key.
    public static let debugPublicKey: P256PublicKey? = {
        guard
            let x = try? Value256(
                msoFirst: [
                    0x20, 0xB0, 0x03, 0xD2, 0xF2, 0x97, 0xBE, 0x2C, 0x5E, 0x2C, 0x83, 0xA7, 0xE9, 0xF9, 0xA5, 0xB9,
                    0xEF, 0xF4, 0x91, 0x11, 0xAC, 0xF4, 0xFD, 0xDB, 0xCC, 0x03, 0x01, 0x48, 0x0E, 0x35, 0x9D, 0xE6,
                ]
            ),
            let y = try? Value256(
                msoFirst: [
                    0xDC, 0x80, 0x9C, 0x49, 0x65, 0x2A, 0xEB, 0x6D, 0x63, 0x32, 0x9A, 0xBF, 0x5A, 0x52, 0x15, 0x5C,
                    0x76, 0x63, 0x45, 0xC2, 0x8F, 0xED, 0x30, 0x24, 0x74, 0x1C, 0x8E, 0xD0, 0x15, 0x89, 0xD2, 0x8B,
                ]
            )
        else { return nil }
        return P256PublicKey(x: x, y: y)
    }()

    /// DHKey = the X coordinate of `privateKey` times `peer` (Vol 3 Part H 2.3.5.6.1): the
    /// P-256 Diffie-Hellman of libcrypto. Throws when the peer's key is not a point of the curve.
    public static func dhKey(privateKey: Value256, peer: P256PublicKey) throws(CryptoError) -> Value256 {
        var out = [UInt8](repeating: 0, count: 32)
        let ok = privateKey.msoFirst.withUnsafeBufferPointer { d in
            peer.x.msoFirst.withUnsafeBufferPointer { x in
                peer.y.msoFirst.withUnsafeBufferPointer { y in
                    out.withUnsafeMutableBufferPointer { o in
                        guard let d = d.baseAddress, let x = x.baseAddress, let y = y.baseAddress,
                            let o = o.baseAddress
                        else { return false }
                        return bleinspect_p256_dhkey(d, x, y, o) == 1
                    }
                }
            }
        }
        guard ok else {
            throw CryptoError(.outOfRange, offset: 0, "the public key is not a point of P-256, or libcrypto failed")
        }
        return try Value256(msoFirst: out)
    }
}
