import BLECrack
public import BLECrypto
public import BLEInspectCore
import BLEKeys

extension LinkLayerModule {
    /// Whether keys are recovered from sniffed pairings when the connection's encryption starts:
    /// a legacy pairing's TK searched for (Just Works, then every passkey), and the LTK of a
    /// Secure Connections pairing that used the debug key derived. Registry configuration, on in
    /// the commands unless `--no-crack`.
    public static let recoverPairingKeys = RegistryConfiguration.Key<Bool>("btle.recover_pairing_keys", default: false)
    /// Whether the TK search shows its progress on standard error: registry configuration, on in
    /// the commands when standard error is a terminal.
    public static let crackProgress = RegistryConfiguration.Key<Bool>("btle.crack_progress", default: false)
    /// Whether a decrypted PDU carries the changes that write its packet decrypted
    /// (`DissectionContext.edits`, for `-w`): registry configuration, off in the commands unless
    /// they write a capture.
    public static let decryptedEdits = RegistryConfiguration.Key<Bool>("btle.decrypted_edits", default: true)
    /// TKs to try on sniffed legacy pairings (out of band, or a known passkey): `--tk`.
    public static let temporaryKeys = RegistryConfiguration.Key<[Value128]>("btle.temporary_keys", default: [])
}

/// What the SMP PDUs of a connection in the clear say of its pairing (Vol 3 Part H 2.3.5): both
/// pairing commands, both confirm values and both randoms, by sender.
struct LLPairing {
    var request: [UInt8]?
    var response: [UInt8]?
    /// Indexed by sender (0 central, 1 peripheral).
    var confirms: [Value128?] = [nil, nil]
    var randoms: [Value128?] = [nil, nil]
    /// LE Secure Connections: the Pairing Public Keys and DHKey Checks, by sender.
    var publicKeys: [P256PublicKey?] = [nil, nil]
    var dhKeyChecks: [Value128?] = [nil, nil]
    /// The frame of the Pairing Request.
    var frame: Int
    /// The STK was looked for (it serves the session that follows the pairing only).
    var tried = false
    /// The confirm values were not captured: the slow search waits for the session's first
    /// encrypted PDU.
    var awaitsPacket = false

    /// Both randoms, when both were seen.
    var bothRandoms: (mrand: Value128, srand: Value128)? {
        guard let mrand = randoms[0], let srand = randoms[1] else { return nil }
        return (mrand, srand)
    }

    /// Both sides set the Secure Connections bit of AuthReq: LE Secure Connections pairing.
    var secureConnections: Bool {
        guard let request, let response, request.count == 7, response.count == 7 else { return false }
        return request[3] & response[3] & 0x08 != 0
    }

    /// The values c1 and s1 need, when all were seen.
    func legacy(central: LEAddress, peripheral: LEAddress) -> LegacyPairing? {
        guard let request, let response, let mconfirm = confirms[0], let sconfirm = confirms[1],
            let mrand = randoms[0], let srand = randoms[1],
            let inputs = try? C1Inputs(
                pairingRequest: request,
                pairingResponse: response,
                initiator: central,
                responder: peripheral
            )
        else { return nil }
        return LegacyPairing(inputs: inputs, mconfirm: mconfirm, sconfirm: sconfirm, mrand: mrand, srand: srand)
    }
}

/// What looking for a pairing's STK gave, said in a note on the frame that starts encryption.
enum PairingKey {
    /// The STK of a legacy pairing, or the LTK of a Secure Connections one that used the debug
    /// key; `bonds` when the key serves the devices' later sessions too (an LTK, not an STK).
    case derived(LongTermKey, note: String, bonds: Bool = false)
    case none(note: String)
    /// The confirm values were not captured but both randoms were: the TK is searched for with
    /// the MIC of the session's first encrypted PDU.
    case awaitingPacket(note: String)
}

