/* SPDX-License-Identifier: MIT */
/*
 * request.h - one request as a transport read it: what every layer above
 * http/ is told about a request, and all it is told.
 *
 * A transport (libmicrohttpd for HTTP/1.1, nghttp2 for an HTTP/2 stream)
 * fills one struct request when the request's head is complete, and hands
 * it to respond(). Nothing above the transport asks the wire for a header:
 * the fields the server uses are the rows of REQUEST_FIELDS, each kept once
 * as the transport met it. Strings are the transport's and live until its
 * reply is written.
 */
#ifndef BENEATH_HTTP_REQUEST_H
#define BENEATH_HTTP_REQUEST_H

#include "http/arena.h"
#include "http/method.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/*
 * The fields the server reads: X(id, name, how). FIRST keeps the first
 * field line's value (what a server that reads one value does: a second
 * Range is not merged into the first); JOIN keeps every line's value
 * joined with ", " (a list field that proxies may send as several lines).
 */
#define REQUEST_FIELDS(X)                                                      \
    X(HOST, "Host", FIRST)                                                     \
    X(ACCEPT, "Accept", FIRST)                                                 \
    X(ACCEPT_ENCODING, "Accept-Encoding", FIRST)                               \
    X(AUTHORIZATION, "Authorization", FIRST)                                   \
    X(RANGE, "Range", FIRST)                                                   \
    X(IF_RANGE, "If-Range", FIRST)                                             \
    X(IF_MATCH, "If-Match", FIRST)                                             \
    X(IF_NONE_MATCH, "If-None-Match", FIRST)                                   \
    X(IF_MODIFIED_SINCE, "If-Modified-Since", FIRST)                           \
    X(IF_UNMODIFIED_SINCE, "If-Unmodified-Since", FIRST)                       \
    X(WANT_REPR_DIGEST, "Want-Repr-Digest", FIRST)                             \
    X(ORIGIN, "Origin", FIRST)                                                 \
    X(ACCESS_CONTROL_REQUEST_METHOD, "Access-Control-Request-Method", FIRST)   \
    X(ACCESS_CONTROL_REQUEST_HEADERS, "Access-Control-Request-Headers", JOIN)  \
    X(REFERER, "Referer", FIRST)                                               \
    X(USER_AGENT, "User-Agent", FIRST)                                         \
    X(FORWARDED, "Forwarded", JOIN)                                            \
    X(X_FORWARDED_FOR, "X-Forwarded-For", JOIN)

enum request_field {
#define REQUEST_FIELD_ID(id, name, how) RF_##id,
    REQUEST_FIELDS(REQUEST_FIELD_ID)
#undef REQUEST_FIELD_ID
        RF_N
};

enum http_version {
    HTTP_VERSION_1_0,
    HTTP_VERSION_1_1,
    HTTP_VERSION_2,
    HTTP_VERSION_N
};

struct request {
    enum http_method method;
    const char *method_name; /* the token as sent (for the log) */
    /*
     * The raw request-target as received: still percent-encoded, with its
     * query ("/a%20b?x=1"), "*", or absolute-form. http/target.c decodes it.
     */
    const char *target;
    enum http_version version;
    const char *version_name;  /* "HTTP/1.1", "HTTP/2.0" (the log) */
    const char *field[RF_N];   /* NULL: absent */
    unsigned char count[RF_N]; /* field lines met (saturates at 255) */
    /* the connection */
    const struct sockaddr *peer; /* the client's address, or NULL */
    socklen_t peer_len;
    const char *peer_text;   /* that address as text, "unix", or "-" */
    bool tls;                /* came over TLS */
    const char *tls_version; /* "TLSv1.3", or NULL */
    const char *listener;    /* the --listen value it came in on, or NULL */
};

/*
 * request_proto_name - the application protocol of @v as ALPN names it
 * ("http/1.0", "http/1.1", "h2"): the access log's proto, the metrics'
 * label.
 */
const char *request_proto_name(enum http_version v);

/* request_field_name - the canonical name of @f ("If-None-Match"). */
const char *request_field_name(enum request_field f);

/*
 * request_field_of - the row of the field named @name (@len bytes, any
 * case), or -1 when the server does not read that field.
 */
int request_field_of(const char *name, size_t len);

/*
 * request_field_joined - whether @f keeps every line (JOIN) rather than
 * the first.
 */
bool request_field_joined(enum request_field f);

/*
 * request_add_field - a field line the transport met: kept when the server
 * reads that field (the first line, or every line of a JOIN field, joined
 * in @a), else ignored. @value need not be NUL-terminated; a FIRST value is
 * copied into @a only when it is not (@value_nul false).
 *
 * Returns 0, or -ENOMEM (the field is then as before).
 */
int request_add_field(struct request *rq, struct arena *a, const char *name,
                      size_t name_len, const char *value, size_t value_len,
                      bool value_nul);

/* request_get - the value of @f in @rq, or NULL. */
static inline const char *request_get(const struct request *rq,
                                      enum request_field f)
{
    return rq->field[f];
}

/*
 * request_query_param - the value of the query parameter @name in the raw
 * target's query (after '?'), percent-decoded (and '+' as a space) into
 * @buf of @size bytes; the first occurrence.
 *
 * Returns @buf, or NULL when the parameter is absent, malformed or longer
 * than @size - 1.
 */
const char *request_query_param(const char *target, const char *name, char *buf,
                                size_t size);

#endif
