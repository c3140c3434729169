// SPDX-License-Identifier: MIT
/*
 * mhd_pool.c - libmicrohttpd's pool memory (mhd_pool.h): a page or more is
 * an anonymous mapping of its own, less comes from the heap; a 16-byte
 * header in front of each block says which and how long.
 */
#include "transport/h1/mhd_pool.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* In front of every block: keeps the block 16-byte aligned. */
struct head {
    size_t len; /* of the mapping, header included; 0: from the heap */
    size_t pad;
};
_Static_assert(sizeof(struct head) == MHD_POOL_HEAD,
               "blocks stay 16-byte aligned");

/* A block this large (header included) is mapped. */
#define MAP_MIN ((size_t)4096)

void *mhd_pool_malloc(size_t n)
{
    struct head *h;

    if (n > SIZE_MAX - sizeof *h - MAP_MIN)
        return NULL;
    if (n + sizeof *h < MAP_MIN) {
        h = malloc(sizeof *h + n);
        if (!h)
            return NULL;
        h->len = 0;
        return h + 1;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = (n + sizeof *h + page - 1) / page * page;
    h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
             0);
    if (h == MAP_FAILED)
        return NULL;
    h->len = len;
    return h + 1;
}

void mhd_pool_free(void *p)
{
    struct head *h;

    if (!p)
        return;
    h = (struct head *)p - 1;
    if (h->len)
        (void)munmap(h, h->len);
    else
        free(h);
}
