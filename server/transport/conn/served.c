// SPDX-License-Identifier: MIT
/*
 * served.c - an answered request's access log line and metrics, the same
 * for every transport (served.h).
 */
#include "transport/conn/served.h"

#include "common/mono.h"
#include "observe/log.h"
#include "observe/metrics.h"

#include <stdio.h>
#include <time.h>

void served_short_file(const char *target, const char *then)
{
    fprintf(stderr,
            "beneath: %s: the file ended before its size while being sent "
            "(truncated meanwhile?); %s\n",
            target ? target : "-", then);
}

void served_log(const struct gen_conf *g, const struct served *s)
{
    const struct request *rq = s->rq;
    const struct respond_result *res = s->res;
    struct timespec now = {0};
    uint64_t ns = 0;

    if (!log_active(g->log) && !g->respond.metrics)
        return;
    clock_gettime(CLOCK_REALTIME, &now);
    if (s->start_ns) {
        uint64_t end = mono_ns();
        ns = end > s->start_ns ? end - s->start_ns : 0;
    }
    /* no request line read: the version is not known (counted as 1.1) */
    enum http_version v = rq->version_name ? rq->version : HTTP_VERSION_1_1;
    struct log_record r = {
        .client = res->client[0] ? res->client : s->client,
        .user = res->user[0] ? res->user : NULL,
        .time = now.tv_sec,
        .msec = (unsigned)(now.tv_nsec / 1000000),
        .duration_us = ns / 1000,
        .host = rq->field[RF_HOST],
        .vhost = res->site[0] ? res->site : res->vhost,
        .tls = s->tls,
        .encoding = res->encoding,
        .method = rq->method_name,
        .target = s->target,
        .version = rq->version_name,
        .proto = rq->version_name ? request_proto_name(rq->version) : NULL,
        .status = s->status,
        .bytes = s->bytes,
        .aborted = s->aborted,
        .referer = rq->field[RF_REFERER],
        .agent = rq->field[RF_USER_AGENT],
        .backend = res->backend == RESOLVER_BACKEND_DEFAULT
                       ? NULL
                       : resolver_backend_name(res->backend),
        .err = res->err,
        .symlink = res->symlink[0] ? res->symlink : NULL,
    };

    log_write(g->log, &r);
    if (g->respond.metrics)
        metrics_count_request(g->respond.metrics, v, r.status, r.bytes,
                              res->backend, ns, r.encoding, res->err);
}
