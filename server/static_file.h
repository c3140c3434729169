/* SPDX-License-Identifier: MIT */
/*
 * static_file.h - answer one request from the document root.
 *
 * The request's way (DESIGN.md): decode the target -> resolver_open from the
 * root fd -> errno -> status -> fstat the fd -> regular file (validators,
 * conditionals, Range, body by sendfile), directory (redirect, index,
 * listing) or anything else (403).
 */
#ifndef STATIC_FILE_H
#define STATIC_FILE_H

#include "resolver.h"

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* The part of the configuration that shapes responses. */
struct static_file_conf {
    uint64_t confine; /* RESOLVER_* flags */
    char *const *index;
    size_t n_index;
    bool listing;
    bool dotfiles; /* allow hidden files */
};

enum static_file_method {
    STATIC_FILE_GET,
    STATIC_FILE_HEAD,
    STATIC_FILE_OPTIONS,
    STATIC_FILE_OTHER,
};

/* What was answered, for the access log. */
struct static_file_result {
    unsigned status;
    uint64_t bytes;                /* body bytes queued (0 for HEAD, 304) */
    int err;                       /* errno of a refusal or failure, or 0 */
    enum resolver_backend backend; /* DEFAULT when the resolver was not used */
};

/* ETag of a file: "MTIMENS-SIZE" in hex, quoted; fits 40 bytes. */
#define STATIC_FILE_ETAG_LEN 40

/*
 * static_file_etag - the entity-tag of @st into @buf. The one place that
 * decides what an ETag is.
 */
void static_file_etag(const struct stat *st, char buf[STATIC_FILE_ETAG_LEN]);

/*
 * static_file_method - classify the method token @method.
 */
enum static_file_method static_file_method(const char *method);

/*
 * static_file_respond - build and queue the response to one request.
 * @c: the connection (for request headers and MHD_queue_response).
 * @root_fd: the document root, borrowed.
 * @raw: the raw request-target; @buf of @size >= strlen(@raw) + 1 bytes is
 *       scratch space for the decoded path.
 * @res: filled with what was answered.
 *
 * Returns MHD_queue_response's result (MHD_NO when even a 500 could not be
 * built: MHD then closes the connection).
 */
enum MHD_Result static_file_respond(struct MHD_Connection *c,
                                    const struct static_file_conf *conf,
                                    int root_fd, enum static_file_method method,
                                    const char *raw, char *buf, size_t size,
                                    struct static_file_result *res);

#endif
