/* SPDX-License-Identifier: MIT */
/*
 * harness.c - the e2e harness's arena, fixtures and teardown lists.
 *
 * Ownership: every allocation the harness hands out is recorded in one arena
 * (owned[]); harness_test_teardown() frees what the test allocated and
 * harness_suite_teardown() the rest. Servers, raw connections and curl handles
 * sit on their own lists and are stopped/closed by the same teardowns. The
 * server is started with PR_SET_PDEATHSIG so a test that dies (Check's fork
 * mode _exit()s on failure, skipping teardown) never leaves it running; the
 * suite teardown removes the whole temporary tree.
 *
 * The rest of the harness: harness_tree.c (trees), harness_server.c (start,
 * stop and run beneath), harness_http.c (responses, raw-socket and libcurl
 * clients); what they share of this file is in harness_internal.h.
 */
#include "harness_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* --- arena -------------------------------------------------------------- */

static void **owned;
static size_t n_owned;
static size_t cap_owned;
static size_t test_mark; /* owned[test_mark..] belong to the running test */
static bool in_test;

static char *top_dir; /* suite temp dir */
static char **test_trees;
static size_t n_test_trees;

static struct server *servers;
static struct raw_conn *conns;
static CURL **easies;
static size_t n_easies;

#define MAX_FORBID 8
static char *forbidden[MAX_FORBID];
static size_t n_forbidden;

void harness_die_oom(void)
{
    fputs("harness: out of memory\n", stderr);
    abort();
}

/* @v, room made for one more element of @size bytes after its @n. */
static void *grow_one(void *v, size_t n, size_t size)
{
    void *g = realloc(v, (n + 1) * size);

    if (g == NULL)
        harness_die_oom();
    return g;
}

/* Client threads (root-swap tests) allocate too: one lock for the lists. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void *harness_own(void *p)
{
    if (p == NULL)
        harness_die_oom();
    pthread_mutex_lock(&lock);
    if (n_owned == cap_owned) {
        size_t ncap = cap_owned ? cap_owned * 2 : 256;
        void **n = realloc(owned, ncap * sizeof(*n));
        if (n == NULL)
            harness_die_oom();
        owned = n;
        cap_owned = ncap;
    }
    owned[n_owned++] = p;
    pthread_mutex_unlock(&lock);
    return p;
}

void *harness_alloc(size_t n)
{
    return harness_own(calloc(1, n ? n : 1));
}

char *hmem(const void *p, size_t len)
{
    char *s = harness_alloc(len + 1);
    if (len)
        memcpy(s, p, len);
    s[len] = '\0';
    return s;
}

char *hbuf(size_t len)
{
    return harness_alloc(len + 1);
}

char *hline(const char **text)
{
    const char *p = *text;
    size_t n = strcspn(p, "\n");

    if (*p == '\0')
        return NULL;
    *text = p[n] ? p + n + 1 : p + n;
    return hmem(p, n);
}

char *hfill(size_t len, char ch)
{
    char *b = harness_alloc(len + 1);

    memset(b, ch, len);
    return b;
}

void htpasswd_user(const char *file, const char *user, const char *pw,
                   bool create)
{
    char *cmd = hfmt("htpasswd %s -C 5 '%s' '%s' '%s' 2>/dev/null",
                     create ? "-cbB" : "-bB", file, user, pw);

    EXPECT(system(cmd) == 0, "htpasswd (apache2-utils) failed: install it with "
                             "scripts/deps.sh test");
}

char *hfmt(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;

    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        harness_die_oom();
    return harness_own(s);
}

char *hrandom(size_t n)
{
    static const char hex[] = "0123456789abcdef";
    char *s = harness_alloc(n + 1);
    unsigned char b[64];
    size_t i = 0;

    while (i < n) {
        size_t want = n - i < sizeof(b) ? n - i : sizeof(b);
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        ck_assert_msg(fd >= 0, "open /dev/urandom: %s", strerror(errno));
        ssize_t got = read(fd, b, want);
        close(fd);
        ck_assert_msg(got > 0, "read /dev/urandom");
        for (ssize_t k = 0; k < got; k++)
            s[i++] = hex[b[k] & 15];
    }
    s[n] = '\0';
    return s;
}

/* A tree of the running test is removed by its teardown, the others with
 * the suite's temp dir (the rest of the tree functions: harness_tree.c). */
char *tree_new(void)
{
    ck_assert_msg(top_dir != NULL, "harness_suite_setup not run");
    char *d = hfmt("%s/t-XXXXXX", top_dir);
    ck_assert_msg(mkdtemp(d) != NULL, "mkdtemp %s: %s", d, strerror(errno));
    chmod(d, 0755);
    if (in_test) {
        test_trees = grow_one(test_trees, n_test_trees, sizeof(*test_trees));
        test_trees[n_test_trees++] = d;
    }
    return d;
}

