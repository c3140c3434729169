/* SPDX-License-Identifier: MIT */
/*
 * backend_walk.c - the userspace emulation of openat2's RESOLVE_* semantics.
 *
 * The path is walked one component at a time from the root fd, the way
 * fs/namei.c does it (path_init -> link_path_walk -> the last component ->
 * terminate_walk become walk_init -> walk_step -> walk_last -> walk_finish).
 * Each step says what it did with an enum step; the answer (an fd, or
 * -errno) is left in the walk, so no value shares the space of fds and
 * errnos.
 * Every directory on the way is held as an O_PATH fd on a stack; ".." pops
 * the stack instead of asking the kernel for the parent, so a directory
 * renamed out of the root by another thread cannot lead the walk out. The
 * kernel's openat2 is the specification: tests/test_resolver.c compares the
 * two over generated paths for every flag combination.
 *
 * Cost: a plain component is one openat(O_PATH|O_NOFOLLOW|O_DIRECTORY);
 * the fds are closed at the end, usually all in one close_range. The type is
 * looked up only when that open says ENOTDIR (a file or a symlink: readlinkat
 * tells them apart); mount ids are read only under NO_XDEV; the filesystem type
 * (procfs magic links, MNT_NOSYMFOLLOW) only when a symlink is met, once per
 * directory.
 *
 * Magic links (the procfs links that jump without text: /proc/self/fd/N,
 * /proc/self/cwd, root, exe, map_files, ns): userspace cannot ask the kernel
 * whether a link is magic. The rule used here: a symlink on procfs
 * (fstatfs f_type PROC_SUPER_MAGIC) whose text is absolute or contains ':'
 * ("/srv/x", "pipe:[12]", "anon_inode:[eventfd]", "net:[4026...]") is magic;
 * procfs's textual links ("self" -> "1234", "thread-self" -> "1234/task/1234",
 * "mounts" -> "self/mounts", "net" -> "self/net") are relative without ':'
 * and are followed as text, as the kernel does. Limits: a proc_symlink()
 * created by a driver with absolute text would be taken for magic (refused
 * under scoping where the kernel would jump to the root); magic links are
 * followed (unscoped only) by letting the kernel do it, one component.
 *
 * Following into a directory (resolver.h; backend_walk_hop, BENEATH only):
 * the walk also keeps the names from the root to the current directory and,
 * for each link whose text is not walked yet, where that text lies in the
 * buffer. A ".." that climbs out of the root from a link's text, or an
 * absolute link, ends the walk in into_hop: the rest of that text is read
 * from the root's path (or "/") to name the directory the link leads into,
 * and the walk answers -EXDEV with what it found; resolver.c starts the
 * next walk (or openat2) beneath that directory's fd. Nothing is opened by
 * that path: the walk still opens only components, beneath the root.
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define SCOPED (RESOLVER_BENEATH | RESOLVER_IN_ROOT)
/* Directory fds held before the stack moves to the heap. */
#define INLINE_FRAMES 32
/* The inline remaining-path buffer: room for the path and one link text. */
#define INLINE_BUF (2 * (size_t)RESOLVER_PATH_MAX)

struct frame {
    int fd;       /* O_PATH directory fd */
    bool owned;   /* ours to close (not the caller's root, not the cache's) */
    int fs;       /* enum fs_info bits, filled when a link is met */
    uint64_t mnt; /* mount id, only under NO_XDEV */
    size_t where; /* w->where_len before this frame was pushed */
};

/*
 * The text of a link spliced into the remaining path, as distances from
 * the end of the buffer (a prepend keeps those): (lo, hi]. @loc: the offset
 * of the link's name in w->locs, or NO_LOC when it did not fit.
 */
#define NO_LOC SIZE_MAX
struct region {
    size_t lo;
    size_t hi;
    size_t loc;
};

