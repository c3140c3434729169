// SPDX-License-Identifier: MIT
/*
 * pathpat.c - parse and match _redirects/_headers path patterns, and the
 * index over them (see pathpat.h).
 *
 * The index is built once per file: each pattern gets a key (its whole
 * path when exact, else its first literal segment with that segment's
 * position) and the pattern numbers of one key are stored ascending in one
 * run of lists[]. A lookup merges a few ascending runs (the exact hit, one
 * bucket per segment of the path, the wild list), so "first match in file
 * order" holds without trying every pattern.
 */
#include "syntax/pathpat.h"

#include "syntax/errbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct pathpat_slot {
    const char *key; /* NULL: empty slot */
    size_t klen;
    size_t pos;          /* of the segment (first table) */
    size_t start, count; /* in lists[] */
};

size_t pathpat_var_len(const char *s, size_t len)
{
    size_t n = 0;

    while (n < len &&
           ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
            (s[n] >= '0' && s[n] <= '9') || s[n] == '_'))
        n++;
    return n;
}

void pathpat_free(struct pathpat *p)
{
    if (!p)
        return;
    for (size_t i = 0; p->seg && i < p->n; i++)
        free(p->seg[i]);
    free(p->seg);
    free(p->joined);
    memset(p, 0, sizeof *p);
}

bool pathpat_exact(const struct pathpat *p)
{
    return !p->splat && p->n_vars == 0;
}

bool pathpat_has_var(const struct pathpat *p, const char *name, size_t len)
{
    if (len == 5 && memcmp(name, "splat", 5) == 0)
        return p->splat;
    for (size_t i = 0; p->seg && i < p->n; i++)
        if (p->seg[i] && p->seg[i][0] == ':' && strlen(p->seg[i] + 1) == len &&
            memcmp(p->seg[i] + 1, name, len) == 0)
            return true;
    return false;
}

/* Count the placeholder segment @q (@n bytes, ':' first) of @p, checking
 * its name. Returns 0 or -EINVAL. */
static int add_var(struct pathpat *p, const char *q, size_t n, char *err,
                   size_t err_size)
{
    bool ok = n > 1 && pathpat_var_len(q + 1, n - 1) == n - 1;

    if (!ok || (n == 6 && memcmp(q + 1, "splat", 5) == 0)) {
        errbuf_say(err, err_size,
                   "'%.*s': a placeholder is ':' and letters, digits "
                   "or '_' (and not :splat, which '*' captures)",
                   (int)(n > 64 ? 64 : n), q);
        return -EINVAL;
    }
    if (pathpat_has_var(p, q + 1, n - 1)) {
        errbuf_say(err, err_size, "'%.*s' appears twice",
                   (int)(n > 64 ? 64 : n), q);
        return -EINVAL;
    }
    if (++p->n_vars > PATHPAT_MAX_VARS) {
        errbuf_say(err, err_size, "more than %d placeholders",
                   PATHPAT_MAX_VARS);
        return -EINVAL;
    }
    return 0;
}

int pathpat_parse(struct pathpat *p, const char *s, size_t len, char *err,
                  size_t err_size)
{
    const char *q = s, *end = s + len;
    size_t cap = 1, jlen = 0;
    int ret = -EINVAL;

    memset(p, 0, sizeof *p);
    if (len == 0 || s[0] != '/') {
        errbuf_say(err, err_size, "'%.*s': a path starts with '/'",
                   (int)(len > 64 ? 64 : len), s);
        return -EINVAL;
    }
    if (memchr(s, '?', len) || memchr(s, '#', len)) {
        errbuf_say(err, err_size,
                   "'%.*s': query strings and fragments are not matched",
                   (int)(len > 64 ? 64 : len), s);
        return -EINVAL;
    }
    for (size_t i = 0; i < len; i++)
        cap += s[i] == '/';
    p->seg = calloc(cap, sizeof *p->seg);
    p->joined = malloc(len + 2);
    if (!p->seg || !p->joined) {
        ret = -ENOMEM;
        goto out_free;
    }
    while (q < end) {
        const char *e;
        size_t n;

        while (q < end && *q == '/')
            q++;
        if (q == end)
            break;
        e = memchr(q, '/', (size_t)(end - q));
        n = e ? (size_t)(e - q) : (size_t)(end - q);
        if (p->splat) {
            errbuf_say(err, err_size,
                       "'%.*s': '*' must be the last segment, as in /news/*",
                       (int)(len > 64 ? 64 : len), s);
            goto out_free;
        }
        if (n == 1 && q[0] == '*') {
            p->splat = true;
            q += n;
            continue;
        }
        if (memchr(q, '*', n)) {
            errbuf_say(err, err_size,
                       "'%.*s': '*' must be a whole last segment, as in "
                       "/news/*",
                       (int)(len > 64 ? 64 : len), s);
            goto out_free;
        }
        if (q[0] == ':' && add_var(p, q, n, err, err_size) != 0)
            goto out_free;
        p->seg[p->n] = strndup(q, n);
        if (!p->seg[p->n]) {
            ret = -ENOMEM;
            goto out_free;
        }
        p->n++;
        p->joined[jlen++] = '/';
        memcpy(p->joined + jlen, q, n);
        jlen += n;
        q += n;
    }
    if (jlen == 0)
        p->joined[jlen++] = '/';
    p->joined[jlen] = '\0';
    return 0;
out_free:
    pathpat_free(p);
    return ret;
}

