/* SPDX-License-Identifier: MIT */
/*
 * cache.c - the directory cache of the emulated backend (struct
 * resolver_cache): O_PATH fds of directories that walks reached from the
 * root by plain names, so that the next walk starts from the deepest one
 * held. resolver.h says what it promises to callers; this says how, and
 * exactly how much.
 *
 * Invariant: every directory held was opened by name, with O_NOFOLLOW, from
 * the root or from a directory held, AFTER that parent's inotify watch was in
 * place, and got a watch of its own right after. From then on the kernel
 * queues an event for anything that could make the held fd differ from what
 * a walk from the root finds under its key: the directory moved or deleted
 * (IN_MOVE_SELF, IN_DELETE_SELF on it; IN_MOVED_FROM, IN_DELETE with
 * IN_ISDIR on its parent, which also covers the moment before its own watch
 * existed), its mode, owner or ACL changed (IN_ATTRIB on it), or a mount
 * anywhere in the namespace (mountinfo's POLLPRI).
 *
 * The guarantee, exactly. The kernel makes a change (rename, rmdir, chmod,
 * mount) visible to lookups first and queues its event afterwards, before
 * the call that made it returns: for a moment a lookup already sees the new
 * tree while no event says so. After every walk that used the cache,
 * rcache_changed polls once (epoll_wait, zero timeout) and sees every event
 * queued since the previous poll; any event that matters empties the cache
 * and the walk is done again from the root alone. So when the poll sees
 * nothing:
 *   - every change whose call had returned before the poll was seen, by this
 *     poll or by an earlier one that emptied the cache (after which each
 *     directory held was opened anew by name), so the walk used no directory
 *     that such a change had moved, deleted or made unsearchable;
 *   - every directory the walk took from the cache was where its key says
 *     throughout the walk, except for a change still in flight when the poll
 *     ran (visible, its event not yet queued, its call not yet returned).
 *     Such a change overlaps the walk, and the answer may be the one a walk
 *     from the root gave just before it took effect, even though another
 *     thread could already see the new tree; a caller that waited for its
 *     rename(2) to return never gets the old answer afterwards. An uncached
 *     walk is no different for the directories it holds during one walk (and
 *     the kernel's openat2 neither, for a directory moved under a downward
 *     walk): the poll brings the cache back to that.
 *
 * Credentials: a walk from the root has the kernel check search permission
 * on every directory of the path with the credentials of the moment. A
 * cached walk has it check only the directories it opens names in: the held
 * one it starts from and those below. The ancestors of a held directory (the
 * root included) were checked when it was opened, with the credentials in
 * force then, and no event is queued when the credentials change. So the
 * process's uid, gids, supplementary groups and capabilities
 * (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH; a --user privilege drop changes
 * all of them) must not change while a cache holds directories: after a drop
 * from root, a path through a held directory whose ancestor the new user may
 * not search would still open, where a walk from the root answers EACCES.
 * Free every cache before such a change, or make them after it (a new cache
 * holds nothing before its first walk); the server makes each thread's
 * cache after the drop. (Every backend relies on the checks made when the
 * root fd was opened for the root's own ancestors; that is the caller's
 * choice. The cache extends that reliance to the root and below.)
 *
 * Events about files (no IN_ISDIR, a name) are read and dropped: no file is
 * held, and nothing can take a directory's name without an event about the
 * directory first.
 *
 * Only directories on the root's own mount are held: an fd keeps its mount
 * busy, and the root fd already pins that one, so the cache never makes an
 * umount fail. A walk that crosses into another mount goes on uncached.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#define WATCH_MASK                                                             \
    (IN_MOVED_FROM | IN_DELETE | IN_MOVE_SELF | IN_DELETE_SELF | IN_ATTRIB |   \
     IN_ONLYDIR)
/* Events that empty the cache (besides any event about a watched directory
 * itself, which carries no name). */
#define FLUSH_MASK (IN_ISDIR | IN_Q_OVERFLOW | IN_IGNORED | IN_UNMOUNT)

enum { EV_INOTIFY = 1, EV_MOUNTS = 2 };

enum cache_state {
    CACHE_IDLE,  /* nothing open: set up at the next walk */
    CACHE_READY, /* watching */
    CACHE_OFF,   /* the kernel lacks something: plain walks only */
};

struct centry {
    char *key;
    uint32_t len;
    uint32_t hash;
    struct rcache_dir dir;
};

