// SPDX-License-Identifier: MIT
/*
 * test_respond.c - respond() without a socket: hand-built struct requests
 * against a real fixture tree and a configuration loaded as the server
 * loads it (conf_load, root_open, access_open, respond_policy), and the
 * struct reply it gives: status, fields, body source and bytes. Also the
 * access decisions asked of a request (site, client behind a trusted
 * proxy) and the reply cache's key: what makes a reply come from it, and
 * what never does.
 *
 * respond() runs on a thread of its own per request, as a worker does, so
 * that the root's per-thread references are given back before the root is
 * closed.
 */
#include "access/access.h"
#include "challenge/acme_challenges.h"
#include "check_main.h"
#include "conf_fixture.h"
#include "fixture.h"
#include "http/arena.h"
#include "http/request.h"
#include "http/status.h"
#include "respond/reply_cache.h"
#include "respond/respond.h"
#include "respond_fixture.h"
#include "runtime/root.h"

#include <arpa/inet.h>
#include <check.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

struct call {
    const struct env *e;
    const struct req_spec *s;
    struct reply out;
    char body[256];  /* the first bytes of the body (bytes or fd) */
    size_t body_len; /* how many of them */
};

static void fill(struct request *rq, struct arena *a, struct sockaddr_in *sin,
                 const struct req_spec *s)
{
    memset(rq, 0, sizeof *rq);
    rq->method_name = s->method;
    rq->method = http_method_of(s->method);
    rq->target = s->target;
    rq->version = HTTP_VERSION_1_1;
    rq->version_name = "HTTP/1.1";
    rq->tls = s->tls;
    *sin = (struct sockaddr_in){.sin_family = AF_INET};
    inet_pton(AF_INET, s->peer ? s->peer : "127.0.0.1", &sin->sin_addr);
    rq->peer = (const struct sockaddr *)sin;
    rq->peer_len = sizeof *sin;
    rq->peer_text = s->peer ? s->peer : "127.0.0.1";
    for (size_t i = 0; i < N_ELEMS(s->fields) && s->fields[i]; i++) {
        const char *colon = strchr(s->fields[i], ':');
        const char *v = colon + 1;

        while (*v == ' ')
            v++;
        ck_assert_int_eq(request_add_field(rq, a, s->fields[i],
                                           (size_t)(colon - s->fields[i]), v,
                                           strlen(v), true),
                         0);
    }
}

static void *run(void *arg)
{
    struct call *k = arg;
    struct request rq;
    struct arena a = {0};
    struct sockaddr_in sin;
    struct reply *r = &k->out;

    fill(&rq, &a, &sin, k->s);
    respond(&rq, &k->e->rc, r);
    /* what a transport would send of the body */
    size_t want =
        r->length < sizeof k->body ? (size_t)r->length : sizeof k->body;
    if (r->body == REPLY_BODY_BYTES) {
        memcpy(k->body, r->data, want);
        k->body_len = want;
    } else if (r->body == REPLY_BODY_FD) {
        ssize_t got = pread(r->fd, k->body, want, (off_t)r->offset);
        k->body_len = got > 0 ? (size_t)got : 0;
    }
    arena_free(&a);
    return NULL;
}

/* respond() to @s on a worker thread of its own; release k->out after. */
static void call(struct call *k, const struct env *e, const struct req_spec *s)
{
    pthread_t t;

    memset(k, 0, sizeof *k);
    k->e = e;
    k->s = s;
    ck_assert_int_eq(pthread_create(&t, NULL, run, k), 0);
    pthread_join(t, NULL);
}

/* The reply's field "Name: value" holds, or "Name" is present. */
static bool has(const struct reply *r, const char *want)
{
    const char *colon = strchr(want, ':');
    size_t n = colon ? (size_t)(colon - want) : strlen(want);

    for (size_t i = 0; i < r->n_fields; i++)
        if (strlen(r->field[i].name) == n &&
            strncasecmp(r->field[i].name, want, n) == 0 &&
            (!colon || strcmp(r->field[i].value, colon + 2) == 0))
            return true;
    return false;
}