extension LinkLayerDissector {
    /// Records what an L2CAP PDU on the SMP channel says of the pairing, and learns the long term
    /// key a side distributes (SMP Encryption Information, then Central Identification's EDIV and
    /// Rand), for the devices' later sessions.
    func observeSMP(_ pdu: ByteReader, _ connection: LLConnection, _ index: Int, _ ctx: inout DissectionContext) {
        let b = pdu.remainingSlice
        guard b.count >= 5, b[b.startIndex + 2] == 0x06, b[b.startIndex + 3] == 0x00 else { return }
        let smp = Array(b.dropFirst(4))
        let value = smp.count == 17 ? try? Value128(lsoFirst: Array(smp[1...])) : nil
        switch smp[0] {
        case 0x01 where smp.count == 7:
            connection.pairing = LLPairing(request: smp, frame: ctx.frameNumber)
        case 0x02 where smp.count == 7:
            connection.pairing?.response = smp
        case 0x03: connection.pairing?.confirms[index] = value
        case 0x04: connection.pairing?.randoms[index] = value
        case 0x0C where smp.count == 65:
            connection.pairing?.publicKeys[index] = try? P256PublicKey(smpParameters: smp[1...])
        case 0x0D: connection.pairing?.dhKeyChecks[index] = value
        case 0x06:
            guard let value else { return }
            let from = index == 0 ? connection.central : connection.peripheral
            let key = LongTermKey(
                peer: from,
                key: value,
                source: KeySource(file: "SMP Encryption Information in frame \(ctx.frameNumber)", line: 0)
            )
            LinkLayerState.of(ctx).learn(key)
            connection.distributed = key
            ctx.expert(
                .note,
                "Long term key learned: \(value.hex), distributed by the \(index == 0 ? "central" : "peripheral"); it decrypts the devices' next encrypted sessions",
                pdu.offset..<(pdu.offset + pdu.remaining),
                source: pdu.source
            )
        case 0x07 where smp.count == 11:
            guard var key = connection.distributed else { return }
            let state = LinkLayerState.of(ctx)
            state.forgetLearned(key)
            key.ediv = UInt16(smp[1]) | UInt16(smp[2]) << 8
            key.rand = smp[3...].reversed().reduce(0) { $0 << 8 | UInt64($1) }
            state.learn(key)
            connection.distributed = nil
        default:
            break
        }
    }

    /// The STK of the legacy pairing the connection's first encryption follows: from a `--tk`
    /// value, else (when cracking is on) from the TK search. Nil when there is no such pairing.
    func pairingKey(_ connection: LLConnection, _ ctx: DissectionContext) -> PairingKey? {
        guard var pairing = connection.pairing, !pairing.tried, let central = connection.central,
            let peripheral = connection.peripheral
        else { return nil }
        pairing.tried = true
        connection.pairing = pairing
        let configuration = ctx.registry.configuration
        let frame = pairing.frame
        if pairing.secureConnections {
            return Self.debugKeyLTK(
                pairing,
                central: LEAddress(central, isRandom: connection.centralRandom),
                peripheral: LEAddress(peripheral, isRandom: connection.peripheralRandom),
                given: configuration[LinkLayerModule.temporaryKeys],
                derive: configuration[LinkLayerModule.recoverPairingKeys]
            )
        }
        guard
            let legacy = pairing.legacy(
                central: LEAddress(central, isRandom: connection.centralRandom),
                peripheral: LEAddress(peripheral, isRandom: connection.peripheralRandom)
            ),
            let aes = try? AES128()
        else {
            let given = configuration[LinkLayerModule.temporaryKeys]
            if pairing.bothRandoms != nil, configuration[LinkLayerModule.recoverPairingKeys] || !given.isEmpty {
                return .awaitingPacket(
                    note:
                        "Legacy pairing (frame \(frame)) without its confirm values (not captured): the TK is looked for with the MIC of the session's first encrypted PDU (the slow search)"
                )
            }
            let missing =
                pairing.bothRandoms == nil
                ? "the Pairing Randoms of both sides were not seen before this LL_ENC_RSP" : "not seen whole"
            return .none(note: "Legacy pairing (frame \(frame)): \(missing); no STK")
        }
        let given = configuration[LinkLayerModule.temporaryKeys]
        if let (tk, reversed) = Self.fitting(given, legacy, aes),
            let stk = try? aes.s1(k: tk, r1: legacy.srand, r2: legacy.mrand)
        {
            let order = reversed ? Self.reversedNote : ""
            let source = "STK of the pairing in frame \(frame), TK from --tk"
            return .derived(
                LongTermKey(peer: nil, key: stk, source: KeySource(file: source, line: 0)),
                note: "Legacy pairing (frame \(frame)): the TK given with --tk fits\(order); STK \(stk.hex)"
            )
        }
        let givenNote = given.isEmpty ? "" : " (nor does a TK given with --tk, in either octet order)"
        guard configuration[LinkLayerModule.recoverPairingKeys] else {
            return given.isEmpty
                ? nil
                : .none(
                    note:
                        "Legacy pairing (frame \(frame)): no TK given with --tk fits its confirm values, in either octet order"
                )
        }
        let progress =
            configuration[LinkLayerModule.crackProgress]
            ? CrackProgress(label: "Cracking the legacy pairing of frame \(frame)") : nil
        guard let cracked = try? LegacyPairingCrack.crack(legacy, progress: progress) else {
            return .none(
                note:
                    "Legacy pairing (frame \(frame)): no passkey fits its confirm values\(givenNote) (an out-of-band TK?); give the TK with --tk"
            )
        }
        let tk = Self.passkeyText(UInt64(cracked.passkey))
        let source = "STK of the pairing in frame \(frame), TK \(tk) cracked"
        return .derived(
            LongTermKey(peer: nil, key: cracked.stk, source: KeySource(file: source, line: 0)),
            note:
                "Legacy pairing (frame \(frame)) cracked: TK \(tk)\(Self.justWorks(cracked.passkey)); STK \(cracked.stk.hex)"
        )
    }
}

