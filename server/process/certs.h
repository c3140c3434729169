/* SPDX-License-Identifier: MIT */
/*
 * certs.h - the TLS options of a configuration: checked, then loaded into
 * tls/ (which GnuTLS serves from), at start-up and on SIGHUP.
 */
#ifndef BENEATH_PROCESS_CERTS_H
#define BENEATH_PROCESS_CERTS_H

#include "conf.h"

#include <stdbool.h>

/* certs_wanted - whether @c has an https:// listener. */
bool certs_wanted(const struct conf *c);

/*
 * certs_check - which TLS options of @c go together (cert and key, password
 * file and key, self-signed or cert, an https:// listener and a
 * certificate); each problem is one line on stderr prefixed with @when.
 *
 * Returns the number of problems.
 */
int certs_check(const struct conf *c, const char *when);

/*
 * certs_load - load (or make) @c's certificate and hand it to GnuTLS for new
 * handshakes; on failure the old one stays (the message says so when @when
 * is not ""). Messages are prefixed with @when.
 *
 * Returns 0 or the -errno of tls_load.
 */
int certs_load(const struct conf *c, const char *when);

/*
 * certs_reload_due - whether a SIGHUP should load the certificate of @c
 * again: always for files, for a self-signed one only in its last days.
 */
bool certs_reload_due(const struct conf *c);

#endif
