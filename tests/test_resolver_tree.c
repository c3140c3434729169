/* SPDX-License-Identifier: MIT */
/*
 * test_resolver_tree.c - the resolver tests' fixture: a private mount
 * namespace with a tree holding directories, files, relative and absolute
 * symlinks, escaping and returning links, chains, loops, 40 and 41 links, a
 * FIFO, a tmpfs, a bind mount, a nosymfollow bind mount and procfs.
 */
#include "fixture.h"
#include "test_resolver.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif

char tr_tmp[1024];
char tr_root[1100];

/* The fixture tree, relative to the tmpdir; mounts are added after. */
static const char *const tree[] = {
    "secret=outside the root",
    "out/secret=outside the root, next to the race directory",
    "root/f=f",
    "root/a/b/f=abf",
    "root/a/b/c/",
    "root/a/up -> ../f",
    "root/a/back2 -> ../../root/a/b/f",
    "root/d/",
    "root/rel -> a/b",
    "root/relf -> a/b/f",
    "root/reldir_slash -> a/b/",
    "root/relf_slash -> a/b/f/",
    "root/esc -> ../secret",
    "root/back -> ../root/f",
    "root/absf -> /f",
    "root/absab -> /a/b",
    "root/abs_etc -> /etc",
    "root/absroot -> /",
    "root/dotlink -> .",
    "root/loop1 -> loop2",
    "root/loop2 -> loop1",
    "root/selfloop -> selfloop",
    "root/fifo|",
    "root/mnt/",
    "root/bind/",
    "root/nosym/",
    "root/to_mnt -> mnt/x",
    "root/proc/",
    "root/r/mv/d1/",
    "root/r/mv/f=race",
    "root/deep/f=deep",
    ("root/deep/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/21/22/23/24/"
     "25/26/27/28/29/30/31/32/33/34/35/36/37/38/39/40/f=deep 40"),
    /* directories a link may lead into (resolver_how.into), beside root */
    "js/jquery/jquery.js=jquery",
    "js/jquery/sib -> ../popper/p.js",
    "js/popper -> ../nodejs/popper",
    "js/esc -> ../secret",
    "js/loopy -> ../nodejs/loopy",
    "nodejs/popper/p.js=popper",
    "nodejs/loopy -> ../js/loopy",
    "root/_static/jquery.js -> ../../js/jquery/jquery.js",
    "root/_static/jsdir -> ../../js",
    "root/_static/jsdir_slash -> ../../js/",
    "root/_static/passwd -> ../../secret",
    "root/_static/upup -> ../../js/jquery/../../secret",
    "root/_static/dotname -> ../../js/../js/jquery/jquery.js",
    "root/_static/named_up -> ../../nodejs/../js/jquery/jquery.js",
    "root/_static/dots -> .././/./../js/./jquery/jquery.js",
    "root/_static/popper.js -> ../../js/popper/p.js",
    "root/_static/esc -> ../../js/esc",
    "root/_static/loop -> ../../js/loopy",
    "root/_static/twice -> jsdir/../jsdir/jquery",
    "root/_static/inner -> ../a/b/../../_static/jquery.js",
    "root/a/b/deepjq -> ../../../js/jquery/jquery.js",
};

static const char *const mnt_tree[] = {
    "x=on tmpfs",
    "sub/",
    "up -> ../f",
};

#define CHAIN 41