struct resolver_cache {
    int root_fd; /* borrowed */
    enum cache_state state;
    bool full; /* empty it before the next walk */
    int ifd;   /* inotify */
    int mfd;   /* /proc/self/mountinfo, polled for mount changes */
    int epfd;  /* both, for one epoll_wait */
    uint64_t root_mnt;
    unsigned max;
    unsigned n;
    struct centry *v; /* v[0..n) */
    int32_t *slot;    /* open addressing into v, -1 empty */
    unsigned nslot;   /* a power of two, at least 2 * max */
    struct resolver_cache_stats st;
};

static uint32_t hash_key(const char *key, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */

    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)key[i]) * 16777619u;
    return h;
}

int resolver_cache_new(int root_fd, unsigned max_dirs,
                       struct resolver_cache **out)
{
    struct resolver_cache *c;
    unsigned nslot = 16;

    if (root_fd < 0)
        return -EBADF;
    if (max_dirs == 0 || max_dirs > (1u << 24))
        return -EINVAL;
    while (nslot < 2 * max_dirs)
        nslot *= 2;
    c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    c->v = calloc(max_dirs, sizeof(*c->v));
    c->slot = malloc(nslot * sizeof(*c->slot));
    if (!c->v || !c->slot) {
        free(c->v);
        free(c->slot);
        free(c);
        return -ENOMEM;
    }
    memset(c->slot, 0xff, nslot * sizeof(*c->slot));
    c->root_fd = root_fd;
    c->state = CACHE_IDLE;
    c->ifd = c->mfd = c->epfd = -1;
    c->max = max_dirs;
    c->nslot = nslot;
    *out = c;
    return 0;
}

/* Let go of every directory and every fd: back to CACHE_IDLE. */
static void cache_empty(struct resolver_cache *c)
{
    for (unsigned i = 0; i < c->n; i++) {
        close(c->v[i].dir.fd);
        free(c->v[i].key);
    }
    if (c->n)
        memset(c->slot, 0xff, c->nslot * sizeof(*c->slot));
    c->n = 0;
    c->st.dirs = 0;
    c->full = false;
    if (c->epfd >= 0)
        close(c->epfd);
    if (c->mfd >= 0)
        close(c->mfd);
    if (c->ifd >= 0)
        close(c->ifd);
    c->ifd = c->mfd = c->epfd = -1;
    if (c->state == CACHE_READY)
        c->state = CACHE_IDLE;
}

void resolver_cache_free(struct resolver_cache *c)
{
    if (!c)
        return;
    cache_empty(c);
    free(c->v);
    free(c->slot);
    free(c);
}

void resolver_cache_get_stats(const struct resolver_cache *c,
                              struct resolver_cache_stats *out)
{
    *out = c->st;
}

int rcache_root_fd(const struct resolver_cache *c)
{
    return c->root_fd;
}

uint64_t rcache_root_mnt(const struct resolver_cache *c)
{
    return c->root_mnt;
}

/* Watch @fd's directory through its /proc/self/fd link. */
static int watch(struct resolver_cache *c, int fd)
{
    char p[32];

    snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
    return inotify_add_watch(c->ifd, p, WATCH_MASK) < 0 ? -errno : 0;
}

