import CCrypto
import Synchronization

/// libcrypto's AES-128-CCM decryption for one session key: the cipher fetched, the nonce and tag
/// lengths set and the key schedule made once (`bleinspect_ccm_new`), so that a packet costs its
/// nonce, its tag and the cipher itself. (libcrypto binds a context to a direction when the key is
/// set; encryption, which only tests need, makes a context a call: `once`.)
///
/// A libcrypto context serves one caller at a time. A caller claims it with an atomic flag; one
/// that finds it taken (another thread decrypting with a copy of the same cipher) makes a context
/// of its own for that call. So the value can be shared between threads without a lock, and the
/// common case (one thread, the link-layer dissector's) reuses the context every time.
final class CCMContext: Sendable {
    private let key: Value128
    /// nil when libcrypto could not make it: then each call tries a context of its own.
    /// Only the holder of `claimed` uses it (and `deinit`, when no one can).
    nonisolated(unsafe) private let context: OpaquePointer?
    private let claimed = Atomic<Bool>(false)

    init(key: Value128) {
        self.key = key
        context = Self.make(key, encrypt: false)
    }

    deinit { bleinspect_ccm_free(context) }

    /// `body` with the shared context when it is free, else with a context made for this call.
    /// The context is nil when libcrypto fails (the shim's calls then report failure).
    func run<R>(_ body: (OpaquePointer?) -> R) -> R {
        if let context, claimed.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            defer { claimed.store(false, ordering: .releasing) }
            return body(context)
        }
        return Self.once(key: key, encrypt: false, body)
    }

    /// `body` with a context made for this call (nil when libcrypto fails).
    static func once<R>(key: Value128, encrypt: Bool, _ body: (OpaquePointer?) -> R) -> R {
        let own = make(key, encrypt: encrypt)
        defer { bleinspect_ccm_free(own) }
        return body(own)
    }

    private static func make(_ key: Value128, encrypt: Bool) -> OpaquePointer? {
        key.withMSOFirstBytes { bleinspect_ccm_new($0.octets, encrypt ? 1 : 0) }
    }
}
