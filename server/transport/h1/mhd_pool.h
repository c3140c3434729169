/* SPDX-License-Identifier: MIT */
/*
 * mhd_pool.h - the memory of libmicrohttpd's per-connection pools.
 *
 * libmicrohttpd gives each connection a pool of --max-header-size + 4 KiB
 * (the request head, the reply's), zeroed whole after every request, so
 * every page of it is resident while the connection lives. Taken from the
 * heap, a pool freed when a connection closes or is parked (h1.c)
 * leaves its pages resident for the heap to reuse; those of a burst of
 * connections that then wait stay resident for good. Its memorypool.o is
 * linked with malloc and free renamed to these (transport/h1/mhd_tap.cmake):
 * a block of a page or more is a mapping of its own, unmapped when freed,
 * so a waiting connection costs none of it; smaller blocks (the pool's
 * own struct) come from the heap.
 */
#ifndef BENEATH_TRANSPORT_H1_MHD_POOL_H
#define BENEATH_TRANSPORT_H1_MHD_POOL_H

#include <stddef.h>

/* Bytes in front of each block: a pool of a page multiple less this is a
 * mapping of whole pages. */
#define MHD_POOL_HEAD 16

/* mhd_pool_malloc - malloc(3)'s contract (16-byte alignment). */
void *mhd_pool_malloc(size_t n);

/* mhd_pool_free - free(3)'s, for what mhd_pool_malloc returned. */
void mhd_pool_free(void *p);

#endif
