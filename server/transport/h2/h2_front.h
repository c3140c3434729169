/* SPDX-License-Identifier: MIT */
/*
 * h2_front.h - an HTTP/2 session (h2.h) served on the TLS front's loop
 * (front.h): what a daemon's front_ops.h2 does with a connection that
 * chose "h2" by ALPN, or, on a cleartext listener the front serves, began
 * with the prior-knowledge preface (front/preface.h).
 */
#ifndef BENEATH_TRANSPORT_H2_H2_FRONT_H
#define BENEATH_TRANSPORT_H2_H2_FRONT_H

#include "transport/front/front.h"
#include "transport/h2/h2.h"

/*
 * h2_front_attach - serve @fc (its SSL, or its socket when it has none)
 * as an HTTP/2 connection with @conf (borrowed for the session's life):
 * sets @fc->session and @fc->session_data, handles the bytes already
 * there (the preface may have come with the handshake) and sets what the
 * loop waits for and the connection's deadline. On the loop's thread.
 *
 * Returns 0; -ENOMEM; or -ECONNRESET when the connection ended at once
 * (then @fc has no session and the caller closes it).
 */
int h2_front_attach(const struct h2_conf *conf, struct front_conn *fc);

#endif
