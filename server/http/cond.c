// SPDX-License-Identifier: MIT
/*
 * cond.c - If-Match, If-Unmodified-Since, If-None-Match, If-Modified-Since.
 *
 * RFC 9110 13.2.2 order: If-Match (else If-Unmodified-Since) may fail with
 * 412; then If-None-Match (else If-Modified-Since) may answer 304. A date that
 * does not parse is ignored, as the RFC requires.
 */
#include "http/cond.h"

#include "http/date.h"
#include "http/field.h"
#include "http/status.h"

#include <string.h>

bool cond_etag_match(const char *list, const char *etag, bool weak)
{
    const char *p = field_ows(list);
    bool etag_weak = strncmp(etag, "W/", 2) == 0;
    const char *eo = etag_weak ? etag + 2 : etag;
    size_t elen = strlen(eo);

    if (*p == '*')
        return *field_ows(p + 1) == '\0';
    while (*p) {
        bool w = false;
        if (strncmp(p, "W/", 2) == 0) {
            w = true;
            p += 2;
        }
        if (*p != '"')
            return false;
        const char *close = strchr(p + 1, '"');
        if (!close)
            return false;
        size_t len = (size_t)(close - p) + 1;
        if (len == elen && memcmp(p, eo, len) == 0 &&
            (weak || (!w && !etag_weak)))
            return true;
        p = field_ows(close + 1);
        if (*p == ',')
            p = field_ows(p + 1);
        else if (*p != '\0')
            return false;
    }
    return false;
}

bool cond_etag_match_any(const char *list, const char *const *etags, size_t n,
                         bool weak)
{
    for (size_t i = 0; i < n; i++)
        if (cond_etag_match(list, etags[i], weak))
            return true;
    return false;
}

int cond_evaluate(const struct cond_request *r, const char *etag, time_t mtime)
{
    return cond_evaluate_any(r, &etag, 1, mtime);
}

int cond_evaluate_any(const struct cond_request *r, const char *const *etags,
                      size_t n, time_t mtime)
{
    time_t t;

    if (r->if_match) {
        if (!cond_etag_match_any(r->if_match, etags, n, false))
            return STATUS_PRECONDITION_FAILED;
    } else if (r->if_unmodified_since &&
               date_parse(r->if_unmodified_since, &t) == 0) {
        if (mtime > t)
            return STATUS_PRECONDITION_FAILED;
    }
    if (r->if_none_match) {
        if (cond_etag_match_any(r->if_none_match, etags, n, true))
            return STATUS_NOT_MODIFIED;
    } else if (r->if_modified_since &&
               date_parse(r->if_modified_since, &t) == 0) {
        if (mtime <= t)
            return STATUS_NOT_MODIFIED;
    }
    return 0;
}
