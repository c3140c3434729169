// SPDX-License-Identifier: MIT
/*
 * test_wire_ops.c - operator mistakes and faulty transfers against the real
 * binary: a stalled access-log reader, a live unix socket path taken twice,
 * a configuration file that is not a file, an fd limit too small for
 * --max-connections, a file truncated while it is sent, and clients that
 * try to write to stderr.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *www;

static void test_setup(void)
{
    harness_test_setup();
    www = tree_site("hello\n");
}

/*
 * The access log is a FIFO whose reader never reads: every request is
 * still answered, and SIGTERM still ends the server within
 * --shutdown-timeout; stderr says lines were dropped.
 */
START_TEST(stalled_log_reader)
{
    char *fifo = tree_path(www, "../log.fifo");

    EXPECT(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
    int reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    EXPECT(reader >= 0, "open fifo");
    struct server *s = server_start(www, "--access-log", fifo,
                                    "--shutdown-timeout", "3", NULL);
    for (int i = 0; i < 1500; i++)
        expect_get(s, "/index.html", 200, hfmt("request %d", i));
    long long t0 = now_ms();
    server_signal(s, SIGTERM);
    EXPECT(server_wait(s, 6000), "SIGTERM: still running after 6 s");
    EXPECT(WIFEXITED(s->wstatus) && WEXITSTATUS(s->wstatus) == 0, "exit: %s",
           wstatus_str(s->wstatus));
    EXPECT(strstr(server_stderr(s), "Sanitizer") == NULL, "sanitizer report");
    EXPECT(now_ms() - t0 < 4000, "stop took %lld ms", now_ms() - t0);
    EXPECT(strstr(server_stderr(s), "lines dropped") != NULL,
           "no word about dropped lines:\n%s", server_stderr(s));
    close(reader);
}
END_TEST

static int unix_connect(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/*
 * A second instance on the same unix: path is refused while the first one
 * accepts; a socket that replaced ours is not removed when we stop.
 */
START_TEST(unix_socket_taken)
{
    char *dir = tree_new();
    char *sock = tree_path(dir, "s.sock");
    char *err = NULL;
    struct server *a =
        server_start(www, "--listen", hfmt("unix:%s", sock), NULL);
    const char *args[] = {
        "--listen", hfmt("unix:%s", sock), "--access-log", "off", www, NULL};

    int ws = beneath_run(args, NULL, 10000, NULL, &err);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 2,
           "second instance: %s, want exit 2; stderr:\n%s", wstatus_str(ws),
           err);
    EXPECT(strstr(err, "another process is listening") != NULL, "stderr:\n%s",
           err);
    int fd = unix_connect(sock);
    EXPECT(fd >= 0, "the first instance lost its socket");
    close(fd);

    /* The path is replaced by someone else's socket: not ours to remove. */
    EXPECT(unlink(sock) == 0, "unlink");
    tree_socket(dir, "s.sock");
    struct stat before, after;
    EXPECT(lstat(sock, &before) == 0, "lstat");
    server_stop_clean(a);
    EXPECT(lstat(sock, &after) == 0 && after.st_ino == before.st_ino,
           "stopping removed a socket that was not its own");

    /* A stale socket (nobody accepts) is replaced, and removed at exit. */
    struct server *b =
        server_start(www, "--listen", hfmt("unix:%s", sock), NULL);
    fd = unix_connect(sock);
    EXPECT(fd >= 0, "the stale socket was not replaced");
    close(fd);
    server_stop_clean(b);
    EXPECT(lstat(sock, &after) != 0, "its own socket left behind at exit");
}
END_TEST

/* --config of a FIFO, a device or a directory: refused at once, exit 2. */
START_TEST(config_not_a_file)
{
    char *dir = tree_new();
    char *fifo = tree_path(dir, "c.fifo");
    const char *paths[] = {fifo, "/dev/zero", "/dev/urandom"};

    EXPECT(mkfifo(fifo, 0600) == 0, "mkfifo");
    for (size_t i = 0; i < N_ELEMS(paths); i++) {
        const char *args[] = {"--config", paths[i], "--check", NULL};
        char *err = NULL;
        long long t0 = now_ms();
        int ws = beneath_run(args, NULL, 5000, NULL, &err);
        EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 2, "%s: %s; stderr:\n%s",
               paths[i], wstatus_str(ws), err);
        EXPECT(now_ms() - t0 < 3000, "%s: took %lld ms", paths[i],
               now_ms() - t0);
        EXPECT(strstr(err, "not a regular file") != NULL, "%s: stderr:\n%s",
               paths[i], err);
    }
    /* a regular file over 1 MiB */
    size_t big = (1u << 20) + 1;
    char *text = hbuf(big);
    memset(text, '#', big);
    tree_write(dir, "big.conf", text, big);
    const char *args[] = {"--config", tree_path(dir, "big.conf"), "--check",
                          NULL};
    char *err = NULL;
    int ws = beneath_run(args, NULL, 5000, NULL, &err);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 2, "big: %s", wstatus_str(ws));
    EXPECT(strstr(err, "larger than") != NULL, "big: stderr:\n%s", err);
}
END_TEST

