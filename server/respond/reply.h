/* SPDX-License-Identifier: MIT */
/*
 * reply.h - the answer to one request as data: status, header fields, the
 * body's source, and what the access log says of it.
 *
 * respond() fills a struct reply; a transport writes it in its own wire
 * form (libmicrohttpd's response, HTTP/2 HEADERS and DATA) and then calls
 * reply_release, which gives back what the reply owns: the file
 * descriptor of an fd body, the reference of a bytes body, heap strings.
 * A transport never adds a field of its own but the framing ones
 * (Content-Length, Transfer-Encoding, Date, Connection; HTTP/2's
 * pseudo-fields).
 */
#ifndef BENEATH_RESPOND_REPLY_H
#define BENEATH_RESPOND_REPLY_H

#include "http/multipart.h"
#include "resolver.h"
#include "syntax/host.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum reply_body {
    REPLY_BODY_NONE,      /* no bytes to send (see reply.head) */
    REPLY_BODY_BYTES,     /* @length bytes at @data */
    REPLY_BODY_FD,        /* @length bytes of @fd from @offset */
    REPLY_BODY_MULTIPART, /* the multipart/byteranges body @mp plans, its
                             file bytes read from @fd; @length = mp->total */
    REPLY_BODY_STREAM,    /* bytes read from @stream until it ends; @length
                             is REPLY_LENGTH_UNKNOWN */
};

/* The length of a body made while it is sent: no Content-Length goes out
 * (HTTP/1.1 chunks it, HTTP/2 ends it with the stream), on a HEAD or a 304
 * of that body too. */
#define REPLY_LENGTH_UNKNOWN UINT64_MAX

/* A body read as it is made (REPLY_BODY_STREAM). */
struct reply_stream {
    void *arg;
    /* the next bytes into @buf, at most @n: the count, 0 at the end, or
       -errno (the transport then cuts the response short) */
    ssize_t (*read)(void *arg, char *buf, size_t n);
    void (*close)(void *arg); /* once, when the body is done with */
};

struct reply_field {
    const char *name;
    const char *value;
};

/* What was answered, for the access log and the metrics. */
struct respond_result {
    unsigned status;
    char user[128];                /* authenticated user (Basic), or "" */
    char client[48];               /* the client behind a trusted proxy, or
                                      "" (the peer is the client) */
    const char *vhost;             /* the --vhost pattern that served, or
                                      NULL (static while the server runs) */
    char site[HOST_MAX];           /* --sites: the site that served, or "" */
    uint64_t bytes;                /* body bytes sent (0 for HEAD, 304) */
    int err;                       /* errno of a refusal or failure, or 0 */
    enum resolver_backend backend; /* DEFAULT when the resolver was not used */
    const char *encoding; /* content coding of the body sent (a static string:
                             "br", "zstd", "gzip"), or NULL: identity */
    bool cache_hit;       /* the reply came from the reply cache */
    /* a refusal (EXDEV) of a symlink that left: "LINK -> TARGET (why)" */
    char symlink[2 * RESOLVER_ESCAPE_MAX + 96];
};

struct reply_entry;
struct reply_wire;

#define REPLY_FIELDS_INLINE 24
#define REPLY_SCRATCH 768

struct reply {
    unsigned status;
    /*
     * No body bytes go out (HEAD, 304, 204): the fields still describe the
     * body a GET would get, and @length is its Content-Length (RFC 9110
     * 8.6: a 304 may only carry the length a 200 would have).
     */
    bool head;
    uint64_t length; /* bytes of the body (sent or not) */
    enum reply_body body;
    const char *data;           /* BYTES */
    void (*release)(void *arg); /* BYTES: called once, at release */
    void *release_arg;
    int fd;                     /* FD, MULTIPART: owned; else -1 */
    uint64_t offset;            /* FD */
    struct multipart *mp;       /* MULTIPART: owned */
    struct reply_stream stream; /* STREAM: owned (its close is called) */
    /*
     * From the reply cache: the entry the fields and body are borrowed
     * from (its reference is the bytes body's, released with it), and the
     * calling thread's slot where a transport may keep its wire form of
     * that entry (valid until this thread's next respond()).
     */
    struct reply_entry *cached;
    struct reply_wire *wire;
    /* what the fields borrow besides the generation (a site's _headers):
     * @unhold(@hold) at release */
    void (*unhold)(void *hold);
    void *hold;
    struct respond_result res;

    /* the fields, in order; grow onto the heap past the inline ones */
    struct reply_field *field;
    size_t n_fields, cap_fields;
    bool failed; /* out of memory while adding a field: answer 500 */
    size_t scratch_used;
    char **owned; /* heap strings freed at release */
    size_t n_owned;
    /* last: reply_init clears what is before them */
    struct reply_field inline_fields[REPLY_FIELDS_INLINE];
    char scratch[REPLY_SCRATCH]; /* formatted values (reply_addf) */
};

/* reply_init - an empty reply (status 0, no fields, no body). */
void reply_init(struct reply *r);

/*
 * reply_add - append the field @name: @value. Both strings must outlive
 * the reply's writing: static text, the configuration generation the
 * request holds, or the reply's own (reply_addf, reply_own).
 */
void reply_add(struct reply *r, const char *name, const char *value);

/* reply_addf - append @name with a value formatted into the reply. */
__attribute__((format(printf, 3, 4))) void
reply_addf(struct reply *r, const char *name, const char *fmt, ...);

/* reply_hold - keep @hold until the reply is released, then call
 * @unhold(@hold): what its fields point into. One per reply. */
void reply_hold(struct reply *r, void (*unhold)(void *hold), void *hold);

/* reply_own - hand the heap string @s to the reply (freed at release);
 * returns @s, or NULL (then @s was freed and the reply marked failed). */
char *reply_own(struct reply *r, char *s);

/* reply_get - the value of the first field named @name (any case), or
 * NULL. */
const char *reply_get(const struct reply *r, const char *name);

/* reply_set_bytes - the body is @len bytes at @data, released by
 * @release(@arg) (NULL: static). */
void reply_set_bytes(struct reply *r, const char *data, uint64_t len,
                     void (*release)(void *), void *arg);

/* reply_set_fd - the body is @len bytes of @fd (owned now) from @offset. */
void reply_set_fd(struct reply *r, int fd, uint64_t offset, uint64_t len);

/* reply_set_stream - the body is read from @s (owned now) as it is made;
 * its length is not known before the end. */
void reply_set_stream(struct reply *r, const struct reply_stream *s);

/*
 * reply_drop_body - no body bytes will be sent (HEAD, 304): what the reply
 * holds for the body is released now, @length stays.
 */
void reply_drop_body(struct reply *r);

/* reply_release - give back everything @r owns; @r is empty afterwards. */
void reply_release(struct reply *r);

#endif
