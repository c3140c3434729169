/* SPDX-License-Identifier: MIT */
/*
 * framing.h - request message framing (RFC 9112 2-6): where a request head
 * ends and whether a body follows, decided strictly so that no two readers
 * (a proxy in front, the server) can see different messages in one stream.
 *
 * Two checks, both libc only:
 * - framing_scan: an incremental scanner of the raw bytes of a connection
 *   (request line and header lines, before any parser lower-cased, unfolded
 *   or cut them): NUL, bare CR, control bytes, obs-fold, whitespace before a
 *   colon, a bad field name or method.
 * - framing_fields: the fields of one head as a parser stored them:
 *   Content-Length and Transfer-Encoding rules, field names.
 * Both answer an HTTP status: 0 (fine), 400, or 501 (a transfer coding the
 * server does not know).
 */
#ifndef BENEATH_HTTP_FRAMING_H
#define BENEATH_HTTP_FRAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a scan or a field check failed, for the log; "" when it did not. */
enum framing_why {
    FRAMING_FINE = 0,
    FRAMING_NUL,            /* a NUL byte in the head */
    FRAMING_BARE_CR,        /* CR not followed by LF */
    FRAMING_CTL,            /* another control byte */
    FRAMING_OBS_FOLD,       /* a line starting with SP/HTAB (RFC 9112 5.2) */
    FRAMING_SPACE_COLON,    /* whitespace between name and colon (5.1) */
    FRAMING_BAD_NAME,       /* a field name that is not a token */
    FRAMING_BAD_METHOD,     /* a method that is not a token */
    FRAMING_BAD_LENGTH,     /* Content-Length not 1*DIGIT, or too large */
    FRAMING_LENGTHS,        /* Content-Length values that differ */
    FRAMING_LENGTH_AND_TE,  /* both Content-Length and Transfer-Encoding */
    FRAMING_TE_HTTP10,      /* Transfer-Encoding in an HTTP/1.0 request */
    FRAMING_TE_NOT_CHUNKED, /* chunked missing, repeated or not final */
    FRAMING_TE_UNKNOWN,     /* a transfer coding not registered: 501 */
};

/* framing_why_text - a few words for @why ("obs-fold"), "" for FINE. */
const char *framing_why_text(enum framing_why why);

/* The scanner's state; zero it (or framing_scan_init) before the stream. */
struct framing_scan {
    uint8_t state;
    uint8_t name_len;      /* bytes of the current field name kept */
    char name[18];         /* the current field name, lower case, if short */
    bool body;             /* the head in progress announces a body */
    uint8_t length_digits; /* digits of the Content-Length value */
    bool in_length;        /* the current field is Content-Length */
    uint8_t poison_line;   /* after a violation: where in the line */
    enum framing_why why;  /* the first violation */
    unsigned heads;        /* request heads completed */
    unsigned bad_head;     /* which head (0-based) the violation is in */
};

/* framing_scan_init - ready @s for a new connection's bytes. */
void framing_scan_init(struct framing_scan *s);

/*
 * framing_scan_feed - scan @n more bytes of the stream. Heads are scanned
 * one after the other; after a head that announces a body (Content-Length
 * other than 0, or any Transfer-Encoding) scanning stops: that request is
 * answered without reading its body and the connection closed, so what
 * follows is never parsed. Scanning also stops at the first violation.
 *
 * Scanning also stops after a violation, once the refused head has ended
 * (its lines are followed to the empty line).
 *
 * Returns 0 while the stream is fine, else the status to answer (400),
 * with @s->why and @s->bad_head telling what and where (the same status is
 * returned again for later calls).
 */
unsigned framing_scan_feed(struct framing_scan *s, const void *p, size_t n);

/*
 * framing_scan_filter - framing_scan_feed, and in @p, from the start of the
 * refused field line (if it began in this buffer, else from the violating
 * byte) to the end of the refused head, every byte but LF (and a CR that
 * starts a line) becomes 'x': a parser that reads the filtered stream sees
 * lines it refuses as malformed, and never the refused field itself. In the
 * request line only control bytes become 'x' (the request still parses).
 * Bytes before and after are left as they are.
 */
unsigned framing_scan_filter(struct framing_scan *s, void *p, size_t n);

/* framing_scan_poisoned - a violation was seen and its head goes on. */
bool framing_scan_poisoned(const struct framing_scan *s);

/*
 * framing_scan_mid_head - whether bytes of a head arrived and the head is
 * not complete (the stream ending now leaves a request that can never be
 * answered). False once scanning stopped.
 */
bool framing_scan_mid_head(const struct framing_scan *s);

/*
 * framing_scan_stopped - whether scanning stopped (a body follows, or a
 * refused head ended): the connection closes after its answer.
 */
bool framing_scan_stopped(const struct framing_scan *s);

/* The fields of one request head, summed up field by field. */
struct framing_fields {
    unsigned n_length, n_te;
    uint64_t length;
    bool length_seen;    /* length holds a value */
    bool length_bad;     /* a Content-Length value that is not 1*DIGIT */
    bool lengths_differ; /* two Content-Length values differ */
    bool bad_name;
    bool te_unknown; /* a coding other than the registered ones */
    bool te_chunked_last;
    unsigned te_chunked; /* times chunked was seen */
    unsigned te_codings; /* codings seen in all the fields */
};

/* framing_fields_init - an empty summary. */
void framing_fields_init(struct framing_fields *f);

/*
 * framing_fields_add - account for one field (@name of @name_len bytes,
 * @value of @value_len bytes, leading and trailing whitespace allowed), in
 * the order received.
 */
void framing_fields_add(struct framing_fields *f, const char *name,
                        size_t name_len, const char *value, size_t value_len);

/*
 * framing_fields_verdict - the framing of the head summed up in @f, sent
 * with HTTP version @version ("HTTP/1.1"). @body (may be NULL) gets whether
 * a body follows (Content-Length other than 0, or Transfer-Encoding).
 *
 * Returns 0, 400 (bad or differing Content-Length, both framings,
 * Transfer-Encoding in HTTP/1.0 or without chunked last and once, a field
 * name that is not a token) or 501 (an unknown transfer coding); @why (may
 * be NULL) gets the reason.
 */
unsigned framing_fields_verdict(const struct framing_fields *f,
                                const char *version, bool *body,
                                enum framing_why *why);

#endif
