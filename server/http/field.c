// SPDX-License-Identifier: MIT
/*
 * field.c - shared field-value syntax. Parsers built on it are lenient in
 * one way only: a malformed list element is dropped, never the whole field
 * (a client that sends one odd Accept-Encoding element still gets the
 * others honoured).
 */
#include "http/field.h"

#include "syntax/text.h"

#include <string.h>
#include <strings.h>

const char *field_ows(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

bool field_qvalue(const char **p, int *q)
{
    const char *s = *p;
    int v, scale = 100;

    if (*s != '0' && *s != '1')
        return false;
    v = (*s - '0') * 1000;
    s++;
    if (*s == '.') {
        s++;
        for (int i = 0; i < 3 && *s >= '0' && *s <= '9'; i++, s++) {
            v += (*s - '0') * scale;
            scale /= 10;
        }
    }
    if (v > 1000)
        return false;
    *p = s;
    *q = v;
    return true;
}

static const char *token(const char *p)
{
    while (text_is_tchar((unsigned char)*p))
        p++;
    return p;
}

/* A parameter value: a token or a quoted-string; NULL when malformed. */
static const char *param_value(const char *p)
{
    if (*p != '"') {
        const char *e = token(p);
        return e == p ? NULL : e;
    }
    for (p++; *p != '"'; p++) {
        if (*p == '\0')
            return NULL;
        if (*p == '\\' && *++p == '\0')
            return NULL;
    }
    return p + 1;
}

/* The parameters after an element's token; false when malformed. */
static bool params(const char **pp, struct field_elem *e)
{
    const char *p = *pp;
    bool seen_q = false;

    while (*p == ';') {
        const char *name = field_ows(p + 1), *end = token(name);

        if (end == name || *end != '=')
            return false;
        if (text_token_is(name, (size_t)(end - name), "q")) {
            if (seen_q)
                return false;
            seen_q = true;
            p = end + 1;
            if (!field_qvalue(&p, &e->q))
                return false;
        } else {
            e->other_params = true;
            p = param_value(end + 1);
            if (!p)
                return false;
        }
        p = field_ows(p);
    }
    *pp = p;
    return true;
}

const char *field_next(const char *p, struct field_elem *e)
{
    p = field_ows(p);
    if (*p == '\0')
        return NULL;
    *e = (struct field_elem){.tok = p, .q = 1000, .ok = true};
    p = token(p);
    if (*p == '/' && p > e->tok)
        p = token(p + 1);
    e->len = (size_t)(p - e->tok);
    p = field_ows(p);
    if (!params(&p, e) || (*p != ',' && *p != '\0'))
        e->ok = false;
    /* Drop the rest of a malformed element. */
    while (*p != ',' && *p != '\0')
        p++;
    return *p == ',' ? p + 1 : p;
}
