#ifndef BLEINSPECT_CCRYPTO_SHIM_H
#define BLEINSPECT_CCRYPTO_SHIM_H
// OpenSSL 3's libcrypto, and the two calls that need its parameter arrays and control macros:
// AES-CMAC through EVP_MAC, and AES-CCM with a 13-octet nonce and a 4-octet tag through EVP (a
// context per key, reused packet after packet).
// The ciphers are libcrypto's; these only sequence its calls.
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <stddef.h>
#include <stdint.h>

/// AES-CMAC (RFC 4493) of `message` under the 16-octet `key` into `out` (16 octets).
/// Returns 1 on success, 0 when libcrypto fails.
static inline int bleinspect_aes_cmac(const uint8_t *key, const uint8_t *message, size_t length, uint8_t *out) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "CMAC", NULL);
    if (mac == NULL) return 0;
    EVP_MAC_CTX *ctx = EVP_MAC_CTX_new(mac);
    char cipher[] = "AES-128-CBC";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, cipher, 0),
        OSSL_PARAM_construct_end(),
    };
    size_t written = 0;
    int ok = ctx != NULL && EVP_MAC_init(ctx, key, 16, params) == 1
        && EVP_MAC_update(ctx, message, length) == 1
        && EVP_MAC_final(ctx, out, &written, 16) == 1 && written == 16;
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    return ok;
}

/// A libcrypto AES-128-CCM context for one key and one direction (`encrypt` 1 or 0: libcrypto
/// picks its CCM routine by direction when the key is set): the cipher fetched once, a 13-octet
/// nonce and a 4-octet tag, the key schedule made once. Each packet then sets only its nonce (and,
/// to decrypt, its tag). NULL when libcrypto fails. Free it with `bleinspect_ccm_free`.
static inline EVP_CIPHER_CTX *bleinspect_ccm_new(const uint8_t *key, int encrypt) {
    EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, "AES-128-CCM", NULL);
    if (cipher == NULL) return NULL;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    // The nonce and tag lengths come before the key: the key schedule's setup takes them.
    int ok = ctx != NULL && EVP_CipherInit_ex2(ctx, cipher, NULL, NULL, encrypt, NULL) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 13, NULL) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 4, NULL) == 1
        && EVP_CipherInit_ex2(ctx, NULL, key, NULL, encrypt, NULL) == 1;
    EVP_CIPHER_free(cipher);  // the context holds its own reference
    if (!ok) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

static inline void bleinspect_ccm_free(EVP_CIPHER_CTX *ctx) { EVP_CIPHER_CTX_free(ctx); }

/// Starts one packet on a context from `bleinspect_ccm_new`: its 13-octet nonce, its 4-octet tag
/// (NULL when encrypting), the `length` octets of text to come, and the one octet of additional
/// authenticated data.
static inline int bleinspect_ccm_begin(EVP_CIPHER_CTX *ctx, int encrypt, const uint8_t *nonce, uint8_t aad,
                                       size_t length, uint8_t *tag) {
    int outl = 0;
    // The tag goes straight to the cipher's parameters (what EVP_CTRL_AEAD_SET_TAG does, without
    // the control call's dispatch).
    OSSL_PARAM params[2] = {OSSL_PARAM_END, OSSL_PARAM_END};
    if (tag != NULL) params[0] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, 4);
    return EVP_CipherInit_ex2(ctx, NULL, NULL, nonce, encrypt, NULL) == 1
        && (tag == NULL || EVP_CIPHER_CTX_set_params(ctx, params) == 1)
        && EVP_CipherUpdate(ctx, NULL, &outl, NULL, (int)length) == 1
        && EVP_CipherUpdate(ctx, NULL, &outl, &aad, 1) == 1;
}

/// AES-128-CCM encryption on an encrypting context from `bleinspect_ccm_new`: `length` octets of
/// `in` into `out`, the tag into `tag`. Returns 1 on success, 0 when libcrypto fails. `length` is
/// at most 255.
static inline int bleinspect_ccm_encrypt(EVP_CIPHER_CTX *ctx, const uint8_t *nonce, uint8_t aad, const uint8_t *in,
                                         size_t length, uint8_t *out, uint8_t *tag) {
    if (ctx == NULL || length > 255) return 0;
    int outl = 0;
    return bleinspect_ccm_begin(ctx, 1, nonce, aad, length, NULL)
        && EVP_CipherUpdate(ctx, out, &outl, in, (int)length) == 1 && outl == (int)length
        && EVP_CipherFinal_ex(ctx, out + outl, &outl) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 4, tag) == 1;
}

/// AES-128-CCM decryption and tag check on a decrypting context from `bleinspect_ccm_new`.
/// Returns 1 when the tag verifies (all `length` octets of `out` hold the plaintext), 0 when it
/// does not (`out` is cleared), -1 when libcrypto fails. The context serves the next packet
/// either way: each packet sets its nonce, tag and length afresh. A tag that does not verify
/// leaves no error on libcrypto's queue.
static inline int bleinspect_ccm_decrypt(EVP_CIPHER_CTX *ctx, const uint8_t *nonce, uint8_t aad, const uint8_t *in,
                                         size_t length, const uint8_t *tag, uint8_t *out) {
    if (ctx == NULL || length > 255) return -1;
    uint8_t expected[4];
    for (int i = 0; i < 4; i++) expected[i] = tag[i];
    int outl = 0;
    int result = -1;
    if (bleinspect_ccm_begin(ctx, 0, nonce, aad, length, expected)) {
        result = EVP_CipherUpdate(ctx, out, &outl, in, (int)length) > 0 ? (outl == (int)length ? 1 : -1) : 0;
    }
    if (result != 1) {
        ERR_clear_error();
        for (size_t i = 0; i < length; i++) out[i] = 0;
    }
    return result;
}

#endif
