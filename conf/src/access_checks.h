/* SPDX-License-Identifier: MIT */
/*
 * access_checks.h - the access options' value type and the syntax checks
 * of their values (auth, allow/deny/trusted-proxy, vhost, error-page,
 * auth-realm, mount), for the option table. Each writes a sentence to @err
 * (ERR_MAX bytes) and returns -EINVAL, or returns 0.
 */
#ifndef BENEATH_CONF_ACCESS_CHECKS_H
#define BENEATH_CONF_ACCESS_CHECKS_H

#include "internal.h"

/*
 * t_items - a repeatable text option kept as given: each use appends one
 * item (checked by the row's check) to a struct conf_strv.
 */
extern const struct type t_items;

int conf_check_auth(const char *item, char *err);
int conf_check_cidrs(const char *item, char *err);
int conf_check_trusted_proxy(const char *item, char *err);
int conf_check_vhost(const char *item, char *err);
int conf_check_error_page(const char *item, char *err);
int conf_check_realm(const char *item, char *err);
int conf_check_mount(const char *item, char *err);
int conf_check_follow_into(const char *item, char *err);

/*
 * conf_follow_into_finish - the check across options: --follow-into needs
 * beneath in --confine (in-root keeps every link in the root, none follows
 * every link). Returns 0, or -EINVAL after a message in @diag (-ENOMEM).
 */
int conf_follow_into_finish(const struct conf *c, struct conf_diag *diag);
/* --mime EXT=TYPE, --default-type TYPE (mime_load.c) */
int conf_check_mime(const char *item, char *err);
int conf_check_default_type(const char *type, char *err);
/* A --tls-cert/--tls-key/--tls-key-password-file item: [NAME=]FILE. */
int conf_check_tls_item(const char *item, char *err);

#endif