struct walk {
    uint64_t resolve;
    int open_flags;
    struct frame *stack; /* stack[0] is the root (or "/" or a magic target) */
    size_t top;          /* index of the current directory */
    size_t cap;
    char *buf; /* remaining path is buf[start, end), buf[end] == 0 */
    size_t buf_cap;
    size_t start;
    size_t end;
    int links; /* symlinks followed so far */
    /*
     * Unscoped: whether the kernel would have set nd->root yet (it does so
     * lazily: at an absolute path, a "..", a jump). Until then NO_XDEV
     * refuses any absolute link, as nd_jump_root compares with a NULL mount.
     */
    bool root_set;
    /* IN_ROOT: the root was found uncovered by dotdot_in_root already. */
    bool root_uncovered;
    /*
     * The directory cache, or NULL. While @clean, stack[top] was reached
     * from the root by plain names only and key[0, key_len) names it; then
     * each directory opened is offered to the cache, and each looked up
     * there first. @cache_used: the answer must be checked (rcache_changed).
     */
    struct resolver_cache *cache;
    bool clean;
    bool cache_used;
    size_t key_len;
    int fd;  /* the answer after STEP_DONE */
    int err; /* the answer after STEP_FAIL: -errno */
    /*
     * Following into a directory (resolver.h), only with @hop (and only
     * under BENEATH): @where names stack[top] from stack[0] ("a/b"), and
     * each link followed pushes the region of its text, popped once the walk
     * is past it; so the top region holds the component being walked at
     * distance @comp from the end of the buffer, when a link's text does.
     */
    struct walk_hop *hop;
    const struct resolver_into *into;
    size_t n_into;
    struct resolver_escape *escape;
    size_t comp;
    size_t n_regions;
    size_t where_len;
    size_t locs_len;
    struct region regions[RESOLVER_MAX_SYMLINKS + 1];
    char where[RESOLVER_PATH_MAX];
    char locs[RESOLVER_PATH_MAX]; /* the regions' link names, NUL after each */
    char key[RESOLVER_PATH_MAX];
    struct frame inline_stack[INLINE_FRAMES];
    char inline_buf[INLINE_BUF + 1];
    char link[RESOLVER_PATH_MAX]; /* the text of the link being followed */
    char name[RESOLVER_PATH_MAX]; /* the component being looked up */
};

/* What a step of the walk did. */
enum step {
    STEP_MORE, /* a component walked or a link spliced in: go on */
    STEP_DONE, /* w->fd is the answer */
    STEP_FAIL, /* w->err is the answer */
};

static enum step done(struct walk *w, int fd)
{
    w->fd = fd;
    return STEP_DONE;
}

static enum step fail(struct walk *w, int err)
{
    w->err = err;
    return STEP_FAIL;
}

/* A helper's 0 goes on; its -errno is the answer. */
static enum step more_or_fail(struct walk *w, int err)
{
    return err < 0 ? fail(w, err) : STEP_MORE;
}

static struct frame *cur(struct walk *w)
{
    return &w->stack[w->top];
}

static int frame_fs(struct frame *f)
{
    struct statfs sfs;
    int r;

    if (f->fs)
        return f->fs;
    r = f->fd == AT_FDCWD ? statfs(".", &sfs) : fstatfs(f->fd, &sfs);
    if (r < 0)
        return -errno;
    f->fs = fsinfo_of(&sfs);
    return f->fs;
}

static void close_frame(struct walk *w, size_t i)
{
    if (w->stack[i].owned)
        close(w->stack[i].fd);
}

/* Drop stack[top] (a ".." walked, or a jump to the root). */
static void pop(struct walk *w)
{
    w->where_len = cur(w)->where;
    close_frame(w, w->top--);
}

/* Drop the whole stack and make @fd (owned when @owned) the bottom. */
static void reset_stack(struct walk *w, int fd, bool owned, uint64_t mnt)
{
    for (size_t i = w->top + 1; i-- > 0;)
        close_frame(w, i);
    w->top = 0;
    w->stack[0] =
        (struct frame){.fd = fd, .owned = owned, .fs = FS_UNKNOWN, .mnt = mnt};
    w->clean = false;
    w->where_len = 0;
}

/* Push the directory @fd; an owned one is closed if that fails. */
static int push(struct walk *w, int fd, bool owned, int fs, uint64_t mnt)
{
    if (w->top + 1 == w->cap) {
        size_t ncap = w->cap * 2;
        struct frame *n;

        if (w->stack == w->inline_stack) {
            n = malloc(ncap * sizeof(*n));
            if (n)
                memcpy(n, w->stack, w->cap * sizeof(*n));
        } else {
            n = realloc(w->stack, ncap * sizeof(*n));
        }
        if (!n) {
            if (owned)
                close(fd);
            return -ENOMEM;
        }
        w->stack = n;
        w->cap = ncap;
    }
    w->top++;
    w->stack[w->top] = (struct frame){
        .fd = fd, .owned = owned, .fs = fs, .mnt = mnt, .where = w->where_len};
    return 0;
}

/* Put @len bytes of @text in front of the remaining path. */
static int prepend(struct walk *w, const char *text, size_t len)
{
    if (len > w->start) {
        size_t rest = w->end - w->start;
        size_t ncap = w->buf_cap + len + RESOLVER_PATH_MAX;
        char *n = malloc(ncap + 1);

        if (!n)
            return -ENOMEM;
        memcpy(n + ncap - rest, w->buf + w->start, rest + 1);
        if (w->buf != w->inline_buf)
            free(w->buf);
        w->buf = n;
        w->buf_cap = ncap;
        w->start = ncap - rest;
        w->end = ncap;
    }
    w->start -= len;
    memcpy(w->buf + w->start, text, len);
    return 0;
}

