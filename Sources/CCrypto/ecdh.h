#ifndef BLEINSPECT_CCRYPTO_ECDH_H
#define BLEINSPECT_CCRYPTO_ECDH_H
// P-256 Diffie-Hellman with OpenSSL 3's libcrypto (EVP_PKEY "EC", group prime256v1): the
// point arithmetic and the checks that a public key is on the curve are libcrypto's; this only
// builds the two keys from raw octets and sequences the derivation.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/bn.h>
#include <stddef.h>
#include <stdint.h>

/// The key of `selection` (EVP_PKEY_KEYPAIR with a private key, EVP_PKEY_PUBLIC_KEY) on P-256
/// from `private_key` (32 octets, most significant first; NULL for a public key) or `point`
/// (65 octets: 0x04, X, Y, most significant first). NULL when libcrypto refuses it.
static inline EVP_PKEY *bleinspect_p256_key(const uint8_t *private_key, const uint8_t *point) {
    OSSL_PARAM_BLD *build = OSSL_PARAM_BLD_new();
    BIGNUM *scalar = private_key != NULL ? BN_bin2bn(private_key, 32, NULL) : NULL;
    OSSL_PARAM *params = NULL;
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    int selection = private_key != NULL ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY;
    int ok = build != NULL && ctx != NULL && (private_key == NULL || scalar != NULL)
        && OSSL_PARAM_BLD_push_utf8_string(build, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) == 1
        && (scalar == NULL || OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_PRIV_KEY, scalar) == 1)
        && (point == NULL || OSSL_PARAM_BLD_push_octet_string(build, OSSL_PKEY_PARAM_PUB_KEY, point, 65) == 1)
        && (params = OSSL_PARAM_BLD_to_param(build)) != NULL
        && EVP_PKEY_fromdata_init(ctx) == 1
        && EVP_PKEY_fromdata(ctx, &key, selection, params) == 1;
    if (!ok) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    BN_clear_free(scalar);
    OSSL_PARAM_BLD_free(build);
    return key;
}

/// DHKey: the X coordinate of `private_key` (32 octets) times the peer's public key (`peer_x`,
/// `peer_y`, 32 octets each), all most significant octet first, into `out` (32 octets).
/// Returns 1 on success, 0 when the peer's key is not a point of the curve or libcrypto fails.
static inline int bleinspect_p256_dhkey(const uint8_t *private_key, const uint8_t *peer_x, const uint8_t *peer_y,
                                        uint8_t *out) {
    uint8_t point[65];
    point[0] = 0x04;
    for (int i = 0; i < 32; i++) {
        point[1 + i] = peer_x[i];
        point[33 + i] = peer_y[i];
    }
    EVP_PKEY *mine = bleinspect_p256_key(private_key, NULL);
    EVP_PKEY *peer = bleinspect_p256_key(NULL, point);
    EVP_PKEY_CTX *ctx = mine != NULL ? EVP_PKEY_CTX_new_from_pkey(NULL, mine, NULL) : NULL;
    size_t length = 32;
    int ok = ctx != NULL && peer != NULL && EVP_PKEY_derive_init(ctx) == 1
        && EVP_PKEY_derive_set_peer(ctx, peer) == 1 && EVP_PKEY_derive(ctx, out, &length) == 1 && length == 32;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(peer);
    EVP_PKEY_free(mine);
    return ok;
}

#endif