LOOP_TEST(respond_case, respond_cases)
{
    const struct respond_case *t = &respond_cases[_i];
    struct env e;
    struct call k;

    env_open(&e, t->args);
    call(&k, &e, &t->rq);
    ck_assert_msg(k.out.status == t->status, "%s: status %u, want %u", t->what,
                  k.out.status, t->status);
    ck_assert_msg(k.out.res.status == t->status, "%s: logged %u", t->what,
                  k.out.res.status);
    ck_assert_msg(k.out.head == t->head, "%s: head %d", t->what, k.out.head);
    if (t->head)
        ck_assert_msg(k.out.res.bytes == 0 && k.out.body == REPLY_BODY_NONE,
                      "%s: a body goes out", t->what);
    if (t->body) {
        ck_assert_msg(
            k.out.length == strlen(t->body) && k.body_len == strlen(t->body) &&
                memcmp(k.body, t->body, k.body_len) == 0,
            "%s: body '%.*s' (length %llu), want '%s'", t->what,
            (int)k.body_len, k.body, (unsigned long long)k.out.length, t->body);
        ck_assert_msg(k.out.res.bytes == strlen(t->body), "%s: bytes %llu",
                      t->what, (unsigned long long)k.out.res.bytes);
    }
    for (size_t i = 0; i < N_ELEMS(t->field) && t->field[i]; i++)
        ck_assert_msg(has(&k.out, t->field[i]), "%s: no %s", t->what,
                      t->field[i]);
    for (size_t i = 0; i < N_ELEMS(t->no_field) && t->no_field[i]; i++)
        ck_assert_msg(!has(&k.out, t->no_field[i]), "%s: has %s", t->what,
                      t->no_field[i]);
    reply_release(&k.out);
    env_close(&e);
}
END_TEST

/* Several ranges: the multipart plan owns the fd and says its length. */
START_TEST(multipart_plan)
{
    struct env e;
    struct call k;
    struct req_spec s = {.method = "GET",
                         .target = "/big.txt",
                         .fields = {"Range: bytes=0-1,15-16"}};

    env_open(&e, NULL);
    call(&k, &e, &s);
    ck_assert_int_eq(k.out.body, REPLY_BODY_MULTIPART);
    ck_assert_ptr_nonnull(k.out.mp);
    ck_assert_int_ge(k.out.fd, 0);
    ck_assert_uint_eq(k.out.length, k.out.mp->total);
    ck_assert_uint_eq(k.out.mp->set.n, 2);
    /* the boundary whole: the field's value outlives the code that made it */
    const char *ct = reply_get(&k.out, "Content-Type");
    const char *b = "multipart/byteranges; boundary=";
    ck_assert_msg(strncmp(ct, b, strlen(b)) == 0 &&
                      strspn(ct + strlen(b), "0123456789abcdef") ==
                          MULTIPART_BOUNDARY_LEN &&
                      ct[strlen(b) + MULTIPART_BOUNDARY_LEN] == '\0',
                  "Content-Type: %s", ct);
    reply_release(&k.out);
    ck_assert_int_eq(k.out.fd, -1);
    env_close(&e);
}
END_TEST

/* ---- the access decisions asked of a request --------------------------- */

struct site_case {
    const char *args[4];
    const char *target;
    const char *host;
    unsigned status; /* of access_site */
    const char *vhost;
};

static const struct site_case sites[] = {
    {{NULL}, "/", "x.example", 0, NULL},
    {{"--vhost", "a.example=@/docs"}, "/", "a.example", 0, "a.example"},
    {{"--vhost", "a.example=@/docs"}, "/", "A.EXAMPLE.", 0, "a.example"},
    {{"--vhost", "a.example=@/docs"},
     "http://a.example/",
     "b.example",
     0,
     "a.example"},
    {{"--vhost", "a.example=@/docs"}, "/", "b.example", 0, NULL},
    {{"--vhost", "a.example=@/docs"}, "/", "a b", 400, NULL},
};

LOOP_TEST(site_case, sites)
{
    const struct site_case *t = &sites[_i];
    struct request rq = {.method = HTTP_GET, .target = t->target};
    struct access_site site;
    struct env e;

    env_open(&e, t->args);
    rq.field[RF_HOST] = t->host;
    rq.count[RF_HOST] = 1;
    ck_assert_uint_eq(access_site(e.access, e.root, &rq, &site), t->status);
    if (!t->status) {
        ck_assert_int_ge(site.root_fd, 0);
        if (t->vhost)
            ck_assert_str_eq(site.vhost, t->vhost);
        else
            ck_assert_ptr_null(site.vhost);
    }
    env_close(&e);
}
END_TEST

struct client_case {
    const char *peer;
    const char *forwarded, *xff;
    unsigned status;    /* of access_client */
    const char *client; /* the client it names, "" for the peer */
};

/* --trusted-proxy 127.0.0.1 --trusted-proxy 127.0.0.3=forwarded
 * --deny 10.9.0.0/16 */
