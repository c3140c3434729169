/* SPDX-License-Identifier: MIT */
/*
 * test_ops_swap.c - the e2e_ops tcase "swap": the served tree swapped (a
 * symlink flipped, directories renamed or exchanged; the sandbox on,
 * strict and off), then SIGHUP, with a client looping all the while: the
 * new tree served by a new serving process, the old one gone; SIGHUP with
 * the root gone keeps the old process serving; no fd lost across reloads,
 * in the keeper or the serving process. Also run with the emulated
 * backend (ctest e2e_ops_emulated).
 */
#include "harness.h"
#include "test_ops.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* --- root swap ---------------------------------------------------------- */

struct looper {
    const struct server *s;
    atomic_bool stop;
    atomic_int n;
    atomic_int failures;
    atomic_int v1_after_v2;
    atomic_int v2_seen;
    char last_failure[256];
};

static bool is_v(const struct http_response *r, const char *v)
{
    return r->status == 200 && strcmp(r->body, v) == 0;
}

static void *loop_thread(void *ud)
{
    struct looper *l = ud;
    CURL *e = curl_easy_init(); /* keep-alive across the swap */
    while (e && !atomic_load(&l->stop)) {
        struct http_response *r = http_do(e, l->s, "GET", "/", NULL);
        bool v1 = is_v(r, "V1\n"), v2 = is_v(r, "V2\n");
        if (!v1 && !v2) {
            atomic_fetch_add(&l->failures, 1);
            snprintf(l->last_failure, sizeof(l->last_failure),
                     "status %d error %d body '%.40s'", r->status, r->error,
                     r->body);
        }
        if (v2)
            atomic_fetch_add(&l->v2_seen, 1);
        if (v1 && atomic_load(&l->v2_seen) > 0)
            atomic_fetch_add(&l->v1_after_v2, 1);
        atomic_fetch_add(&l->n, 1);
        /* raw too: a fresh connection each time, taken by whichever
         * generation accepts it; never an error or a 403 */
        r = raw_get(l->s->port, "/");
        if (!is_v(r, "V1\n") && !is_v(r, "V2\n")) {
            atomic_fetch_add(&l->failures, 1);
            snprintf(l->last_failure, sizeof(l->last_failure),
                     "raw: status %d error %d body '%.40s'", r->status,
                     r->error, r->body);
        }
    }
    if (e)
        curl_easy_cleanup(e);
    return NULL;
}

static void wait_count(struct looper *l, int more)
{
    int target = atomic_load(&l->n) + more;
    long long deadline = now_ms() + 10000;
    while (atomic_load(&l->n) < target && now_ms() < deadline)
        sleep_ms(5);
    EXPECT(atomic_load(&l->n) >= target, "the client loop stalled");
}

static void flip_symlink(const char *dir)
{
    /* atomic: make the new link, rename it over "current" */
    char *tmp = tree_path(dir, "current.tmp");
    EXPECT(symlink("releases/2", tmp) == 0, "symlink: %s", strerror(errno));
    EXPECT(rename(tmp, tree_path(dir, "current")) == 0, "rename: %s",
           strerror(errno));
}

static void exchange_dirs(const char *dir)
{
    /* the atomic form of "mv www old; mv new www" */
    EXPECT(syscall(SYS_renameat2, AT_FDCWD, tree_path(dir, "www"), AT_FDCWD,
                   tree_path(dir, "www.new"), 2 /* RENAME_EXCHANGE */) == 0,
           "renameat2: %s", strerror(errno));
}

static void move_twice(const char *dir)
{
    /* the deploy as users type it: mv -T www www.old; mv -T www.new www */
    EXPECT(rename(tree_path(dir, "www"), tree_path(dir, "www.old")) == 0 &&
               rename(tree_path(dir, "www.new"), tree_path(dir, "www")) == 0,
           "rename: %s", strerror(errno));
}