/* The next segment of @*path: its start and length; false at the end. */
static bool next_seg(const char **path, const char **seg, size_t *len)
{
    const char *p = *path;

    while (*p == '/')
        p++;
    if (*p == '\0') {
        *path = p;
        return false;
    }
    *seg = p;
    *len = strcspn(p, "/");
    *path = p + *len;
    return true;
}

bool pathpat_match(const struct pathpat *p, const char *path,
                   struct pathpat_caps *caps)
{
    const char *seg;
    size_t len;

    if (caps)
        caps->n = 0;
    for (size_t i = 0; i < p->n; i++) {
        const char *s = p->seg[i];

        if (!next_seg(&path, &seg, &len))
            return false;
        if (s[0] == ':') {
            if (caps) {
                caps->c[caps->n].name = s + 1;
                caps->c[caps->n].name_len = strlen(s + 1);
                caps->c[caps->n].v = seg;
                caps->c[caps->n].len = len;
                caps->n++;
            }
        } else if (strlen(s) != len || memcmp(s, seg, len) != 0) {
            return false;
        }
    }
    while (*path == '/')
        path++;
    if (!p->splat)
        return *path == '\0';
    if (caps) {
        size_t len_rest = strlen(path);

        while (len_rest > 0 && path[len_rest - 1] == '/')
            len_rest--;
        caps->c[caps->n].name = "splat";
        caps->c[caps->n].name_len = 5;
        caps->c[caps->n].v = path;
        caps->c[caps->n].len = len_rest;
        caps->n++;
    }
    return true;
}

const char *pathpat_caps_find(const struct pathpat_caps *caps, const char *name,
                              size_t len, size_t *vlen)
{
    for (size_t i = 0; i < caps->n; i++)
        if (caps->c[i].name_len == len &&
            memcmp(caps->c[i].name, name, len) == 0) {
            *vlen = caps->c[i].len;
            return caps->c[i].v;
        }
    return NULL;
}

/* ---- the index ---- */

