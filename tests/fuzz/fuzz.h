/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - helpers shared by the libFuzzer targets: the input as C strings.
 */
#ifndef BENEATH_TESTS_FUZZ_H
#define BENEATH_TESTS_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of @data (NULs inside stay: C strings end there). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);

    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/*
 * Cut @s into up to @n fields at '\n' (in place); missing ones are NULL.
 * Returns the number found.
 */
static inline size_t fuzz_split(char *s, char **f, size_t n)
{
    size_t k = 0;

    while (k < n) {
        f[k++] = s;
        char *nl = strchr(s, '\n');
        if (!nl)
            break;
        *nl = '\0';
        s = nl + 1;
    }
    for (size_t i = k; i < n; i++)
        f[i] = NULL;
    return k;
}

#endif
