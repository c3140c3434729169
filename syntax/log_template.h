/* SPDX-License-Identifier: MIT */
/*
 * log_template.h - the access log's --log-format: the named formats
 * (combined, combined+duration, json) and templates of named fields
 * ('$time $client "$request" $status $bytes $duration_us'), parsed once at
 * start-up into a list of literal runs and fields. libc only, so conf/
 * refuses a bad template with its FILE:LINE, and log.c renders the list.
 */
#ifndef BENEATH_SYNTAX_LOG_TEMPLATE_H
#define BENEATH_SYNTAX_LOG_TEMPLATE_H

#include <stddef.h>

/* The fields a template may name: X(ENUM, "name", "what it is"). */
#define LOG_FIELD_MAP(X)                                                       \
    X(TIME, "time", "end of the request, RFC 3339 UTC with milliseconds")      \
    X(TIME_LOCAL, "time_local", "the same as [%d/%b/%Y:%H:%M:%S %z] (CLF)")    \
    X(CLIENT, "client", "client address (the one behind --trusted-proxy)")     \
    X(USER, "user", "authenticated user (Basic), or -")                        \
    X(REQUEST, "request", "method, target and protocol as received")           \
    X(METHOD, "method", "request method")                                      \
    X(TARGET, "target", "raw request-target")                                  \
    X(PROTOCOL, "protocol", "HTTP/1.1, HTTP/1.0 or HTTP/2.0")                  \
    X(PROTO, "proto", "application protocol: http/1.1, http/1.0 or h2")        \
    X(STATUS, "status", "response status code")                                \
    X(BYTES, "bytes", "response body bytes written to the connection")         \
    X(ABORTED, "aborted", "1: the reply was cut short before its end, else 0") \
    X(DURATION_US, "duration_us",                                              \
      "microseconds from complete headers to the reply's last byte or abort")  \
    X(HOST, "host", "Host header as received, or -")                           \
    X(VHOST, "vhost", "the --vhost pattern or --sites site that served, or -") \
    X(TLS, "tls", "TLS version (TLS1.3), or -")                                \
    X(ENCODING, "encoding", "content coding served (br, zstd, gzip), or -")    \
    X(REFERER, "referer", "Referer header, or -")                              \
    X(AGENT, "agent", "User-Agent header, or -")                               \
    X(RESOLVER, "resolver", "resolver backend that answered, or -")            \
    X(ERRNO, "errno", "errno name of a refusal or failure, or -")              \
    X(SYMLINK, "symlink",                                                      \
      "a symlink refused for leaving the root: LINK -> TARGET (why), or -")

enum log_field {
#define LOG_FIELD_ENUM(e, name, help) LOG_FIELD_##e,
    LOG_FIELD_MAP(LOG_FIELD_ENUM)
#undef LOG_FIELD_ENUM
        LOG_FIELD_COUNT
};

enum log_kind {
    LOG_KIND_COMBINED,
    LOG_KIND_COMBINED_DURATION, /* combined, then duration_us=N */
    LOG_KIND_JSON,
    LOG_KIND_TEMPLATE,
};

/* Parts of a template at most; literal text between fields is one part. */
#define LOG_TEMPLATE_MAX_PARTS 64

struct log_template_part {
    int field;  /* enum log_field, or -1: literal text */
    size_t off; /* literal: offset in the template's text */
    size_t len; /* literal: bytes */
};

struct log_template {
    enum log_kind kind;
    const char *text; /* the spec as given (borrowed) */
    size_t n;
    struct log_template_part part[LOG_TEMPLATE_MAX_PARTS];
};

/*
 * log_template_parse - @spec is "combined", "combined+duration", "json",
 * or a template: literal text with $name or ${name} fields ($$ is a "$").
 * A template must name at least one field and holds no control characters.
 * @out borrows @spec for its literal parts. On error a message goes into
 * @err (@size bytes).
 *
 * Returns 0 or -EINVAL.
 */
int log_template_parse(const char *spec, struct log_template *out, char *err,
                       size_t size);

/* log_field_name - the name of @f ("duration_us"), or NULL. */
const char *log_field_name(int f);

/* log_field_help - the one-line description of @f, or NULL. */
const char *log_field_help(int f);

#endif
