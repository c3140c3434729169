/* SPDX-License-Identifier: MIT */
/*
 * test_ops_swap.c - the e2e_ops tcase "swap": the served tree swapped (a
 * symlink flipped, directories exchanged), then SIGHUP, with a client
 * looping all the while; SIGHUP with the root gone; no fd lost across
 * reloads. Also run with the emulated backend (ctest e2e_ops_emulated).
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

static void *loop_thread(void *ud)
{
    struct looper *l = ud;
    CURL *e = curl_easy_init(); /* keep-alive across the swap */
    while (e && !atomic_load(&l->stop)) {
        struct http_response *r = http_do(e, l->s, "GET", "/", NULL);
        bool v1 = r->status == 200 && strcmp(r->body, "V1\n") == 0;
        bool v2 = r->status == 200 && strcmp(r->body, "V2\n") == 0;
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
        /* raw too: a fresh connection each time */
        r = raw_get(l->s->port, "/");
        if (r->status != 200) {
            atomic_fetch_add(&l->failures, 1);
            snprintf(l->last_failure, sizeof(l->last_failure),
                     "raw: status %d error %d", r->status, r->error);
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

/* Ways to put a new tree (V2) where the served one (V1) was: the tree (for
 * tree_build), the root path in it, and @swap, which swaps it atomically. */
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
    /* Without the sandbox: Landlock's rules name inodes, and the tree
     * renamed onto the root's path is not beneath the old root's rule
     * (docs/security.md; test_sandbox.c checks that it answers 403). */
    {{"www/index.html=V1\n", "www.new/index.html=V2\n"},
     "www",
     "off",
     exchange_dirs},
};

/* The tree is swapped; then SIGHUP; the looping client must see no failure,
 * v1 until SIGHUP (the root is an fd), then v2 and never v1 again. */
LOOP_TEST(swap_case, swaps)
{
    char *b = tree_new();
    for (const char *const *e = swaps[_i].tree; *e; e++)
        tree_build(b, *e, NULL);
    struct server *s = server_start(tree_path(b, swaps[_i].root), "--sandbox",
                                    swaps[_i].sandbox, NULL);
    struct looper l = {.s = s};
    pthread_t th;
    EXPECT(pthread_create(&th, NULL, loop_thread, &l) == 0, "pthread_create");
    wait_count(&l, 20);
    swaps[_i].swap(b);
    wait_count(&l, 20);
    int v2_before_hup = atomic_load(&l.v2_seen);
    server_signal(s, SIGHUP);
    long long deadline = now_ms() + 10000;
    while (atomic_load(&l.v2_seen) == 0 && now_ms() < deadline)
        sleep_ms(10);
    int v2 = atomic_load(&l.v2_seen);
    if (v2)
        wait_count(&l, 20);
    atomic_store(&l.stop, true);
    pthread_join(th, NULL);
    EXPECT(atomic_load(&l.failures) == 0,
           "%d of %d requests failed during the swap; last: %s",
           atomic_load(&l.failures), atomic_load(&l.n), l.last_failure);
    EXPECT(v2 > 0, "the new tree was not served within 10 s of SIGHUP");
    /* the design holds the root as an fd opened at start-up: without the
     * SIGHUP, the old tree stays served */
    EXPECT(v2_before_hup == 0,
           "the new tree was served before SIGHUP (%d times)", v2_before_hup);
    EXPECT(atomic_load(&l.v1_after_v2) == 0,
           "the old tree was served %d times after the new one",
           atomic_load(&l.v1_after_v2));
    server_stop_clean(s);
}
END_TEST

START_TEST(swap_root_gone)
{
    /* SIGHUP when the root path no longer resolves: not in the README; what
     * nginx does on a bad reload: keep serving with the old root, say why
     * on stderr, do not exit. */
    char *b = tree_new();
    tree_build(b, "releases/1/index.html=V1\n", "current -> releases/1", NULL);
    struct server *s = server_start(tree_path(b, "current"), NULL);
    EXPECT(unlink(tree_path(b, "current")) == 0, "unlink");
    server_signal(s, SIGHUP);
    long long deadline = now_ms() + 5000;
    while (strlen(server_stderr(s)) == s->err_startup && now_ms() < deadline)
        sleep_ms(20);
    EXPECT(!server_wait(s, 200),
           "beneath exited on SIGHUP with its root "
           "gone: %s",
           wstatus_str(s->wstatus));
    expect_get_body(s, "/", "V1\n", "the old root after a failed reload");
    char *said = server_stderr_since_startup(s);
    EXPECT(strstr(said, "current") != NULL,
           "SIGHUP with the root gone: no message naming the root:\n%s", said);
    server_stop_clean(s);
}
END_TEST

START_TEST(swap_hup_fd_stable)
{
    /* Every reload closes the root it replaces and the log it reopens. */
    char *w = tree_site("HUP\n");
    char *logp = tree_path(tree_new(), "access.log");
    struct server *s =
        server_start(w, "--access-log", logp, "--threads", "2", NULL);
    expect_get(s, "/", 200, "GET /");
    int before = server_fd_count_settled(s);
    /* the server may keep the previous root open a while for requests in
     * flight (bounded retention); what must not happen is growth with the
     * number of reloads */
    int n = 0;
    int counts[2];
    for (int phase = 0; phase < 2; phase++) {
        for (int i = 0; i < (phase == 0 ? 5 : 25); i++, n++) {
            server_signal(s, SIGHUP);
            expect_get(s, hfmt("/?hup=%d", n), 200, "GET / between SIGHUPs");
        }
        EXPECT(file_wait_for(logp, hfmt("hup=%d ", n - 1), 5000) ||
                   file_wait_for(logp, hfmt("hup=%d", n - 1), 100),
               "log lines lost across SIGHUPs");
        counts[phase] = server_fd_count_settled(s);
    }
    /* root.h: each worker holds the generation it last used, so at most
     * one old root per worker (2) stays open; with the emulated backend a
     * worker that had not served before also opens its directory cache's
     * 3 event fds (the root has no directories to hold). */
    int slack = 2 * (1 + (strcmp(harness_backend(), "emulated") == 0 ? 3 : 0));
    EXPECT(counts[0] <= before + slack && counts[1] <= before + slack,
           "fds grow with reloads: %d before, %d after 5 SIGHUPs, %d after "
           "30 (at most %d more allowed)",
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
