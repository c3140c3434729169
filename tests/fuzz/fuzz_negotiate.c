// SPDX-License-Identifier: MIT
/*
 * fuzz_negotiate.c - Accept-Encoding and Accept (http/negotiate.c) and the
 * list parser under them (http/field.c): input "ACCEPT-ENCODING\nACCEPT".
 * Checks: q-values in range, the order holds only preferred codings, each
 * once, with non-increasing q.
 */
#include "fuzz.h"
#include "http/field.h"
#include "http/negotiate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const enum coding prefs[] = {CODING_BR, CODING_ZSTD, CODING_GZIP};
    enum coding out[CODING_N];
    struct negotiate_accept a;
    char *s = fuzz_str(data, size);
    char *f[2];

    fuzz_split(s, f, 2);
    negotiate_parse(f[0], &a);
    for (int e = 0; e < CODING_N; e++) {
        int q = negotiate_qvalue(&a, (enum coding)e);
        if (q < 0 || q > 1000)
            abort();
    }
    size_t n = negotiate_order(&a, prefs, 3, out);
    if (n > 3)
        abort();
    for (size_t i = 0; i < n; i++) {
        if (negotiate_qvalue(&a, out[i]) <= 0)
            abort();
        for (size_t j = 0; j < i; j++)
            if (out[j] == out[i] ||
                negotiate_qvalue(&a, out[j]) < negotiate_qvalue(&a, out[i]))
                abort();
    }
    (void)negotiate_wants_json(f[1]);
    /* the list parser always advances and ends */
    const char *p = f[1] ? f[1] : "";
    struct field_elem e;
    size_t steps = 0;
    while ((p = field_next(p, &e)) != NULL)
        if (++steps > size + 1)
            abort();
    free(s);
    return 0;
}