static bool have_landlock(void)
{
    return syscall(SYS_landlock_create_ruleset, NULL, 0,
                   1 /* LANDLOCK_CREATE_RULESET_VERSION */) > 0;
}

/* Ways to put a new tree (V2) where the served one (V1) was: the tree (for
 * tree_build), the root path in it, the sandbox, and @swap, which puts the
 * new tree in place. Every one serves V2 after SIGHUP, the sandbox on too:
 * the new generation's walls are built for the tree the path names now. */
static const struct {
    const char *tree[4];
    const char *root;
    const char *sandbox;
    void (*swap)(const char *dir);
} swaps[] = {
    {{"releases/1/index.html=V1\n", "releases/2/index.html=V2\n",
      "current -> releases/1"},
     "current",
     "on",
     flip_symlink},
    {{"www/index.html=V1\n", "www.new/index.html=V2\n"},
     "www",
     "on",
     move_twice},
    {{"www/index.html=V1\n", "www.new/index.html=V2\n"},
     "www",
     "strict",
     exchange_dirs},
    {{"www/index.html=V1\n", "www.new/index.html=V2\n"},
     "www",
     "off",
     exchange_dirs},
};

/* The tree is swapped; then SIGHUP; the looping client must see no failure,
 * v1 until SIGHUP (the root is an fd), then v2 and never v1 again; the old
 * serving process is gone soon after (its keep-alive clients are told to
 * close, its idle ones closed). */
LOOP_TEST(swap_case, swaps)
{
    if (strcmp(swaps[_i].sandbox, "strict") == 0 && !have_landlock()) {
        fprintf(stderr, "SKIP swap_case %d: strict needs Landlock\n", _i);
        return;
    }
    char *b = tree_new();
    for (const char *const *e = swaps[_i].tree; *e; e++)
        tree_build(b, *e, NULL);
    struct server *s = server_start(tree_path(b, swaps[_i].root), "--sandbox",
                                    swaps[_i].sandbox, NULL);
    pid_t first = server_serving_pid(s);
    struct looper l = {.s = s};
    pthread_t th;
    EXPECT(pthread_create(&th, NULL, loop_thread, &l) == 0, "pthread_create");
    wait_count(&l, 20);
    swaps[_i].swap(b);
    wait_count(&l, 20);
    int v2_before_hup = atomic_load(&l.v2_seen);
    /* a new generation serves, the old one drains and exits, while the
     * client loops */
    pid_t next = server_reload(s, 10000);
    long long deadline = now_ms() + 10000;
    while (atomic_load(&l.v2_seen) == 0 && now_ms() < deadline)
        sleep_ms(10);
    int v2 = atomic_load(&l.v2_seen);
    if (v2)
        wait_count(&l, 20);
    atomic_store(&l.stop, true);
    pthread_join(th, NULL);
    EXPECT(next > 0 && next != first,
           "SIGHUP did not start a new serving process:\n%s", server_stderr(s));
    EXPECT(atomic_load(&l.failures) == 0,
           "%d of %d requests failed during the swap; last: %s",
           atomic_load(&l.failures), atomic_load(&l.n), l.last_failure);
    EXPECT(v2 > 0, "the new tree was not served within 10 s of SIGHUP");
    /* the root is an fd opened at a generation's start: without the
     * SIGHUP, the old tree stays served */
    EXPECT(v2_before_hup == 0,
           "the new tree was served before SIGHUP (%d times)", v2_before_hup);
    EXPECT(atomic_load(&l.v1_after_v2) == 0,
           "the old tree was served %d times after the new one",
           atomic_load(&l.v1_after_v2));
    EXPECT(server_serving_count(s) == 1 && server_serving_pid(s) == next,
           "the old serving process (pid %d) came back", (int)first);
    server_stop_clean(s);
}
END_TEST

