// SPDX-License-Identifier: MIT
/*
 * reply.c - building and releasing a struct reply (reply.h).
 *
 * Out of memory while a field is added marks the reply failed; respond()
 * then answers a bare 500 instead (a reply with a field silently missing
 * could lack a security header).
 */
#include "respond/reply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

void reply_init(struct reply *r)
{
    /* not the inline arrays: they are written before they are read */
    memset(r, 0, offsetof(struct reply, inline_fields));
    r->fd = -1;
    r->field = r->inline_fields;
    r->cap_fields = REPLY_FIELDS_INLINE;
}

void reply_add(struct reply *r, const char *name, const char *value)
{
    if (r->n_fields == r->cap_fields) {
        size_t cap = r->cap_fields * 2;
        struct reply_field *f = r->field == r->inline_fields
                                    ? malloc(cap * sizeof *f)
                                    : realloc(r->field, cap * sizeof *f);

        if (!f) {
            r->failed = true;
            return;
        }
        if (r->field == r->inline_fields)
            memcpy(f, r->inline_fields, sizeof r->inline_fields);
        r->field = f;
        r->cap_fields = cap;
    }
    r->field[r->n_fields++] = (struct reply_field){name, value};
}

void reply_hold(struct reply *r, void (*unhold)(void *hold), void *hold)
{
    r->unhold = unhold;
    r->hold = hold;
}

char *reply_own(struct reply *r, char *s)
{
    char **o = s ? realloc(r->owned, (r->n_owned + 1) * sizeof *o) : NULL;

    if (!o) {
        free(s);
        r->failed = true;
        return NULL;
    }
    r->owned = o;
    o[r->n_owned++] = s;
    return s;
}

void reply_addf(struct reply *r, const char *name, const char *fmt, ...)
{
    size_t room = sizeof r->scratch - r->scratch_used;
    char *at = r->scratch + r->scratch_used;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(at, room, fmt, ap);
    va_end(ap);
    if (n < 0) {
        r->failed = true;
        return;
    }
    if ((size_t)n >= room) {
        /* longer than what is left of the scratch: a heap copy */
        at = malloc((size_t)n + 1);
        if (!at) {
            r->failed = true;
            return;
        }
        va_start(ap, fmt);
        vsnprintf(at, (size_t)n + 1, fmt, ap);
        va_end(ap);
        if (!reply_own(r, at))
            return;
    } else {
        r->scratch_used += (size_t)n + 1;
    }
    reply_add(r, name, at);
}

const char *reply_get(const struct reply *r, const char *name)
{
    for (size_t i = 0; i < r->n_fields; i++)
        if (strcasecmp(r->field[i].name, name) == 0)
            return r->field[i].value;
    return NULL;
}

void reply_set_bytes(struct reply *r, const char *data, uint64_t len,
                     void (*release)(void *), void *arg)
{
    r->body = REPLY_BODY_BYTES;
    r->data = data;
    r->length = len;
    r->release = release;
    r->release_arg = arg;
}

void reply_set_fd(struct reply *r, int fd, uint64_t offset, uint64_t len)
{
    r->body = REPLY_BODY_FD;
    r->fd = fd;
    r->offset = offset;
    r->length = len;
}

void reply_set_stream(struct reply *r, const struct reply_stream *s)
{
    r->body = REPLY_BODY_STREAM;
    r->stream = *s;
    r->length = REPLY_LENGTH_UNKNOWN;
}

/* What the body holds: the fd, the multipart plan, the bytes' reference,
 * the stream. */
static void body_release(struct reply *r)
{
    if (r->stream.close)
        r->stream.close(r->stream.arg);
    r->stream = (struct reply_stream){0};
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    free(r->mp);
    r->mp = NULL;
    if (r->release)
        r->release(r->release_arg);
    r->release = NULL;
    r->release_arg = NULL;
    r->data = NULL;
    r->body = REPLY_BODY_NONE;
    r->cached = NULL; /* its reference was the bytes' */
}

void reply_drop_body(struct reply *r)
{
    body_release(r);
    r->head = true;
}

void reply_release(struct reply *r)
{
    body_release(r);
    r->wire = NULL;
    for (size_t i = 0; i < r->n_owned; i++)
        free(r->owned[i]);
    free(r->owned);
    r->owned = NULL;
    r->n_owned = 0;
    if (r->field != r->inline_fields)
        free(r->field);
    r->field = r->inline_fields;
    r->cap_fields = REPLY_FIELDS_INLINE;
    r->n_fields = 0;
    r->scratch_used = 0;
    if (r->unhold)
        r->unhold(r->hold);
    r->unhold = NULL;
    r->hold = NULL;
}