static uint64_t hash(const char *s, size_t len)
{
    uint64_t h = 14695981039346656037ULL; /* FNV-1a */

    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static struct pathpat_slot *slot_find(struct pathpat_slot *t, size_t cap,
                                      size_t pos, const char *key, size_t klen)
{
    if (cap == 0)
        return NULL;
    for (size_t i =
             (hash(key, klen) ^ (pos * 0x9e3779b97f4a7c15ULL)) & (cap - 1);
         ; i = (i + 1) & (cap - 1)) {
        if (!t[i].key || (t[i].pos == pos && t[i].klen == klen &&
                          memcmp(t[i].key, key, klen) == 0))
            return &t[i];
    }
}

static size_t pow2_above(size_t n)
{
    size_t c = 8;

    while (c < 2 * n)
        c *= 2;
    return c;
}

/*
 * The key of pattern @p: 1 exact (the whole path), 2 its first literal
 * segment and that segment's position, 0 none (wild).
 */
static int key_of(const struct pathpat *p, const char **k, size_t *klen,
                  size_t *pos)
{
    *pos = 0;
    if (pathpat_exact(p)) {
        *k = p->joined;
        *klen = strlen(p->joined);
        return 1;
    }
    for (size_t i = 0; i < p->n && i < PATHPAT_KEY_DEPTH; i++)
        if (p->seg[i][0] != ':') {
            *k = p->seg[i];
            *klen = strlen(p->seg[i]);
            *pos = i;
            return 2;
        }
    return 0;
}

int pathpat_index_build(struct pathpat_index *ix, const struct pathpat *first,
                        size_t stride, size_t n)
{
    size_t n_exact = 0, n_first = 0, used = 0;
    const struct pathpat **pats =
        calloc(n ? n : 1, sizeof(const struct pathpat *));

    memset(ix, 0, sizeof *ix);
    if (!pats)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        pats[i] = (const struct pathpat *)(const void *)((const char *)first +
                                                         i * stride);
    ix->pats = pats;
    ix->n = n;
    for (size_t i = 0; i < n; i++) {
        const char *k;
        size_t kl, pos;
        int t = key_of(pats[i], &k, &kl, &pos);

        n_exact += t == 1;
        n_first += t == 2;
    }
    ix->exact_cap = pow2_above(n_exact);
    ix->first_cap = pow2_above(n_first);
    ix->exact = calloc(ix->exact_cap, sizeof *ix->exact);
    ix->first = calloc(ix->first_cap, sizeof *ix->first);
    ix->lists = calloc(n ? n : 1, sizeof *ix->lists);
    ix->wild = calloc(n ? n : 1, sizeof *ix->wild);
    if (!ix->exact || !ix->first || !ix->lists || !ix->wild) {
        pathpat_index_free(ix);
        return -ENOMEM;
    }
    /* pass 1: count per key */
    for (size_t i = 0; i < n; i++) {
        const char *k;
        size_t kl, pos;
        int t = key_of(pats[i], &k, &kl, &pos);
        struct pathpat_slot *s;

        if (t == 0) {
            ix->wild[ix->n_wild++] = i;
            continue;
        }
        s = t == 1 ? slot_find(ix->exact, ix->exact_cap, 0, k, kl)
                   : slot_find(ix->first, ix->first_cap, pos, k, kl);
        if (!s->key) {
            s->key = k;
            s->klen = kl;
            s->pos = pos;
        }
        s->count++;
    }
    /* runs in lists[], then pass 2 fills them in ascending order */
    for (int t = 0; t < 2; t++) {
        struct pathpat_slot *tab = t == 0 ? ix->exact : ix->first;
        size_t cap = t == 0 ? ix->exact_cap : ix->first_cap;

        for (size_t i = 0; i < cap; i++) {
            if (!tab[i].key)
                continue;
            tab[i].start = used;
            used += tab[i].count;
            tab[i].count = 0;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const char *k;
        size_t kl, pos;
        int t = key_of(pats[i], &k, &kl, &pos);
        struct pathpat_slot *s;

        if (t == 0)
            continue;
        s = t == 1 ? slot_find(ix->exact, ix->exact_cap, 0, k, kl)
                   : slot_find(ix->first, ix->first_cap, pos, k, kl);
        ix->lists[s->start + s->count++] = i;
    }
    return 0;
}

/* The ascending runs that may match @path: exact, one per segment, wild. */
#define N_RUNS (PATHPAT_KEY_DEPTH + 2)

struct runs {
    const size_t *v[N_RUNS];
    size_t n[N_RUNS];
    size_t pos[N_RUNS];
};

static void runs_of(const struct pathpat_index *ix, const char *path,
                    struct runs *r)
{
    size_t len = strlen(path), k = 1;
    const char *seg;
    size_t slen;
    const struct pathpat_slot *s;

    memset(r, 0, sizeof *r);
    while (len > 1 && path[len - 1] == '/')
        len--;
    s = slot_find(ix->exact, ix->exact_cap, 0, path, len);
    if (s && s->key) {
        r->v[0] = ix->lists + s->start;
        r->n[0] = s->count;
    }
    for (size_t pos = 0;
         pos < PATHPAT_KEY_DEPTH && next_seg(&path, &seg, &slen); pos++) {
        s = slot_find(ix->first, ix->first_cap, pos, seg, slen);
        if (s && s->key) {
            r->v[k] = ix->lists + s->start;
            r->n[k] = s->count;
            k++;
        }
    }
    r->v[N_RUNS - 1] = ix->wild;
    r->n[N_RUNS - 1] = ix->n_wild;
}

/* The smallest head of the runs, consumed; SIZE_MAX when all are empty. */
static size_t runs_pop(struct runs *r)
{
    size_t best = SIZE_MAX;
    int which = -1;

    for (int k = 0; k < N_RUNS; k++)
        if (r->pos[k] < r->n[k] && r->v[k][r->pos[k]] < best) {
            best = r->v[k][r->pos[k]];
            which = k;
        }
    if (which >= 0)
        r->pos[which]++;
    return best;
}

size_t pathpat_index_first(const struct pathpat_index *ix, const char *path,
                           struct pathpat_caps *caps)
{
    struct runs r;
    size_t i;

    runs_of(ix, path, &r);
    while ((i = runs_pop(&r)) != SIZE_MAX)
        if (pathpat_match(ix->pats[i], path, caps))
            return i;
    return SIZE_MAX;
}

void pathpat_index_each(const struct pathpat_index *ix, const char *path,
                        void (*fn)(void *arg, size_t i,
                                   const struct pathpat_caps *caps),
                        void *arg)
{
    struct pathpat_caps caps;
    struct runs r;
    size_t i;

    runs_of(ix, path, &r);
    while ((i = runs_pop(&r)) != SIZE_MAX)
        if (pathpat_match(ix->pats[i], path, &caps))
            fn(arg, i, &caps);
}

void pathpat_index_free(struct pathpat_index *ix)
{
    if (!ix)
        return;
    free(ix->pats);
    free(ix->exact);
    free(ix->first);
    free(ix->lists);
    free(ix->wild);
    memset(ix, 0, sizeof *ix);
}
