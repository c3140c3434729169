/* SPDX-License-Identifier: MIT */
/*
 * harness.c - start the real beneath binary, talk to it, stop it.
 *
 * Ownership: every allocation the harness hands out is recorded in one arena
 * (owned[]); harness_test_teardown() frees what the test allocated and
 * harness_suite_teardown() the rest. Servers, raw connections and curl handles
 * sit on their own lists and are stopped/closed by the same teardowns. The
 * server is started with PR_SET_PDEATHSIG so a test that dies (Check's fork
 * mode _exit()s on failure, skipping teardown) never leaves it running; the
 * suite teardown removes the whole temporary tree.
 */
#include "harness.h"

#include "fixture.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

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

static void die_oom(void)
{
    fputs("harness: out of memory\n", stderr);
    abort();
}

/* @v, room made for one more element of @size bytes after its @n. */
static void *grow_one(void *v, size_t n, size_t size)
{
    void *g = realloc(v, (n + 1) * size);

    if (g == NULL)
        die_oom();
    return g;
}

/* Client threads (root-swap tests) allocate too: one lock for the lists. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *own(void *p)
{
    if (p == NULL)
        die_oom();
    pthread_mutex_lock(&lock);
    if (n_owned == cap_owned) {
        size_t ncap = cap_owned ? cap_owned * 2 : 256;
        void **n = realloc(owned, ncap * sizeof(*n));
        if (n == NULL)
            die_oom();
        owned = n;
        cap_owned = ncap;
    }
    owned[n_owned++] = p;
    pthread_mutex_unlock(&lock);
    return p;
}

static void *halloc(size_t n)
{
    return own(calloc(1, n ? n : 1));
}

char *hmem(const void *p, size_t len)
{
    char *s = halloc(len + 1);
    if (len)
        memcpy(s, p, len);
    s[len] = '\0';
    return s;
}

char *hbuf(size_t len)
{
    return halloc(len + 1);
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
    char *b = halloc(len + 1);

    memset(b, ch, len);
    return b;
}

char *hfmt(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;

    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        die_oom();
    return own(s);
}

char *hrandom(size_t n)
{
    static const char hex[] = "0123456789abcdef";
    char *s = halloc(n + 1);
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

/* --- trees -------------------------------------------------------------- */

void tree_remove(const char *path)
{
    if (path == NULL)
        return;
    fixture_remove(path);
}

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

char *tree_site(const char *index)
{
    char *dir = tree_new();

    tree_write_str(dir, "index.html", index);
    return dir;
}

char *tree_path(const char *dir, const char *rel)
{
    return hfmt("%s/%s", dir, rel);
}

void tree_write(const char *dir, const char *rel, const void *data, size_t len)
{
    char *p = tree_path(dir, rel);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ck_assert_msg(fd >= 0, "create %s: %s", p, strerror(errno));
    const char *d = data;
    while (len > 0) {
        ssize_t n = write(fd, d, len);
        ck_assert_msg(n > 0, "write %s: %s", p, strerror(errno));
        d += n;
        len -= (size_t)n;
    }
    close(fd);
}

void tree_write_str(const char *dir, const char *rel, const char *s)
{
    tree_write(dir, rel, s, strlen(s));
}

void tree_build(const char *dir, ...)
{
    va_list ap;
    const char *entry;
    const char *bad;

    va_start(ap, dir);
    while ((entry = va_arg(ap, const char *)) != NULL) {
        int err = fixture_build(dir, &entry, 1, &bad);
        ck_assert_msg(err == 0, "%s: entry '%s': %s", dir, entry,
                      strerror(-err));
    }
    va_end(ap);
}

void tree_mkdir(const char *dir, const char *rel)
{
    char *p = tree_path(dir, rel);
    ck_assert_msg(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", p,
                  strerror(errno));
}

void tree_symlink(const char *dir, const char *target, const char *rel)
{
    char *p = tree_path(dir, rel);
    ck_assert_msg(symlink(target, p) == 0, "symlink %s -> %s: %s", p, target,
                  strerror(errno));
}

void tree_mkfifo(const char *dir, const char *rel)
{
    char *p = tree_path(dir, rel);
    ck_assert_msg(mkfifo(p, 0644) == 0, "mkfifo %s: %s", p, strerror(errno));
}

