/* SPDX-License-Identifier: MIT */
/*
 * gen_conf.h - what one serving generation gives every connection, HTTP/1.1
 * and HTTP/2 alike: the reply policy respond() reads and the access log.
 */
#ifndef BENEATH_TRANSPORT_CONN_GEN_CONF_H
#define BENEATH_TRANSPORT_CONN_GEN_CONF_H

#include "observe/log.h"
#include "respond/respond.h"

/*
 * What a request reads of the configuration, swapped as a whole on SIGHUP
 * (a struct live of these): a request uses one generation from its first
 * handler call to its log line. A queued response copies what it takes from
 * the generation (headers, bodies), so one still being sent after its
 * thread moved on never reads a released generation.
 */
struct gen_conf {
    struct respond_conf respond;
    struct log *log; /* the access log */
};

#endif
