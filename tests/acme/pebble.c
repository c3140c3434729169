/* SPDX-License-Identifier: MIT */
/*
 * pebble.c - the Pebble fixture of test_acme_pebble (pebble.h): processes
 * started with fork/exec, their output in files of the scratch directory,
 * readiness seen by connecting to their ports, Pebble's root fetched from
 * its management interface with libcurl.
 */
#include "pebble.h"

#include "check_main.h"
#include "fixture.h"

#include <arpa/inet.h>
#include <check.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000};

    nanosleep(&ts, NULL);
}

static bool port_open(int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)port)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool ok;

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

/* fork/exec @argv with @env added, output to @out. */
static pid_t spawn(const char *const argv[], const char *const *env,
                   const char *out)
{
    pid_t pid = fork();

    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        char *args[40] = {0}, var[256], *eq;

        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            _exit(127);
        for (size_t i = 0; env && env[i]; i++) {
            snprintf(var, sizeof var, "%s", env[i]);
            eq = strchr(var, '=');
            if (eq) {
                *eq = '\0';
                setenv(var, eq + 1, 1);
            }
        }
        for (size_t i = 0; argv[i] && i + 1 < 40; i++)
            args[i] = strdup(argv[i]);
        execvp(args[0], args);
        _exit(127);
    }
    return pid;
}

static void stop_pid(pid_t *pid)
{
    if (*pid <= 0)
        return;
    kill(*pid, SIGTERM);
    for (int i = 0; i < 100; i++) {
        pid_t w = waitpid(*pid, NULL, WNOHANG);

        if (w == *pid || w < 0) { /* gone, or reaped by agent_stop */
            *pid = 0;
            return;
        }
        sleep_ms(50);
    }
    kill(*pid, SIGKILL);
    waitpid(*pid, NULL, 0);
    *pid = 0;
}

static void wait_port(int port, pid_t pid, const char *what)
{
    for (int i = 0; i < 200; i++) {
        if (port_open(port))
            return;
        ck_assert_msg(waitpid(pid, NULL, WNOHANG) == 0, "%s exited", what);
        sleep_ms(50);
    }
    ck_abort_msg("%s does not listen on %d", what, port);
}

static void run(const char *cmd)
{
    int st = system(cmd);

    ck_assert_msg(st == 0, "%s: status %d", cmd, st);
}

void pebble_setup(struct pebble *p)
{
    char cmd[1024], dns[32], mgmt[32];

    *p = (struct pebble){0};
    snprintf(p->dir, sizeof p->dir, "%s", fixture_dir);
    p->dns_port = (int)fixture_free_port();
    p->api_port = (int)fixture_free_port();
    p->mgmt_port = (int)fixture_free_port();
    p->cts_port = (int)fixture_free_port();
    p->http_port = (int)fixture_free_port();
    p->tls_port = (int)fixture_free_port();
    snprintf(p->directory, sizeof p->directory, "https://127.0.0.1:%d/dir",
             p->api_port);
    snprintf(p->api_cert, sizeof p->api_cert, "%s/api.pem", p->dir);
    snprintf(p->acme_dir, sizeof p->acme_dir, "%s/acme", p->dir);
    snprintf(cmd, sizeof cmd,
             "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 "
             "-nodes -days 2 -subj /CN=localhost -addext "
             "subjectAltName=IP:127.0.0.1,DNS:localhost -keyout %s/api.key "
             "-out %s 2>/dev/null",
             p->dir, p->api_cert);
    run(cmd);
    snprintf(dns, sizeof dns, "127.0.0.1:%d", p->dns_port);
    snprintf(mgmt, sizeof mgmt, "127.0.0.1:%d", p->cts_port);
    snprintf(cmd, sizeof cmd, "%s/challtestsrv.log", p->dir);
    const char *argv[] = {"pebble-challtestsrv",
                          "-defaultIPv4",
                          "127.0.0.1",
                          "-defaultIPv6",
                          "",
                          "-dns01",
                          dns,
                          "-http01",
                          "",
                          "-https01",
                          "",
                          "-tlsalpn01",
                          "",
                          "-management",
                          mgmt,
                          NULL};
    p->cts = spawn(argv, NULL, cmd);
    wait_port(p->cts_port, p->cts, "pebble-challtestsrv");
}