static const struct client_case clients[] = {
    {"127.0.0.1", NULL, "10.1.1.1", 0, "10.1.1.1"},
    {"127.0.0.1", NULL, "10.9.1.1", 403, "10.9.1.1"},
    /* a proxy is read only from the header it writes, never the other */
    {"127.0.0.1", "for=10.1.2.3", NULL, 0, ""},
    {"127.0.0.1", "for=10.1.2.3", "10.9.1.1", 403, "10.9.1.1"},
    {"127.0.0.3", "for=10.1.2.3", "10.9.1.1", 0, "10.1.2.3"},
    {"127.0.0.3", NULL, "10.1.1.1", 0, ""},
    /* not a trusted proxy: its headers are the client's own words */
    {"127.0.0.2", NULL, "10.9.1.1", 0, ""},
    {"127.0.0.1", NULL, NULL, 0, ""},
};

LOOP_TEST(client_case, clients)
{
    const struct client_case *t = &clients[_i];
    const char *args[] = {"--trusted-proxy",
                          "127.0.0.1",
                          "--trusted-proxy",
                          "127.0.0.3=forwarded",
                          "--deny",
                          "10.9.0.0/16",
                          NULL};
    struct sockaddr_in sin = {.sin_family = AF_INET};
    struct request rq = {.method = HTTP_GET, .target = "/"};
    char client[48] = "";
    struct env e;

    env_open(&e, args);
    inet_pton(AF_INET, t->peer, &sin.sin_addr);
    rq.peer = (const struct sockaddr *)&sin;
    rq.peer_len = sizeof sin;
    rq.field[RF_FORWARDED] = t->forwarded;
    rq.field[RF_X_FORWARDED_FOR] = t->xff;
    ck_assert_uint_eq(access_client(e.access, &rq, client, sizeof client),
                      t->status);
    ck_assert_str_eq(client, t->client);
    env_close(&e);
}
END_TEST

/* Every line of a JOIN field is kept; a FIRST field keeps its first. */
START_TEST(request_fields)
{
    struct request rq = {0};
    struct arena a = {0};
    char buf[16];

    ck_assert_int_eq(
        request_add_field(&rq, &a, "x-forwarded-for", 15, "10.0.0.1", 8, true),
        0);
    ck_assert_int_eq(request_add_field(&rq, &a, "X-Forwarded-For", 15,
                                       "10.0.0.2xx", 8, false),
                     0);
    ck_assert_str_eq(rq.field[RF_X_FORWARDED_FOR], "10.0.0.1, 10.0.0.2");
    ck_assert_int_eq(
        request_add_field(&rq, &a, "Range", 5, "bytes=0-1", 9, true), 0);
    ck_assert_int_eq(
        request_add_field(&rq, &a, "RANGE", 5, "bytes=2-3", 9, true), 0);
    ck_assert_str_eq(rq.field[RF_RANGE], "bytes=0-1");
    ck_assert_uint_eq(rq.count[RF_RANGE], 2);
    ck_assert_int_eq(request_add_field(&rq, &a, "X-Other", 7, "v", 1, true), 0);
    ck_assert_int_eq(request_field_of("If-None-Match", 13), RF_IF_NONE_MATCH);
    ck_assert_str_eq(request_query_param("/d/?sort=si%7Ae&order=desc", "sort",
                                         buf, sizeof buf),
                     "size");
    ck_assert_str_eq(
        request_query_param("/?a=1&order=a+b", "order", buf, sizeof buf),
        "a b");
    ck_assert_ptr_null(
        request_query_param("/?sorting=x", "sort", buf, sizeof buf));
    ck_assert_ptr_null(
        request_query_param("/?sort=%zz", "sort", buf, sizeof buf));
    arena_free(&a);
}
END_TEST

/* ---- the reply cache's key --------------------------------------------- */

struct cache_run {
    struct env *e;
    bool hit[6];
};

#define IDX .target = "/index.html"
static const struct req_spec cache_reqs[] = {
    {.method = "GET", IDX},  /* fills (the file has settled) */
    {.method = "GET", IDX},  /* a hit */
    {.method = "HEAD", IDX}, /* a hit, no body */
    /* HSTS is per request: never from the cache */
    {.method = "GET", IDX, .tls = true},
    {.method = "GET", IDX, .fields = {"Want-Repr-Digest: sha-256=1"}},
    /* a 206: never */
    {.method = "GET", IDX, .fields = {"Range: bytes=0-3"}},
};
#undef IDX

static void *cache_thread(void *arg)
{
    struct cache_run *cr = arg;

    /* all on one thread: the cache is the thread's */
    for (size_t i = 0; i < N_ELEMS(cache_reqs); i++) {
        struct call k = {.e = cr->e, .s = &cache_reqs[i]};

        run(&k);
        cr->hit[i] = k.out.res.cache_hit;
        if (i == 2)
            ck_assert(k.out.head && k.out.length == 13);
        else if (i < 2)
            ck_assert(k.body_len == 13 &&
                      memcmp(k.body, "<h1>home</h1>", 13) == 0);
        reply_release(&k.out);
    }
    return NULL;
}

