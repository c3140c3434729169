/* SPDX-License-Identifier: MIT */
/*
 * keyless.h - the TLS private keys kept out of the serving process.
 *
 * The keeper (server/process/keeper.h) reads and parses the keys and holds
 * them in a struct keyless_keys; a serving process is given, for each key,
 * only its public half, and serves with a stub: an EVP_PKEY of the public
 * key whose private operation (an ECDSA signature; an RSA private
 * encryption or decryption, which is what PKCS#1 and PSS signatures and
 * RSA key exchange come down to) is sent over a SOCK_SEQPACKET socket to
 * the keeper, which makes it with the real key and sends the result back.
 * A memory-disclosure bug in the serving process reaches no private key.
 * (OpenSSL 3.0 keeps keys with a method of their own on its legacy path,
 * where libssl calls the method: bench/keyless.c measured it.) This is
 * OpenBSD relayd's "ca" process and Cloudflare's keyless SSL, on one
 * machine.
 *
 * A key is named by the SHA-256 of its public key (SubjectPublicKeyInfo,
 * DER): the serving process cannot ask for one it was not given the public
 * half of, and the same key loaded twice is one entry.
 *
 * The keeper answers each serving process on a thread of its own
 * (keyless_serve); a serving process's threads take turns on its socket
 * (one request and its answer at a time).
 */
#ifndef BENEATH_TLS_KEYLESS_H
#define BENEATH_TLS_KEYLESS_H

#include <openssl/evp.h>
#include <stddef.h>
#include <stdint.h>

#define KEYLESS_ID_LEN 32
/* The largest operand and result: an 8192-bit RSA key's. */
#define KEYLESS_DATA_MAX 1024
/* A serving process waits this long (ms) for an answer, then fails the
 * handshake. */
#define KEYLESS_WAIT_MS 5000

/* ---- the keeper's side ---- */

struct keyless_keys;

/* keyless_keys_new - an empty table. 0 or -ENOMEM. */
int keyless_keys_new(struct keyless_keys **out);

/*
 * keyless_keys_add - hold @key (an EC or RSA private key; a reference is
 * taken) under its id, written to @id. Any thread.
 * Returns 0, -ENOTSUP (another type: EdDSA, say), or -ENOMEM.
 */
int keyless_keys_add(struct keyless_keys *t, EVP_PKEY *key,
                     uint8_t id[KEYLESS_ID_LEN]);

/*
 * keyless_serve - answer the requests that come on @fd (a serving
 * process's end closed: return) with the keys of @t. Blocks; run it on a
 * thread of its own per serving process. Does not close @fd.
 */
void keyless_serve(struct keyless_keys *t, int fd);

/* keyless_keys_free - release @t; no keyless_serve may run. NULL ok. */
void keyless_keys_free(struct keyless_keys *t);

/*
 * keyless_public_pem - the public half of @key as PEM text (malloc'd,
 * NUL-terminated), or NULL (out of memory).
 */
char *keyless_public_pem(EVP_PKEY *key);

/* ---- the serving process's side ---- */

/*
 * keyless_connect - the socket to the keeper that makes the private
 * operations of every stub from now on (owned: closed by
 * keyless_disconnect). 0 or -errno.
 */
int keyless_connect(int fd);
void keyless_disconnect(void);

/*
 * keyless_stub - a key of the public key in @pem (PEM, @len bytes; EC or
 * RSA) whose private operations go to the keeper. Returns the key (the
 * caller's reference), or NULL with errno (EINVAL: no public key of those
 * types in @pem; ENOMEM).
 */
EVP_PKEY *keyless_stub(const char *pem, size_t len);

/* keyless_is_stub - whether @key is one keyless_stub made. */
int keyless_is_stub(const EVP_PKEY *key);

/*
 * keyless_register - what the keeper said of the key file @path (as the
 * configuration names it): its public half @pem and a note (@error, may be
 * NULL), or why it could not be used (@error, @pem NULL).
 * tls_material_load asks keyless_key_for. 0 or -ENOMEM.
 */
int keyless_register(const char *path, const char *pem, const char *error);

/*
 * keyless_key_for - the stub for the key file @path when the keeper said
 * something of it: 1 with *@key (the caller's reference) and its note in
 * @why (@size bytes), or 1 with *@key NULL and the reason in @why; 0 when
 * it said nothing (no keeper: the file is read as it is).
 */
int keyless_key_for(const char *path, EVP_PKEY **key, char *why, size_t size);

/* keyless_registry_free - forget what keyless_register was told. */
void keyless_registry_free(void);

#endif
