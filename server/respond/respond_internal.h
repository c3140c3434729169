/* SPDX-License-Identifier: MIT */
/*
 * respond_internal.h - what respond.c (a request's way to its plan:
 * methods, built-in paths, access rules, rewrites, the kinds of plan, the
 * one error exit) and respond_file.c (a regular file's reply: validators,
 * conditionals, Range, variants, the reply cache) share. respond.h is the
 * interface.
 */
#ifndef BENEATH_RESPOND_RESPOND_INTERNAL_H
#define BENEATH_RESPOND_RESPOND_INTERNAL_H

#include "access/access.h"
#include "respond/respond.h"

#include <stdbool.h>
#include <stdint.h>

/* The per-request context shared by the helpers below. */
struct req {
    const struct request *rq;
    const struct respond_conf *conf;
    struct reply *out;
    struct files_request *lookup; /* what lookup is asked (the site's root) */
    struct plan *plan;  /* NULL for answers decided before any lookup */
    bool vary_accept;   /* the listing depends on Accept */
    bool vary_compress; /* the file is compressed on the fly for some */
    /* access rules (access.h); all NULL without any */
    const struct access_view *av;
    const char *norm;                /* the normalised request path */
    const char *challenge;           /* WWW-Authenticate of a 401 */
    const struct access_headers *ah; /* headers files' headers for norm */
    struct cors_reply cors;          /* --cors: its fields for this reply */
    const struct access_site *site;  /* the site (its --mount table), or
                                        NULL for an answer without a path */
};

/* The request field @f, or NULL. */
static inline const char *req_field(const struct req *r, enum request_field f)
{
    return r->rq->field[f];
}

/* req_common_headers - the fields every reply carries (nosniff, --header,
 * the headers files', Vary, Server-Timing, HSTS). */
void req_common_headers(struct req *r);

/*
 * req_finish - the reply is complete: @status, the common fields (and the
 * challenge of a 401), the body's bytes for the log.
 */
void req_finish(struct req *r, unsigned status);

/*
 * req_fail - the one error exit: @status with its error page (a file
 * looked up like any other, never a success) or the built-in page.
 */
void req_fail(struct req *r, unsigned status);

/* req_page - r->plan, a PLAN_PAGE, as the reply: the file with its status. */
void req_page(struct req *r);

/* req_simple - the built-in page of @status as the whole reply (with Allow
 * for a 405). */
void req_simple(struct req *r, unsigned status);

/* req_builtin_page - the small built-in HTML body of @status, with its
 * Content-Type; the fields common to every reply are left to the caller. */
void req_builtin_page(struct req *r, unsigned status);

/* respond_file - the reply to a plan of kind PLAN_FILE (the plan is
 * released or taken over). */
void respond_file(struct req *r);

#endif
