#ifndef BLEINSPECT_CCRYPTO_SHIM_H
#define BLEINSPECT_CCRYPTO_SHIM_H
// OpenSSL 3's libcrypto, and the two calls that need its parameter arrays and control macros:
// AES-CMAC through EVP_MAC, and AES-CCM with a 13-octet nonce and a 4-octet tag through EVP.
// The ciphers are libcrypto's; these only sequence its calls.
#include <openssl/core_names.h>
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

/// Starts AES-128-CCM with a 13-octet nonce and a 4-octet tag (`tag` is NULL when encrypting),
/// announces `length` octets of text and passes the additional authenticated data.
static inline int bleinspect_ccm_begin(EVP_CIPHER_CTX *ctx, int encrypt, const uint8_t *key, const uint8_t *nonce,
                                       const uint8_t *aad, size_t aad_length, size_t length, uint8_t *tag) {
    int outl = 0;
    return EVP_CipherInit_ex(ctx, EVP_aes_128_ccm(), NULL, NULL, NULL, encrypt) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 13, NULL) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 4, tag) == 1
        && EVP_CipherInit_ex(ctx, NULL, NULL, key, nonce, encrypt) == 1
        && EVP_CipherUpdate(ctx, NULL, &outl, NULL, (int)length) == 1
        && EVP_CipherUpdate(ctx, NULL, &outl, aad, (int)aad_length) == 1;
}

/// AES-128-CCM encryption (nonce 13 octets, tag 4): `length` octets of `in` into `out`, the tag
/// into `tag`. Returns 1 on success, 0 when libcrypto fails. `length` is at most 255.
static inline int bleinspect_ccm_encrypt(const uint8_t *key, const uint8_t *nonce, const uint8_t *aad,
                                         size_t aad_length, const uint8_t *in, size_t length, uint8_t *out,
                                         uint8_t *tag) {
    if (length > 255 || aad_length > 255) return 0;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl = 0;
    int ok = ctx != NULL && bleinspect_ccm_begin(ctx, 1, key, nonce, aad, aad_length, length, NULL)
        && EVP_CipherUpdate(ctx, out, &outl, in, (int)length) == 1 && outl == (int)length
        && EVP_CipherFinal_ex(ctx, out + outl, &outl) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 4, tag) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/// AES-128-CCM decryption and tag check. Returns 1 when the tag verifies (`out` holds the
/// plaintext), 0 when it does not (`out` is cleared), -1 when libcrypto fails.
static inline int bleinspect_ccm_decrypt(const uint8_t *key, const uint8_t *nonce, const uint8_t *aad,
                                         size_t aad_length, const uint8_t *in, size_t length, const uint8_t *tag,
                                         uint8_t *out) {
    if (length > 255 || aad_length > 255) return -1;
    uint8_t expected[4];
    for (int i = 0; i < 4; i++) expected[i] = tag[i];
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl = 0;
    int result = -1;
    if (ctx != NULL && bleinspect_ccm_begin(ctx, 0, key, nonce, aad, aad_length, length, expected)) {
        result = EVP_CipherUpdate(ctx, out, &outl, in, (int)length) > 0 ? 1 : 0;
    }
    EVP_CIPHER_CTX_free(ctx);
    if (result != 1) {
        for (size_t i = 0; i < length; i++) out[i] = 0;
    }
    return result;
}

#endif
