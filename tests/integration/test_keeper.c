// SPDX-License-Identifier: MIT
/*
 * test_keeper.c - privilege separation (server/process/keeper.h), from
 * outside: the real binary (and beneath_faults, the same server with the
 * sandbox's fault hook) with the deliberately unconfined --resolver lexical.
 *
 * Symlinks planted in the root point at the TLS key, the htpasswd file and
 * the configuration file. Without the sandbox they are served (the control:
 * the planted links work; the keeper is there too); with it, the serving
 * process has no read right on them and answers 403, while the keeper
 * hands them over again to the new serving process a SIGHUP starts (a
 * user added to the htpasswd file logs in, the certificate is loaded, the
 * descriptors handed over are closed afterwards, in both processes). The
 * fault hook, run in the serving process after its walls, cannot open them
 * nor connect out. One PID: signals go to the keeper (one sent to both
 * acts once; a SIGHUP sent to the serving process is pointed at the
 * keeper, also under --sandbox strict); either process dying ends the
 * other.
 */
#include "harness.h"
#include "tls_fixture.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The secrets, outside the root, and a root with links to them. */
struct secrets {
    char *dir, *key, *cert, *htpasswd, *conf, *www;
};

/* "alice:one" and "bob:two", Basic. */
#define ALICE "YWxpY2U6b25l"
#define BOB "Ym9iOnR3bw=="

static struct secrets make_secrets(void)
{
    struct secrets s = {.dir = tree_new(), .www = tree_new()};
    EVP_PKEY *k = tls_fixture_key();
    X509 *c = tls_fixture_cert("localhost", k, NULL, NULL, time(NULL),
                               -TLS_FIXTURE_DAY, 30 * TLS_FIXTURE_DAY, false,
                               "DNS:localhost,IP:127.0.0.1");

    s.key = tree_path(s.dir, "key.pem");
    s.cert = tree_path(s.dir, "cert.pem");
    s.htpasswd = tree_path(s.dir, "htpasswd");
    s.conf = tree_path(s.dir, "beneath.conf");
    tls_fixture_write_key(s.key, k, NULL);
    tls_fixture_write_certs(s.cert, &c, 1);
    X509_free(c);
    EVP_PKEY_free(k);
    htpasswd_user(s.htpasswd, "alice", "one", true);
    tree_write_str(
        s.dir, "beneath.conf",
        hfmt("# planted-config-marker\nauth = /private/**=%s\n", s.htpasswd));
    tree_write_str(s.www, "index.html", "hello\n");
    tree_mkdir(s.www, "private");
    tree_write_str(s.www, "private/s.txt", "in private\n");
    tree_symlink(s.www, s.key, "key.txt");
    tree_symlink(s.www, s.htpasswd, "ht.txt");
    tree_symlink(s.www, s.conf, "conf.txt");
    return s;
}

static bool landlock(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1);
    return abi > 0;
}

/* Start beneath (or beneath_faults with @hook) over @s, lexical. */
static struct server *start(const struct secrets *s, const char *sandbox,
                            const char *hook)
{
    if (hook) {
        const char *b = getenv("BENEATH_FAULTS_BIN");
        ck_assert_msg(b && *b, "BENEATH_FAULTS_BIN is not set");
        setenv("BENEATH_BIN", b, 1);
    }
    struct server_opts o = {
        .root = s->www,
        .no_resolver = true,
        .args = (const char *[]){"--resolver", "lexical", "--sandbox", sandbox,
                                 "--config", s->conf, "--listen",
                                 "https://127.0.0.1:0", "--tls-cert", s->cert,
                                 "--tls-key", s->key, NULL},
        .env = hook
                   ? (const char *[]){hfmt("SANDBOX_FAULT_HOOK=%s", hook), NULL}
                   : NULL,
    };
    return server_start_opts(&o);
}

