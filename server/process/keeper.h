/* SPDX-License-Identifier: MIT */
/*
 * keeper.h - privilege separation: the records the keeper and its serving
 * processes exchange. The keeper (the PID the user started and signals;
 * systemd's main PID; keeper_main.c) binds the listening sockets, drops
 * privileges, reads what the serving processes may not (the configuration,
 * TLS keys, htpasswd and rule files), runs the ACME manager, and starts
 * each serving process as a new image of its binary (spawn.h): one at
 * start, one more at each SIGHUP, with the configuration as it is then.
 *
 * A serving process learns everything over a SOCK_SEQPACKET socketpair,
 * one record per datagram: the files its configuration names (KEEPER_FILE,
 * the descriptors opened by the keeper; common/handed.h) but the keys, the
 * public half of each key (KEEPER_KEY; the keeper keeps the key and makes
 * its private operations, asked over the socket of KEEPER_SIGNER:
 * tls/keyless.h), the listening sockets (KEEPER_LISTENER, KEEPER_METRICS),
 * the ACME records in force, then KEEPER_GO with its generation. It starts,
 * says KEEPER_READY, and serves until KEEPER_DRAIN (a newer one serves: stop
 * accepting, finish, exit) or KEEPER_STOP (SIGTERM or SIGINT to the keeper; a
 * second one stops at once). It takes no signal itself (one PID to signal: a
 * signal sent to both, by pkill or a terminal's ^C, acts once). If the keeper
 * ends, a serving process sees its socket close and stops (drained).
 */
#ifndef BENEATH_PROCESS_KEEPER_H
#define BENEATH_PROCESS_KEEPER_H

#include "common/handed.h"

#include <stdbool.h>
#include <sys/types.h>

/* What goes over the socketpair, one record per datagram. */
enum keeper_record {
    KEEPER_FILE = 1, /* keeper -> serving: a path, its fd or -errno */
    KEEPER_LISTENER, /* keeper -> serving: a listening socket, its URL and
                        "tls" or "plain" */
    KEEPER_METRICS,  /* keeper -> serving: --metrics-listen's socket, URL */
    KEEPER_READY,    /* serving -> keeper: serving */
    KEEPER_STOP,     /* keeper -> serving: its SIGTERM or SIGINT (val) */
    KEEPER_GO,       /* keeper -> serving: all is there; val: generation */
    KEEPER_DRAIN,    /* keeper -> serving: a newer generation serves */
    KEEPER_DRAINING, /* serving -> keeper: it accepts no more */
    KEEPER_KEY,      /* keeper -> serving: a key file's path and public
                        half (PEM), or "" and why it cannot be used */
    KEEPER_SIGNER,   /* keeper -> serving: the socket its keys' private
                        operations go to (tls/keyless.h) */
    /* --acme (acme_serve.h): keeper -> serving, each answered KEEPER_ACK
     * with its val (a sequence number) once applied */
    KEEPER_CERT,        /* a certificate to serve */
    KEEPER_HTTP01,      /* an HTTP-01 token and its key authorization */
    KEEPER_HTTP01_DROP, /* a token done with */
    KEEPER_TLSALPN01,   /* a TLS-ALPN-01 name, key authorization, PEMs */
    KEEPER_TLSALPN01_DROP,
    KEEPER_ACK, /* serving -> keeper */
    /* --acme-on-demand: serving -> keeper, a name a handshake asked for
     * that has a site; keeper -> serving, the same name with val -errno
     * when none will be got for it now (refused or rate-limited) */
    KEEPER_ONDEMAND,
};

/* One record: its payload is NUL-separated text fields. */
struct keeper_msg {
    int type;
    int val;
    char *data; /* NUL-terminated after @len; fields split by NULs */
    size_t len;
    int fd; /* passed beside it, or -1 */
};

/* The largest payload (a certificate chain and its key fit). */
#define KEEPER_PAYLOAD_MAX ((size_t)64 * 1024)

/*
 * keeper_send - one record of @type with @val, the @n text fields @fields
 * joined by NULs, and @passed (an fd, or -1) beside it. Any thread.
 * Returns 0 or -errno (-EMSGSIZE past KEEPER_PAYLOAD_MAX).
 */
int keeper_send(int fd, int type, int val, const char *const *fields, size_t n,
                int passed);

/*
 * keeper_field - the @i-th NUL-separated field of @m's payload, or NULL.
 */
const char *keeper_field(const struct keeper_msg *m, size_t i);

/*
 * keeper_attach - post (keeper_post) to @fd from now on, until
 * keeper_detach. Any thread. Returns 0 or -ENOMEM.
 */
int keeper_attach(int fd);
void keeper_detach(int fd);

/*
 * keeper_post - send a record to every attached serving process, and
 * remember what is in force for those started later (keeper_replay): the
 * last KEEPER_CERT of each index (field 0), each KEEPER_HTTP01 token and
 * KEEPER_TLSALPN01 name (field 0) until its _DROP. Any thread.
 * Returns 0, or the first -errno of a send (-ENOMEM: not remembered).
 */
int keeper_post(int type, int val, const char *const *fields, size_t n);

/* keeper_replay - send what is in force to @fd. 0 or -errno. */
int keeper_replay(int fd);

/* keeper_forget - what was posted is no longer in force (a new manager). */
void keeper_forget(void);

/*
 * keeper_acked - wait (the ACME thread, at most @ms) until the serving
 * process has acknowledged record @seq. keeper_next_seq gives numbers.
 * Returns 0, -ETIMEDOUT or -ECANCELED (keeper_acks_end).
 */
int keeper_acked(int seq, int ms);
int keeper_next_seq(void);

/* keeper_ack_seen - a serving process acknowledged @seq (KEEPER_ACK). */
void keeper_ack_seen(int seq);

/*
 * keeper_acks_end - the keeper stops: every wait in keeper_acked, now and
 * later, returns -ECANCELED at once (no serving process will answer).
 */
void keeper_acks_end(void);

/* ---- the serving process's side ---- */

/*
 * keeper_recv - read one record into @m (release it with
 * keeper_msg_release). Returns 1, 0 when the other side is gone, or
 * -errno (-EPROTO: a malformed record).
 */
int keeper_recv(int fd, struct keeper_msg *m);
void keeper_msg_release(struct keeper_msg *m);

/* keeper_stop - tell a serving process to stop, as on @signo. */
void keeper_stop(int fd, int signo);

/* keeper_tell - send a record of @type alone (READY, DRAIN). */
void keeper_tell(int fd, enum keeper_record type);

#endif
