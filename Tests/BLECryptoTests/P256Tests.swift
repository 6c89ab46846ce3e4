import BLECrypto
import Testing

/// P-256 Diffie-Hellman with the sample data of Core Vol 3 Part H Appendix D.1 (data sets 1 and
/// 2; the same values are in google/bumble's and bluekitchen/btstack's tests): each side's private
/// key with the other's public key gives the sample DHKey. Data set 1's key A is the debug key.
@Suite("P-256 DHKey (Vol 3 Part H Appendix D.1)")
struct P256Tests {
    static func v(_ hex: String) throws -> Value256 {
        let digits = Array(hex.utf8)
        let octets = stride(from: 0, to: digits.count - 1, by: 2).compactMap {
            UInt8(String(decoding: digits[$0...($0 + 1)], as: UTF8.self), radix: 16)
        }
        return try Value256(msoFirst: octets)
    }

    static let privateA = "3f49f6d4a3c55f3874c9b3e3d2103f504aff607beb40b7995899b8a6cd3c1abd"
    static let privateB = "55188b3d32f6bb9a900afcfbeed4e72a59cb9ac2f19d7cfb6b4fdd49f47fc5fd"
    static let publicA = (
        "20b003d2f297be2c5e2c83a7e9f9a5b9eff49111acf4fddbcc0301480e359de6",
        "dc809c49652aeb6d63329abf5a52155c766345c28fed3024741c8ed01589d28b"
    )
    static let publicB = (
        "1ea1f0f01faf1d9609592284f19e4c0047b58afd8615a69f559077b22faaa190",
        "4c55f33e429dad377356703a9ab85160472d1130e28e36765f89aff915b1214a"
    )
    static let dhKey = "ec0234a357c8ad05341010a60a397d9b99796b13b4f866f1868d34f373bfa698"

    @Test func dataSet1BothWays() throws {
        let b = P256PublicKey(x: try Self.v(Self.publicB.0), y: try Self.v(Self.publicB.1))
        let a = P256PublicKey(x: try Self.v(Self.publicA.0), y: try Self.v(Self.publicA.1))
        #expect(try SecureConnections.dhKey(privateKey: Self.v(Self.privateA), peer: b) == Self.v(Self.dhKey))
        #expect(try SecureConnections.dhKey(privateKey: Self.v(Self.privateB), peer: a) == Self.v(Self.dhKey))
    }

    @Test func theDebugKeyIsDataSet1sKeyA() throws {
        #expect(SecureConnections.debugPrivateKey == (try Self.v(Self.privateA)))
        #expect(
            SecureConnections.debugPublicKey
                == P256PublicKey(x: try Self.v(Self.publicA.0), y: try Self.v(Self.publicA.1))
        )
    }

    /// SMP carries X and Y least significant octet first.
    @Test func fromSMPParameters() throws {
        let x = try Self.v(Self.publicB.0)
        let y = try Self.v(Self.publicB.1)
        #expect(try P256PublicKey(smpParameters: x.lsoFirst + y.lsoFirst) == P256PublicKey(x: x, y: y))
        #expect(throws: CryptoError(.wrongLength, offset: 63, "")) {
            try P256PublicKey(smpParameters: [UInt8](repeating: 0, count: 63))
        }
    }

    /// A point that is not on the curve is refused, not multiplied.
    @Test func offCurvePointIsRefused() throws {
        let b = P256PublicKey(x: try Self.v(Self.publicB.0), y: try Self.v(Self.publicA.1))
        #expect(throws: CryptoError.self) { try SecureConnections.dhKey(privateKey: Self.v(Self.privateA), peer: b) }
    }
}