/* Whether process @pid has a descriptor open on @path. */
static bool holds(pid_t pid, const char *path)
{
    char *dir = hfmt("/proc/%d/fd", (int)pid);
    DIR *d = opendir(dir);
    struct dirent *de;
    bool found = false;

    while (d && !found && (de = readdir(d)) != NULL) {
        char buf[4096];
        ssize_t n =
            readlink(hfmt("%s/%s", dir, de->d_name), buf, sizeof buf - 1);
        if (n > 0) {
            buf[n] = '\0';
            found = strcmp(buf, path) == 0;
        }
    }
    if (d)
        closedir(d);
    return found;
}

static struct http_response *get_as(const struct server *srv, const char *path,
                                    const char *basic)
{
    return raw_request(srv->port,
                       hfmt("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            "Authorization: Basic %s\r\n\r\n",
                            path, basic),
                       5000);
}

/* bob added to the htpasswd file, then SIGHUP: whether he logs in within
 * 5 s (the keeper, or the server, read it again). */
static bool bob_after_reload(struct server *srv, const struct secrets *s)
{
    htpasswd_user(s->htpasswd, "bob", "two", false);
    server_signal(srv, SIGHUP);
    long long until = now_ms() + 5000;
    while (get_as(srv, "/private/s.txt", BOB)->status != 200 &&
           now_ms() < until)
        sleep_ms(20);
    return get_as(srv, "/private/s.txt", BOB)->status == 200;
}

START_TEST(planted_links_served_without_sandbox)
{
    /* The control: the links reach the files, so the test below would fail
     * if the sandbox let them through. */
    struct secrets s = make_secrets();
    struct server *srv = start(&s, "off", NULL);

    /* the walls are off, the keeper is not: it serves through a child */
    EXPECT(server_serving_pid(srv) != srv->pid &&
               strstr(server_stderr(srv),
                      hfmt("beneath: keeper: pid %d reads the configuration, "
                           "TLS keys and htpasswd files and hands them to "
                           "each serving process; no walls of its own "
                           "(--sandbox off)\n",
                           (int)srv->pid)),
           "--sandbox off: no keeper beside the serving process:\n%s",
           server_stderr(srv));
    struct http_response *r = raw_get(srv->port, "/key.txt");
    EXPECT(r->status == 200 && strstr(r->body, "PRIVATE KEY"),
           "GET /key.txt without the sandbox: %d", r->status);
    r = raw_get(srv->port, "/ht.txt");
    EXPECT(r->status == 200 && strstr(r->body, "alice:$2y$"),
           "GET /ht.txt without the sandbox: %d", r->status);
    r = raw_get(srv->port, "/conf.txt");
    EXPECT(r->status == 200 && strstr(r->body, "planted-config-marker"),
           "GET /conf.txt without the sandbox: %d", r->status);
    server_stop_clean(srv);
}
END_TEST

