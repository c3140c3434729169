// SPDX-License-Identifier: MIT
/*
 * h2_pages.c - an nghttp2 session's allocator (h2_pages.h): a block of a
 * page or more is a page-aligned anonymous mapping of its own, recorded in
 * the session's struct h2_pages; less comes from the heap, and so does a
 * large block once the record is full or mmap fails. A block is a mapping
 * exactly when its address is in the record.
 *
 * What a waiting session gives back (h2_pages_release), and why that is
 * harmless:
 *
 * - A page that reads all zero. A private anonymous page given back with
 *   MADV_DONTNEED reads back as zeros, so nothing can tell. In nghttp2 1.52
 *   this is the stream map's table (lib/nghttp2_map.c: 256 buckets of 16
 *   bytes, calloc'd by nghttp2_map_init, l. 34-41; nghttp2_map_remove sets
 *   each bucket it empties to 0, 0, NULL, l. 279 and 292): all zero once
 *   no stream is left.
 *
 * - The frame buffer (aob.framebufs: one chunk of NGHTTP2_FRAMEBUF_CHUNKLEN
 *   = 9 + 1 + 16384 bytes, allocated once by nghttp2_session_new and kept
 *   until nghttp2_session_del). Its bytes are dead between frames, in
 *   nghttp2 1.52's lib/nghttp2_session.c: every frame is packed into it
 *   when it is popped (nghttp2_session_mem_send_internal, case
 *   NGHTTP2_OB_POP_ITEM, l. 3284-3292: session_prep_frame, l. 2313, and
 *   the nghttp2_frame_pack_* it calls write the frame header at buf->pos
 *   and the payload after it, and only [pos, last) is ever sent); once it
 *   is sent, or dropped, active_outbound_item_reset (l. 405-414) sets
 *   aob->item to NULL and rewinds the buffer (nghttp2_bufs_reset, l. 412),
 *   and nothing reads it before the next frame is packed there.
 *   nghttp2_session_want_write (l. 7411-7431) says 0 only when aob->item is
 *   NULL, or once a GOAWAY that ends the session went out: h2.c releases
 *   only when it says 0, and before any GOAWAY.
 *
 * Everything else (the session's state, the HPACK tables) is the heap's
 * and stays.
 */
#include "transport/h2/h2_pages.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* nghttp2's frame buffer: NGHTTP2_FRAMEBUF_CHUNKLEN in nghttp2 1.52
 * (lib/nghttp2_frame.h l. 52: NGHTTP2_FRAME_HDLEN + 1 + NGHTTP2_MAX_PAYLOADLEN:
 * the header, a pad length byte, the largest default payload). */
#define FRAMEBUF_LEN ((size_t)9 + 1 + 16384)

static size_t page_size(void)
{
    static size_t page;

    if (!page) {
        long n = sysconf(_SC_PAGESIZE);
        page = n > 0 ? (size_t)n : 4096;
    }
    return page;
}

/* The record of @p, or -1: a heap block. */
static int find(const struct h2_pages *pg, const void *p)
{
    /* malloc's blocks are rarely page-aligned: most frees stop here */
    if (!p || ((uintptr_t)p & (page_size() - 1)) != 0)
        return -1;
    for (unsigned i = 0; i < pg->n; i++)
        if (pg->map[i].at == p)
            return (int)i;
    return -1;
}

/* @n bytes, zeroed: a mapping when large and the record has room. */
static void *take(struct h2_pages *pg, size_t n, bool zero)
{
    size_t page = page_size();

    if (n == 0)
        n = 1; /* a block of its own all the same */
    if (n < page || pg->n == H2_PAGES_MAX || n > SIZE_MAX - page)
        return zero ? calloc(1, n) : malloc(n);
    size_t len = (n + page - 1) / page * page;
    void *at = mmap(NULL, len, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED) /* out of mappings (vm.max_map_count): the heap */
        return zero ? calloc(1, n) : malloc(n);
    pg->map[pg->n].at = at;
    pg->map[pg->n].len = len;
    pg->n++;
    return at; /* a new mapping reads zero */
}

static void give(struct h2_pages *pg, void *p)
{
    int i = find(pg, p);

    if (i < 0) {
        free(p);
        return;
    }
    (void)munmap(pg->map[i].at, pg->map[i].len);
    /* the last record moves into the hole; the frame buffer's index too */
    pg->n--;
    pg->map[i] = pg->map[pg->n];
    if (pg->framebuf == i)
        pg->framebuf = -1;
    else if (pg->framebuf == (int)pg->n)
        pg->framebuf = i;
}

static void *mem_malloc(size_t n, void *arg)
{
    return take(arg, n, false);
}

static void *mem_calloc(size_t nmemb, size_t size, void *arg)
{
    if (size && nmemb > SIZE_MAX / size)
        return NULL;
    return take(arg, nmemb * size, true);
}

static void mem_free(void *p, void *arg)
{
    give(arg, p);
}

static void *mem_realloc(void *p, size_t n, void *arg)
{
    struct h2_pages *pg = arg;
    int i = find(pg, p);

    if (!p)
        return take(pg, n, false);
    if (i < 0 && n < page_size())
        return realloc(p, n); /* the heap's, staying there */
    if (i >= 0 && n <= pg->map[i].len && n >= page_size())
        return p; /* the mapping has room */
    /* moving between the heap and a mapping, or to a larger mapping */
    size_t old = i >= 0 ? pg->map[i].len : malloc_usable_size(p);
    void *q = take(pg, n, false);
    if (!q)
        return NULL;
    memcpy(q, p, old < n ? old : n);
    give(pg, p);
    return q;
}

nghttp2_mem h2_pages_mem(struct h2_pages *pg)
{
    pg->framebuf = -1;
    return (nghttp2_mem){
        .mem_user_data = pg,
        .malloc = mem_malloc,
        .free = mem_free,
        .calloc = mem_calloc,
        .realloc = mem_realloc,
    };
}

void h2_pages_found(struct h2_pages *pg)
{
    size_t len = (FRAMEBUF_LEN + page_size() - 1) / page_size() * page_size();

    pg->framebuf = -1;
    for (unsigned i = 0; i < pg->n; i++) {
        if (pg->map[i].len != len)
            continue;
        if (pg->framebuf >= 0) {
            pg->framebuf = -1; /* two: which is it? neither is released */
            return;
        }
        pg->framebuf = (int)i;
    }
}

/* Whether the page at @p reads all zero. */
static bool zero(const unsigned char *p, size_t len)
{
    const uint64_t *w = (const uint64_t *)(const void *)p;

    for (size_t i = 0; i < len / sizeof *w; i++)
        if (w[i])
            return false;
    return true;
}

size_t h2_pages_release(struct h2_pages *pg)
{
    size_t page = page_size(), given = 0;

    for (unsigned i = 0; i < pg->n; i++) {
        unsigned char *at = pg->map[i].at;
        size_t len = pg->map[i].len;
        if ((int)i == pg->framebuf) {
            if (madvise(at, len, MADV_DONTNEED) == 0)
                given += len;
            continue;
        }
        for (size_t off = 0; off < len; off += page)
            if (zero(at + off, page) &&
                madvise(at + off, page, MADV_DONTNEED) == 0)
                given += page;
    }
    return given;
}