void tree_mknod_null(const char *dir, const char *rel)
{
    char *p = tree_path(dir, rel);
    ck_assert_msg(mknod(p, S_IFCHR | 0666, makedev(1, 3)) == 0, "mknod %s: %s",
                  p, strerror(errno));
}

void tree_socket(const char *dir, const char *rel)
{
    char *p = tree_path(dir, rel);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    ck_assert_msg(strlen(p) < sizeof(sa.sun_path), "socket path too long");
    strcpy(sa.sun_path, p);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_msg(fd >= 0, "socket: %s", strerror(errno));
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
    int e = errno;
    close(fd);
    ck_assert_msg(rc == 0, "bind %s: %s", p, strerror(e));
}

void tree_mtime(const char *dir, const char *rel, time_t t)
{
    char *p = tree_path(dir, rel);
    struct timespec ts[2] = {{.tv_sec = t}, {.tv_sec = t}};
    ck_assert_msg(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW) == 0,
                  "utimensat %s: %s", p, strerror(errno));
}

char *tree_read(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (len)
            *len = 0;
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL)
        die_oom();
    for (;;) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL)
                die_oom();
            buf = nb;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n - 1);
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    if (len)
        *len = n;
    return own(buf);
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

/* --- processes ---------------------------------------------------------- */

static const char *bin_path(void)
{
    const char *b = getenv("BENEATH_BIN");
    ck_assert_msg(b && *b, "BENEATH_BIN is not set (path of beneath)");
    return b;
}

void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000,
                          .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct argv_buf {
    char **v;
    size_t n;
    size_t cap;
};

static void argv_push(struct argv_buf *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        size_t ncap = a->cap ? a->cap * 2 : 16;
        char **n = realloc(a->v, ncap * sizeof(*n));
        if (n == NULL)
            die_oom();
        a->v = n;
        a->cap = ncap;
    }
    a->v[a->n++] = s ? hfmt("%s", s) : NULL;
    a->v[a->n] = NULL;
}

/* The environment minus BENEATH_*, plus @extra. */
static void build_env(struct argv_buf *e, const char **extra)
{
    for (char **p = environ; *p; p++)
        if (strncmp(*p, "BENEATH_", 8) != 0)
            argv_push(e, *p);
    for (const char **p = extra; p && *p; p++)
        argv_push(e, *p);
}

#if defined(__x86_64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_AARCH64
#endif

/*
 * In the child before exec: make openat2 fail with @err, the way container
 * seccomp profiles do (ENOSYS, or EPERM). Returns 0 or -1.
 */
