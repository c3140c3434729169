/* SPDX-License-Identifier: MIT */
/*
 * resolver_bench.c - the resolver micro-benchmark: open + close per call.
 *
 * For depths 1, 4, 8 and 16 and paths with 0, 1 and 4 relative symlinks, it
 * times the unconfined openat(2) floor, the kernel backend with each flag
 * set, the emulation and the lexical baseline, and prints ns/op and the ratio
 * to the floor of the same path; -o writes the same rows as CSV. Each figure
 * is the best of -r rounds of -n calls (the least disturbed one); rounds
 * interleave the methods. Then (-f: only this) the cost of following a link
 * out of the root into a --follow-into directory (resolver_how.into): the
 * path out/d1/.../dD/file, whose "out" leads into a copy of the tree beside
 * the root, against d1/.../dD/file, per backend under beneath, as the
 * median (min .. max) of the rounds. Not a test:
 * numbers depend on the machine and its load; pin it with taskset.
 */
#include "common/elems.h"
#include "resolver.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_CLOEXEC)

struct method {
    const char *name;
    uint64_t resolve;
    enum resolver_backend backend; /* DEFAULT: the openat floor */
    bool plain_only; /* only for paths without symlinks (NO_SYMLINKS) */
    bool cached;     /* with the directory cache (resolver_cache_new) */
};

static const struct method methods[] = {
    {"openat", 0, RESOLVER_BACKEND_DEFAULT, false, false},
    {"kernel", 0, RESOLVER_BACKEND_KERNEL, false, false},
    {"kernel", RESOLVER_BENEATH, RESOLVER_BACKEND_KERNEL, false, false},
    {"kernel", RESOLVER_IN_ROOT, RESOLVER_BACKEND_KERNEL, false, false},
    {"kernel", RESOLVER_NO_JUMPS, RESOLVER_BACKEND_KERNEL, false, false},
    {"kernel", RESOLVER_BENEATH | RESOLVER_NO_SYMLINKS, RESOLVER_BACKEND_KERNEL,
     true, false},
    {"emulated", RESOLVER_BENEATH, RESOLVER_BACKEND_EMULATED, false, false},
    {"emulated", RESOLVER_IN_ROOT, RESOLVER_BACKEND_EMULATED, false, false},
    {"emulated", RESOLVER_NO_JUMPS, RESOLVER_BACKEND_EMULATED, false, false},
    {"emulated+cache", RESOLVER_BENEATH, RESOLVER_BACKEND_EMULATED, false,
     true},
    {"emulated+cache", RESOLVER_IN_ROOT, RESOLVER_BACKEND_EMULATED, false,
     true},
    {"emulated+cache", RESOLVER_NO_JUMPS, RESOLVER_BACKEND_EMULATED, false,
     true},
    {"lexical", RESOLVER_BENEATH, RESOLVER_BACKEND_LEXICAL, false, false},
};

static const int depths[] = {1, 4, 8, 16};

/* -m "emulated:beneath" keeps one method (and always the floor). */
static bool wanted(const struct method *m, int links, const char *only)
{
    char flags[128];
    char name[160];

    if (m->plain_only && links > 0)
        return false;
    if (!only || m->backend == RESOLVER_BACKEND_DEFAULT)
        return true;
    resolver_flags_format(m->resolve, flags, sizeof(flags));
    snprintf(name, sizeof(name), "%s:%s", m->name, flags);
    return strcmp(only, name) == 0 || strcmp(only, m->name) == 0;
}
static const int link_counts[] = {0, 1, 4};

/* A positive decimal number, or -1. */
static long parse_num(const char *s)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0)
        return -1;
    return v;
}

static double now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * The tree: d1/d2/.../d16/file, and in each d(i-1) a link "l<i> -> d<i>"
 * (one relative component). A path of depth D with K links uses l<i> for the
 * last K directories.
 */