START_TEST(planted_links_refused_strict)
{
    if (!landlock()) {
        fprintf(stderr, "SKIP planted_links_refused_strict: no Landlock\n");
        return;
    }
    struct secrets s = make_secrets();
    harness_forbid("PRIVATE KEY");
    harness_forbid("alice:$2y$");
    harness_forbid("planted-config-marker");
    struct server *srv = start(&s, "strict", NULL);
    pid_t serving = server_serving_pid(srv);
    char *err = server_stderr(srv);

    EXPECT(serving != srv->pid, "no serving process beside the keeper");
    EXPECT(strstr(err, hfmt("beneath: keeper: pid %d ", (int)srv->pid)),
           "no keeper line:\n%s", err);
    EXPECT(strstr(err, hfmt("no read right on the configuration, keys and "
                            "htpasswd files (the keeper, pid %d,",
                            (int)srv->pid)),
           "the sandbox line does not say the files are the keeper's:\n%s",
           err);
    const char *links[] = {"/key.txt", "/ht.txt", "/conf.txt"};
    for (size_t i = 0; i < 3; i++)
        expect_get(srv, links[i], 403, NULL);
    expect_get_body(srv, "/index.html", "hello\n", NULL);
    expect_get(srv, "/private/s.txt", 401, "no credentials");
    EXPECT(get_as(srv, "/private/s.txt", ALICE)->status == 200,
           "alice, from the htpasswd file read at start-up");
    EXPECT(get_as(srv, "/private/s.txt", BOB)->status == 401,
           "bob before he is added");

    /* SIGHUP to the keeper: it hands the files over again, to a new
     * serving process with walls of its own */
    htpasswd_user(s.htpasswd, "bob", "two", false);
    pid_t next = server_reload(srv, 10000);
    EXPECT(next > 0 && next != serving, "no new serving process:\n%s",
           server_stderr(srv));
    EXPECT(get_as(srv, "/private/s.txt", BOB)->status == 200,
           "bob after SIGHUP:\n%s", server_stderr(srv));
    err = server_stderr(srv);
    EXPECT(strstr(err, hfmt("beneath: SIGHUP: tls: certificate %s loaded",
                            s.cert)) &&
               strstr(err, hfmt("beneath: SIGHUP: sandbox: landlock ABI ")) &&
               strstr(err, hfmt("no read right on the configuration, keys and "
                                "htpasswd files (the keeper, pid %d,",
                                (int)srv->pid)),
           "the new generation did not load the key under walls of its "
           "own:\n%s",
           err);
    for (size_t i = 0; i < 3; i++)
        expect_get(srv, links[i], 403, "after SIGHUP");
    /* the descriptors the keeper handed over are closed once read, in the
     * serving process, and the keeper keeps none of them open either */
    const char *kept[] = {s.key, s.cert, s.htpasswd, s.conf};
    for (size_t i = 0; i < 4; i++) {
        EXPECT(!holds(next, kept[i]),
               "the serving process still holds %s after SIGHUP", kept[i]);
        EXPECT(!holds(srv->pid, kept[i]), "the keeper holds %s open", kept[i]);
    }
    server_stop_clean(srv);
    /* the refusals are the kernel's */
    EXPECT(strstr(server_stdout(srv), "errno=EACCES"),
           "no EACCES in the access log:\n%s", server_stdout(srv));
}
END_TEST

START_TEST(fault_hook_cannot_reach)
{
    if (!landlock()) {
        fprintf(stderr, "SKIP fault_hook_cannot_reach: no Landlock\n");
        return;
    }
    struct secrets s = make_secrets();
    char *hook = hfmt("read:%s read:%s read:%s read:%s connect:127.0.0.1:1",
                      s.key, s.htpasswd, s.conf, s.cert);
    struct server *srv = start(&s, "on", hook);
    char *err = server_stderr(srv);
    const char *files[] = {s.key, s.htpasswd, s.conf, s.cert};
    for (size_t i = 0; i < 4; i++)
        EXPECT(
            strstr(err, hfmt("fault-hook: read %s: refused: EACCES", files[i])),
            "the serving process read %s:\n%s", files[i], err);
    EXPECT(strstr(err, "fault-hook: connect 127.0.0.1:1: refused: "),
           "the serving process connected out:\n%s", err);
    expect_get_body(srv, "/index.html", "hello\n", "served after the tries");
    server_stop_clean(srv);
}
END_TEST

/* Wait up to @ms for @pid to be gone (or a zombie nobody reaps yet). */
static bool gone(pid_t pid, int ms)
{
    long long until = now_ms() + ms;
    for (;;) {
        char *st = tree_read(hfmt("/proc/%d/stat", (int)pid), NULL);
        char *p = st ? strrchr(st, ')') : NULL;
        if (!p || p[2] == 'Z' || p[2] == 'X')
            return true;
        if (now_ms() >= until)
            return false;
        sleep_ms(20);
    }
}

