/* SPDX-License-Identifier: MIT */
/*
 * acme_agent.h - what acme_agent.c (the manager) and agent_serve.c (the two
 * listeners the CA validates) share.
 */
#ifndef BENEATH_TESTS_ACME_ACME_AGENT_H
#define BENEATH_TESTS_ACME_ACME_AGENT_H

#include "acme/acme_challenges.h"

#include <openssl/ssl.h>
#include <pthread.h>
#include <stdbool.h>

#define AGENT_MAX_CERTS 4
#define AGENT_MAX_NAMES 8

/* A certificate the library installed, served for its names. */
struct served {
    X509 *leaf;
    STACK_OF(X509) * chain;
    EVP_PKEY *key;
    char names[AGENT_MAX_NAMES][256];
    size_t n_names;
};

struct agent {
    struct acme_challenges *challenges;
    pthread_mutex_t mu; /* guards served */
    struct served served[AGENT_MAX_CERTS];
    int http_port, tls_port;
    int http_fd, tls_fd;
    int stop_pipe[2];
    long long clock_offset;
    bool sabotage; /* answer challenges wrongly */
};

void served_clear(struct served *s);
/* Bind both ports (SO_REUSEPORT); -1 with errno. */
int agent_listen(struct agent *ag);
/* The listeners' threads; they return when stop_pipe is written. */
void *agent_http(void *arg);
void *agent_tls(void *arg);
void agent_free(struct agent *ag);

#endif