static int make_tree(const char *root)
{
    char path[1024];
    size_t len = (size_t)snprintf(path, sizeof(path), "%s", root);

    for (int i = 1; i <= 16; i++) {
        char link[1200];
        char target[16];

        snprintf(link, sizeof(link), "%s/l%d", path, i);
        snprintf(target, sizeof(target), "d%d", i);
        if (symlink(target, link) < 0)
            return -errno;
        len += (size_t)snprintf(path + len, sizeof(path) - len, "/d%d", i);
        if (mkdir(path, 0755) < 0)
            return -errno;
        snprintf(link, sizeof(link), "%s/file", path);
        int fd = open(link, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

        if (fd < 0)
            return -errno;
        close(fd);
    }
    return 0;
}

static void make_path(char *buf, size_t size, int depth, int links)
{
    size_t len = 0;

    for (int i = 1; i <= depth; i++)
        len += (size_t)snprintf(buf + len, size - len, "%c%d/",
                                i > depth - links ? 'l' : 'd', i);
    snprintf(buf + len, size - len, "file");
}

/* One round of @n calls of method @m; returns ns/op, or 0 and *err. */
static double run_into(const struct method *m, int root_fd,
                       struct resolver_cache *cache, const char *path, long n,
                       const struct resolver_into *into, int *err)
{
    struct resolver_how how = {.open_flags = OPEN_FLAGS,
                               .resolve = m->resolve,
                               .backend = m->backend,
                               .cache = m->cached ? cache : NULL,
                               .into = into,
                               .n_into = into ? 1 : 0};
    double t0 = now_ns();

    *err = 0;
    for (long i = 0; i < n; i++) {
        int fd = m->backend == RESOLVER_BACKEND_DEFAULT
                     ? openat(root_fd, path, OPEN_FLAGS)
                     : resolver_open_how(root_fd, path, &how, NULL);

        if (fd < 0) {
            *err = m->backend == RESOLVER_BACKEND_DEFAULT ? errno : -fd;
            return 0;
        }
        close(fd);
    }
    return (now_ns() - t0) / (double)n;
}

static double run(const struct method *m, int root_fd,
                  struct resolver_cache *cache, const char *path, long n,
                  int *err)
{
    return run_into(m, root_fd, cache, path, n, NULL, err);
}

static int remove_one(const char *path, const struct stat *st, int type,
                      struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    if (remove(path) < 0)
        fprintf(stderr, "resolver_bench: remove %s: %s\n", path,
                strerror(errno));
    return 0;
}

static void cleanup(const char *root)
{
    if (nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
        fprintf(stderr, "resolver_bench: could not remove %s\n", root);
}

/* What the command line asks for. */
struct opts {
    long n;           /* calls per round */
    int rounds;       /* rounds; each method keeps its best */
    const char *csv;  /* -o, or NULL */
    const char *only; /* -m backend[:flags], or NULL: every method */
    int only_depth;   /* -d, or 0: every depth */
    int only_links;   /* -l, or -1: every link count */
    bool only_follow; /* -f: only the link followed into a directory */
};

/* The options into @o: -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct opts *o)
{
    int c;

    *o = (struct opts){.n = 2000, .rounds = 20, .only_links = -1};
    while ((c = getopt(argc, argv, "n:r:o:d:l:m:fh")) != -1) {
        switch (c) {
        case 'f':
            o->only_follow = true;
            break;
        case 'd':
            o->only_depth = (int)parse_num(optarg);
            break;
        case 'l':
            o->only_links = (int)parse_num(optarg);
            break;
        case 'm':
            o->only = optarg;
            break;
        case 'n':
            o->n = parse_num(optarg);
            break;
        case 'r':
            o->rounds = (int)parse_num(optarg);
            break;
        case 'o':
            o->csv = optarg;
            break;
        default:
            fprintf(stderr, "usage: resolver_bench [-n calls] [-r rounds] "
                            "[-o out.csv]\n"
                            "                      [-d depth] [-l links] [-m "
                            "backend[:flags]] [-f]\n"
                            "-d/-l/-m run one configuration (for strace -c); "
                            "-f only the link followed into a directory\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (o->n <= 0 || o->rounds <= 0) {
        fprintf(stderr, "resolver_bench: -n and -r must be positive\n");
        return 2;
    }
    return -1;
}

/*
 * measure - every wanted method on the path of @depth directories and
 * @links symlinks: its best round, printed (and written to @csv) with its
 * ratio to the first method, the floor.
 */
static void measure(const struct opts *o, int root_fd,
                    struct resolver_cache *cache, int depth, int links,
                    FILE *csv)
{
    char path[512];
    double best[N_ELEMS(methods)] = {0};
    int errs[N_ELEMS(methods)] = {0};
    double floor_ns;

    make_path(path, sizeof(path), depth, links);
    /* Rounds interleave the methods so that load from elsewhere hits them
     * alike; each keeps its best round. */
    for (int r = 0; r < o->rounds; r++) {
        for (size_t m = 0; m < N_ELEMS(methods); m++) {
            double ns;

            if (!wanted(&methods[m], links, o->only) || errs[m])
                continue;
            ns = run(&methods[m], root_fd, cache, path, o->n, &errs[m]);
            if (r == 0 || ns < best[m])
                best[m] = ns;
        }
    }
    floor_ns = best[0];
    for (size_t m = 0; m < N_ELEMS(methods); m++) {
        char flags[128];

        if (!wanted(&methods[m], links, o->only))
            continue;
        resolver_flags_format(methods[m].resolve, flags, sizeof(flags));
        if (errs[m]) {
            printf("%5d %5d  %-14s %-32s %10s (%s)\n", depth, links,
                   methods[m].name, flags, "-", strerror(errs[m]));
            continue;
        }
        printf("%5d %5d  %-14s %-32s %10.0f %7.2f\n", depth, links,
               methods[m].name, flags, best[m],
               floor_ns > 0 ? best[m] / floor_ns : 0);
        if (csv)
            fprintf(csv, "%d,%d,%s,\"%s\",%.1f,%.3f\n", depth, links,
                    methods[m].name, flags, best[m],
                    floor_ns > 0 ? best[m] / floor_ns : 0);
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/*
 * A link out of the root followed into a directory of resolver_how.into:
 * out/d1/.../dD/file (out -> ../INTO, a copy of the tree) against the same
 * path inside the root, kernel and emulated under beneath, the rounds
 * interleaved; the median (min .. max) of the rounds' ns/op.
 */
static void measure_follow(const struct opts *o, int root_fd,
                           const struct resolver_into *into)
{
    static const struct method ms[] = {
        {"kernel", RESOLVER_BENEATH, RESOLVER_BACKEND_KERNEL, false, false},
        {"emulated", RESOLVER_BENEATH, RESOLVER_BACKEND_EMULATED, false, false},
    };
    static const int fdepths[] = {1, 4, 8};
    double *ns = calloc((size_t)o->rounds * 4, sizeof *ns);

    if (!ns)
        return;
    printf("\nfollowed into a --follow-into directory: out/d1/../dD/file "
           "(out -> the tree's copy beside the root) against d1/../dD/file;\n"
           "median (min .. max) ns/op of %d rounds x %ld calls\n",
           o->rounds, o->n);
    printf("%5s  %-9s %-28s %-28s %6s\n", "depth", "backend", "in the root",
           "followed", "ratio");
    for (size_t d = 0; d < N_ELEMS(fdepths); d++) {
        char plain[512], out[520];
        int err = 0;

        make_path(plain, sizeof(plain), fdepths[d], 0);
        snprintf(out, sizeof(out), "out/%s", plain);
        for (int r = 0; r < o->rounds && !err; r++)
            for (size_t m = 0; m < N_ELEMS(ms) && !err; m++) {
                ns[(m * 2) * (size_t)o->rounds + (size_t)r] =
                    run_into(&ms[m], root_fd, NULL, plain, o->n, into, &err);
                ns[(m * 2 + 1) * (size_t)o->rounds + (size_t)r] =
                    run_into(&ms[m], root_fd, NULL, out, o->n, into, &err);
            }
        if (err) {
            printf("%5d  %s\n", fdepths[d], strerror(err));
            continue;
        }
        for (size_t m = 0; m < N_ELEMS(ms); m++) {
            double *a = ns + m * 2 * (size_t)o->rounds, *b = a + o->rounds;
            char ca[64], cb[64];

            qsort(a, (size_t)o->rounds, sizeof *a, by_value);
            qsort(b, (size_t)o->rounds, sizeof *b, by_value);
            snprintf(ca, sizeof(ca), "%.0f (%.0f .. %.0f)", a[o->rounds / 2],
                     a[0], a[o->rounds - 1]);
            snprintf(cb, sizeof(cb), "%.0f (%.0f .. %.0f)", b[o->rounds / 2],
                     b[0], b[o->rounds - 1]);
            printf("%5d  %-9s %-28s %-28s %6.2f\n", fdepths[d], ms[m].name, ca,
                   cb, b[o->rounds / 2] / a[o->rounds / 2]);
        }
    }
    free(ns);
}

/* The tree's copy beside @root, a link "out" to it in @root, opened for
 * resolver_how.into: 0, or -errno (then *@into_dir may name a directory
 * to remove). */
static int make_into(const char *root, char *into_dir, size_t size,
                     struct resolver_into *into)
{
    char link[512], text[320];
    int err;

    snprintf(into_dir, size, "%s-into", root);
    if (mkdir(into_dir, 0755) < 0)
        return -errno;
    err = make_tree(into_dir);
    if (err < 0)
        return err;
    /* relative, as Debian's are: leaving, it reads the root's path */
    snprintf(text, sizeof(text), "../%s", strrchr(into_dir, '/') + 1);
    snprintf(link, sizeof(link), "%s/out", root);
    if (symlink(text, link) < 0)
        return -errno;
    return resolver_into_open(into_dir, into);
}

int main(int argc, char **argv)
{
    char root[256] = "/tmp/beneath-bench-XXXXXX";
    char into_dir[300] = "";
    struct resolver_into into = {.fd = -1};
    const char *tmp = getenv("TMPDIR");
    struct resolver_cache *cache = NULL;
    FILE *csv = NULL;
    struct opts o;
    int root_fd, err;
    int ret = parse_args(argc, argv, &o);

    if (ret >= 0)
        return ret;
    ret = 1;
    if (tmp && *tmp)
        snprintf(root, sizeof(root), "%s/beneath-bench-XXXXXX", tmp);
    if (!mkdtemp(root)) {
        perror("resolver_bench: mkdtemp");
        return 1;
    }
    if (make_tree(root) < 0) {
        fprintf(stderr, "resolver_bench: cannot build the tree in %s\n", root);
        goto out_remove;
    }
    root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0) {
        perror("resolver_bench: open root");
        goto out_remove;
    }
    err = resolver_cache_new(root_fd, 1024, &cache);
    if (err < 0) {
        fprintf(stderr, "resolver_bench: resolver_cache_new: %s\n",
                strerror(-err));
        goto out_close;
    }
    if (o.csv) {
        csv = fopen(o.csv, "w");
        if (!csv) {
            perror(o.csv);
            goto out_free_cache;
        }
        fprintf(csv, "depth,links,backend,flags,ns_per_op,ratio_to_floor\n");
    }
    printf("resolver micro-benchmark: open+close of a file, O_RDONLY, "
           "best of %d x %ld calls\n",
           o.rounds, o.n);
    printf("%5s %5s  %-14s %-32s %10s %7s\n", "depth", "links", "backend",
           "flags", "ns/op", "x floor");
    for (size_t d = 0; d < N_ELEMS(depths) && !o.only_follow; d++)
        for (size_t l = 0; l < N_ELEMS(link_counts); l++)
            if (link_counts[l] <= depths[d] &&
                (!o.only_depth || depths[d] == o.only_depth) &&
                (o.only_links < 0 || link_counts[l] == o.only_links))
                measure(&o, root_fd, cache, depths[d], link_counts[l], csv);
    ret = 0;
    if (!o.only && !o.only_depth && o.only_links < 0) {
        err = make_into(root, into_dir, sizeof(into_dir), &into);
        if (err < 0)
            fprintf(stderr, "resolver_bench: the tree to follow into: %s\n",
                    strerror(-err));
        else
            measure_follow(&o, root_fd, &into);
        resolver_into_close(&into);
    }
    if (csv && fclose(csv) != 0) {
        perror(o.csv);
        ret = 1;
    }
out_free_cache:
    resolver_cache_free(cache);
out_close:
    close(root_fd);
out_remove:
    cleanup(root);
    if (into_dir[0])
        cleanup(into_dir);
    return ret;
}
