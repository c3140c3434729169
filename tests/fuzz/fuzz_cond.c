// SPDX-License-Identifier: MIT
/*
 * fuzz_cond.c - conditionals and dates (http/cond.c, http/date.c): input
 * "ETAG\nIf-Match\nIf-None-Match\nIf-Modified-Since\nIf-Unmodified-Since".
 * Checks: the answer is 0, 304 or 412; "*" and a list holding the tag
 * match; a parsed date formats and parses back to itself.
 */
#include "fuzz.h"
#include "http/cond.h"
#include "http/date.h"

#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_str(data, size);
    char *f[5];

    fuzz_split(s, f, 5);
    const char *etag = f[0] && f[0][0] ? f[0] : "\"v1\"";
    struct cond_request r = {
        .if_match = f[1],
        .if_none_match = f[2],
        .if_modified_since = f[3],
        .if_unmodified_since = f[4],
    };
    int c = cond_evaluate(&r, etag, 784111777);
    if (c != 0 && c != 304 && c != 412)
        abort();
    const char *tags[2] = {etag, "\"alt\""};
    int c2 = cond_evaluate_any(&r, tags, 2, 784111777);
    if (c2 != 0 && c2 != 304 && c2 != 412)
        abort();
    if (!cond_etag_match("*", etag, true))
        abort();
    if (etag[0] == '"' && strchr(etag + 1, '"') == etag + strlen(etag) - 1) {
        char list[600];
        snprintf(list, sizeof list, "\"a\", %s", etag);
        if (strlen(etag) < 500 && !cond_etag_match(list, etag, false))
            abort();
    }
    for (int i = 3; i < 5; i++) {
        time_t t, t2;
        char buf[DATE_LEN];
        if (f[i] && date_parse(f[i], &t) == 0 && t >= 0 &&
            t < (time_t)253402300799) {
            date_format(t, buf);
            if (date_parse(buf, &t2) != 0 || t2 != t)
                abort();
        }
    }
    free(s);
    return 0;
}
