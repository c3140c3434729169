/* SPDX-License-Identifier: MIT */
/*
 * negotiate.c - Accept-Encoding parsing and sidecar choice.
 *
 * Grammar (RFC 9110 12.5.3, 12.4.2):
 *   Accept-Encoding = #( codings [ weight ] )
 *   weight = OWS ";" OWS "q=" qvalue
 *   qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
 * A list element that does not fit is dropped on its own; the rest of the
 * header still counts, so one bad element never turns compression off or on
 * for the whole request.
 */
#include "http/negotiate.h"

#include "http/field.h"
#include "syntax/text.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* Store @q for the coding named by @tok unless an earlier element named it. */
static void assign(struct negotiate_accept *a, const char *tok, size_t len,
                   int q)
{
    int *slot = NULL;

    if (text_token_is(tok, len, "br"))
        slot = &a->q[CODING_BR];
    else if (text_token_is(tok, len, "zstd"))
        slot = &a->q[CODING_ZSTD];
    else if (text_token_is(tok, len, "gzip") ||
             text_token_is(tok, len, "x-gzip"))
        slot = &a->q[CODING_GZIP];
    else if (text_token_is(tok, len, "identity"))
        slot = &a->identity;
    else if (text_token_is(tok, len, "*"))
        slot = &a->star;
    if (slot != NULL && *slot < 0)
        *slot = q;
}

void negotiate_parse(const char *value, struct negotiate_accept *out)
{
    struct field_elem e;

    for (int i = 0; i < CODING_N; i++)
        out->q[i] = -1;
    out->identity = -1;
    out->star = -1;
    for (const char *p = value; p && (p = field_next(p, &e));)
        if (e.ok && !e.other_params && e.len > 0)
            assign(out, e.tok, e.len, e.q);
}

bool negotiate_wants_json(const char *accept)
{
    struct field_elem e;
    bool json = false;

    for (const char *p = accept; p && (p = field_next(p, &e));) {
        if (text_token_is(e.tok, e.len, "text/html"))
            return false;
        if (text_token_is(e.tok, e.len, "application/json"))
            json = e.ok && e.q > 0;
    }
    return json;
}

int negotiate_qvalue(const struct negotiate_accept *a, enum coding enc)
{
    if ((unsigned)enc >= CODING_N)
        return 0;
    if (a->q[enc] >= 0)
        return a->q[enc];
    return a->star >= 0 ? a->star : 0;
}

size_t negotiate_order(const struct negotiate_accept *a,
                       const enum coding *prefs, size_t n_prefs,
                       enum coding *out)
{
    int qs[CODING_N];
    int floor = a->identity >= 0 ? a->identity : a->star >= 0 ? a->star : 0;
    size_t n = 0;

    for (size_t i = 0; i < n_prefs && n < CODING_N; i++) {
        int q = negotiate_qvalue(a, prefs[i]);
        size_t j;

        if (q <= 0 || q < floor)
            continue;
        /* Insertion sort, stable: equal q keeps the server's order. */
        for (j = n; j > 0 && qs[j - 1] < q; j--) {
            qs[j] = qs[j - 1];
            out[j] = out[j - 1];
        }
        qs[j] = q;
        out[j] = prefs[i];
        n++;
    }
    return n;
}

bool negotiate_compressible(const char *type)
{
    static const char *const prefixes[] = {
        "text/",
        "application/json",
        "application/javascript",
        "application/xml",
        "application/manifest+json",
        "application/atom+xml",
        "application/rss+xml",
        "image/svg+xml",
        "application/wasm",
        "font/ttf",
        "font/otf",
        "image/x-icon",
        "image/bmp",
    };

    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (strncasecmp(type, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}