/* ---- following into a directory (resolver.h), only with a walk_hop ---- */

/* Note the name of the directory just pushed (cut when @where is full). */
static void where_add(struct walk *w, const char *name)
{
    size_t len = w->where_len, n = strlen(name);

    if (len > 0 && len + 1 < sizeof(w->where))
        w->where[len++] = '/';
    if (n >= sizeof(w->where) - len)
        n = sizeof(w->where) - 1 - len;
    memcpy(w->where + len, name, n);
    w->where_len = len + n;
}

/*
 * The link @name of stack[top], whose @n bytes of text are about to be
 * spliced in front of the rest: its region, and its path from stack[0] in
 * w->locs (empty when there is no room left).
 */
static void region_push(struct walk *w, const char *name, size_t n)
{
    struct region *r = &w->regions[w->n_regions++];
    int len = snprintf(w->locs + w->locs_len, sizeof(w->locs) - w->locs_len,
                       "%.*s%s%s", (int)w->where_len, w->where,
                       w->where_len ? "/" : "", name);

    r->lo = w->end - w->start;
    r->hi = r->lo + n;
    r->loc = NO_LOC;
    if (len >= 0 && (size_t)len < sizeof(w->locs) - w->locs_len) {
        r->loc = w->locs_len;
        w->locs_len += (size_t)len + 1;
    }
}

/* Pop the regions the walk is past: the next component is at @d. */
static void regions_drop(struct walk *w, size_t d)
{
    while (w->n_regions > 0 && d <= w->regions[w->n_regions - 1].lo) {
        const struct region *r = &w->regions[--w->n_regions];

        if (r->loc != NO_LOC)
            w->locs_len = r->loc;
    }
}

/* Whether @path ("" for "/") is the directory named @name. */
static bool same_dir(const char *path, size_t len, const char *name)
{
    if (!name)
        return false;
    if (name[0] == '/' && name[1] == '\0')
        return len == 0;
    return strlen(name) == len && memcmp(name, path, len) == 0;
}

static int into_match(const struct walk *w, const char *path, size_t len)
{
    for (size_t i = 0; i < w->n_into; i++)
        if (same_dir(path, len, w->into[i].path) ||
            same_dir(path, len, w->into[i].alias))
            return (int)i;
    return -1;
}

void escape_put(char *dst, const char *a, const char *sep, const char *b,
                size_t blen)
{
    int n =
        snprintf(dst, RESOLVER_ESCAPE_MAX, "%s%s%.*s", a, sep, (int)blen, b);

    if (n >= RESOLVER_ESCAPE_MAX)
        memcpy(dst + RESOLVER_ESCAPE_MAX - 4, "...", 4);
}

/*
 * Into w->escape: the link of region @r, and its target: @path (@len < 0:
 * not known, then the text from buf[@at]) and what is left of the text,
 * buf[@p, @stop).
 */
static void report(struct walk *w, const struct region *r, const char *path,
                   ssize_t len, size_t at, size_t p, size_t stop, int into)
{
    struct resolver_escape *e = w->escape;

    if (!e)
        return;
    while (p < stop && w->buf[p] == '/')
        p++;
    escape_put(e->link, r->loc == NO_LOC ? "?" : w->locs + r->loc, "", "", 0);
    if (len < 0)
        escape_put(e->target, "", "", w->buf + at, stop - at);
    else
        escape_put(e->target, len > 0 ? path : "/",
                   len > 0 && p < stop ? "/" : "", w->buf + p, stop - p);
    e->into = into;
}

/*
 * The link of the top region leaves stack[0]: its text from buf[@at] to
 * the region's end, from "/" when @absolute, else from the path of
 * stack[0] (the first component is the ".." that climbs out of it). Taken
 * component by component until the path it spells is a directory of
 * w->into: then the rest of the text and of the path goes to w->hop, to be
 * resolved beneath that directory. Says what it found in w->escape.
 * Returns -EXDEV (w->hop->into >= 0: go on beneath into[w->hop->into]),
 * or -ENAMETOOLONG when the rest is too long to resolve.
 */
