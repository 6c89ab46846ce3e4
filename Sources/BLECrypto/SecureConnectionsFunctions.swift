/// The LE Secure Connections functions on AES-CMAC (Vol 3 Part H 2.2.5 to 2.2.10). Every
/// message is composed most significant octet first, as the specification writes it.
public enum SecureConnections {
    /// f4(U, V, X, Z) = AES-CMAC_X(U || V || Z): the confirm value.
    public static func f4(u: Value256, v: Value256, x: Value128, z: UInt8) throws(CryptoError) -> Value128 {
        try aesCMAC(key: x, message: u.msoFirst + v.msoFirst + [z])
    }

    /// f5(W, N1, N2, A1, A2): the MacKey and the LTK from the Diffie-Hellman key W.
    public static func f5(w: Value256, n1: Value128, n2: Value128, a1: LEAddress, a2: LEAddress)
        throws(CryptoError) -> (macKey: Value128, ltk: Value128)
    {
        let salt = Value128(high: 0x6C88_8391_AAF5_A538, low: 0x6037_0BDB_5A60_83BE)
        let t = try aesCMAC(key: salt, message: w.msoFirst)
        // Counter || keyID "btle" || N1 || N2 || A1 || A2 || Length 256.
        let rest: [UInt8] =
            [0x62, 0x74, 0x6C, 0x65] + n1.msoFirst + n2.msoFirst + a1.typeAndAddress + a2.typeAndAddress + [0x01, 0x00]
        return (try aesCMAC(key: t, message: [0] + rest), try aesCMAC(key: t, message: [1] + rest))
    }

    /// f6(W, N1, N2, R, IOcap, A1, A2) = AES-CMAC_W(N1 || N2 || R || IOcap || A1 || A2): the
    /// DHKey check value. `ioCap` is the 24-bit AuthReq || OOB data flag || IO capability.
    public static func f6(
        w: Value128,
        n1: Value128,
        n2: Value128,
        r: Value128,
        ioCap: UInt32,
        a1: LEAddress,
        a2: LEAddress
    ) throws(CryptoError) -> Value128 {
        guard ioCap <= 0xFF_FFFF else { throw CryptoError(.outOfRange, offset: 0, "IOcap \(ioCap) exceeds 24 bits") }
        let io = [
            UInt8(truncatingIfNeeded: ioCap >> 16), UInt8(truncatingIfNeeded: ioCap >> 8),
            UInt8(truncatingIfNeeded: ioCap),
        ]
        return try aesCMAC(
            key: w,
            message: n1.msoFirst + n2.msoFirst + r.msoFirst + io + a1.typeAndAddress + a2.typeAndAddress
        )
    }

    /// g2(U, V, X, Y) = AES-CMAC_X(U || V || Y) mod 2^32: the numeric comparison value (shown
    /// as its last six decimal digits).
    public static func g2(u: Value256, v: Value256, x: Value128, y: Value128) throws(CryptoError) -> UInt32 {
        UInt32(truncatingIfNeeded: try aesCMAC(key: x, message: u.msoFirst + v.msoFirst + y.msoFirst).low)
    }

    /// h6(W, keyID) = AES-CMAC_W(keyID): link key conversion ("tmp1", "lebr", ...).
    public static func h6(w: Value128, keyID: UInt32) throws(CryptoError) -> Value128 {
        try aesCMAC(key: w, message: (0..<4).map { UInt8(truncatingIfNeeded: keyID >> UInt32(24 - 8 * $0)) })
    }

    /// h7(SALT, W) = AES-CMAC_SALT(W): link key conversion with a salt.
    public static func h7(salt: Value128, w: Value128) throws(CryptoError) -> Value128 {
        try aesCMAC(key: salt, message: w.msoFirst)
    }
}