static int build_generated(const char **bad)
{
    /* chain/l00 -> l01 -> ... -> l40 -> ../f: 41 links from l00, 40 from l01
     */
    static char chain[CHAIN][32];
    static const char *chain_spec[CHAIN];
    /* lg1 -> "lg2/./././..." and so on: link texts that together pass 4096 */
    static char lg[4][TR_PATH_MAX];
    static const char *lg_spec[4];
    static char abs[4][TR_PATH_MAX];
    static const char *abs_spec[4];
    int err;

    for (int i = 0; i < CHAIN; i++) {
        if (i + 1 < CHAIN)
            snprintf(chain[i], sizeof(chain[i]), "root/chain/l%02d -> l%02d", i,
                     i + 1);
        else
            snprintf(chain[i], sizeof(chain[i]), "root/chain/l%02d -> ../f", i);
        chain_spec[i] = chain[i];
    }
    err = fixture_build(tr_tmp, chain_spec, CHAIN, bad);
    if (err < 0)
        return err;
    for (int i = 0; i < 4; i++) {
        int n = snprintf(lg[i], sizeof(lg[i]), "root/lg%d -> ", i + 1);

        if (i < 3) {
            n += snprintf(lg[i] + n, sizeof(lg[i]) - (size_t)n, "lg%d/", i + 2);
            for (int k = 0; k < 1990; k++)
                n += snprintf(lg[i] + n, sizeof(lg[i]) - (size_t)n, "./");
        } else {
            snprintf(lg[i] + n, sizeof(lg[i]) - (size_t)n, "a/b");
        }
        lg_spec[i] = lg[i];
    }
    err = fixture_build(tr_tmp, lg_spec, 4, bad);
    if (err < 0)
        return err;
    /* absolute links into js, whose path is known only now */
    snprintf(abs[0], sizeof(abs[0]),
             "root/_static/abs_jq -> %s/js/jquery/jquery.js", tr_tmp);
    snprintf(abs[1], sizeof(abs[1]), "root/_static/abs_js -> %s//js/", tr_tmp);
    snprintf(abs[2], sizeof(abs[2]),
             "root/_static/abs_up -> %s/js/jquery/../../secret", tr_tmp);
    snprintf(abs[3], sizeof(abs[3]),
             "root/_static/abs_alias -> %s/root/_static/jsdir/jquery/jquery.js",
             tr_tmp);
    for (int i = 0; i < 4; i++)
        abs_spec[i] = abs[i];
    return fixture_build(tr_tmp, abs_spec, 4, bad);
}

static const char *const mounts[] = {"root/proc", "root/nosym", "root/bind",
                                     "root/mnt"};

int tr_tree_setup(void)
{
    char src[PATH_MAX];
    char dst[PATH_MAX];
    const char *bad = NULL;
    int err;

    if (unshare(CLONE_NEWNS) < 0) {
        fprintf(stderr,
                "test_resolver: FAIL: unshare(CLONE_NEWNS): %s: these tests "
                "need root to make mounts in a private namespace\n",
                strerror(errno));
        return -1;
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
        fprintf(stderr, "test_resolver: FAIL: make / private: %s\n",
                strerror(errno));
        return -1;
    }
    err = fixture_make(tree, N_ELEMS(tree), tr_tmp, sizeof(tr_tmp), &bad);
    if (err == 0)
        err = build_generated(&bad);
    if (err < 0) {
        fprintf(stderr, "test_resolver: FAIL: fixture entry \"%s\": %s\n",
                bad ? bad : "(mkdtemp)", strerror(-err));
        return -1;
    }
    snprintf(tr_root, sizeof(tr_root), "%s/root", tr_tmp);
    snprintf(dst, sizeof(dst), "%s/mnt", tr_root);
    if (mount("tmpfs", dst, "tmpfs", 0, "size=1m,mode=0755") < 0)
        goto fail_mount;
    if (fixture_build(dst, mnt_tree, N_ELEMS(mnt_tree), &bad) < 0)
        goto fail_mount;
    snprintf(src, sizeof(src), "%s/a", tr_root);
    snprintf(dst, sizeof(dst), "%s/bind", tr_root);
    if (mount(src, dst, NULL, MS_BIND, NULL) < 0)
        goto fail_mount;
    snprintf(dst, sizeof(dst), "%s/nosym", tr_root);
    if (mount(src, dst, NULL, MS_BIND, NULL) < 0 ||
        mount(NULL, dst, NULL, MS_REMOUNT | MS_BIND | MS_NOSYMFOLLOW, NULL) < 0)
        goto fail_mount;
    snprintf(dst, sizeof(dst), "%s/proc", tr_root);
    if (mount("proc", dst, "proc", 0, NULL) < 0)
        goto fail_mount;
    snprintf(dst, sizeof(dst), "%s/d", tr_root);
    if (chdir(dst) < 0)
        goto fail_mount;
    return 0;
fail_mount:
    fprintf(stderr, "test_resolver: FAIL: mounting/preparing %s: %s\n", dst,
            strerror(errno));
    return -1;
}

void tr_tree_remove(void)
{
    char dst[PATH_MAX];

    if (chdir("/") < 0)
        perror("chdir /");
    if (!tr_tmp[0])
        return;
    for (size_t i = 0; i < N_ELEMS(mounts); i++) {
        snprintf(dst, sizeof(dst), "%s/%s", tr_tmp, mounts[i]);
        umount2(dst, MNT_DETACH);
    }
    if (fixture_remove(tr_tmp) < 0)
        fprintf(stderr, "test_resolver: could not remove %s\n", tr_tmp);
}