extension LinkLayerDissector {
    /// The `--tk` values to try, each as given (most significant octet first), then with its
    /// octets reversed: tools print TKs both ways, and only a check (a confirm value, a MIC) can
    /// tell which was meant. `reversed` says which order a candidate is.
    static func bothOrders(_ given: [Value128]) -> [(tk: Value128, reversed: Bool)] {
        given.flatMap { tk in [(tk, false), (Value128(high: tk.low.byteSwapped, low: tk.high.byteSwapped), true)] }
    }

    /// What a note adds when a TK fitted with its octets reversed.
    static let reversedNote = ", its octets reversed (the value was given least significant octet first)"

    /// The first `--tk` value, in either octet order, whose Mconfirm is the sniffed one.
    static func fitting(_ given: [Value128], _ legacy: LegacyPairing, _ aes: AES128) -> (Value128, reversed: Bool)? {
        bothOrders(given).first { (try? aes.c1(k: $0.tk, r: legacy.mrand, legacy.inputs)) == legacy.mconfirm }
    }

    /// A passkey as six decimal digits.
    static func passkeyText(_ passkey: UInt64) -> String {
        let digits = String(passkey)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// What a note adds to TK 000000, which Just Works and passkey 000000 share.
    static func justWorks(_ passkey: UInt32) -> String { passkey == 0 ? " (Just Works, or passkey 000000)" : "" }
}

extension LinkLayerDissector {
    /// At LL_ENC_RSP: the session's candidate keys (those given, those learned, and the STK of a
    /// pairing just seen), with a note on what the pairing gave.
    func startSession(_ r: ByteReader, _ connection: LLConnection, _ ctx: inout DissectionContext) {
        guard connection.encryption != nil else { return }
        var keys = ctx.registry.configuration[LinkLayerModule.longTermKeys] + LinkLayerState.of(ctx).learned
        let range = r.offset..<(r.offset + r.remaining)
        switch pairingKey(connection, ctx) {
        case .derived(let key, let note, let bonds)?:
            keys.insert(key, at: 0)
            ctx.expert(.note, note, range, source: r.source)
            if bonds, let peripheral = connection.peripheral {
                // A Secure Connections LTK: LL_ENC_REQ carries EDIV and Rand 0 when it is used.
                LinkLayerState.of(ctx).learn(
                    LongTermKey(peer: peripheral, key: key.key, ediv: 0, rand: 0, source: key.source)
                )
            }
        case .none(let note)?:
            ctx.expert(.note, note, range, source: r.source)
        case .awaitingPacket(let note)? where r.remaining >= 13:
            connection.pairing?.awaitsPacket = true
            ctx.expert(.note, note, range, source: r.source)
        case .awaitingPacket?:
            ctx.expert(.note, "LL_ENC_RSP cut short: no STK", range, source: r.source)
        case nil:
            break
        }
        connection.encryption?.respond(
            r,
            keys: keys,
            central: connection.central,
            peripheral: connection.peripheral
        )
    }
}