START_TEST(swap_root_gone)
{
    /* SIGHUP when the root path no longer resolves: what nginx does on a
     * bad reload: the new serving process fails its checks and says why,
     * the old one serves on, the keeper does not exit; once the root is
     * back, the next SIGHUP is applied. */
    char *b = tree_new();
    tree_build(b, "releases/1/index.html=V1\n", "current -> releases/1", NULL);
    char *root = tree_path(b, "current");
    struct server *s = server_start(root, NULL);
    EXPECT(unlink(root) == 0, "unlink");
    server_reload_refused(
        s, hfmt("beneath: SIGHUP: root %s: No such file or directory\n", root));
    EXPECT(strstr(server_stderr(s), "exited with status 2 before serving; "
                                    "keeping the old configuration "
                                    "(generation 1)\n") != NULL,
           "no line says the old generation serves on:\n%s", server_stderr(s));
    EXPECT(!server_wait(s, 200),
           "beneath exited on SIGHUP with its root gone: %s",
           wstatus_str(s->wstatus));
    expect_get_body(s, "/", "V1\n", "the old root after a failed reload");
    /* the root back: the next reload serves */
    EXPECT(symlink("releases/1", root) == 0, "symlink: %s", strerror(errno));
    EXPECT(server_reload(s, 10000) > 0, "the root is back, yet no reload:\n%s",
           server_stderr(s));
    expect_get_body(s, "/", "V1\n", "after the root came back");
    server_stop_clean(s);
}
END_TEST

START_TEST(swap_hup_fd_stable)
{
    /* Each reload is a new serving process: the old ones exit, the keeper
     * (which starts them all) keeps no descriptor of any, and no serving
     * process is handed more than the first one was. */
    char *w = tree_site("HUP\n");
    char *logp = tree_path(tree_new(), "access.log");
    struct server *s =
        server_start(w, "--access-log", logp, "--threads", "2", NULL);
    expect_get(s, "/", 200, "GET /");
    int before = server_fd_count_settled(s);
    int keeper_before = pid_fd_count(s->pid);
    int n = 0;
    int counts[2], keeper[2];
    for (int phase = 0; phase < 2; phase++) {
        for (int i = 0; i < (phase == 0 ? 5 : 25); i++, n++) {
            EXPECT(server_reload(s, 10000) > 0, "reload %d was not applied",
                   n + 1);
            expect_get(s, hfmt("/?hup=%d", n), 200, "GET / between SIGHUPs");
        }
        EXPECT(file_wait_for(logp, hfmt("hup=%d ", n - 1), 5000) ||
                   file_wait_for(logp, hfmt("hup=%d", n - 1), 100),
               "log lines lost across SIGHUPs");
        EXPECT(server_serving_count(s) == 1,
               "%d serving processes after %d reloads", server_serving_count(s),
               n);
        counts[phase] = server_fd_count_settled(s);
        keeper[phase] = pid_fd_count(s->pid);
    }
    EXPECT(keeper[0] == keeper_before && keeper[1] == keeper_before,
           "the keeper's fds grow with reloads: %d before, %d after 5 "
           "SIGHUPs, %d after 30",
           keeper_before, keeper[0], keeper[1]);
    /* with the emulated backend a worker that had not served before also
     * opens its directory cache's 3 event fds (the root has no directories
     * to hold) */
    int slack = 2 * (strcmp(harness_backend(), "emulated") == 0 ? 3 : 0);
    EXPECT(counts[0] <= before + slack && counts[1] <= before + slack,
           "the serving process's fds grow with reloads: %d in the first, "
           "%d after 5 SIGHUPs, %d after 30 (at most %d more allowed)",
           before, counts[0], counts[1], slack);
    server_stop_clean(s);
}
END_TEST

static const struct check_tcase tcase = {
    "swap", .loops = {LOOP(swap_case)},
    .tests = {&swap_root_gone, &swap_hup_fd_stable}};

Suite *ops_swap_suite(void)
{
    return ops_suite(&tcase);
}
