/* SPDX-License-Identifier: MIT */
/*
 * keeper.h - privilege separation. With the sandbox on, beneath runs as two
 * processes: the keeper (the PID the user started and signals; systemd's
 * main PID) and its one child, the serving process. Everything up to the
 * listeners bound and the certificates loaded is done once, before they
 * part (main.c); then:
 *
 *  - the serving process confines itself (sandbox.h) with no read right on
 *    the files a SIGHUP re-reads (conf_reread_files: the configuration,
 *    TLS certificates, keys and key password files, htpasswd and rule
 *    files) and serves;
 *  - the keeper releases everything the serving process holds (listeners,
 *    roots, caches, the TLS store with its keys), drops privileges like the
 *    serving process (--user), raises its own seccomp list, and waits.
 *
 * On SIGHUP the keeper reads the configuration, opens each file it names
 * and hands the descriptors over a SOCK_SEQPACKET socketpair, then says
 * "reload"; the serving process re-reads its configuration from them
 * (common/handed.h) as one process would from the paths, and closes them.
 * SIGTERM and SIGINT are passed on as a "stop" record (a second one stops
 * at once); the serving process takes no signal itself (one PID to signal:
 * a signal sent to both, by pkill or a terminal's ^C, acts once; a kill(2)
 * from the keeper could merge with one of those while pending). READY=1 (and
 * after a reload) is sent to systemd by the keeper when the serving process
 * says so. If the serving process ends, the keeper exits with its status; if
 * the keeper ends, the serving process sees its socket close and stops
 * (drained).
 */
#ifndef BENEATH_PROCESS_KEEPER_H
#define BENEATH_PROCESS_KEEPER_H

#include "common/handed.h"

#include <stdbool.h>
#include <sys/types.h>

/* What goes over the socketpair, one record per datagram. */
enum keeper_record {
    KEEPER_FILE = 1, /* keeper -> serving: a path, its fd or -errno */
    KEEPER_RELOAD,   /* keeper -> serving: the files are all there */
    KEEPER_READY,    /* serving -> keeper: serving (again) */
    KEEPER_STOP,     /* keeper -> serving: its SIGTERM or SIGINT (val) */
    KEEPER_GO,       /* keeper -> serving: its start-up line is out */
    /* --acme (acme_serve.h): keeper -> serving, each answered KEEPER_ACK
     * with its val (a sequence number) once applied */
    KEEPER_CERT,        /* a certificate to serve */
    KEEPER_HTTP01,      /* an HTTP-01 token and its key authorization */
    KEEPER_HTTP01_DROP, /* a token done with */
    KEEPER_TLSALPN01,   /* a TLS-ALPN-01 name, key authorization, PEMs */
    KEEPER_TLSALPN01_DROP,
    KEEPER_ACK, /* serving -> keeper */
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
 * keeper_split - fork into the keeper (the caller, *@child the serving
 * process's PID) and the serving process (*@child 0); *@fd is this side's
 * end of the socketpair. Signals must be blocked already.
 * Returns 0, or -errno (nothing forked).
 */
int keeper_split(pid_t *child, int *fd);

/*
 * keeper_run - the keeper's life, once it holds nothing of the serving
 * process: signals and records until the serving process @child ends.
 * @argc/@argv: what conf_load reads again on SIGHUP. Returns the exit
 * status (the serving process's; 1 if it was killed).
 */
int keeper_run(int fd, pid_t child, int argc, char **argv);

/* keeper_stop - tell the serving process to stop (as on SIGTERM). */
void keeper_stop(int fd);

/*
 * keeper_acked - wait (the ACME thread, at most @ms) until the serving
 * process has acknowledged record @seq. keeper_next_seq gives numbers.
 * Returns 0 or -ETIMEDOUT.
 */
int keeper_acked(int seq, int ms);
int keeper_next_seq(void);

/* ---- the serving process's side ---- */

/*
 * keeper_recv - read one record into @m (release it with
 * keeper_msg_release). Returns 1, 0 when the other side is gone, or
 * -errno (-EPROTO: a malformed record).
 */
int keeper_recv(int fd, struct keeper_msg *m);
void keeper_msg_release(struct keeper_msg *m);

/* keeper_tell - send a record of @type alone (READY, GO, RELOAD). */
void keeper_tell(int fd, enum keeper_record type);

#endif