START_TEST(one_pid_to_signal)
{
    struct secrets s = make_secrets();

    /* a SIGHUP to the serving process alone is pointed at the keeper
     * (under --sandbox strict too, where a call its list lacks kills it);
     * a signal to both (pkill, ^C to the group) acts once: a clean stop */
    static const char *const modes[] = {"on", "strict"};
    struct server *srv;
    pid_t serving;
    for (size_t m = 0; m < N_ELEMS(modes); m++) {
        if (m == 1 && !landlock())
            break;
        srv = start(&s, modes[m], NULL);
        serving = server_serving_pid(srv);
        EXPECT(serving != srv->pid, "no serving process beside the keeper");
        kill(serving, SIGHUP);
        char *e = NULL;
        long long until = now_ms() + 5000;
        while (
            !strstr(e = server_stderr(srv), "ignored by the serving process") &&
            now_ms() < until)
            sleep_ms(20);
        EXPECT(strstr(e, hfmt("ignored by the serving process: signal the "
                              "keeper, pid %d\n",
                              (int)srv->pid)),
               "--sandbox %s: a SIGHUP to the serving process is not pointed "
               "at the keeper:\n%s",
               modes[m], e);
        EXPECT(!gone(serving, 200), "--sandbox %s: the SIGHUP killed it",
               modes[m]);
        expect_get_body(srv, "/index.html", "hello\n",
                        "served after a SIGHUP to the serving process");
        /* pkill's order, and the reverse would do too: the serving process
         * takes no signal, the keeper's stop record is what stops it */
        kill(serving, SIGTERM);
        server_signal(srv, SIGTERM);
        EXPECT(server_wait(srv, 20000) && WIFEXITED(srv->wstatus) &&
                   WEXITSTATUS(srv->wstatus) == 0,
               "--sandbox %s: SIGTERM to both: %s", modes[m],
               wstatus_str(srv->wstatus));
        EXPECT(gone(serving, 5000), "the serving process outlived its keeper");
    }

    /* the serving process killed: the keeper says so and ends the same
     * way (whoever started beneath sees the signal) */
    srv = start(&s, "on", NULL);
    serving = server_serving_pid(srv);
    kill(serving, SIGKILL);
    EXPECT(server_wait(srv, 10000) && WIFSIGNALED(srv->wstatus) &&
               WTERMSIG(srv->wstatus) == SIGKILL,
           "keeper after its serving process was killed: %s",
           wstatus_str(srv->wstatus));
    EXPECT(strstr(server_stderr(srv), "was killed by signal 9"),
           "the keeper did not say why it stops:\n%s", server_stderr(srv));

    /* the keeper killed: no orphan serves on with stale keys */
    srv = start(&s, "on", NULL);
    serving = server_serving_pid(srv);
    unsigned port = srv->port;
    kill(srv->pid, SIGKILL);
    EXPECT(gone(serving, 10000), "the serving process outlived its keeper");
    EXPECT(strstr(server_stderr(srv), "is gone: stopping"),
           "the serving process did not say why it stops:\n%s",
           server_stderr(srv));
    struct raw_conn *c = raw_connect(port);
    EXPECT(c == NULL, "port %u still accepts after both ended", port);
    if (c)
        raw_close(c);
}
END_TEST

/* What handed_open's refusal says (common/handed.h). */
#define NOT_REGULAR "not a regular file"

/* Put a FIFO where @path is (the file itself is kept as @path.saved). */
static void fifo_over(const char *path)
{
    char *saved = hfmt("%s.saved", path);
    EXPECT(rename(path, saved) == 0 && mkfifo(path, 0600) == 0,
           "a FIFO in place of %s: %s", path, strerror(errno));
}

/* The file fifo_over put aside goes back in place of the FIFO. */
static void fifo_back(const char *path)
{
    EXPECT(unlink(path) == 0 && rename(hfmt("%s.saved", path), path) == 0,
           "%s back: %s", path, strerror(errno));
}

/*
 * Each file the configuration names, in turn a FIFO (the key, the
 * certificate, the htpasswd file, the configuration file, a site's
 * _redirects), with the sandbox on and off: the start is refused at once,
 * naming the path and why. (Opening a FIFO for reading waits for a writer.)
 */
