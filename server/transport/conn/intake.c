// SPDX-License-Identifier: MIT
/*
 * intake.c - a request head into a struct request, for both protocols
 * (intake.h).
 */
#include "transport/conn/intake.h"

#include "http/method.h"
#include "http/status.h"

#include <netinet/in.h>
#include <strings.h>

static socklen_t family_len(const struct sockaddr *sa)
{
    if (!sa)
        return 0;
    if (sa->sa_family == AF_INET6)
        return sizeof(struct sockaddr_in6);
    if (sa->sa_family == AF_INET)
        return sizeof(struct sockaddr_in);
    return sizeof(struct sockaddr);
}

void intake_start(struct request *rq, const struct intake *in)
{
    rq->method = http_method_of(in->method ? in->method : "");
    rq->method_name = in->method;
    rq->target = in->target;
    rq->version = in->version;
    rq->version_name = in->version_name;
    rq->peer = in->peer;
    rq->peer_len = in->peer_len ? in->peer_len : family_len(in->peer);
    rq->peer_text = in->peer_text;
    rq->tls = in->tls;
    rq->tls_version = in->tls_version;
}

unsigned intake_host(struct request *rq, const char *authority)
{
    const char *host = rq->field[RF_HOST];

    if (rq->count[RF_HOST] > 1)
        return STATUS_BAD_REQUEST;
    if (authority) {
        if (host && strcasecmp(authority, host) != 0)
            return STATUS_BAD_REQUEST;
        rq->field[RF_HOST] = authority;
        rq->count[RF_HOST] = 1;
    }
    if (!rq->field[RF_HOST] && rq->version != HTTP_VERSION_1_0)
        return STATUS_BAD_REQUEST;
    return 0;
}
