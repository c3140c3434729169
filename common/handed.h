/* SPDX-License-Identifier: MIT */
/*
 * handed.h - the files a configuration names and the server reads again on
 * SIGHUP: the configuration file, each --auth htpasswd file, --redirects,
 * --headers-file, and the TLS certificates, keys and key password files.
 *
 * Every reader of them opens through handed_open. In a single process that
 * is open(2). Under privilege separation (server/process/keeper.h) the
 * serving process has no right to read those files (Landlock): the keeper
 * opens them at each SIGHUP and hands the descriptors over; the serving
 * process installs them as one set (handed_begin), re-reads its
 * configuration from them, and closes them (handed_end). From the first
 * set on, a path the keeper did not hand over is refused with EACCES, as
 * the sandbox would refuse it.
 *
 * One lock guards the set; a descriptor given out is a dup(2) rewound to
 * the start, closed by its caller as an opened one would be.
 */
#ifndef BENEATH_COMMON_HANDED_H
#define BENEATH_COMMON_HANDED_H

#include <stddef.h>

/* One file of a set: @path as the configuration names it, and the keeper's
 * descriptor for it, or -errno when the keeper could not open it. */
struct handed_file {
    char *path;
    int fd;
};

/* A set of them; zero is empty. */
struct handed_set {
    struct handed_file *v;
    size_t n, cap;
};

/*
 * handed_open - open(@path, @flags) for reading, or, once a keeper hands
 * files over, a dup of the descriptor it handed for @path (flags other
 * than O_CLOEXEC are the keeper's: read-only, non-blocking). Either way
 * only a regular file is given out: what is not one (a FIFO, a device, a
 * socket, a directory) is refused without waiting, and a path that names
 * one is not even opened (opening a device can do something; opening a
 * FIFO waits for a writer). The keeper opens what it hands over through
 * here too.
 * Returns a descriptor, or -1 with errno: EISDIR (a directory), EINVAL
 * (another file that is not regular: handed_strerror says so), EACCES
 * (not handed over), the keeper's own errno when it could not open @path,
 * or open(2)'s.
 */
int handed_open(const char *path, int flags);

/*
 * handed_open_path - handed_open by path alone, whether or not a keeper
 * hands files over: for files read only at start-up (--acme-ca-root).
 */
int handed_open_path(const char *path, int flags);

/*
 * handed_pem_certificate - whether the file at @path (handed_open_path)
 * holds a PEM certificate ("-----BEGIN CERTIFICATE-----" at a line's
 * start): the --acme-ca-root trust anchor, judged before it is used.
 * Returns 0, or -EINVAL with "PATH: why" in @why (@size bytes).
 */
int handed_pem_certificate(const char *path, char *why, size_t size);

/* handed_strerror - the reason for handed_open's @err: strerror, except
 * EINVAL: "not a regular file (a FIFO, socket or device)". */
const char *handed_strerror(int err);

/* handed_add - append @path with @fd (or -errno) to @s, which owns @fd from
 * now on (closed on failure too). 0 or -ENOMEM. */
int handed_add(struct handed_set *s, const char *path, int fd);

/* handed_clear - close and free what @s holds; @s is zero again. */
void handed_clear(struct handed_set *s);

/*
 * handed_begin - from now on handed_open answers from @s (its files move
 * in; @s is left zero), until handed_end closes them; after that, until the
 * next set, it refuses every path. Called by the serving process only.
 */
void handed_begin(struct handed_set *s);
void handed_end(void);

#endif