START_TEST(fifo_named_refused_at_start)
{
    const char *sandboxes[] = {"on", "off"};

    for (size_t sb = 0; sb < N_ELEMS(sandboxes); sb++) {
        struct secrets s = make_secrets();
        char *redirects = tree_path(s.www, "_redirects");
        const char *named[] = {s.key, s.cert, s.htpasswd, s.conf, redirects};

        tree_write_str(s.www, "_redirects", "/old /new 301\n");
        for (size_t i = 0; i < N_ELEMS(named); i++) {
            const char *args[] = {"--sandbox",    sandboxes[sb],
                                  "--config",     s.conf,
                                  "--listen",     "127.0.0.1:0",
                                  "--listen",     "https://127.0.0.1:0",
                                  "--tls-cert",   s.cert,
                                  "--tls-key",    s.key,
                                  "--site-files", "on",
                                  s.www,          NULL};
            char *err = NULL;

            fifo_over(named[i]);
            long long t0 = now_ms();
            int ws = beneath_run(args, NULL, 5000, NULL, &err);
            long long took = now_ms() - t0;
            fifo_back(named[i]);
            EXPECT_EXIT(ws, 2, err);
            EXPECT(took < 1000, "sandbox %s, %s a FIFO: refused after %lld ms",
                   sandboxes[sb], named[i], took);
            EXPECT(strstr(err, hfmt("%s: ", named[i])) &&
                       strstr(err, NOT_REGULAR " (a FIFO"),
                   "sandbox %s, %s a FIFO: the path and the reason are not "
                   "said:\n%s",
                   sandboxes[sb], named[i], err);
        }
    }
}
END_TEST

/*
 * SIGHUP while a named file is a FIFO, with the sandbox on (the keeper
 * opens it) and off (the server does): the reload says which file and why,
 * the old configuration serves on, and once the file is back the next
 * SIGHUP applies what changed meanwhile.
 */
START_TEST(fifo_named_on_sighup)
{
    const char *sandboxes[] = {"on", "off"};

    for (size_t sb = 0; sb < N_ELEMS(sandboxes); sb++) {
        struct secrets s = make_secrets();
        struct server *srv = start(&s, sandboxes[sb], NULL);
        const char *named[] = {s.key, s.cert, s.htpasswd, s.conf};
        const char *says[] = {"cannot open key file: " NOT_REGULAR,
                              "cannot open certificate file: " NOT_REGULAR,
                              NOT_REGULAR, NOT_REGULAR};

        for (size_t i = 0; i < N_ELEMS(named); i++) {
            char *line = hfmt("SIGHUP: %s%s: %s",
                              i < 2    ? "tls: "
                              : i == 2 ? "auth: "
                                       : "",
                              named[i], says[i]);
            fifo_over(named[i]);
            server_signal(srv, SIGHUP);
            long long until = now_ms() + 5000;
            while (!strstr(server_stderr(srv), line) && now_ms() < until)
                sleep_ms(20);
            fifo_back(named[i]);
            EXPECT(strstr(server_stderr(srv), line),
                   "sandbox %s: no '%s' after SIGHUP:\n%s", sandboxes[sb], line,
                   server_stderr(srv));
            EXPECT(get_as(srv, "/private/s.txt", ALICE)->status == 200,
                   "sandbox %s: the old configuration does not serve after "
                   "%s was a FIFO",
                   sandboxes[sb], named[i]);
        }
        /* the files are back: a later reload reads them */
        EXPECT(bob_after_reload(srv, &s),
               "sandbox %s: a reload after the FIFOs did not apply:\n%s",
               sandboxes[sb], server_stderr(srv));
        server_stop_clean(srv);
    }
}
END_TEST

const struct check_main check_main = {
    .suite = "e2e_keeper",
    .fixture = HARNESS_FIXTURE(60),
    .tcases = {
        {"keeper",
         .tests = {&planted_links_served_without_sandbox,
                   &planted_links_refused_strict, &fault_hook_cannot_reach,
                   &one_pid_to_signal, &fifo_named_refused_at_start,
                   &fifo_named_on_sighup}}}};