/* --- fixtures ----------------------------------------------------------- */

const char *harness_backend(void)
{
    const char *b = getenv("BENEATH_E2E_RESOLVER");
    return b && *b ? b : "kernel";
}

TCase *harness_tcase(Suite *su, const char *name, void (*suite_setup)(void),
                     void (*test_setup)(void), int timeout)
{
    TCase *tc = tcase_create(name);

    tcase_add_unchecked_fixture(tc,
                                suite_setup ? suite_setup : harness_suite_setup,
                                harness_suite_teardown);
    tcase_add_checked_fixture(tc, test_setup ? test_setup : harness_test_setup,
                              harness_test_teardown);
    tcase_set_timeout(tc, timeout);
    suite_add_tcase(su, tc);
    return tc;
}

void harness_suite_setup(void)
{
    /* in the runner, before the tests fork: libcurl's global state is set
     * up before any thread exists (a count: teardown undoes one) */
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        abort();
    signal(SIGPIPE, SIG_IGN);
    const char *tmp = getenv("TMPDIR");
    char *d = hfmt("%s/beneath-e2e-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(d) == NULL) {
        fprintf(stderr, "harness: mkdtemp %s: %s\n", d, strerror(errno));
        abort();
    }
    chmod(d, 0755);
    top_dir = d;
}

static void free_owned_from(size_t mark)
{
    while (n_owned > mark)
        free(owned[--n_owned]);
}

static void stop_all(void)
{
    for (struct server *s = servers; s; s = s->next) {
        if (!s->reaped) {
            kill(s->pid, SIGKILL);
            waitpid(s->pid, &s->wstatus, 0);
            s->reaped = true;
        }
    }
    servers = NULL;
    while (conns) {
        struct raw_conn *c = conns;
        conns = c->next;
        if (c->fd >= 0)
            close(c->fd);
        free(c->buf);
        free(c);
    }
    for (size_t i = 0; i < n_easies; i++)
        curl_easy_cleanup(easies[i]);
    free(easies);
    easies = NULL;
    n_easies = 0;
}

void harness_suite_teardown(void)
{
    stop_all();
    tree_remove(top_dir);
    top_dir = NULL;
    n_forbidden = 0;
    free_owned_from(0);
    free(owned);
    owned = NULL;
    cap_owned = 0;
    curl_global_cleanup();
}

void harness_test_setup(void)
{
    test_mark = n_owned;
    in_test = true;
}

void harness_test_teardown(void)
{
    stop_all();
    for (size_t i = 0; i < n_test_trees; i++)
        tree_remove(test_trees[i]);
    free(test_trees);
    test_trees = NULL;
    n_test_trees = 0;
    n_forbidden = 0;
    free_owned_from(test_mark);
    in_test = false;
}

void harness_forbid(const char *secret)
{
    ck_assert_msg(n_forbidden < MAX_FORBID, "too many forbidden strings");
    forbidden[n_forbidden++] = hfmt("%s", secret);
}

void harness_on_failure(void)
{
    for (struct server *s = servers; s; s = s->next) {
        char *e = server_stderr(s);
        fprintf(stderr, "---- beneath pid %d stderr ----\n%s\n----\n",
                (int)s->pid, e ? e : "(none)");
    }
}

void harness_check_forbidden(const struct http_response *r)
{
    for (size_t i = 0; i < n_forbidden; i++) {
        size_t fl = strlen(forbidden[i]);
        bool in_head =
            r->head && memmem(r->head, r->head_len, forbidden[i], fl) != NULL;
        bool in_body =
            r->body && memmem(r->body, r->body_len, forbidden[i], fl) != NULL;
        EXPECT(!in_head && !in_body,
               "a forbidden string (the secret outside the root) appeared "
               "in a response %s: status %d\n%s",
               in_head ? "header" : "body", r->status, r->head);
    }
}

/* --- what the teardowns stop --------------------------------------------- */

void harness_add_server(struct server *s)
{
    s->next = servers;
    servers = s;
}

void harness_add_conn(struct raw_conn *c)
{
    pthread_mutex_lock(&lock);
    c->next = conns;
    conns = c;
    pthread_mutex_unlock(&lock);
}

void harness_drop_conn(struct raw_conn *c)
{
    pthread_mutex_lock(&lock);
    for (struct raw_conn **pp = &conns; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
}

void harness_add_easy(CURL *e)
{
    easies = grow_one(easies, n_easies, sizeof(*easies));
    easies[n_easies++] = e;
}
