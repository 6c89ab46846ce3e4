import CCrypto

/// The specification's security function e: AES-128 (FIPS-197) of one block, key and block taken
/// most significant octet first. libcrypto does the cipher. One value holds one libcrypto
/// context and is used by one thread at a time: the legacy pairing search makes one a thread, so
/// changing the key costs a key schedule and no allocation.
public final class AES128 {
    private let context: OpaquePointer

    public init() throws(CryptoError) {
        guard let context = EVP_CIPHER_CTX_new() else { throw .library("EVP_CIPHER_CTX_new") }
        guard EVP_EncryptInit_ex(context, EVP_aes_128_ecb(), nil, nil, nil) == 1,
            EVP_CIPHER_CTX_set_padding(context, 0) == 1
        else {
            EVP_CIPHER_CTX_free(context)
            throw .library("EVP_EncryptInit_ex")
        }
        self.context = context
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// e(key, plaintext).
    public func e(_ key: Value128, _ plaintext: Value128) throws(CryptoError) -> Value128 {
        var out: (UInt64, UInt64) = (0, 0)
        var written: Int32 = 0
        let ok = key.withMSOFirstBytes { k in
            plaintext.withMSOFirstBytes { p in
                withUnsafeMutableBytes(of: &out) { o in
                    EVP_EncryptInit_ex(context, nil, nil, k.octets, nil) == 1
                        && EVP_EncryptUpdate(context, o.octets, &written, p.octets, 16) == 1
                }
            }
        }
        guard ok, written == 16 else { throw .library("EVP_EncryptUpdate") }
        return Value128(high: UInt64(bigEndian: out.0), low: UInt64(bigEndian: out.1))
    }
}

/// AES-CMAC (RFC 4493, the specification's AES-CMAC_k(m)) of `message`, its octets in the order
/// the specification composes them (most significant first), under `key`.
public func aesCMAC(key: Value128, message: [UInt8]) throws(CryptoError) -> Value128 {
    var out: (UInt64, UInt64) = (0, 0)
    let ok = key.withMSOFirstBytes { k in
        message.withUnsafeBufferPointer { m in
            withUnsafeMutableBytes(of: &out) { o in
                bleinspect_aes_cmac(k.octets, m.baseAddress, m.count, o.octets) == 1
            }
        }
    }
    guard ok else { throw .library("EVP_MAC (CMAC)") }
    return Value128(high: UInt64(bigEndian: out.0), low: UInt64(bigEndian: out.1))
}

extension UnsafeRawBufferPointer {
    /// The buffer as octets for a C `const uint8_t *` parameter.
    var octets: UnsafePointer<UInt8>? { baseAddress?.assumingMemoryBound(to: UInt8.self) }
}

extension UnsafeMutableRawBufferPointer {
    /// The buffer as octets for a C `uint8_t *` parameter.
    var octets: UnsafeMutablePointer<UInt8>? { baseAddress?.assumingMemoryBound(to: UInt8.self) }
}
