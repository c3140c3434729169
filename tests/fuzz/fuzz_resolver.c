// SPDX-License-Identifier: MIT
/*
 * fuzz_resolver.c - differential fuzzer of the confined resolver: a small
 * tree made from the input, paths from the input, every valid flag set and
 * four open modes; the kernel backend (openat2) and the userspace emulation
 * must give the same file (device and inode) or the same errno. Any
 * difference aborts with both answers.
 *
 * Input: lines "d PATH" (directory), "f PATH" (file), "l PATH TARGET"
 * (symlink), "m PATH" (a tmpfs mounted on a directory made earlier, for
 * NO_XDEV; at most 2), "p PATH" (a path to resolve; at most 8). Needs root
 * and runs in a mount namespace of its own (made at start), on a tmpfs.
 *
 * The root fd is opened before the mounts, so "m ." covers the root the
 * walks start from, as a deploy that mounts a new tree over a served root
 * does. Where the emulation may then answer otherwise, by design (see
 * backend_walk.c, step_onto_cover and bottom_child), is accepted here and
 * nowhere else: EAGAIN for a scoped ".." onto the cover without NO_XDEV,
 * and IN_ROOT on a covered root that lists no subdirectory. The kernel's
 * EAGAIN (a mount or rename anywhere during its walk) is always accepted.
 */
#include "fuzz.h"
#include "resolver.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);

static char top[] = "/tmp/beneath-fuzz-resolver-XXXXXX";
static char root[128];
static bool usable;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (resolver_auto_backend(NULL) != RESOLVER_BACKEND_KERNEL) {
        fprintf(stderr, "fuzz_resolver: no openat2: nothing to compare\n");
        return 0;
    }
    if (!mkdtemp(top) || unshare(CLONE_NEWNS) != 0 ||
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("tmpfs", top, "tmpfs", 0, "size=4m,mode=0755") != 0) {
        fprintf(stderr, "fuzz_resolver: needs root (mount namespace): %s\n",
                strerror(errno));
        abort();
    }
    usable = true;
    return 0;
}

static int rm(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)f;
    if (flag == FTW_DP)
        rmdir(p);
    else
        unlink(p);
    return 0;
}

/* A path of the input, made safe to create: relative, no "..", short. */
static bool tree_path(const char *in, char *out, size_t n)
{
    if (!*in || *in == '/' || strstr(in, "..") || strlen(in) + 1 > n)
        return false;
    snprintf(out, n, "%s", in);
    return true;
}

static void describe(const char *what, int r, char *buf, size_t n)
{
    struct stat st;

    if (r >= 0 && fstat(r, &st) == 0)
        snprintf(buf, n, "%s: fd dev %lu ino %lu", what,
                 (unsigned long)st.st_dev, (unsigned long)st.st_ino);
    else
        snprintf(buf, n, "%s: %s", what, strerror(-r));
}

static uint64_t mount_id(int dfd, const char *path)
{
    struct statx stx;

    if (statx(dfd, path, AT_EMPTY_PATH, STATX_MNT_ID, &stx) != 0)
        abort();
    return stx.stx_mnt_id;
}

/* Whether @dfd's directory (not what covers it) lists a subdirectory. */
static bool lists_dir(int dfd)
{
    int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    const struct dirent *de;
    bool found = false;

    if (!d)
        abort();
    while (!found && (de = readdir(d)))
        found = de->d_type == DT_DIR && strcmp(de->d_name, ".") != 0 &&
                strcmp(de->d_name, "..") != 0;
    closedir(d);
    return found;
}

/* The emulation's answer @b differs from the kernel's @a by design. */
static bool accepted(int a, int b, uint64_t fl, bool covered, bool has_dir)
{
    bool scoped = fl & (RESOLVER_BENEATH | RESOLVER_IN_ROOT);

    if (a == -EAGAIN)
        return true;
    if (!covered)
        return false;
    if (b == -EAGAIN && scoped && !(fl & RESOLVER_NO_XDEV))
        return true;
    return !has_dir && (fl & RESOLVER_IN_ROOT);
}

static bool same(int a, int b)
{
    struct stat sa, sb;

    if (a < 0 || b < 0)
        return a == b;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int modes[] = {O_RDONLY, O_PATH, O_PATH | O_NOFOLLOW,
                                O_RDONLY | O_DIRECTORY};
    char mounts[2][256];
    char *paths[8];
    size_t n_mounts = 0, n_paths = 0;

    if (!usable || size > 2048)
        return 0;
    snprintf(root, sizeof root, "%s/r", top);
    mkdir(root, 0755);
    char *s = fuzz_str(data, size), *line = s;
    int dfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        abort();
    while (line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char p[200], *arg = line + 2;
        if (strlen(line) >= 3 && line[1] == ' ') {
            char *sp = line[0] == 'l' ? strchr(arg, ' ') : NULL;
            if (sp)
                *sp = '\0';
            if (line[0] == 'p' && n_paths < 8)
                paths[n_paths++] = arg;
            else if (tree_path(arg, p, sizeof p)) {
                if (line[0] == 'd')
                    mkdirat(dfd, p, 0755);
                else if (line[0] == 'f')
                    close(openat(dfd, p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
                else if (line[0] == 'l' && sp)
                    symlinkat(sp + 1, dfd, p);
                else if (line[0] == 'm' && n_mounts < 2) {
                    snprintf(mounts[n_mounts], sizeof mounts[0], "%s/%s", root,
                             p);
                    struct stat st;
                    if (lstat(mounts[n_mounts], &st) == 0 &&
                        S_ISDIR(st.st_mode) &&
                        mount("tmpfs", mounts[n_mounts], "tmpfs", 0,
                              "size=64k") == 0)
                        n_mounts++;
                }
            }
        }
        line = nl ? nl + 1 : NULL;
    }
    bool covered = mount_id(AT_FDCWD, root) != mount_id(dfd, "");
    bool has_dir = covered && lists_dir(dfd);
    for (size_t i = 0; i < n_paths; i++) {
        for (uint64_t fl = 0; fl <= RESOLVER_ALL_FLAGS; fl++) {
            if ((fl & ~(uint64_t)RESOLVER_ALL_FLAGS) ||
                ((fl & RESOLVER_BENEATH) && (fl & RESOLVER_IN_ROOT)))
                continue;
            for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
                struct resolver_how k = {.open_flags = modes[m],
                                         .resolve = fl,
                                         .backend = RESOLVER_BACKEND_KERNEL};
                struct resolver_how e = k;
                e.backend = RESOLVER_BACKEND_EMULATED;
                int a = resolver_open_how(dfd, paths[i], &k, NULL);
                int b = resolver_open_how(dfd, paths[i], &e, NULL);
                if (same(a, b) || accepted(a, b, fl, covered, has_dir)) {
                    if (a >= 0)
                        close(a);
                    if (b >= 0)
                        close(b);
                    continue;
                }
                char da[128], db[128];
                describe("kernel", a, da, sizeof da);
                describe("emulated", b, db, sizeof db);
                fprintf(stderr,
                        "fuzz_resolver: '%s' flags 0x%llx mode 0x%x: %s, "
                        "%s\n",
                        paths[i], (unsigned long long)fl, (unsigned)modes[m],
                        da, db);
                abort();
            }
        }
    }
    close(dfd);
    while (n_mounts > 0)
        umount2(mounts[--n_mounts], MNT_DETACH);
    nftw(root, rm, 16, FTW_DEPTH | FTW_PHYS);
    free(s);
    return 0;
}
