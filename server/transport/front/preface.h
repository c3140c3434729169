/* SPDX-License-Identifier: MIT */
/*
 * preface.h - how the front tells, from a cleartext connection's first
 * bytes, HTTP/2 with prior knowledge (RFC 9113 3.3: the client preface
 * first) from HTTP/1.x. The bytes are only looked at (MSG_PEEK): the
 * protocol that serves the connection reads them itself.
 */
#ifndef BENEATH_TRANSPORT_FRONT_PREFACE_H
#define BENEATH_TRANSPORT_FRONT_PREFACE_H

#include <stddef.h>

/* The client preface every HTTP/2 connection begins with (RFC 9113 3.4). */
#define PREFACE_H2 "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#define PREFACE_H2_LEN 24

enum preface {
    PREFACE_NO,   /* not HTTP/2: HTTP/1.x, or anything else */
    PREFACE_MORE, /* all @n bytes begin the preface: read on */
    PREFACE_YES,  /* the 24 bytes of the preface */
};

/*
 * preface_check - what the first @n bytes a cleartext connection sent
 * say: whether it is HTTP/2 with prior knowledge ("PRI * HTTP/2.0..."),
 * HTTP/1.x, or too few to tell.
 */
enum preface preface_check(const void *buf, size_t n);

#endif