static size_t to_file(char *data, size_t size, size_t n, void *arg)
{
    return fwrite(data, size, n, arg) * size;
}

static void fetch_root(struct pebble *p)
{
    char url[128];
    CURL *c = curl_easy_init();
    FILE *f;
    long status = 0;
    CURLcode rc;

    snprintf(p->root, sizeof p->root, "%s/root-%d.pem", p->dir, p->starts);
    f = fopen(p->root, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(c);
    snprintf(url, sizeof url, "https://127.0.0.1:%d/roots/0", p->mgmt_port);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CAINFO, p->api_cert);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, to_file);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, f);
    rc = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(c);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_msg(rc == CURLE_OK && status == 200, "roots/0: %s, HTTP %ld",
                  curl_easy_strerror(rc), status);
}

void pebble_start(struct pebble *p, const char *const *env)
{
    char conf[256], log[256], dns[32];
    const char *base[] = {"PEBBLE_VA_NOSLEEP=1", NULL};
    const char *all[16];
    size_t n = 0;
    FILE *f;

    snprintf(conf, sizeof conf, "%s/pebble.json", p->dir);
    f = fopen(conf, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f,
            "{\"pebble\": {\"listenAddress\": \"127.0.0.1:%d\",\n"
            " \"managementListenAddress\": \"127.0.0.1:%d\",\n"
            " \"certificate\": \"%s\", \"privateKey\": \"%s/api.key\",\n"
            " \"httpPort\": %d, \"tlsPort\": %d,\n"
            " \"ocspResponderURL\": \"\",\n"
            " \"externalAccountBindingRequired\": false}}\n",
            p->api_port, p->mgmt_port, p->api_cert, p->dir, p->http_port,
            p->tls_port);
    ck_assert_int_eq(fclose(f), 0);
    for (size_t i = 0; base[i]; i++)
        all[n++] = base[i];
    for (size_t i = 0; env && env[i] && n + 1 < 16; i++)
        all[n++] = env[i];
    all[n] = NULL;
    p->starts++;
    snprintf(log, sizeof log, "%s/pebble-%d.log", p->dir, p->starts);
    snprintf(dns, sizeof dns, "127.0.0.1:%d", p->dns_port);
    const char *argv[] = {"pebble", "-config", conf, "-dnsserver", dns, NULL};
    p->pebble = spawn(argv, all, log);
    wait_port(p->api_port, p->pebble, "pebble");
    wait_port(p->mgmt_port, p->pebble, "pebble");
    fetch_root(p);
}

void pebble_stop(struct pebble *p)
{
    stop_pid(&p->pebble);
}

void pebble_teardown(struct pebble *p)
{
    for (int i = 0; i < p->n_agents; i++)
        stop_pid(&p->agents[i]);
    stop_pid(&p->pebble);
    stop_pid(&p->cts);
}

/* Start @argv as @a, its output in DIR/@tag.out, stopped at teardown. */
static void agent_spawn(struct pebble *p, struct agent_proc *a, const char *tag,
                        const char *const argv[])
{
    snprintf(a->out, sizeof a->out, "%s/%s.out", p->dir, tag);
    unlink(a->out);
    a->pid = spawn(argv, NULL, a->out);
    ck_assert_int_lt(p->n_agents, 8);
    p->agents[p->n_agents++] = a->pid;
}