START_TEST(reply_cache_key)
{
    const char *args[] = {"--hsts", "600", NULL};
    struct cache_run cr;
    struct env e;
    pthread_t t;

    env_open(&e, args);
    cr.e = &e;
    /* a file changed less than REPLY_CACHE_SETTLE_S ago is never kept */
    sleep(REPLY_CACHE_SETTLE_S + 1);
    ck_assert_int_eq(pthread_create(&t, NULL, cache_thread, &cr), 0);
    pthread_join(t, NULL);
    ck_assert_msg(!cr.hit[0] && cr.hit[1] && cr.hit[2],
                  "fill %d, hit %d, HEAD hit %d", cr.hit[0], cr.hit[1],
                  cr.hit[2]);
    ck_assert_msg(!cr.hit[3] && !cr.hit[4] && !cr.hit[5],
                  "request-dependent replies from the cache: tls %d, digest "
                  "%d, range %d",
                  cr.hit[3], cr.hit[4], cr.hit[5]);
    env_close(&e);
}
END_TEST

/*
 * ACME HTTP-01: with a challenge store, /.well-known/acme-challenge/TOKEN
 * is answered from it ahead of the Host's site, every access rule and
 * redirect; without one the path is a file like any other.
 */
START_TEST(acme_http01)
{
    static const char *const args[] = {"--auth", "/**=@/users", "--redirects",
                                       "@/rules", NULL};
    struct env e;
    struct call k;
    struct acme_challenges *ch = acme_challenges_new();
    static const struct {
        struct req_spec rq;
        unsigned status;
        const char *body;
    } rows[] = {
        {{.method = "GET",
          .target = "/.well-known/acme-challenge/tok_en-1",
          .fields = {"Host: any.example"}},
         200,
         "tok_en-1.thumb"},
        {{.method = "HEAD", .target = "/.well-known/acme-challenge/tok_en-1"},
         200,
         NULL},
        {{.method = "GET", .target = "/.well-known/acme-challenge/other"},
         404,
         NULL},
        {{.method = "GET", .target = "/.well-known/acme-challenge/"},
         404,
         NULL},
        {{.method = "GET", .target = "/.well-known/acme-challenge/tok_en-1?x"},
         404,
         NULL},
        {{.method = "GET", .target = "/.well-known/acme-challenge/tok%5Fen-1"},
         404,
         NULL},
    };

    ck_assert_ptr_nonnull(ch);
    ck_assert_int_eq(
        acme_challenges_put_http01(ch, "tok_en-1", "tok_en-1.thumb"), 0);
    env_open(&e, args);
    /* without a store: the rules decide (401, Basic auth on everything) */
    call(&k, &e, &rows[0].rq);
    ck_assert_uint_eq(k.out.status, 401);
    reply_release(&k.out);
    e.rc.acme = ch;
    for (size_t i = 0; i < N_ELEMS(rows); i++) {
        call(&k, &e, &rows[i].rq);
        ck_assert_msg(k.out.status == rows[i].status, "%s: status %u, want %u",
                      rows[i].rq.target, k.out.status, rows[i].status);
        if (rows[i].status == 200) {
            ck_assert(has(&k.out, "Content-Type: text/plain"));
            ck_assert(has(&k.out, "Cache-Control: no-store"));
            ck_assert_int_eq(k.out.head, rows[i].rq.method[0] == 'H');
        }
        if (rows[i].body)
            ck_assert_msg(k.body_len == strlen(rows[i].body) &&
                              memcmp(k.body, rows[i].body, k.body_len) == 0,
                          "body '%.*s'", (int)k.body_len, k.body);
        reply_release(&k.out);
    }
    /* another method under the prefix: not the challenge's */
    call(&k, &e,
         &(struct req_spec){.method = "OPTIONS",
                            .target = "/.well-known/acme-challenge/tok"});
    ck_assert_uint_ne(k.out.status, 200);
    reply_release(&k.out);
    env_close(&e);
    acme_challenges_free(ch);
}
END_TEST

const struct check_main check_main = {
    .suite = "respond",
    .tcases = {{"respond", .loops = {LOOP(respond_case)},
                .tests = {&multipart_plan, &acme_http01}},
               {"access", .loops = {LOOP(site_case), LOOP(client_case)},
                .tests = {&request_fields}},
               {"reply_cache", .tests = {&reply_cache_key}, .timeout = 30}}};