static int block_openat2(int err)
{
#if defined(AUDIT_ARCH_HERE) && defined(SYS_openat2)
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_HERE, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
        BPF_STMT(BPF_RET | BPF_K,
                 SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = (unsigned short)N_ELEMS(f), .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
#else
    (void)err;
    errno = ENOSYS;
    return -1;
#endif
}

/* fork + exec with stdout/stderr to files; the child dies with the test. */
static pid_t spawn_seccomp(char **argv, char **envp, const char *out,
                           const char *err, int block);

static const char *bind_src, *bind_dst; /* for the next spawn only */
static unsigned spawn_nofile;           /* likewise; 0: inherit */

static pid_t spawn(char **argv, char **envp, const char *out, const char *err)
{
    return spawn_seccomp(argv, envp, out, err, 0);
}

static pid_t spawn_seccomp(char **argv, char **envp, const char *out,
                           const char *err, int block)
{
    pid_t parent = getpid();
    int ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int efd = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int nfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    ck_assert_msg(ofd >= 0 && efd >= 0 && nfd >= 0, "open log files: %s",
                  strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        dup2(nfd, 0);
        dup2(ofd, 1);
        dup2(efd, 2);
        /* nothing of the test (client sockets, ...) leaks into the server */
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
        signal(SIGPIPE, SIG_DFL);
        if (bind_src &&
            (unshare(CLONE_NEWNS) != 0 ||
             mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
             mount(bind_src, bind_dst, NULL, MS_BIND, NULL) != 0)) {
            dprintf(2, "harness: bind mount %s on %s: %s\n", bind_src, bind_dst,
                    strerror(errno));
            _exit(127);
        }
        if (spawn_nofile) {
            struct rlimit rl = {spawn_nofile, spawn_nofile};
            if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
                dprintf(2, "harness: RLIMIT_NOFILE %u: %s\n", spawn_nofile,
                        strerror(errno));
                _exit(127);
            }
        }
        if (block && block_openat2(block) != 0) {
            dprintf(2, "harness: seccomp: %s\n", strerror(errno));
            _exit(127);
        }
        execve(argv[0], argv, envp);
        dprintf(2, "harness: exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(ofd);
    close(efd);
    close(nfd);
    return pid;
}

static int count_listening(const char *err)
{
    int n = 0;
    for (const char *p = err; (p = strstr(p, "listening on http://")); p++)
        n++;
    return n;
}

static void parse_listening(struct server *s, const char *err)
{
    const char *p = err;
    s->n_listen = 0;
    while ((p = strstr(p, "listening on http://")) &&
           s->n_listen < SERVER_MAX_LISTEN) {
        p += strlen("listening on http://");
        const char *h = p, *colon;
        if (*h == '[') {
            const char *rb = strchr(h, ']');
            if (rb == NULL)
                break;
            colon = rb + 1;
        } else {
            colon = h + strcspn(h, ": \n");
        }
        if (*colon != ':')
            break;
        size_t hl = (size_t)(colon - h);
        if (hl >= sizeof(s->hosts[0]))
            break;
        memcpy(s->hosts[s->n_listen], h, hl);
        s->hosts[s->n_listen][hl] = '\0';
        s->ports[s->n_listen] = (unsigned)strtoul(colon + 1, NULL, 10);
        s->n_listen++;
    }
    s->port = s->n_listen > 0 ? s->ports[0] : 0;
}

struct server *server_start_opts(const struct server_opts *o)
{
    struct server *s = halloc(sizeof(*s));
    struct argv_buf a = {0}, e = {0};

    s->dir = tree_new();
    s->out_path = tree_path(s->dir, "stdout");
    s->err_path = tree_path(s->dir, "stderr");

    argv_push(&a, bin_path());
    if (!o->no_listen) {
        argv_push(&a, "--listen");
        argv_push(&a, "127.0.0.1:0");
    }
    if (!o->no_resolver) {
        argv_push(&a, "--resolver");
        argv_push(&a, harness_backend());
    }
    for (const char *const *p = o->args; p && *p; p++)
        argv_push(&a, *p);
    if (o->root)
        argv_push(&a, o->root);
    build_env(&e, o->env);

    bind_src = o->bind_src;
    bind_dst = o->bind_dst;
    spawn_nofile = o->nofile;
    s->pid =
        spawn_seccomp(a.v, e.v, s->out_path, s->err_path, o->block_openat2);
    bind_src = bind_dst = NULL;
    spawn_nofile = 0;
    free(a.v);
    free(e.v);
    s->next = servers;
    servers = s;

    int want = o->n_listen > 0 ? o->n_listen : 1;
    long long deadline = now_ms() + (o->startup_ms > 0 ? o->startup_ms : 15000);
    for (;;) {
        char *err = server_stderr(s);
        if (count_listening(err) >= want) {
            /* the line may still be in the middle of being written */
            sleep_ms(20);
            err = server_stderr(s);
            parse_listening(s, err);
            s->err_startup = strlen(err);
            EXPECT(s->n_listen >= want && s->port > 0,
                   "could not parse the listening line(s) in:\n%s", err);
            return s;
        }
        if (waitpid(s->pid, &s->wstatus, WNOHANG) == s->pid) {
            s->reaped = true;
            EXPECT(0, "beneath exited during start-up (%s); stderr:\n%s",
                   wstatus_str(s->wstatus), server_stderr(s));
        }
        if (now_ms() > deadline)
            EXPECT(0,
                   "no 'listening on http://' line within the bound; "
                   "stderr so far:\n%s",
                   err);
        sleep_ms(10);
    }
}

struct server *server_start(const char *root, ...)
{
    const char *args[64];
    size_t n = 0;
    va_list ap;

    va_start(ap, root);
    for (const char *p; (p = va_arg(ap, const char *)) != NULL;) {
        ck_assert_msg(n + 1 < N_ELEMS(args), "too many arguments");
        args[n++] = p;
    }
    va_end(ap);
    args[n] = NULL;
    struct server_opts o = {.root = root, .args = args};
    return server_start_opts(&o);
}

void server_signal(struct server *s, int sig)
{
    if (!s->reaped)
        kill(s->pid, sig);
}

bool server_wait(struct server *s, int ms)
{
    long long deadline = now_ms() + ms;
    while (!s->reaped) {
        pid_t r = waitpid(s->pid, &s->wstatus, WNOHANG);
        if (r == s->pid) {
            s->reaped = true;
            break;
        }
        if (now_ms() > deadline)
            return false;
        sleep_ms(5);
    }
    return true;
}

int server_stop(struct server *s, int ms)
{
    if (s->reaped)
        return s->wstatus;
    kill(s->pid, SIGTERM);
    if (!server_wait(s, ms)) {
        fprintf(stderr,
                "harness: beneath pid %d ignored SIGTERM for %d ms, "
                "SIGKILL\n",
                (int)s->pid, ms);
        kill(s->pid, SIGKILL);
        waitpid(s->pid, &s->wstatus, 0);
        s->reaped = true;
    }
    return s->wstatus;
}

char *wstatus_str(int ws)
{
    if (WIFEXITED(ws))
        return hfmt("exit status %d", WEXITSTATUS(ws));
    if (WIFSIGNALED(ws))
        return hfmt("killed by signal %d (%s)", WTERMSIG(ws),
                    strsignal(WTERMSIG(ws)));
    return hfmt("wait status 0x%x", ws);
}

/* Lines a server may print after start-up without anything being wrong. */
static bool expected_line(const char *line)
{
    static const char *const ok[] = {
        "beneath: SIGTERM: stopping",
        "beneath: SIGINT: stopping",
        "beneath: SIGHUP: ",
        /* library chatter on bad requests: one test of its own
         * (stderr_quiet_on_bad_requests) rather than failing every test */
        "beneath: libmicrohttpd: ",
    };
    if (*line == '\0')
        return true;
    for (size_t i = 0; i < N_ELEMS(ok); i++)
        if (strncmp(line, ok[i], strlen(ok[i])) == 0)
            return true;
    return false;
}

void server_stop_clean(struct server *s)
{
    int ws = server_stop(s, 20000);
    char *err = server_stderr(s);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
           "beneath did not exit cleanly on SIGTERM: %s", wstatus_str(ws));
    EXPECT(strstr(err, "Sanitizer") == NULL &&
               strstr(err, "runtime error:") == NULL,
           "sanitizer report in beneath's stderr");
    /* STYLE 13: the integration tests check that stderr stays quiet */
    const char *p = server_stderr_since_startup(s);
    for (char *line; (line = hline(&p)) != NULL;)
        EXPECT(expected_line(line), "unexpected message on stderr: %s", line);
}

int server_fd_count(const struct server *s)
{
    char *p = hfmt("/proc/%d/fd", (int)s->pid);
    DIR *d = opendir(p);
    if (d == NULL)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

int server_fd_count_settled(const struct server *s)
{
    int last = server_fd_count(s), same = 0;
    for (int i = 0; i < 200 && same < 10; i++) {
        sleep_ms(20);
        int n = server_fd_count(s);
        same = n == last ? same + 1 : 0;
        last = n;
    }
    return last;
}

char *server_stderr(const struct server *s)
{
    char *e = tree_read(s->err_path, NULL);
    return e ? e : hfmt("%s", "");
}

char *server_stdout(const struct server *s)
{
    char *o = tree_read(s->out_path, NULL);
    return o ? o : hfmt("%s", "");
}

char *server_stderr_since_startup(const struct server *s)
{
    char *e = server_stderr(s);
    size_t n = strlen(e);
    return e + (s->err_startup < n ? s->err_startup : n);
}

char *server_url(const struct server *s, int i, const char *path)
{
    return hfmt("http://%s:%u%s", s->hosts[i], s->ports[i], path);
}

bool file_wait_for(const char *path, const char *needle, int ms)
{
    long long deadline = now_ms() + ms;
    for (;;) {
        char *t = tree_read(path, NULL);
        if (t && strstr(t, needle))
            return true;
        if (now_ms() > deadline)
            return false;
        sleep_ms(20);
    }
}

int beneath_run(const char **args, const char **env, int ms, char **out,
                char **err)
{
    struct argv_buf a = {0}, e = {0};
    char *dir = tree_new();
    char *op = tree_path(dir, "stdout"), *ep = tree_path(dir, "stderr");

    argv_push(&a, bin_path());
    for (const char **p = args; p && *p; p++)
        argv_push(&a, *p);
    build_env(&e, env);
    pid_t pid = spawn(a.v, e.v, op, ep);
    free(a.v);
    free(e.v);

    int ws = 0;
    long long deadline = now_ms() + ms;
    for (;;) {
        if (waitpid(pid, &ws, WNOHANG) == pid)
            break;
        if (now_ms() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &ws, 0);
            fprintf(stderr, "harness: beneath did not finish within %d ms\n",
                    ms);
            break;
        }
        sleep_ms(5);
    }
    char *o = tree_read(op, NULL), *r = tree_read(ep, NULL);
    if (out)
        *out = o ? o : hfmt("%s", "");
    if (err)
        *err = r ? r : hfmt("%s", "");
    return ws;
}

void expect_bad_options(const struct bad_option *rows, size_t n,
                        const char *root)
{
    for (size_t i = 0; i < n; i++) {
        const struct bad_option *b = &rows[i];
        const char *args[] = {b->opt,        b->value, "--check", "--listen",
                              "127.0.0.1:0", root,     NULL};
        char *out, *err;
        int ws = beneath_run(args, NULL, 30000, &out, &err);

        EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 2,
               "%s %s: %s, want exit 2\n%s", b->opt, b->value, wstatus_str(ws),
               err);
        EXPECT(strstr(err, b->msg) != NULL, "%s %s: stderr lacks \"%s\":\n%s",
               b->opt, b->value, b->msg, err);
    }
}

