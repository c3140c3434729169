// SPDX-License-Identifier: MIT
/*
 * fuzz_request.c - whole requests: raw bytes sent over loopback to a
 * libmicrohttpd daemon running in this process with beneath's glue
 * (daemon.c, h1.c, wire.c, respond.c, files/, http/), then the client's FIN.
 * Checks, besides the sanitizers: whatever comes back starts with a status
 * line, and nothing is answered after a head the framing scanner refuses
 * (a refused head ends the connection: no body becomes a request).
 */
#include "files/etag_cache.h"
#include "fuzz.h"
#include "http/framing.h"
#include "observe/log.h"
#include "runtime/live.h"
#include "runtime/root.h"
#include "transport/conn/gen_conf.h"
#include "transport/daemon.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);

static unsigned short port;

/* The one generation is static: nothing to free. */
static void keep(void *gen)
{
    (void)gen;
}

static void put(const char *dir, const char *name, size_t len, char c)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    if (!f)
        abort();
    for (size_t i = 0; i < len; i++)
        fputc(c, f);
    fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    static char dir[] = "/tmp/beneath-fuzz-XXXXXX";
    static char *index[] = {"index.html"};
    static struct daemon_conf dc;
    static struct gen_conf gen;
    static struct live *gens;
    static struct root *root;
    static struct log *log;
    static struct etag_cache *etags;
    static struct daemon *d;
    struct etag_cache_config ec = {.mode = ETAG_MODE_CONTENT};
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t sl = sizeof sa;
    char sub[600];
    bool tls = false;

    (void)argc;
    (void)argv;
    if (!mkdtemp(dir))
        abort();
    put(dir, "index.html", 6, 'h');
    put(dir, "a.txt", 100, 'a');
    put(dir, "big.bin", 300 * 1024, 'b');
    snprintf(sub, sizeof sub, "%s/d", dir);
    mkdir(sub, 0755);
    put(sub, "index.html", 3, 'i');
    if (root_open(dir, 0, &root) || log_open("off", "combined", &log) ||
        etag_cache_new(&etags, &ec))
        abort();
    gen = (struct gen_conf){
        .respond = {.files = {.confine = 0x08 | 0x02,
                              .index = index,
                              .n_index = 1},
                    .etags = etags},
        .log = log,
    };
    dc = (struct daemon_conf){
        .threads = 1,
        .max_connections = 64,
        .timeout = 2,
        .header_timeout = 1,
        .max_header_size = 8192,
    };
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) ||
        listen(fd, 64) || getsockname(fd, (struct sockaddr *)&sa, &sl))
        abort();
    port = ntohs(sa.sin_port);
    /* one generation for the whole run: never released */
    if (live_new(&gen, keep, &gens) ||
        daemon_new(&dc, gens, root, &fd, &tls, 1, &d))
        abort();
    daemon_started();
    return 0; /* the daemon lives as long as the process */
}

static long long ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Status lines at the start of a line ("HTTP/1.x NNN "). */
static unsigned statuses(const char *b, size_t n)
{
    unsigned k = 0;

    for (size_t i = 0; i + 9 <= n; i++)
        if ((i == 0 || b[i - 1] == '\n') && memcmp(b + i, "HTTP/1.", 7) == 0)
            k++;
    return k;
}

/*
 * A connection to the server. libFuzzer's -timeout alarm (SIGALRM every
 * second) interrupts a connect now and then (EINTR: a run aborted there
 * after 400,000 connections), and hundreds of thousands of runs can use up
 * the loopback's ephemeral ports (EADDRNOTAVAIL): try again rather than
 * report the harness's own limits as a finding.
 */
static int connect_server(void)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int tries = 0; tries < 600; tries++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            break;
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
            return fd;
        int err = errno;
        close(fd);
        if (err != EINTR && err != EADDRNOTAVAIL) {
            fprintf(stderr, "fuzz_request: connect: %s\n", strerror(err));
            abort();
        }
        if (err == EADDRNOTAVAIL)
            usleep(100 * 1000);
    }
    fprintf(stderr, "fuzz_request: no connection to the server\n");
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char got[1 << 20];
    size_t n = 0;
    int fd = connect_server();

    if (size > 65536)
        size = 65536;
    if (size)
        (void)!send(fd, data, size, MSG_NOSIGNAL);
    shutdown(fd, SHUT_WR);
    long long end = ms() + 3000;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        long long left = end - ms();
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            break;
        ssize_t r = recv(fd, got + n, sizeof got - n, 0);
        if (r <= 0)
            break;
        n += (size_t)r;
        if (n == sizeof got)
            break;
    }
    close(fd);
    if (n && memcmp(got, "HTTP/1.", n < 7 ? n : 7) != 0)
        abort();
    struct framing_scan s;
    framing_scan_init(&s);
    if (framing_scan_feed(&s, data, size) &&
        statuses(got, n) > s.bad_head + 1) {
        /* an answer to something after a refused head */
        fprintf(stderr,
                "fuzz_request: %u answers, refused head %u (%s):\n%.*s\n",
                statuses(got, n), s.bad_head, framing_why_text(s.why),
                (int)(n < 2000 ? n : 2000), got);
        abort();
    }
    return 0;
}
