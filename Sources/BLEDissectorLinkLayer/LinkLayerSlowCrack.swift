import BLECrack
import BLECrypto
import BLEInspectCore
import BLEKeys

extension LinkLayerDissector {
    /// The slow search of a legacy pairing whose confirm values were not captured (Vol 3 Part H
    /// 2.3.5.5): each candidate TK's STK = s1(TK, Srand, Mrand) makes the session key, which must
    /// verify the MIC of the session's first encrypted PDU at packet counter 0 (in either
    /// direction: the sniffer may have its sender wrong). The `--tk` values are tried first (as
    /// given, then their octets reversed), then, with the crack on, Just Works and every passkey.
    /// The STK found becomes the session's first candidate; a note on the PDU says what was found.
    func searchByMIC(
        header: UInt8,
        _ payloadAndMIC: [UInt8],
        index: Int,
        _ connection: LLConnection,
        _ hr: Range<Int>,
        source: Int,
        _ ctx: inout DissectionContext
    ) {
        guard var pairing = connection.pairing, pairing.awaitsPacket, let randoms = pairing.bothRandoms,
            let keys = connection.encryption?.keys
        else { return }
        pairing.awaitsPacket = false
        connection.pairing = pairing
        let frame = pairing.frame
        let directions: [LinkLayerDirection] =
            index == 0 ? [.centralToPeripheral, .peripheralToCentral] : [.peripheralToCentral, .centralToPeripheral]
        let verifies: @Sendable (Value128, AES128) throws(CryptoError) -> Bool = { stk, aes throws(CryptoError) in
            let cipher = try keys.cipher(stk, using: aes)
            for direction in directions {
                let result = try cipher.decrypt(
                    headerFirstOctet: header,
                    payloadAndMIC: payloadAndMIC,
                    counter: 0,
                    direction: direction
                )
                if case .plaintext = result { return true }
            }
            return false
        }
        let configuration = ctx.registry.configuration
        let found: (stk: Value128, label: String, note: String)?
        do throws(CryptoError) {
            found = try Self.slowSearch(
                frame: frame,
                given: configuration[LinkLayerModule.temporaryKeys],
                crack: configuration[LinkLayerModule.recoverPairingKeys],
                progress: configuration[LinkLayerModule.crackProgress]
                    ? CrackProgress(label: "Cracking the legacy pairing of frame \(frame) by MIC") : nil,
                randoms,
                verifies
            )
        } catch {
            ctx.expert(
                .warning,
                "Legacy pairing (frame \(frame)): the slow search failed: \(error)",
                hr,
                source: source
            )
            return
        }
        guard let found, let aes = try? AES128(), let cipher = try? keys.cipher(found.stk, using: aes) else {
            let searched = configuration[LinkLayerModule.recoverPairingKeys] ? "no passkey's" : "no --tk value's"
            ctx.expert(
                .note,
                "Legacy pairing (frame \(frame)): \(searched) STK verifies this PDU's MIC at packet counter 0 (an out-of-band TK, or the session's first encrypted PDU was missed); give the TK with --tk or the key with --ltk",
                hr,
                source: source
            )
            return
        }
        let key = LongTermKey(peer: nil, key: found.stk, source: KeySource(file: found.label, line: 0))
        connection.encryption?.candidates.insert(LLEncryption.Candidate(cipher: cipher, key: key), at: 0)
        ctx.expert(.note, "Legacy pairing (frame \(frame)) \(found.note); STK \(found.stk.hex)", hr, source: source)
    }

    /// The given TKs (both octet orders), then the search; the STK, the key's label and the note.
    private static func slowSearch(
        frame: Int,
        given: [Value128],
        crack: Bool,
        progress: CrackProgress?,
        _ randoms: (mrand: Value128, srand: Value128),
        _ verifies: @escaping @Sendable (Value128, AES128) throws(CryptoError) -> Bool
    ) throws(CryptoError) -> (stk: Value128, label: String, note: String)? {
        let aes = try AES128()
        for (tk, reversed) in bothOrders(given) {
            let stk = try aes.s1(k: tk, r1: randoms.srand, r2: randoms.mrand)
            guard try verifies(stk, aes) else { continue }
            return (
                stk, "STK of the pairing in frame \(frame), TK from --tk",
                "without its confirm values: the TK given with --tk fits by this PDU's MIC\(reversed ? reversedNote : "")"
            )
        }
        guard crack,
            let cracked = try LegacyPairingCrack.crack(
                mrand: randoms.mrand,
                srand: randoms.srand,
                progress: progress,
                verifies: verifies
            )
        else { return nil }
        let tk = passkeyText(UInt64(cracked.passkey))
        return (
            cracked.stk, "STK of the pairing in frame \(frame), TK \(tk) cracked by MIC",
            "cracked without its confirm values, by this PDU's MIC (the slow search): TK \(tk)\(justWorks(cracked.passkey))"
        )
    }
}