static int into_hop(struct walk *w, size_t at, bool absolute)
{
    const struct region *r = &w->regions[w->n_regions - 1];
    size_t stop = w->end - r->lo, p = at, rest;
    char path[RESOLVER_PATH_MAX];
    ssize_t len = 0;
    bool named = false;
    int into = -1;

    path[0] = '\0';
    if (!absolute)
        len = fsinfo_dir_path(w->stack[0].fd, path);
    while (len >= 0 && into < 0) {
        size_t q;

        while (p < stop && w->buf[p] == '/')
            p++;
        if (p == stop)
            break;
        for (q = p; q < stop && w->buf[q] != '/'; q++)
            ;
        if (q - p == 1 && w->buf[p] == '.') {
            p = q;
            continue;
        }
        if (q - p == 2 && w->buf[p] == '.' && w->buf[p + 1] == '.') {
            if (named)
                break; /* the name before it may be a link: refused */
            while (len > 0 && path[--len] != '/')
                ;
        } else if ((size_t)len + 1 + (q - p) < sizeof(path)) {
            path[len++] = '/';
            memcpy(path + len, w->buf + p, q - p);
            len += (ssize_t)(q - p);
            named = true;
        } else {
            break;
        }
        path[len] = '\0';
        p = q;
        into = into_match(w, path, (size_t)len);
    }
    report(w, r, path, len, at, p, stop, into);
    if (into < 0)
        return -EXDEV;
    while (w->buf[p] == '/')
        p++;
    rest = w->end - p;
    if (rest >= RESOLVER_PATH_MAX)
        return -ENAMETOOLONG;
    w->hop->rest = strdup(rest ? w->buf + p : ".");
    if (!w->hop->rest)
        return -ENOMEM;
    w->hop->into = into;
    return -EXDEV;
}

/*
 * The root a jump goes to: the root fd under IN_ROOT, "/" unscoped. The
 * kernel's nd_jump_root: BENEATH refuses; NO_XDEV refuses a jump from
 * another mount than the root's, except for an absolute path argument.
 */
static int jump_root(struct walk *w, bool from_link)
{
    uint64_t mnt = 0;
    int fd;
    int err;

    if (w->resolve & RESOLVER_BENEATH)
        return -EXDEV;
    if (w->resolve & RESOLVER_IN_ROOT) {
        if (from_link && (w->resolve & RESOLVER_NO_XDEV) &&
            cur(w)->mnt != w->stack[0].mnt && w->top > 0)
            return -EXDEV;
        while (w->top > 0)
            pop(w);
        w->clean = false;
        return 0;
    }
    if (from_link && (w->resolve & RESOLVER_NO_XDEV) && !w->root_set)
        return -EXDEV;
    w->root_set = true;
    fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (w->resolve & RESOLVER_NO_XDEV) {
        err = fsinfo_mount_id(fd, &mnt);
        if (err == 0 && from_link && cur(w)->mnt != mnt)
            err = -EXDEV;
        if (err < 0) {
            close(fd);
            return err;
        }
    }
    reset_stack(w, fd, true, mnt);
    return 0;
}

static int walk_init(struct walk *w, int root_fd, const char *path,
                     const struct resolver_how *how,
                     struct resolver_cache *cache, struct walk_hop *hop)
{
    uint64_t resolve = how->resolve;
    size_t len = strlen(path);

    w->resolve = resolve;
    w->open_flags = how->open_flags;
    w->stack = w->inline_stack;
    w->cap = INLINE_FRAMES;
    w->top = 0;
    w->stack[0] = (struct frame){
        .fd = root_fd, .owned = false, .fs = FS_UNKNOWN, .mnt = 0, .where = 0};
    w->hop = (resolve & RESOLVER_BENEATH) ? hop : NULL;
    w->into = how->into;
    w->n_into = how->n_into;
    w->escape = how->escape;
    w->comp = 0;
    w->n_regions = 0;
    w->where_len = 0;
    w->locs_len = 0;
    if (hop) {
        free(hop->rest);
        *hop = (struct walk_hop){.into = -1, .rest = NULL};
    }
    w->cache = cache;
    w->clean = cache != NULL;
    w->cache_used = false;
    w->key_len = 0;
    w->fd = -1;
    w->err = 0;
    w->buf = w->inline_buf;
    w->buf_cap = INLINE_BUF;
    w->links = 0;
    w->root_set = false;
    w->root_uncovered = false;
    w->link[0] = '\0';
    if (len == 0)
        return -ENOENT;
    if (len >= RESOLVER_PATH_MAX)
        return -ENAMETOOLONG;
    w->end = INLINE_BUF;
    w->start = w->end - len;
    memcpy(w->buf + w->start, path, len + 1);
    if (path[0] == '/' && !(resolve & RESOLVER_IN_ROOT))
        return jump_root(w, false);
    if (resolve & RESOLVER_NO_XDEV) {
        if (cache) {
            w->stack[0].mnt = rcache_root_mnt(cache);
            return 0;
        }
        return fsinfo_mount_id(root_fd, &w->stack[0].mnt);
    }
    return 0;
}