void agent_start(struct pebble *p, struct agent_proc *a, const char *tag,
                 const char *const *args)
{
    char http[16], tls[16];
    const char *bin = getenv("ACME_AGENT_BIN");
    const char *argv[40] = {bin ? bin : "acme_agent",
                            "--ca",
                            p->directory,
                            "--ca-root",
                            p->api_cert,
                            "--dir",
                            p->acme_dir,
                            "--http-port",
                            http,
                            "--tls-port",
                            tls};
    size_t n = 11;

    snprintf(http, sizeof http, "%d", p->http_port);
    snprintf(tls, sizeof tls, "%d", p->tls_port);
    for (size_t i = 0; args && args[i] && n + 1 < 40; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    agent_spawn(p, a, tag, argv);
}

void beneath_start(struct pebble *p, struct agent_proc *a, const char *tag,
                   const char *const *args)
{
    char http[48], https[56], www[160];
    const char *bin = getenv("BENEATH_BIN");
    const char *argv[40] = {bin ? bin : "beneath",
                            "--listen",
                            http,
                            "--listen",
                            https,
                            "--acme-ca",
                            p->directory,
                            "--acme-ca-root",
                            p->api_cert,
                            "--acme-dir",
                            p->acme_dir,
                            "--threads",
                            "2"};
    size_t n = 13;

    snprintf(http, sizeof http, "127.0.0.1:%d", p->http_port);
    snprintf(https, sizeof https, "https://127.0.0.1:%d", p->tls_port);
    snprintf(www, sizeof www, "%s/www", p->dir);
    mkdir(www, 0755);
    for (size_t i = 0; args && args[i] && n + 2 < 40; i++)
        argv[n++] = args[i];
    argv[n++] = www;
    argv[n] = NULL;
    agent_spawn(p, a, tag, argv);
}

const char *agent_output(const struct agent_proc *a)
{
    static char buf[16384];
    FILE *f = fopen(a->out, "r");
    size_t n = 0;

    buf[0] = '\0';
    if (f) {
        n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
    return buf;
}

int agent_count(const struct agent_proc *a, const char *needle)
{
    FILE *f = fopen(a->out, "r");
    char line[2048];
    int n = 0;

    while (f && fgets(line, sizeof line, f)) {
        if (strstr(line, needle))
            n++;
    }
    if (f)
        fclose(f);
    return n;
}

bool agent_wait(const struct agent_proc *a, const char *needle, int seconds)
{
    for (int i = 0; i < seconds * 10; i++) {
        if (agent_count(a, needle) > 0)
            return true;
        sleep_ms(100);
    }
    return false;
}

int agent_stop(struct agent_proc *a)
{
    int st;

    if (a->pid <= 0)
        return -1;
    kill(a->pid, SIGTERM);
    for (int i = 0; i < 200; i++) {
        if (waitpid(a->pid, &st, WNOHANG) == a->pid) {
            a->pid = 0;
            if (WIFEXITED(st))
                return WEXITSTATUS(st);
            fprintf(stderr, "agent_stop: killed by signal %d\n%s\n",
                    WTERMSIG(st), agent_output(a));
            return -1;
        }
        sleep_ms(50);
    }
    fprintf(stderr, "agent_stop: still running 10 s after SIGTERM\n%s\n",
            agent_output(a));
    kill(a->pid, SIGKILL);
    waitpid(a->pid, NULL, 0);
    a->pid = 0;
    return -1;
}

bool tls_verifies(const struct pebble *p, const char *root, const char *name)
{
    char cmd[1024];

    snprintf(cmd, sizeof cmd,
             "timeout 10 openssl s_client -connect 127.0.0.1:%d "
             "-servername %s -verify_hostname %s -CAfile %s "
             "-verify_return_error </dev/null >%s/s_client.out 2>&1",
             p->tls_port, name, name, root, p->dir);
    return system(cmd) == 0;
}

int pebble_installed(int argc, char **argv)
{
    const char *name = argc > 0 ? strrchr(argv[0], '/') : NULL;

    if (system("command -v pebble >/dev/null && "
               "command -v pebble-challtestsrv >/dev/null") == 0)
        return 0;
    fprintf(stderr, "%s: pebble is not installed; skipped\n",
            name       ? name + 1
            : argc > 0 ? argv[0]
                       : "acme");
    return CHECK_SKIP;
}