/* RLIMIT_NOFILE 300 cannot hold 1024 connections: lowered, and said. */
START_TEST(fd_limit_lowers_connections)
{
    struct server_opts o = {
        .root = www,
        .nofile = 300,
        .args = (const char *[]){"--max-connections", "1024", NULL},
    };
    struct server *s = server_start_opts(&o);
    char *e = server_stderr(s);
    /* (300 - 64) / 2 */
    EXPECT(strstr(e, "--max-connections lowered from 1024 to 118") != NULL,
           "no warning:\n%s", e);
    expect_get(s, "/index.html", 200, NULL);
    server_stop_clean(s);
}
END_TEST

/*
 * A large file truncated while it is being sent (sendfile): the client's
 * connection ends at once, not after --timeout, and stderr names the path.
 */
START_TEST(truncated_while_sent)
{
    size_t size = 64u << 20;
    tree_write(www, "huge.bin", hfill(size, 't'), size);
    struct server *s = server_start(www, "--timeout", "30", NULL);
    struct raw_conn *c = raw_connect(s->port);
    int small = 65536;

    EXPECT(c != NULL, "connect");
    setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    EXPECT(raw_send_str(c, "GET /huge.bin HTTP/1.1\r\nHost: x\r\n\r\n") == 0,
           "send");
    usleep(300000); /* the sender is blocked on our full window */
    EXPECT(truncate(tree_path(www, "huge.bin"), 1 << 20) == 0, "truncate");
    long long t0 = now_ms();
    EXPECT(raw_wait_closed(c, 10000), "not closed within 10 s");
    EXPECT(now_ms() - t0 < 5000, "closed after %lld ms", now_ms() - t0);
    EXPECT(file_wait_for(s->err_path, "huge.bin: the file ended before", 3000),
           "the short send is not logged:\n%s", server_stderr(s));
    raw_close(c);
    /* not server_stop_clean: that line on stderr is this test's point */
    int ws = server_stop(s, 20000);
    EXPECT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "exit: %s", wstatus_str(ws));
    EXPECT(strstr(server_stderr(s), "Sanitizer") == NULL, "sanitizer report");
}
END_TEST

/* Requests that overflow libmicrohttpd's pool write nothing to stderr. */
START_TEST(clients_cannot_write_stderr)
{
    struct server *s = server_start(www, NULL);
    char *req = hbuf(16384);
    size_t n = (size_t)snprintf(req, 16384, "GET / HTTP/1.1\r\nHost: x\r\n");

    while (n < 7000)
        n += (size_t)snprintf(req + n, 16384 - n, "X-%zu: y\r\n", n);
    snprintf(req + n, 16384 - n, "\r\n");
    for (int i = 0; i < 50; i++) {
        struct http_response *r = raw_request(s->port, req, 3000);
        EXPECT(r->status == 431 || r->status == 200, "status %d", r->status);
    }
    const char *many = "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n"
                       "A : b\r\n\r\n";
    for (int i = 0; i < 20; i++)
        raw_request(s->port, many, 3000);
    EXPECT(server_stderr_since_startup(s)[0] == '\0', "stderr:\n%s",
           server_stderr_since_startup(s));
    server_stop_clean(s);
}
END_TEST

const struct check_main check_main = {
    .suite = "e2e_wire_ops",
    .fixture = HARNESS_FIXTURE(120),
    .tcases = {
        {"ops", .setup = test_setup,
         .tests = {&stalled_log_reader, &unix_socket_taken, &config_not_a_file,
                   &fd_limit_lowers_connections, &truncated_while_sent,
                   &clients_cannot_write_stderr}}}};