static int add_epoll(int epfd, int fd, uint32_t events, uint32_t tag)
{
    struct epoll_event ev = {.events = events, .data.u32 = tag};

    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/*
 * Open the event sources and watch the root. A failure that says the
 * kernel or the filesystem cannot do it turns the cache off for good;
 * running out of fds or watches leaves it idle, to be tried again.
 */
static int cache_setup(struct resolver_cache *c)
{
    struct statfs sfs;
    int err;

    c->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (c->ifd < 0)
        goto out_errno;
    c->mfd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    if (c->mfd < 0)
        goto out_errno;
    c->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (c->epfd < 0)
        goto out_errno;
    err = add_epoll(c->epfd, c->ifd, EPOLLIN, EV_INOTIFY);
    if (err == 0)
        err = add_epoll(c->epfd, c->mfd, EPOLLPRI, EV_MOUNTS);
    if (err < 0)
        goto out;
    if (fstatfs(c->root_fd, &sfs) < 0)
        goto out_errno;
    if (!(fsinfo_of(&sfs) & FS_LOCAL)) {
        err = -EXDEV; /* not a filesystem whose changes we would see */
        goto out;
    }
    err = watch(c, c->root_fd);
    if (err == 0)
        err = fsinfo_mount_id(c->root_fd, &c->root_mnt);
    if (err < 0)
        goto out;
    c->state = CACHE_READY;
    return 0;
out_errno:
    err = -errno;
out:
    cache_empty(c);
    if (err != -EMFILE && err != -ENFILE && err != -ENOMEM && err != -ENOSPC) {
        c->state = CACHE_OFF;
        c->st.off_errno = -err;
    }
    return err;
}

bool rcache_begin(struct resolver_cache *c)
{
    if (c->full) {
        cache_empty(c);
        c->st.flushes++;
    }
    if (c->state == CACHE_IDLE)
        cache_setup(c);
    return c->state == CACHE_READY;
}

static int32_t *find_slot(struct resolver_cache *c, const char *key, size_t len,
                          uint32_t hash)
{
    unsigned mask = c->nslot - 1;

    for (unsigned i = hash & mask;; i = (i + 1) & mask) {
        int32_t *s = &c->slot[i];
        const struct centry *e;

        if (*s < 0)
            return s;
        e = &c->v[*s];
        if (e->hash == hash && e->len == len && memcmp(e->key, key, len) == 0)
            return s;
    }
}

bool rcache_lookup(struct resolver_cache *c, const char *key, size_t len,
                   struct rcache_dir *out)
{
    int32_t *s = find_slot(c, key, len, hash_key(key, len));

    if (*s < 0)
        return false;
    *out = c->v[*s].dir;
    c->st.hits++;
    return true;
}

bool rcache_adopt(struct resolver_cache *c, const char *key, size_t len, int fd,
                  const uint64_t *mnt, struct rcache_dir *out)
{
    uint32_t hash = hash_key(key, len);
    struct statfs sfs;
    struct centry *e;
    int32_t *s;

    c->st.misses++;
    if (c->n == c->max) {
        c->full = true;
        return false;
    }
    s = find_slot(c, key, len, hash);
    if (*s >= 0 || fstatfs(fd, &sfs) < 0)
        return false;
    e = &c->v[c->n];
    e->dir.fd = fd;
    e->dir.fs = fsinfo_of(&sfs);
    if (!(e->dir.fs & FS_LOCAL))
        return false;
    if (mnt)
        e->dir.mnt = *mnt;
    else if (fsinfo_mount_id(fd, &e->dir.mnt) < 0)
        return false;
    /* Held fds keep their mount busy: hold none but on the root's own. */
    if (e->dir.mnt != c->root_mnt)
        return false;
    if (watch(c, fd) < 0)
        return false;
    e->key = malloc(len + 1);
    if (!e->key)
        return false; /* the watch stays until the next emptying: harmless */
    memcpy(e->key, key, len);
    e->key[len] = '\0';
    e->len = (uint32_t)len;
    e->hash = hash;
    *s = (int32_t)c->n++;
    c->st.adds++;
    c->st.dirs = c->n;
    *out = e->dir;
    return true;
}

/* Read every queued inotify event; whether one of them matters. */
static bool drain_inotify(struct resolver_cache *c)
{
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    bool matters = false;
    ssize_t n;

    while ((n = read(c->ifd, buf, sizeof(buf))) > 0) {
        for (ssize_t off = 0; off < n;) {
            const struct inotify_event *ev = (const void *)(buf + off);

            if (ev->len == 0 || (ev->mask & FLUSH_MASK))
                matters = true;
            off += (ssize_t)(sizeof(*ev) + ev->len);
        }
    }
    /* EAGAIN: drained. Anything else: we cannot tell, so it matters. */
    if (n < 0 && errno != EAGAIN)
        matters = true;
    return matters;
}

bool rcache_changed(struct resolver_cache *c)
{
    struct epoll_event ev[2];
    bool changed = false;
    int n;

    if (c->state != CACHE_READY)
        return true; /* emptied during the walk: do not trust it */
    n = epoll_wait(c->epfd, ev, 2, 0);
    if (n == 0)
        return false;
    if (n < 0)
        changed = true;
    for (int i = 0; i < n; i++) {
        /* A mount change, or an inotify event that matters. */
        bool now = ev[i].data.u32 == EV_MOUNTS || drain_inotify(c);

        changed = changed || now;
    }
    if (changed) {
        cache_empty(c);
        c->st.flushes++;
        c->st.rewalks++;
    }
    return changed;
}
