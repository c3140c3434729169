// SPDX-License-Identifier: MIT
/*
 * fuzz_framing.c - the framing checks (http/framing.c). The raw scanner
 * must give the same verdict, reason and head however the stream is cut
 * (whole, at a point chosen by the input, byte by byte); the field verdict
 * (input read as "name: value" lines) is 0, 400 or 501, the filter agrees
 * and changes bytes only in a refused head, and a refused
 * head always counts as announcing a body (the connection closes).
 */
#include "fuzz.h"
#include "http/framing.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct framing_scan a, b, c;

    if (size == 0)
        return 0;
    size_t cut = data[0] % size;
    framing_scan_init(&a);
    framing_scan_init(&b);
    framing_scan_init(&c);
    unsigned ra = framing_scan_feed(&a, data, size);
    framing_scan_feed(&b, data, cut);
    unsigned rb = framing_scan_feed(&b, data + cut, size - cut);
    unsigned rc = 0;
    for (size_t i = 0; i < size; i++)
        rc = framing_scan_feed(&c, data + i, 1);
    if (ra != rb || ra != rc || a.why != b.why || a.why != c.why ||
        a.heads != b.heads || a.heads != c.heads ||
        (ra && (a.bad_head != b.bad_head || a.bad_head != c.bad_head)))
        abort();
    if (ra != 0 && ra != 400)
        abort();
    if (framing_scan_mid_head(&a) != framing_scan_mid_head(&c))
        abort();
    /* The filter gives the same verdict; it only writes 'x' over bytes
     * after a violation, never LF, and nothing in a fine stream. */
    struct framing_scan d;
    unsigned char *copy = malloc(size);
    if (!copy)
        abort();
    memcpy(copy, data, size);
    framing_scan_init(&d);
    if (framing_scan_filter(&d, copy, size) != ra || d.why != a.why)
        abort();
    for (size_t i = 0; i < size; i++)
        if (copy[i] != data[i] && (!ra || copy[i] != 'x' || data[i] == '\n'))
            abort();
    free(copy);

    char *s = fuzz_str(data, size);
    char *line = s;
    struct framing_fields f;
    framing_fields_init(&f);
    while (line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *colon = strchr(line, ':');
        if (colon)
            framing_fields_add(&f, line, (size_t)(colon - line), colon + 1,
                               strlen(colon + 1));
        line = nl ? nl + 1 : NULL;
    }
    bool body = false;
    enum framing_why why = FRAMING_FINE;
    unsigned v = framing_fields_verdict(
        &f, data[0] & 1 ? "HTTP/1.0" : "HTTP/1.1", &body, &why);
    if ((v != 0 && v != 400 && v != 501) || (v && !body) ||
        (v == 0) != (why == FRAMING_FINE))
        abort();
    free(s);
    return 0;
}
