// SPDX-License-Identifier: MIT
/*
 * log_template.c - parse --log-format: a named format, or a template of
 * literal runs and $fields checked against the one field table, so a typo
 * is refused at start-up instead of logging nothing.
 */
#include "syntax/log_template.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const names[] = {
#define LOG_FIELD_NAME(e, name, help) name,
    LOG_FIELD_MAP(LOG_FIELD_NAME)
#undef LOG_FIELD_NAME
};

static const char *const helps[] = {
#define LOG_FIELD_HELP(e, name, help) help,
    LOG_FIELD_MAP(LOG_FIELD_HELP)
#undef LOG_FIELD_HELP
};

const char *log_field_name(int f)
{
    return f >= 0 && f < LOG_FIELD_COUNT ? names[f] : NULL;
}

const char *log_field_help(int f)
{
    return f >= 0 && f < LOG_FIELD_COUNT ? helps[f] : NULL;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
}

static int lookup(const char *s, size_t n)
{
    for (int f = 0; f < LOG_FIELD_COUNT; f++)
        if (strlen(names[f]) == n && memcmp(names[f], s, n) == 0)
            return f;
    return -1;
}

static int add(struct log_template *t, int field, size_t off, size_t len,
               char *err, size_t size)
{
    if (field < 0 && len == 0)
        return 0;
    /* two literal runs in a row ("$$" splits one) become one part */
    if (field < 0 && t->n && t->part[t->n - 1].field < 0 &&
        t->part[t->n - 1].off + t->part[t->n - 1].len == off) {
        t->part[t->n - 1].len += len;
        return 0;
    }
    if (t->n == LOG_TEMPLATE_MAX_PARTS) {
        snprintf(err, size, "a log template has at most %d parts",
                 LOG_TEMPLATE_MAX_PARTS);
        return -EINVAL;
    }
    t->part[t->n++] =
        (struct log_template_part){.field = field, .off = off, .len = len};
    return 0;
}

static int parse_template(const char *s, struct log_template *t, char *err,
                          size_t size)
{
    size_t i = 0, lit = 0, fields = 0;

    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) {
            snprintf(err, size,
                     "a log template holds no control characters (byte %zu)",
                     (size_t)(p - s));
            return -EINVAL;
        }
    while (s[i]) {
        if (s[i] != '$') {
            i++;
            continue;
        }
        if (add(t, -1, lit, i - lit, err, size))
            return -EINVAL;
        if (s[i + 1] == '$') {
            /* the literal "$": the second one starts the next run */
            lit = i + 1;
            i += 2;
            continue;
        }
        bool brace = s[i + 1] == '{';
        size_t start = i + 1 + brace, end = start;
        while (name_char(s[end]))
            end++;
        if (brace && s[end] != '}') {
            snprintf(err, size, "'${' without its '}' at byte %zu", i);
            return -EINVAL;
        }
        int f = lookup(s + start, end - start);
        if (f < 0) {
            char known[512] = "";
            size_t k = 0;

            for (int j = 0; j < LOG_FIELD_COUNT && k < sizeof known; j++)
                k += (size_t)snprintf(known + k, sizeof known - k, "%s%s",
                                      j ? " " : "", names[j]);
            snprintf(err, size,
                     "unknown log field '$%.*s' at byte %zu (fields: %s)",
                     (int)(end - start > 40 ? 40 : end - start), s + start, i,
                     known);
            return -EINVAL;
        }
        if (add(t, f, 0, 0, err, size))
            return -EINVAL;
        fields++;
        i = end + brace;
        lit = i;
    }
    if (add(t, -1, lit, i - lit, err, size))
        return -EINVAL;
    if (fields == 0) {
        snprintf(err, size,
                 "'%.60s' is not a log format: combined, combined+duration, "
                 "json, or a template with $fields ('$time $client "
                 "\"$request\" $status')",
                 s);
        return -EINVAL;
    }
    return 0;
}

int log_template_parse(const char *spec, struct log_template *out, char *err,
                       size_t size)
{
    memset(out, 0, sizeof *out);
    out->text = spec;
    if (strcmp(spec, "combined") == 0)
        out->kind = LOG_KIND_COMBINED;
    else if (strcmp(spec, "combined+duration") == 0)
        out->kind = LOG_KIND_COMBINED_DURATION;
    else if (strcmp(spec, "json") == 0)
        out->kind = LOG_KIND_JSON;
    else {
        out->kind = LOG_KIND_TEMPLATE;
        return parse_template(spec, out, err, size);
    }
    return 0;
}
