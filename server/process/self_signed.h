/* SPDX-License-Identifier: MIT */
/*
 * self_signed.h - the --tls-self-signed certificate kept across starts in
 * the state directory, so that a browser told to trust it once is not
 * asked again at every start: DIR/tls-self-signed/cert.pem and key.pem
 * (0600; the directories 0700).
 */
#ifndef BENEATH_PROCESS_SELF_SIGNED_H
#define BENEATH_PROCESS_SELF_SIGNED_H

#include "tls/material.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* A kept certificate with fewer days left than this is made anew. */
#define SELF_SIGNED_RENEW_DAYS 7

/* The subdirectory of the state directory that holds the two files. */
#define SELF_SIGNED_SUBDIR "tls-self-signed"

/*
 * self_signed_state_dir - the state directory when --state-dir is not
 * given (@env: the process environment): $STATE_DIRECTORY (the first of
 * its list; systemd's StateDirectory=), else $XDG_STATE_HOME/beneath, else
 * $HOME/.local/state/beneath, into @buf (@size bytes). Returns @buf, or
 * NULL when none of them is set (or the path does not fit).
 */
const char *self_signed_state_dir(char *const *env, char *buf, size_t size);

/*
 * self_signed_get - the self-signed certificate for this start into @m:
 * the one kept in @dir (NULL: none is kept) when it is one of ours with
 * more than SELF_SIGNED_RENEW_DAYS left at @now, else a new one
 * (TLS_MATERIAL_SELF_SIGNED_DAYS), written to @dir unless @dry. The one
 * place the key is read from or written to the state directory.
 *
 * Returns 0, or the -errno of tls_material_self_signed (@d->error says
 * why). What happened to the kept copy goes to @note (@size bytes): "kept
 * in DIR", "read from DIR", or why it could not be kept (then the new one
 * serves this run only).
 */
int self_signed_get(const char *dir, bool dry, time_t now,
                    struct tls_material *m, struct tls_material_diag *d,
                    char *note, size_t size);

#endif
