/* SPDX-License-Identifier: MIT */
/*
 * fuzz_conf.c - libFuzzer harness for conf_parse. Besides "no crash, no
 * leak", it checks the round trip: when a file parses cleanly, what
 * conf_print writes parses cleanly too and prints the same text again.
 */
#include "conf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *print(const struct conf *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (f == NULL)
        abort();
    conf_print(f, c);
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct conf a, b;
    struct conf_diag d = {0};
    char *one = NULL, *two = NULL;
    FILE *f;
    int r;

    if (size == 0)
        return 0;
    if (conf_defaults(&a) < 0)
        abort();
    f = fmemopen((void *)(uintptr_t)data, size, "r");
    if (f == NULL)
        abort();
    r = conf_parse(f, "fuzz", &a, &d);
    fclose(f);
    if (r == 0) {
        one = print(&a);
        if (conf_defaults(&b) < 0)
            abort();
        f = fmemopen(one, strlen(one), "r");
        if (f == NULL || conf_parse(f, "printed", &b, &d) != 0)
            abort();
        fclose(f);
        two = print(&b);
        if (strcmp(one, two) != 0)
            abort();
        conf_free(&b);
    }
    free(one);
    free(two);
    conf_free(&a);
    conf_diag_free(&d);
    return 0;
}
