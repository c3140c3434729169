/* SPDX-License-Identifier: MIT */
/*
 * certs.h - the TLS options of a configuration: checked, then loaded into
 * the certificate store the TLS front serves from (tls/store.h), at
 * start-up and on SIGHUP.
 */
#ifndef BENEATH_PROCESS_CERTS_H
#define BENEATH_PROCESS_CERTS_H

#include "conf.h"
#include "tls/store.h"

#include <stdbool.h>

/*
 * The self-signed certificate is made (or read from --state-dir) by the
 * keeper, which keeps its key: the serving process is given the
 * certificate under this name, and the key's public half under the other
 * (keeper.h).
 */
#define CERTS_SELF_SIGNED_CERT "(self-signed)/cert.pem"
#define CERTS_SELF_SIGNED_KEY "(self-signed)/key.pem"

/*
 * certs_each - each certificate of @c's files (NAME "" for the default):
 * @fn with its NAME and its --tls-cert, --tls-key and
 * --tls-key-password-file (or NULL) paths. Only what certs_check accepts
 * is meaningful; nothing is printed.
 */
void certs_each(const struct conf *c,
                void (*fn)(const char *name, const char *cert, const char *key,
                           const char *password, void *arg),
                void *arg);

/*
 * certs_state_dir - @c's state directory (--state-dir, or its default)
 * into @buf; NULL: --state-dir off, or no default can be found.
 */
const char *certs_state_dir(const struct conf *c, char *buf, size_t size);

/* certs_wanted - whether @c has an https:// listener. */
bool certs_wanted(const struct conf *c);

/*
 * certs_check - which TLS options of @c go together (each cert with its
 * key, a password file with a key, NAMEs that are --vhost names, the
 * self-signed or a default cert, an https:// listener and a certificate
 * or --acme,
 * a cipher list OpenSSL takes); each problem is one line on stderr
 * prefixed with @when.
 *
 * Returns the number of problems.
 */
int certs_check(const struct conf *c, const char *when);

/*
 * certs_open - make the store, with the TLS settings of @c (cipher list;
 * they stay until a restart) and the first session ticket key.
 * Returns 0 or -errno after a line on stderr.
 * certs_store - the store (NULL before certs_open).
 * certs_close - release the store and wipe the ticket keys (no TLS front
 * running).
 */
int certs_open(const struct conf *c);
struct tls_store *certs_store(void);
void certs_close(void);

/*
 * certs_load - load @c's certificates (and make the self-signed one, or a
 * new one in its last days) into the store for new handshakes, and drop
 * those @c no longer names. Each is loaded on its own; one that fails
 * keeps its old certificate (the message says so when @when is not "").
 * Messages are prefixed with @when.
 *
 * Returns 0, or the first -errno of tls_material_load,
 * tls_material_self_signed or tls_store_put (-EINVAL: the options do not
 * go together).
 */
int certs_load(const struct conf *c, const char *when);

/*
 * certs_keep - keep @name (normalised; copied) in the store across every
 * certs_load: a certificate ACME installs, which no option names.
 * Returns 0 or -ENOMEM.
 */
int certs_keep(const char *name);

#endif
