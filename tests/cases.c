/* SPDX-License-Identifier: MIT */
/*
 * cases.c - the checks of accept/refuse rows (struct spec_case) that the
 * unit suites share; a failure names the row's input and the message.
 */
#include "cases.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void cases_check_spec(const struct spec_case *c, int r, const char *err)
{
    if (c->err == NULL) {
        ck_assert_msg(r == 0, "%s: refused (%d): %s", c->spec, r, err);
        return;
    }
    ck_assert_msg(r == -EINVAL, "%s: accepted or %d, not refused", c->spec, r);
    ck_assert_str_eq(err, c->err);
}

char *cases_long_line(const char *head, char fill, size_t n, const char *tail)
{
    size_t h = strlen(head), t = strlen(tail);
    char *s = malloc(h + n + t + 1);
    char *p;

    ck_assert_ptr_nonnull(s);
    p = stpcpy(s, head);
    memset(p, fill, n);
    memcpy(p + n, tail, t + 1);
    return s;
}

void cases_check_refused(const struct spec_case *c, int r, const char *err)
{
    ck_assert_msg(r == -EINVAL, "%s: accepted or %d, not refused", c->spec, r);
    ck_assert_msg(strstr(err, c->err) != NULL,
                  "%s: message \"%s\" lacks \"%s\"", c->spec, err, c->err);
}

const char cases_mime_types[] =
    "# Media (MIME) types and the extensions that represent them.\n"
    "\n"
    "application/epub+zip\t\t\t\tepub\n"
    "application/json\t\t\t\tjson\n"
    "application/json-seq\n"
    "application/sarif+json\t\t\t\tsarif sarif.json\n"
    "application/vnd.apple.mpegurl\t\t\tm3u8\n"
    "audio/flac\t\t\t\t\tflac\n"
    "audio/ogg\t\t\t\t\toga ogg opus spx\n"
    "image/apng\t\t\t\t\tapng\n"
    "image/jxl\t\t\t\t\tjxl\n"
    "image/vnd.microsoft.icon\t\t\tico\n"
    "text/calendar\t\t\t\t\tics ifb\n"
    "text/html\t\t\t\t\thtml htm shtml\n"
    "text/vtt\t\t\t\t\tvtt\n"
    "text/x-c++src\t\t\t\t\tc++ cpp cxx cc\n"
    "application/x-troff-man\t\t\t\tman\n"
    "application/x-yaml\t\t\t\tyaml\n"
    "chemical/x-cif\t\t\t\t\tcif\n"
    "application/vnd.multiad.creator.cif\t\tcif\n";