/* Under NO_XDEV, a newly opened @fd must be on the current mount. */
static int check_xdev(struct walk *w, int fd, uint64_t *mnt)
{
    int err;

    *mnt = 0;
    if (!(w->resolve & RESOLVER_NO_XDEV))
        return 0;
    err = fsinfo_mount_id(fd, mnt);
    if (err == 0 && *mnt != cur(w)->mnt)
        err = -EXDEV;
    return err;
}

/*
 * Whether a mount has been stacked on the bottom of the stack (the caller's
 * root, "/", a magic link's target) since it was opened: the kernel steps
 * into whatever is mounted on the directory a ".." reaches (step_into ->
 * handle_mounts), also at IN_ROOT's root. The frames above the bottom were
 * looked up by name, which had stepped in already; the bottom may have been
 * covered since, as when a deploy mounts a new tree over the served root.
 * Userspace can see that only from below: @child's ".." (a statx, no fd)
 * is on another mount than the bottom. A ".." on the same mount that is
 * another directory is a rename racing the walk: the pop stays inside, as
 * the stack is for.
 */
static int bottom_covered(struct walk *w, int child, bool *covered)
{
    uint64_t bottom;
    uint64_t above;
    int err;

    err = fsinfo_mount_id_at(w->stack[0].fd, "", &bottom);
    if (err == 0)
        err = fsinfo_mount_id_at(child, "..", &above);
    *covered = err == 0 && above != bottom;
    return err;
}

/*
 * A subdirectory of the bottom, to ask bottom_covered from: the first the
 * bottom lists among its first entries, as an owned O_PATH fd; or -1 when
 * there is none or the bottom cannot be listed (nothing to ask: the walk
 * takes the bottom as uncovered).
 */
