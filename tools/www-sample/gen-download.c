/* SPDX-License-Identifier: MIT */
/*
 * gen-download.c - write www-sample's downloadable file: SIZE bytes from a
 * fixed-seed xorshift64* generator, so every build makes the same bytes (the
 * download page prints their SHA-256) and a wrong Range offset shows. The
 * file is written under a temporary name and renamed, so two builds at once
 * never leave a torn file.
 *
 * Usage: gen-download OUT [SIZE]   (SIZE in bytes, default 4 MiB)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SEED 0x62656e6561746831ULL /* "beneath1" */

static uint64_t next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dULL;
}

int main(int argc, char **argv)
{
    unsigned char buf[65536];
    unsigned long long size = 4ULL << 20, done = 0;
    uint64_t state = SEED;
    char *tmp = NULL;
    FILE *f = NULL;
    int rc = 1;

    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s OUT [SIZE]\n", argv[0]);
        return 2;
    }
    if (argc == 3) {
        char *end;

        errno = 0;
        size = strtoull(argv[2], &end, 10);
        if (errno || *end || end == argv[2]) {
            fprintf(stderr, "%s: bad size '%s'\n", argv[0], argv[2]);
            return 2;
        }
    }
    if (asprintf(&tmp, "%s.tmp.%ld", argv[1], (long)getpid()) < 0) {
        tmp = NULL;
        goto out;
    }
    f = fopen(tmp, "wbe");
    if (f == NULL) {
        fprintf(stderr, "%s: %s: %s\n", argv[0], tmp, strerror(errno));
        goto out_free;
    }
    while (done < size) {
        size_t n =
            size - done < sizeof(buf) ? (size_t)(size - done) : sizeof(buf);

        for (size_t i = 0; i < n; i += 8) {
            uint64_t v = next(&state);

            for (size_t j = 0; j < 8 && i + j < n; j++)
                buf[i + j] = (unsigned char)(v >> (8 * j));
        }
        if (fwrite(buf, 1, n, f) != n)
            break;
        done += n;
    }
    if (fclose(f) != 0 || done != size) {
        f = NULL;
        fprintf(stderr, "%s: %s: write failed\n", argv[0], tmp);
        goto out_unlink;
    }
    f = NULL;
    if (rename(tmp, argv[1]) != 0) {
        fprintf(stderr, "%s: %s: %s\n", argv[0], argv[1], strerror(errno));
        goto out_unlink;
    }
    rc = 0;
    goto out_free;
out_unlink:
    unlink(tmp);
out_free:
    free(tmp);
out:
    return rc;
}
