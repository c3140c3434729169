// SPDX-License-Identifier: MIT
/*
 * fuzz_range.c - Range and If-Range (http/range.c). The first 8 bytes are
 * the file size, the rest "RANGE\nIF-RANGE\nETAG". Checks: a single range
 * lies inside the file and is not empty.
 */
#include "fuzz.h"
#include "range.h"

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
    (void)range_if_range(f[1], f[2] ? f[2] : "\"x\"", (time_t)fsize);
    free(s);
    return 0;
}