static int bottom_child(struct walk *w)
{
    enum { ENTRIES_READ = 256 };
    int fd = -1;
    int dfd;
    DIR *dir;

    dfd = openat(w->stack[0].fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    dir = fdopendir(dfd);
    if (!dir) {
        close(dfd);
        return -1;
    }
    for (int i = 0; i < ENTRIES_READ && fd < 0; i++) {
        const struct dirent *de = readdir(dir);

        if (!de)
            break;
        if ((de->d_type != DT_DIR && de->d_type != DT_UNKNOWN) ||
            strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        fd = openat(w->stack[0].fd, de->d_name,
                    O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
    }
    closedir(dir);
    return fd;
}

/*
 * ".." met a mount stacked on the bottom (bottom_covered). NO_XDEV: the
 * kernel refuses to step in. Unscoped: no confinement is claimed, so the
 * kernel's ".." of @child (the covering mount's root) becomes the bottom.
 * Scoped: following it would mean opening ".."; a rename racing the walk
 * could then lead out, so the walk answers EAGAIN, as the kernel does when
 * the mount table changes under a scoped walk (a caller that retries still
 * gets it; the server answers 503 until the root is opened again).
 */
static int step_onto_cover(struct walk *w, int child)
{
    int fd;

    if (w->resolve & RESOLVER_NO_XDEV)
        return -EXDEV;
    if (w->resolve & SCOPED)
        return -EAGAIN;
    fd = openat(child, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    reset_stack(w, fd, true, 0);
    return 0;
}

/* ".." back to the bottom from stack[1]. */
static int dotdot_to_bottom(struct walk *w)
{
    bool covered;
    int err = bottom_covered(w, cur(w)->fd, &covered);

    if (err < 0)
        return err;
    if (covered)
        return step_onto_cover(w, cur(w)->fd);
    pop(w);
    return 0;
}

/* IN_ROOT's ".." at the root: stay, unless a mount covers it now. */
static int dotdot_in_root(struct walk *w)
{
    bool covered = false;
    int child;
    int err;

    if (w->root_uncovered)
        return 0;
    child = bottom_child(w);
    if (child >= 0) {
        err = bottom_covered(w, child, &covered);
        if (err == 0 && covered)
            err = step_onto_cover(w, child);
        close(child);
        if (err < 0)
            return err;
    }
    w->root_uncovered = true;
    return 0;
}

/* ".." : pop, never open ".." while scoped. */
static int dotdot(struct walk *w)
{
    struct stat st;
    uint64_t mnt;
    int fd;
    int err;

    w->root_set = true;
    w->clean = false;
    if (w->top > 1) {
        pop(w);
        return 0;
    }
    if (w->top == 1)
        return dotdot_to_bottom(w);
    if (w->resolve & RESOLVER_IN_ROOT)
        return dotdot_in_root(w);
    if (w->resolve & RESOLVER_BENEATH) {
        /* The kernel checks the root fd is a directory first. */
        if (fstatat(w->stack[0].fd, "", &st, AT_EMPTY_PATH) < 0)
            return -errno;
        if (!S_ISDIR(st.st_mode))
            return -ENOTDIR;
        /* a link's text climbs out, not the path's own "..": maybe into */
        if (w->hop && w->n_regions > 0)
            return into_hop(w, w->end - w->comp, false);
        return -EXDEV;
    }
    /* Unscoped: no confinement is claimed, so the kernel's ".." is fine. */
    fd = openat(w->stack[0].fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    err = check_xdev(w, fd, &mnt);
    if (err < 0) {
        close(fd);
        return err;
    }
    reset_stack(w, fd, true, mnt);
    return 0;
}

/*
 * A magic link, unscoped and allowed: let the kernel follow that one
 * component. @final: the caller's open flags apply; otherwise a directory is
 * needed and becomes the new bottom of the stack (its ".." is the kernel's).
 * The kernel's nd_jump_link refuses, under NO_XDEV, a target on another
 * mount than the link's directory.
 */
static enum step follow_magic(struct walk *w, const char *name, bool final)
{
    bool xdev = w->resolve & RESOLVER_NO_XDEV;
    uint64_t mnt = 0;
    mode_t type = 0;
    int fd;
    int err;

    fd = openat(cur(w)->fd, name, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return fail(w, -errno);
    err = fsinfo_type_mount(fd, xdev, &type, &mnt);
    if (err == 0 && xdev && mnt != cur(w)->mnt)
        err = -EXDEV;
    if (err == 0 && type != S_IFDIR &&
        (!final || (w->open_flags & O_DIRECTORY)))
        err = -ENOTDIR;
    if (err < 0)
        goto out_close;
    if (!final) {
        reset_stack(w, fd, true, mnt);
        return STEP_MORE;
    }
    if ((w->open_flags & ~(O_CLOEXEC | O_DIRECTORY)) == O_PATH)
        return done(w, fd);
    close(fd);
    fd = openat(cur(w)->fd, name, w->open_flags);
    return fd < 0 ? fail(w, -errno) : done(w, fd);
out_close:
    close(fd);
    return fail(w, err);
}

/*
 * Follow the symlink @name of the current directory, whose @n bytes of text
 * are in w->link, in pick_link's order: link count, NO_SYMLINKS and
 * nosymfollow mounts, magic links, then absolute text (nd_jump_root).
 * w->start is just after the link's name. STEP_MORE when the text was
 * spliced in front of the rest (or, not @final, a magic link's directory
 * became the bottom of the stack), STEP_DONE for a final magic link.
 */
static enum step follow_link(struct walk *w, ssize_t n, const char *name,
                             bool final)
{
    int fs;
    int err;

    w->clean = false;
    if (++w->links > RESOLVER_MAX_SYMLINKS)
        return fail(w, -ELOOP);
    if (w->resolve & RESOLVER_NO_SYMLINKS)
        return fail(w, -ELOOP);
    fs = frame_fs(cur(w));
    if (fs < 0)
        return fail(w, fs);
    if (fs & FS_NOSYMFOLLOW)
        return fail(w, -ELOOP);
    if ((size_t)n >= sizeof(w->link))
        return fail(w, -ENAMETOOLONG);
    if ((fs & FS_PROC) && n > 0 &&
        (w->link[0] == '/' || memchr(w->link, ':', (size_t)n))) {
        if (w->resolve & RESOLVER_NO_MAGICLINKS)
            return fail(w, -ELOOP);
        if (w->resolve & SCOPED)
            return fail(w, -EXDEV);
        return follow_magic(w, name, final);
    }
    if (w->hop)
        region_push(w, name, (size_t)n);
    if (n > 0 && w->link[0] == '/') {
        if (w->hop) { /* under BENEATH: maybe into */
            err = prepend(w, w->link, (size_t)n);
            return fail(w, err < 0 ? err : into_hop(w, w->start, true));
        }
        err = jump_root(w, true);
        if (err < 0)
            return fail(w, err);
    }
    return more_or_fail(w, prepend(w, w->link, (size_t)n));
}

/*
 * While the walk is clean, extend the key by @name; false (and the walk no
 * longer clean) if it does not fit.
 */
static bool key_extend(struct walk *w, const char *name, size_t *len)
{
    size_t n = strlen(name);
    size_t at = w->key_len ? w->key_len + 1 : 0;

    if (at + n >= sizeof(w->key)) {
        w->clean = false;
        return false;
    }
    if (at)
        w->key[w->key_len] = '/';
    memcpy(w->key + at, name, n);
    *len = at + n;
    return true;
}

/*
 * The directory @name of the current one, from the cache: true when it was
 * there and is now stack[top]. Under NO_XDEV one on another mount than the
 * current directory is left for the plain open to refuse.
 */
static bool step_cached(struct walk *w, size_t len, int *err)
{
    struct rcache_dir d;

    if (!rcache_lookup(w->cache, w->key, len, &d))
        return false;
    if ((w->resolve & RESOLVER_NO_XDEV) && d.mnt != cur(w)->mnt) {
        w->clean = false;
        return false;
    }
    w->cache_used = true;
    *err = push(w, d.fd, false, d.fs, d.mnt);
    if (*err == 0)
        w->key_len = len;
    return true;
}

/* Offer the directory just pushed to the cache (the walk is clean). */
static void step_adopt(struct walk *w, size_t len)
{
    struct frame *f = cur(w);
    struct rcache_dir d;
    bool xdev = w->resolve & RESOLVER_NO_XDEV;

    if (!rcache_adopt(w->cache, w->key, len, f->fd, xdev ? &f->mnt : NULL,
                      &d)) {
        w->clean = false;
        return;
    }
    w->cache_used = true;
    w->key_len = len;
    f->owned = false;
    f->fs = d.fs;
    f->mnt = d.mnt;
}

/* After pushing the directory @name (@err: how that went). */
static enum step pushed(struct walk *w, const char *name, int err)
{
    if (err == 0 && w->hop)
        where_add(w, name);
    return more_or_fail(w, err);
}

/*
 * One non-final component (or a final one with a trailing slash):
 * STEP_MORE or STEP_FAIL, never STEP_DONE.
 */
static enum step walk_step(struct walk *w, const char *name)
{
    size_t key_len = 0;
    uint64_t mnt;
    ssize_t n;
    int fd;
    int err;

    if (name[0] == '.' && name[1] == '\0')
        return STEP_MORE;
    if (name[0] == '.' && name[1] == '.' && name[2] == '\0')
        return more_or_fail(w, dotdot(w));
    if (w->clean && key_extend(w, name, &key_len) &&
        step_cached(w, key_len, &err))
        return pushed(w, name, err);
    fd =
        openat(cur(w)->fd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        err = check_xdev(w, fd, &mnt);
        if (err < 0) {
            close(fd);
            return fail(w, err);
        }
        err = push(w, fd, true, FS_UNKNOWN, mnt);
        if (err == 0 && w->clean)
            step_adopt(w, key_len);
        return pushed(w, name, err);
    }
    if (errno != ENOTDIR)
        return fail(w, -errno);
    /* A file or a symlink: only a symlink answers readlinkat. */
    n = readlinkat(cur(w)->fd, name, w->link, sizeof(w->link));
    if (n < 0)
        return fail(w, errno == EINVAL ? -ENOTDIR : -errno);
    return follow_link(w, n, name, false);
}

/*
 * The final component with the caller's flags, plus O_NOFOLLOW so that a
 * symlink is seen (ELOOP, ENOTDIR with O_DIRECTORY, or an O_PATH fd of the
 * link itself) rather than followed by the kernel. STEP_MORE when a link's
 * text was spliced in.
 */
static enum step walk_last(struct walk *w, const char *name)
{
    bool follow = !(w->open_flags & O_NOFOLLOW);
    bool xdev = w->resolve & RESOLVER_NO_XDEV;
    uint64_t mnt = 0;
    mode_t type = 0;
    ssize_t n;
    int fd;
    int err;

    if (name[0] == '.' && name[1] == '.' && name[2] == '\0') {
        err = dotdot(w);
        if (err < 0)
            return fail(w, err);
        name = ".";
    }
    fd = openat(cur(w)->fd, name, w->open_flags | O_NOFOLLOW);
    if (fd < 0) {
        err = -errno;
        if (!follow || (err != -ELOOP && err != -ENOTDIR))
            return fail(w, err);
        n = readlinkat(cur(w)->fd, name, w->link, sizeof(w->link));
        if (n < 0)
            return fail(w, errno == EINVAL ? err : -errno);
        return follow_link(w, n, name, true);
    }
    if ((w->open_flags & O_PATH) && follow) {
        err = fsinfo_type_mount(fd, xdev, &type, &mnt);
        if (err < 0)
            goto out_close;
        if (type == S_IFLNK) {
            enum step st;

            n = readlinkat(fd, "", w->link, sizeof(w->link));
            st = n < 0 ? fail(w, -errno) : follow_link(w, n, name, true);
            close(fd);
            return st;
        }
        if (xdev && mnt != cur(w)->mnt) {
            err = -EXDEV;
            goto out_close;
        }
        return done(w, fd);
    }
    err = check_xdev(w, fd, &mnt);
    if (err < 0)
        goto out_close;
    return done(w, fd);
out_close:
    close(fd);
    return fail(w, err);
}

/* close_range(2) is missing (before 5.9) or blocked: close one by one. */
static atomic_bool no_close_range;

/*
 * Close the stack. Each openat takes the lowest free number, so the stack is
 * usually a run of consecutive fds: one close_range closes the run instead
 * of one close per component. That is safe because the walk holds every
 * number in the run, so none of them can belong to anyone else.
 */
static void close_stack(struct walk *w)
{
    size_t i = 0;

    while (i <= w->top) {
        size_t j = i;

        if (!w->stack[i].owned) {
            i++;
            continue;
        }
        while (j < w->top && w->stack[j + 1].owned &&
               w->stack[j + 1].fd == w->stack[j].fd + 1)
            j++;
        if (j == i ||
            atomic_load_explicit(&no_close_range, memory_order_relaxed) ||
            close_range((unsigned)w->stack[i].fd, (unsigned)w->stack[j].fd, 0) <
                0) {
            if (j > i && (errno == ENOSYS || errno == EPERM))
                atomic_store(&no_close_range, true);
            for (size_t k = i; k <= j; k++)
                close(w->stack[k].fd);
        }
        i = j + 1;
    }
}

/*
 * The one place the walk's fd stack is closed. (A ".." pop and a jump to
 * the root close the frames they drop right away.) The answer, w->fd, is
 * not on the stack.
 */
static void walk_finish(struct walk *w)
{
    close_stack(w);
    if (w->stack != w->inline_stack)
        free(w->stack);
    if (w->buf != w->inline_buf)
        free(w->buf);
}

/* Walk @path from @root_fd with @cache (or NULL): an fd or -errno. */
static int walk_path(struct walk *w, int root_fd, const char *path,
                     const struct resolver_how *how,
                     struct resolver_cache *cache, struct walk_hop *hop)
{
    enum step st =
        more_or_fail(w, walk_init(w, root_fd, path, how, cache, hop));

    /*
     * Invariant: stack[top] is a directory reached from stack[0] by
     * components walked downwards, never by asking the kernel for "..";
     * under BENEATH and IN_ROOT stack[0] is the root fd, so the current
     * directory is always the root or below it. Every STEP_MORE consumes a
     * component or spends one of the RESOLVER_MAX_SYMLINKS links, so the
     * loop ends.
     */
    while (st == STEP_MORE) {
        size_t p = w->start;
        size_t name_begin;

        while (w->buf[p] == '/')
            p++;
        w->comp = w->end - p;
        if (w->hop)
            regions_drop(w, w->comp);
        if (p == w->end) {
            /* Nothing left ("/", "a/", a link to "."): open the current. */
            st = walk_last(w, ".");
            continue;
        }
        name_begin = p;
        while (p < w->end && w->buf[p] != '/')
            p++;
        memcpy(w->name, w->buf + name_begin, p - name_begin);
        w->name[p - name_begin] = '\0';
        w->start = p;
        if (p == w->end)
            st = walk_last(w, w->name);
        else
            st = walk_step(w, w->name);
    }
    walk_finish(w);
    return st == STEP_DONE ? w->fd : w->err;
}

int backend_walk_open(int root_fd, const char *path,
                      const struct resolver_how *how)
{
    return backend_walk_hop(root_fd, path, how, NULL);
}

int backend_walk_hop(int root_fd, const char *path,
                     const struct resolver_how *how, struct walk_hop *hop)
{
    struct resolver_cache *cache = how->cache;
    struct walk *w = malloc(sizeof(*w));
    int ret;

    if (!w)
        return -ENOMEM;
    if (cache && !rcache_begin(cache))
        cache = NULL;
again:
    ret = walk_path(w, root_fd, path, how, cache, hop);
    /*
     * The directory cache's check; cache.c's header says exactly what it
     * proves. A change (a rename...) is visible to lookups before its
     * inotify event is queued, and queued before its call returns, so the
     * poll must come after the walk. If it sees nothing, every directory
     * the walk took from the cache was where its key says throughout the
     * walk, save for a change still in flight now, which the answer may
     * precede; no change that had returned was missed. If it sees anything,
     * the answer may rest on a directory that has moved: drop it and walk
     * again from the root alone. The cached directories' ancestors were
     * searched with the credentials of when they were opened: the caller
     * must not change the process's credentials while the cache holds them.
     */
    if (w->cache_used && rcache_changed(cache)) {
        if (ret >= 0)
            close(ret);
        cache = NULL;
        goto again;
    }
    free(w);
    return ret;
}
