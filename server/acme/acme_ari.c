/* SPDX-License-Identifier: MIT */
/*
 * acme_ari.c - ACME Renewal Information (RFC 9773): the CA's suggested
 * window for renewing one certificate, asked with an unauthenticated GET of
 * renewalInfo/CERT-ID and asked again when its Retry-After says (six hours
 * when it says nothing). A CA whose directory has no renewalInfo (Pebble
 * 2.4) is asked nothing, and renewal falls at two thirds of the lifetime.
 */
#include "acme/internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Seconds between two looks when the CA names none (RFC 9773 4.3). */
#define ARI_DEFAULT_POLL ((time_t)6 * 3600)
/* Never sooner, never later than these, whatever the CA says. */
#define ARI_MIN_POLL ((time_t)60)
#define ARI_MAX_POLL ((time_t)24 * 3600)

/* RFC 3339 date-time: "2025-01-02T04:00:00Z", fractions, "+01:00". */
static int rfc3339(const char *s, time_t *out)
{
    struct tm tm = {0};
    const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    long off = 0;

    if (p == NULL)
        return -EINVAL;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return -EINVAL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if ((*p == '+' || *p == '-') && isdigit((unsigned char)p[1]) &&
               isdigit((unsigned char)p[2]) && p[3] == ':' &&
               isdigit((unsigned char)p[4]) && isdigit((unsigned char)p[5])) {
        off = ((p[1] - '0') * 10 + (p[2] - '0')) * 3600L +
              ((p[4] - '0') * 10 + (p[5] - '0')) * 60L;
        off = *p == '+' ? off : -off;
        p += 6;
    } else {
        return -EINVAL;
    }
    if (*p != '\0')
        return -EINVAL;
    *out = timegm(&tm) - off;
    return 0;
}

int acme_ari_parse(const char *body, size_t len, time_t *start, time_t *end)
{
    json_t *j = json_loadb(body, len, 0, NULL);
    json_t *w = json_object_get(j, "suggestedWindow");
    const char *s = json_string_value(json_object_get(w, "start"));
    const char *e = json_string_value(json_object_get(w, "end"));
    int r = -EPROTO;

    if (s && e && rfc3339(s, start) == 0 && rfc3339(e, end) == 0 &&
        *end > *start)
        r = 0;
    json_decref(j);
    return r;
}

int acme_ari_fetch(struct acme_client *c, const char *ari_id, time_t now,
                   time_t *start, time_t *end, time_t *next)
{
    struct acme_response r;
    char *url = NULL, err[512];
    int e;

    *next = now + ARI_DEFAULT_POLL;
    if (c->renewal_info == NULL)
        return -ENOENT;
    if (asprintf(&url, "%s/%s", c->renewal_info, ari_id) < 0)
        return -ENOMEM;
    e = acme_http_request(&c->http, url, NULL, NULL, &r, err, sizeof err);
    free(url);
    if (e == -EIO)
        acme_log(c->log, ACME_LOG_WARNING, "acme: renewalInfo: %s", err);
    if (e < 0)
        return e;
    if (r.retry_after > now + ARI_MIN_POLL &&
        r.retry_after < now + ARI_MAX_POLL)
        *next = r.retry_after;
    e = r.status == 200 ? acme_ari_parse(r.body, r.len, start, end) : -EPROTO;
    if (e < 0)
        acme_log(c->log, ACME_LOG_WARNING,
                 "acme: renewalInfo/%s: HTTP %ld, no suggested window", ari_id,
                 r.status);
    acme_response_free(&r);
    return e;
}
