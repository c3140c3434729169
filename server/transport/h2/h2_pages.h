// SPDX-License-Identifier: MIT
/*
 * h2_pages.h - the memory of one nghttp2 session (an nghttp2_mem): what is
 * a page or more lives in page-aligned mappings of its own, so that a
 * session that waits can give back the pages it does not need meanwhile.
 */
#ifndef BENEATH_TRANSPORT_H2_H2_PAGES_H
#define BENEATH_TRANSPORT_H2_H2_PAGES_H

#include <nghttp2/nghttp2.h>
#include <stdbool.h>
#include <stddef.h>

/* Mappings tracked per session; beyond them, large blocks come from the
 * heap (nghttp2 1.52 holds two at rest: its stream map and frame buffer). */
#define H2_PAGES_MAX 4

/*
 * struct h2_pages - a session's large blocks. Zero-initialised, then
 * h2_pages_mem; used by one thread at a time (the session's).
 * @map:      each mapping (@at page-aligned, @len a multiple of pages)
 * @n:        how many are used
 * @framebuf: index in @map of nghttp2's frame buffer, or -1: not known
 */
struct h2_pages {
    struct {
        unsigned char *at;
        size_t len;
    } map[H2_PAGES_MAX];
    unsigned n;
    int framebuf;
};

/* h2_pages_mem - the allocator over @pg, for nghttp2_session_*_new3 (which
 * copies it); @pg must outlive the session. */
nghttp2_mem h2_pages_mem(struct h2_pages *pg);

/*
 * h2_pages_found - after the session is made: finds its frame buffer among
 * @pg's mappings (the one block of nghttp2's frame buffer size). Without
 * it (another nghttp2 whose sizes differ) h2_pages_release keeps it.
 */
void h2_pages_found(struct h2_pages *pg);

/*
 * h2_pages_release - the session waits (no stream open, nothing queued to
 * send, no frame under way): the pages of its mappings that read all zero
 * are given back (an anonymous page reads back zero), and the frame
 * buffer's whole, whose bytes are dead between frames (h2_pages.c says
 * why). Returns the bytes given back.
 */
size_t h2_pages_release(struct h2_pages *pg);

#endif
