// SPDX-License-Identifier: MIT
/*
 * fuzz_range.c - Range and If-Range (http/range.c). The first 8 bytes are
 * the file size, the rest "RANGE\nIF-RANGE\nETAG". Checks: a single range
 * lies inside the file and is not empty; a planned set has 1..16 non-empty
 * parts inside the file, apart by at least RANGE_GAP, adding up to no more
 * than the file.
 */
#include "fuzz.h"
#include "http/range.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t fsize = 0, start = 0, len = 0;
    char *f[3];

    if (size < 8)
        return 0;
    memcpy(&fsize, data, 8);
    fsize >>= (data[0] & 63); /* small sizes too */
    char *s = fuzz_str(data + 8, size - 8);
    fuzz_split(s, f, 3);
    enum range_result r = range_parse(f[0], fsize, &start, &len);
    if (r == RANGE_SINGLE &&
        (len == 0 || start >= fsize || len > fsize - start))
        abort();
    struct range_set set;
    r = range_plan(f[0], fsize, &set);
    if ((r == RANGE_SINGLE || r == RANGE_MULTI) !=
        (set.n > 0 && set.n <= RANGE_MAX_PARTS))
        abort();
    if ((r == RANGE_SINGLE) != (set.n == 1))
        abort();
    uint64_t sum = 0;
    for (size_t i = 0; i < set.n; i++) {
        const struct range_part *a = &set.v[i];
        if (a->len == 0 || a->start >= fsize || a->len > fsize - a->start)
            abort();
        sum += a->len;
        for (size_t j = 0; j < i; j++) {
            const struct range_part *b = &set.v[j];
            const struct range_part *lo = a->start < b->start ? a : b;
            const struct range_part *hi = lo == a ? b : a;
            if (hi->start < lo->start + lo->len + RANGE_GAP)
                abort();
        }
    }
    if (sum > fsize)
        abort();
    (void)range_if_range(f[1], f[2] ? f[2] : "\"x\"", (time_t)fsize);
    free(s);
    return 0;
}
