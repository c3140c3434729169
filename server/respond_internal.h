/* SPDX-License-Identifier: MIT */
/*
 * respond_internal.h - what respond.c (a request's way to its plan: methods,
 * built-in paths, access rules, rewrites, the kinds of plan) and
 * respond_file.c (a regular file's response: validators, conditionals,
 * Range and several ranges, compression on the fly, the reply cache) share.
 * respond.h is the interface.
 */
#ifndef BENEATH_RESPOND_INTERNAL_H
#define BENEATH_RESPOND_INTERNAL_H

#include "respond.h"

#include <stdbool.h>
#include <stdint.h>

/* The per-request context shared by the helpers below. */
struct req {
    struct MHD_Connection *c;
    const struct respond_conf *conf;
    enum http_method method;
    struct respond_result *res;
    struct plan *plan;  /* NULL for answers decided before any lookup */
    bool vary_accept;   /* the listing depends on Accept */
    bool vary_compress; /* the file is compressed on the fly for some */
    bool tls;           /* the connection is HTTPS */
    /* access rules (access.h); all NULL without any */
    const struct access_view *av;
    const char *norm;                /* the normalised request path */
    const char *challenge;           /* WWW-Authenticate of a 401 */
    const struct access_headers *ah; /* headers files' headers for norm */
    struct cors_reply cors;          /* --cors: its headers */
    const struct access_site *site;  /* the site (its --mount table), or
                                        NULL for an answer without a path */
};

/* The request header @name, or NULL. */
const char *req_header(struct req *r, const char *name);

/* The headers every response carries. */
void req_common_headers(struct req *r, struct MHD_Response *resp);

/*
 * req_deliver - queue @resp, complete with its headers, with @status; release
 * our reference unless @kept (the reply cache holds it).
 */
enum MHD_Result req_deliver(struct req *r, unsigned status,
                            struct MHD_Response *resp, uint64_t body,
                            bool kept);

/* req_queue - add the common headers, queue @resp with @status, release it. */
enum MHD_Result req_queue(struct req *r, unsigned status,
                          struct MHD_Response *resp, uint64_t body);

/* req_simple - a small built-in HTML body for @status. */
enum MHD_Result req_simple(struct req *r, unsigned status);

/* respond_file - the response to a plan of kind PLAN_FILE. */
enum MHD_Result respond_file(struct req *r);

#endif
