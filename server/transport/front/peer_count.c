// SPDX-License-Identifier: MIT
/*
 * peer_count.c - connections per client address: a hash of addresses to
 * counts, an entry made at an address's first connection and freed at its
 * last close, so the table holds only addresses that are connected.
 */
#include "transport/front/peer_count.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 4096 /* a power of two */

struct entry {
    struct entry *next;
    unsigned char key[16];
    unsigned len;
    unsigned count;
};

struct peer_count {
    unsigned max;
    pthread_mutex_t lock;
    struct entry *bucket[BUCKETS];
};

int peer_count_new(unsigned max, struct peer_count **out)
{
    struct peer_count *p = calloc(1, sizeof *p);

    *out = p;
    if (!p)
        return -ENOMEM;
    p->max = max;
    pthread_mutex_init(&p->lock, NULL);
    return 0;
}

void peer_count_free(struct peer_count *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < BUCKETS; i++)
        while (p->bucket[i]) {
            struct entry *e = p->bucket[i];
            p->bucket[i] = e->next;
            free(e);
        }
    pthread_mutex_destroy(&p->lock);
    free(p);
}

/* The address of @sa as a key (4 or 16 bytes); 0 when not counted. */
static unsigned key_of(const struct sockaddr *sa, socklen_t len,
                       unsigned char key[16])
{
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0,    0,
                                             0, 0, 0, 0, 0xff, 0xff};

    if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
        memcpy(key, &((const struct sockaddr_in *)(const void *)sa)->sin_addr,
               4);
        return 4;
    }
    if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
        const unsigned char *a =
            ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr;
        if (memcmp(a, mapped, sizeof mapped) == 0) {
            memcpy(key, a + 12, 4);
            return 4;
        }
        memcpy(key, a, 16);
        return 16;
    }
    return 0;
}

static struct entry **slot(struct peer_count *p, const unsigned char *key,
                           unsigned len)
{
    uint32_t h = 2166136261u; /* FNV-1a */

    for (unsigned i = 0; i < len; i++)
        h = (h ^ key[i]) * 16777619u;
    struct entry **e = &p->bucket[h & (BUCKETS - 1)];
    while (*e && !((*e)->len == len && memcmp((*e)->key, key, len) == 0))
        e = &(*e)->next;
    return e;
}

bool peer_count_take(struct peer_count *p, const struct sockaddr *sa,
                     socklen_t len)
{
    unsigned char key[16];
    unsigned n = p && p->max ? key_of(sa, len, key) : 0;
    bool ok = true;

    if (!n)
        return true;
    pthread_mutex_lock(&p->lock);
    struct entry **e = slot(p, key, n);
    if (!*e) {
        *e = calloc(1, sizeof **e);
        if (*e) {
            memcpy((*e)->key, key, n);
            (*e)->len = n;
        }
    }
    if (!*e || (*e)->count >= p->max)
        ok = false;
    else
        (*e)->count++;
    if (*e && (*e)->count == 0) {
        struct entry *gone = *e;
        *e = gone->next;
        free(gone);
    }
    pthread_mutex_unlock(&p->lock);
    return ok;
}

void peer_count_put(struct peer_count *p, const struct sockaddr *sa,
                    socklen_t len)
{
    unsigned char key[16];
    unsigned n = p && p->max ? key_of(sa, len, key) : 0;

    if (!n)
        return;
    pthread_mutex_lock(&p->lock);
    struct entry **e = slot(p, key, n);
    if (*e && --(*e)->count == 0) {
        struct entry *gone = *e;
        *e = gone->next;
        free(gone);
    }
    pthread_mutex_unlock(&p->lock);
}