/* --- responses ---------------------------------------------------------- */

bool http_value_eq(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return false;
    for (;;) {
        while (*a == ' ' || *a == '\t')
            a++;
        while (*b == ' ' || *b == '\t')
            b++;
        if (*a == '\0' || *b == '\0')
            return *a == *b;
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
        char y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;
        if (x != y)
            return false;
        a++;
        b++;
    }
}

const char *http_header(const struct http_response *r, const char *name)
{
    for (size_t i = 0; i < r->n_headers; i++)
        if (strcasecmp(r->headers[i].name, name) == 0)
            return r->headers[i].value;
    return NULL;
}

size_t http_header_count(const struct http_response *r, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_headers; i++)
        if (strcasecmp(r->headers[i].name, name) == 0)
            n++;
    return n;
}

static void check_forbidden(const struct http_response *r)
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

/* Parse status line and headers from r->head (already NUL-terminated). */
static bool parse_head(struct http_response *r)
{
    char *p = r->head;
    if (strncmp(p, "HTTP/1.", 7) != 0 || strlen(p) < 12 || p[8] != ' ')
        return false;
    r->status = atoi(p + 9);
    char *eol = strstr(p, "\r\n");
    if (eol == NULL)
        return false;
    p = eol + 2;
    size_t cap = 8;
    r->headers = halloc(cap * sizeof(*r->headers));
    while (*p && strncmp(p, "\r\n", 2) != 0) {
        eol = strstr(p, "\r\n");
        if (eol == NULL)
            return false;
        char *colon = memchr(p, ':', (size_t)(eol - p));
        if (colon == NULL)
            return false;
        char *v = colon + 1;
        while (v < eol && (*v == ' ' || *v == '\t'))
            v++;
        char *ve = eol;
        while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
            ve--;
        if (r->n_headers == cap) {
            /* arena blocks are never realloc'd: copy into a bigger one */
            struct http_header *n = halloc(cap * 2 * sizeof(*n));
            memcpy(n, r->headers, cap * sizeof(*n));
            r->headers = n;
            cap *= 2;
        }
        r->headers[r->n_headers].name = hmem(p, (size_t)(colon - p));
        r->headers[r->n_headers].value = hmem(v, (size_t)(ve - v));
        r->n_headers++;
        p = eol + 2;
    }
    return true;
}

