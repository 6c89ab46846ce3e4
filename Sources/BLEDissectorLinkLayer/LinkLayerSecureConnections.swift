import BLECrypto
import BLEKeys

extension LinkLayerDissector {
    /// The LTK of a sniffed LE Secure Connections pairing, when a side used the debug key (Vol 3
    /// Part H 2.3.5.6.1): DHKey from the debug private key and the other side's public key, then
    /// (MacKey, LTK) = f5(DHKey, Na, Nb, A1, A2) with the last Pairing Randoms (Na the central's,
    /// the initiator's; the last round's in passkey entry) and the connection's addresses. The
    /// central's DHKey Check Ea = f6(MacKey, Na, Nb, rb, IOcapA, A1, A2) is checked with rb = 0
    /// (Just Works, numeric comparison) and with each `--tk` passkey (passkey entry); else (out of
    /// band, an unknown passkey) the first encrypted PDU's MIC decides. Without the debug key a
    /// sniff cannot give the LTK. With `derive` off (`--no-crack`) the pairing is only reported.
    static func debugKeyLTK(
        _ pairing: LLPairing,
        central: LEAddress,
        peripheral: LEAddress,
        given: [Value128],
        derive: Bool
    ) -> PairingKey {
        let frame = pairing.frame
        let notCrackable =
            "LE Secure Connections pairing (frame \(frame)): its LTK comes from an ECDH exchange, which a sniff cannot recover (a passkey alone cannot give it); give the LTK with --ltk"
        guard let debug = SecureConnections.debugPublicKey, let debugPrivate = SecureConnections.debugPrivateKey
        else { return .none(note: notCrackable) }
        let keys = pairing.publicKeys
        // The side that used the debug key; the DHKey is its private key with the other's public key.
        guard let user = keys.firstIndex(where: { $0 == debug }) else {
            let seen =
                keys.allSatisfy { $0 != nil }
                ? "" : " (not both Pairing Public Keys were seen, so the debug key may have gone unseen)"
            return .none(note: notCrackable + seen)
        }
        let side = user == 0 ? "central" : "peripheral"
        guard derive else {
            return .none(
                note:
                    "LE Secure Connections pairing (frame \(frame)) with the debug key (sent by the \(side)): its LTK can be derived, which --no-crack leaves off"
            )
        }
        guard let other = keys[1 - user], let na = pairing.randoms[0], let nb = pairing.randoms[1] else {
            return .none(
                note:
                    "LE Secure Connections pairing (frame \(frame)) with the debug key (sent by the \(side)), but its other Pairing Public Key or a Pairing Random was not seen: no LTK"
            )
        }
        do throws(CryptoError) {
            let dhKey = try SecureConnections.dhKey(privateKey: debugPrivate, peer: other)
            let (macKey, ltk) = try SecureConnections.f5(w: dhKey, n1: na, n2: nb, a1: central, a2: peripheral)
            var check = "the central's DHKey Check was not seen"
            if let ea = pairing.dhKeyChecks[0], let request = pairing.request, request.count == 7 {
                let ioCap = UInt32(request[3]) << 16 | UInt32(request[2]) << 8 | UInt32(request[1])
                // rb: 0 for Just Works and numeric comparison, the passkey for passkey entry.
                let passkeys = given.filter { $0.high == 0 && $0.low <= 999_999 }
                check =
                    "the central's DHKey Check does not verify with rb = 0\(passkeys.isEmpty ? "" : " or a passkey given with --tk") (a passkey or out-of-band pairing): the first encrypted PDU's MIC decides"
                for rb in [Value128.zero] + passkeys {
                    let expected = try SecureConnections.f6(
                        w: macKey,
                        n1: na,
                        n2: nb,
                        r: rb,
                        ioCap: ioCap,
                        a1: central,
                        a2: peripheral
                    )
                    guard expected == ea else { continue }
                    check =
                        rb == .zero
                        ? "the central's DHKey Check verifies it"
                        : "the central's DHKey Check verifies it with passkey \(passkeyText(rb.low))"
                    break
                }
            }
            let source = "LTK of the LE Secure Connections pairing in frame \(frame), from the debug key"
            return .derived(
                LongTermKey(peer: nil, key: ltk, source: KeySource(file: source, line: 0)),
                note:
                    "LE Secure Connections pairing (frame \(frame)) with the debug key (sent by the \(side)): LTK \(ltk.hex) derived; \(check)",
                bonds: true
            )
        } catch {
            return .none(note: "LE Secure Connections pairing (frame \(frame)) with the debug key: no LTK (\(error))")
        }
    }
}
