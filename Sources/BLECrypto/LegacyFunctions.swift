import BLEInspectCore

/// The fixed part of c1 for one pairing: p1 (both pairing commands and the address types) and p2
/// (both addresses), Vol 3 Part H 2.2.3.
public struct C1Inputs: Hashable, Sendable {
    public let p1: Value128
    public let p2: Value128

    /// `pairingRequest` and `pairingResponse` are the 7 octets of each command as SMP carries
    /// them (the opcode, 0x01 or 0x02, first).
    public init(pairingRequest: [UInt8], pairingResponse: [UInt8], initiator: LEAddress, responder: LEAddress)
        throws(CryptoError)
    {
        guard pairingRequest.count == 7 else {
            throw .wrongLength("the Pairing Request", need: 7, have: pairingRequest.count)
        }
        guard pairingResponse.count == 7 else {
            throw .wrongLength("the Pairing Response", need: 7, have: pairingResponse.count)
        }
        // p1 = pres || preq || rat' || iat', p2 = padding || ia || ra, most significant first.
        p1 = try Value128(
            msoFirst: pairingResponse.reversed() + pairingRequest.reversed() + [
                responder.typeOctet, initiator.typeOctet,
            ]
        )
        p2 = try Value128(msoFirst: [0, 0, 0, 0] + initiator.msoFirst + responder.msoFirst)
    }
}

extension AES128 {
    /// c1(k, r, preq, pres, iat, rat, ia, ra) = e(k, e(k, r XOR p1) XOR p2): the legacy pairing
    /// confirm value (Vol 3 Part H 2.2.3).
    public func c1(k: Value128, r: Value128, _ inputs: C1Inputs) throws(CryptoError) -> Value128 {
        try e(k, try e(k, r ^ inputs.p1) ^ inputs.p2)
    }

    /// s1(k, r1, r2) = e(k, r1' || r2'), r1' and r2' the least significant 64 bits of r1 and r2:
    /// the legacy pairing STK is s1(TK, Srand, Mrand) (Vol 3 Part H 2.2.4).
    public func s1(k: Value128, r1: Value128, r2: Value128) throws(CryptoError) -> Value128 {
        try e(k, Value128(high: r1.low, low: r2.low))
    }

    /// ah(k, r) = e(k, padding || r) mod 2^24, `prand` the 24-bit r: the random address hash
    /// (Vol 3 Part H 2.2.2).
    public func ah(irk: Value128, prand: UInt32) throws(CryptoError) -> UInt32 {
        guard prand <= 0xFF_FFFF else { throw CryptoError(.outOfRange, offset: 0, "prand \(prand) exceeds 24 bits") }
        return UInt32(truncatingIfNeeded: try e(irk, Value128(UInt64(prand))).low & 0xFF_FFFF)
    }

    /// Whether `address` is a resolvable private address generated from `irk`: its 24-bit hash
    /// equals ah(irk, prand) (Vol 6 Part B 1.3.2.3).
    public func resolves(_ address: LEAddress, irk: Value128) throws(CryptoError) -> Bool {
        guard address.isResolvablePrivate else { return false }
        let raw = address.address.rawValue
        return try ah(irk: irk, prand: UInt32(truncatingIfNeeded: raw >> 24 & 0xFF_FFFF))
            == UInt32(truncatingIfNeeded: raw & 0xFF_FFFF)
    }
}