static bool header_has_token(const struct http_response *r, const char *name,
                             const char *token)
{
    for (size_t i = 0; i < r->n_headers; i++)
        if (strcasecmp(r->headers[i].name, name) == 0 &&
            strcasestr(r->headers[i].value, token) != NULL)
            return true;
    return false;
}

/* --- raw-socket client -------------------------------------------------- */

struct raw_conn *raw_connect_host(const char *host, unsigned port)
{
    const struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
                                   .ai_socktype = SOCK_STREAM};
    struct addrinfo *ai;
    char service[16];

    snprintf(service, sizeof(service), "%u", port);
    if (getaddrinfo(host, service, &hints, &ai) != 0)
        return NULL;
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int err = fd < 0 ? errno : 0;
    if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        err = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    if (fd < 0) {
        errno = err;
        return NULL;
    }
    struct raw_conn *c = calloc(1, sizeof(*c));
    if (c == NULL)
        die_oom();
    c->fd = fd;
    pthread_mutex_lock(&lock);
    c->next = conns;
    conns = c;
    pthread_mutex_unlock(&lock);
    return c;
}

struct raw_conn *raw_connect(unsigned port)
{
    return raw_connect_host("127.0.0.1", port);
}

int raw_send(struct raw_conn *c, const void *data, size_t len)
{
    const char *d = data;
    long long deadline = now_ms() + 10000;
    while (len > 0) {
        ssize_t n = send(c->fd, d, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            d += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return -errno;
        long long left = deadline - now_ms();
        if (left <= 0)
            return -ETIMEDOUT;
        struct pollfd pf = {.fd = c->fd, .events = POLLOUT};
        poll(&pf, 1, (int)left);
    }
    return 0;
}

int raw_send_str(struct raw_conn *c, const char *s)
{
    return raw_send(c, s, strlen(s));
}

/* Read more bytes into c->buf until @deadline. Returns >0, 0 (EOF), -errno. */
static ssize_t fill(struct raw_conn *c, long long deadline)
{
    if (c->eof)
        return 0;
    if (c->cap - c->len < 65536) {
        size_t ncap = c->cap ? c->cap * 2 : 65536 * 2;
        char *nb = realloc(c->buf, ncap);
        if (nb == NULL)
            die_oom();
        c->buf = nb;
        c->cap = ncap;
    }
    for (;;) {
        long long left = deadline - now_ms();
        if (left < 0)
            left = 0;
        struct pollfd pf = {.fd = c->fd, .events = POLLIN};
        int pr = poll(&pf, 1, (int)left);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            return -ETIMEDOUT;
        ssize_t n = recv(c->fd, c->buf + c->len, c->cap - c->len - 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0) {
            c->eof = true;
            return 0;
        }
        c->len += (size_t)n;
        c->buf[c->len] = '\0';
        return n;
    }
}

static void consume(struct raw_conn *c, size_t n)
{
    memmove(c->buf, c->buf + n, c->len - n);
    c->len -= n;
}

/* Wait until c->buf holds @n bytes; false on EOF/error (r->error set). */
static bool need(struct raw_conn *c, size_t n, long long deadline,
                 struct http_response *r)
{
    while (c->len < n) {
        ssize_t got = fill(c, deadline);
        if (got <= 0) {
            r->error = got == 0 ? EPIPE : (int)-got;
            return false;
        }
    }
    return true;
}

static ssize_t find_crlf(const struct raw_conn *c, size_t from)
{
    for (size_t i = from; i + 1 < c->len; i++)
        if (c->buf[i] == '\r' && c->buf[i + 1] == '\n')
            return (ssize_t)i;
    return -1;
}

static bool read_chunked(struct raw_conn *c, long long deadline,
                         struct http_response *r)
{
    size_t cap = 4096, n = 0;
    char *body = malloc(cap);
    if (body == NULL)
        die_oom();
    for (;;) {
        ssize_t eol;
        while ((eol = find_crlf(c, 0)) < 0) {
            ssize_t got = fill(c, deadline);
            if (got <= 0) {
                r->error = got == 0 ? EPIPE : (int)-got;
                goto out_fail;
            }
        }
        char *end;
        unsigned long sz = strtoul(c->buf, &end, 16);
        if (end == c->buf) {
            r->error = EPROTO;
            goto out_fail;
        }
        consume(c, (size_t)eol + 2);
        if (sz == 0) {
            /* trailers until an empty line */
            for (;;) {
                while ((eol = find_crlf(c, 0)) < 0) {
                    ssize_t got = fill(c, deadline);
                    if (got <= 0) {
                        r->error = got == 0 ? EPIPE : (int)-got;
                        goto out_fail;
                    }
                }
                consume(c, (size_t)eol + 2);
                if (eol == 0)
                    break;
            }
            break;
        }
        if (!need(c, sz + 2, deadline, r))
            goto out_fail;
        if (n + sz + 1 > cap) {
            while (n + sz + 1 > cap)
                cap *= 2;
            char *nb = realloc(body, cap);
            if (nb == NULL)
                die_oom();
            body = nb;
        }
        memcpy(body + n, c->buf, sz);
        n += sz;
        consume(c, sz + 2);
    }
    r->body = hmem(body, n);
    r->body_len = n;
    free(body);
    return true;
out_fail:
    r->body = hmem(body, n);
    r->body_len = n;
    free(body);
    return false;
}

struct http_response *raw_read(struct raw_conn *c, bool head_req, int ms)
{
    struct http_response *r = halloc(sizeof(*r));
    long long deadline = now_ms() + ms;
    char *hend;

    r->head = hfmt("%s", "");
    r->body = hfmt("%s", "");
    for (;;) {
        hend = c->len ? memmem(c->buf, c->len, "\r\n\r\n", 4) : NULL;
        if (hend)
            break;
        ssize_t got = fill(c, deadline);
        if (got <= 0) {
            r->error = got == 0 ? (c->len ? EPROTO : ECONNRESET) : (int)-got;
            r->closed = got == 0;
            if (c->len) {
                r->head = hmem(c->buf, c->len);
                r->head_len = c->len;
            }
            check_forbidden(r);
            return r;
        }
    }
    size_t hl = (size_t)(hend - c->buf) + 4;
    r->head = hmem(c->buf, hl);
    r->head_len = hl;
    consume(c, hl);
    if (!parse_head(r)) {
        r->error = EPROTO;
        check_forbidden(r);
        return r;
    }
    bool bodyless = head_req || r->status == 204 || r->status == 304 ||
                    (r->status >= 100 && r->status < 200);
    const char *cl = http_header(r, "Content-Length");
    if (bodyless) {
        /* nothing */
    } else if (header_has_token(r, "Transfer-Encoding", "chunked")) {
        read_chunked(c, deadline, r);
    } else if (cl) {
        size_t want = (size_t)strtoull(cl, NULL, 10);
        bool ok = need(c, want, deadline, r);
        size_t have = ok ? want : c->len;
        r->body = hmem(c->buf, have);
        r->body_len = have;
        consume(c, have);
    } else {
        while (fill(c, deadline) > 0)
            ;
        r->body = hmem(c->buf, c->len);
        r->body_len = c->len;
        consume(c, c->len);
        r->closed = true;
    }
    if (header_has_token(r, "Connection", "close"))
        r->closed = true;
    check_forbidden(r);
    return r;
}

bool raw_wait_closed(struct raw_conn *c, int ms)
{
    long long deadline = now_ms() + ms;
    for (;;) {
        c->len = 0; /* discard anything sent meanwhile */
        ssize_t got = fill(c, deadline);
        if (got == 0 || got == -ECONNRESET || got == -EPIPE)
            return true;
        if (got == -ETIMEDOUT)
            return false;
        if (got < 0)
            return true;
    }
}

void raw_close(struct raw_conn *c)
{
    if (c == NULL)
        return;
    pthread_mutex_lock(&lock);
    for (struct raw_conn **pp = &conns; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    if (c->fd >= 0)
        close(c->fd);
    free(c->buf);
    free(c);
}

struct raw_conn *raw_open(unsigned port)
{
    struct raw_conn *c = raw_connect(port);
    EXPECT(c != NULL, "connect 127.0.0.1:%u: %s", port, strerror(errno));
    return c;
}

struct http_response *raw_request(unsigned port, const char *req, int ms)
{
    struct raw_conn *c = raw_open(port);
    int rc = raw_send_str(c, req);
    EXPECT(rc == 0, "send: %s", strerror(-rc));
    bool head = strncmp(req, "HEAD ", 5) == 0;
    struct http_response *r = raw_read(c, head, ms);
    raw_close(c);
    return r;
}

struct http_response *raw_get(unsigned port, const char *target)
{
    return raw_request(
        port, hfmt("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", target),
        10000);
}

struct http_response *expect_get(const struct server *s, const char *target,
                                 int status, const char *what)
{
    struct http_response *r = raw_get(s->port, target);
    EXPECT_STATUS(r, status, what ? what : hfmt("GET %s", target));
    return r;
}

struct http_response *expect_get_body(const struct server *s,
                                      const char *target, const char *body,
                                      const char *what)
{
    struct http_response *r = raw_get(s->port, target);
    EXPECT_BODY(r, body, what ? what : hfmt("GET %s", target));
    return r;
}

/* --- libcurl client ----------------------------------------------------- */

size_t http_write(char *data, size_t size, size_t nmemb, void *ud)
{
    struct http_buf *b = ud;
    size_t len = size * nmemb;
    if (b->n + len + 1 > b->cap) {
        size_t ncap = b->cap ? b->cap : 4096;
        while (b->n + len + 1 > ncap)
            ncap *= 2;
        char *np = realloc(b->p, ncap);
        if (np == NULL)
            return 0;
        b->p = np;
        b->cap = ncap;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
    b->p[b->n] = '\0';
    return len;
}

/* curl reports every header block; keep only the last (final) one. */
static size_t head_cb(char *data, size_t size, size_t nmemb, void *ud)
{
    struct http_buf *b = ud;
    size_t len = size * nmemb;
    if (len >= 5 && strncmp(data, "HTTP/", 5) == 0)
        b->n = 0;
    return http_write(data, size, nmemb, ud);
}

CURL *http_easy(void)
{
    CURL *e = curl_easy_init();
    ck_assert_msg(e != NULL, "curl_easy_init");
    easies = grow_one(easies, n_easies, sizeof(*easies));
    easies[n_easies++] = e;
    return e;
}

struct http_response *http_do(CURL *easy, const struct server *s,
                              const char *method, const char *path,
                              const char **headers)
{
    struct http_response *r = halloc(sizeof(*r));
    struct http_buf hb = {0}, bb = {0};
    struct curl_slist *hl = NULL;
    CURL *e = easy ? easy : curl_easy_init();

    ck_assert_msg(e != NULL, "curl_easy_init");

    for (const char **h = headers; h && *h; h++) {
        struct curl_slist *n = curl_slist_append(hl, *h);
        if (n == NULL)
            die_oom();
        hl = n;
    }
    curl_easy_setopt(e, CURLOPT_URL, server_url(s, 0, path));
    curl_easy_setopt(e, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 15000L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, head_cb);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &hb);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, http_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &bb);
    if (strcmp(method, "HEAD") == 0) {
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, NULL);
    } else {
        curl_easy_setopt(e, CURLOPT_NOBODY, 0L);
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST,
                         strcmp(method, "GET") == 0 ? NULL : method);
    }
    CURLcode rc = curl_easy_perform(e);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(hl);

    r->head = hmem(hb.p, hb.n);
    r->head_len = hb.n;
    r->body = hmem(bb.p, bb.n);
    r->body_len = bb.n;
    free(hb.p);
    free(bb.p);
    if (rc != CURLE_OK) {
        fprintf(stderr, "harness: curl %s %s: %s\n", method, path,
                curl_easy_strerror(rc));
        r->error = rc == CURLE_OPERATION_TIMEDOUT ? ETIMEDOUT : EIO;
    }
    if (r->head_len && !parse_head(r) && r->error == 0)
        r->error = EPROTO;
    curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &r->num_connects);
    if (easy == NULL)
        curl_easy_cleanup(e); /* a fresh handle closes its connection */
    if (header_has_token(r, "Connection", "close"))
        r->closed = true;
    check_forbidden(r);
    return r;
}

struct http_response *http_get(const struct server *s, const char *path)
{
    return http_do(NULL, s, "GET", path, NULL);
}
