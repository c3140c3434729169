// SPDX-License-Identifier: MIT
/*
 * framing.c - strict request framing (RFC 9112): the raw-byte scanner of
 * request heads and the Content-Length / Transfer-Encoding rules.
 *
 * The scanner is a byte-at-a-time state machine, so it needs no buffer and
 * gives the same answer however the stream is cut into reads. It accepts
 * what RFC 9112 lets a server accept (empty lines before a request line,
 * a bare LF as a line end, obs-text in values) and refuses what lets two
 * parsers disagree about where a message ends: NUL, bare CR, other control
 * bytes, obs-fold, whitespace before a colon, names that are not tokens.
 * It also notices which heads announce a body, because it stops there: the
 * server answers such a request without reading the body and closes.
 */
#include "http/framing.h"

#include "http/field.h"
#include "syntax/text.h"

#include <string.h>

enum {
    S_START,      /* before a request line (empty lines allowed) */
    S_START_CR,   /* CR of an empty line before the request line */
    S_METHOD,     /* in the method */
    S_REQLINE,    /* after the method, in the request line */
    S_REQLINE_CR, /* CR at the end of the request line */
    S_LINE,       /* at the start of a field line, or of the empty line */
    S_LINE_CR,    /* CR of the empty line that ends the head */
    S_NAME,       /* in a field name */
    S_VALUE,      /* in a field value */
    S_VALUE_CR,   /* CR at the end of a field line */
    S_POISON,     /* after a violation, until the end of that head */
    S_STOP,       /* a body follows, or a refused head ended */
};

static const char *const why_text[] = {
    [FRAMING_FINE] = "",
    [FRAMING_NUL] = "NUL byte",
    [FRAMING_BARE_CR] = "bare CR",
    [FRAMING_CTL] = "control byte",
    [FRAMING_OBS_FOLD] = "obs-fold",
    [FRAMING_SPACE_COLON] = "whitespace before colon",
    [FRAMING_BAD_NAME] = "bad field name",
    [FRAMING_BAD_METHOD] = "bad method",
    [FRAMING_BAD_LENGTH] = "bad Content-Length",
    [FRAMING_LENGTHS] = "differing Content-Length",
    [FRAMING_LENGTH_AND_TE] = "Content-Length with Transfer-Encoding",
    [FRAMING_TE_HTTP10] = "Transfer-Encoding in HTTP/1.0",
    [FRAMING_TE_NOT_CHUNKED] = "Transfer-Encoding without final chunked",
    [FRAMING_TE_UNKNOWN] = "unknown transfer coding",
};

const char *framing_why_text(enum framing_why why)
{
    if ((size_t)why >= sizeof why_text / sizeof why_text[0])
        return "";
    return why_text[why];
}

void framing_scan_init(struct framing_scan *s)
{
    memset(s, 0, sizeof *s);
    s->state = S_START;
}

/* A control byte that may not appear in a head (HTAB is allowed in values,
 * CR and LF are handled by the states). */
static bool is_ctl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* Where in a line the filter is after a violation. */
enum {
    P_LINE_START, /* x-ing: at a line start */
    P_MID,        /* x-ing: in a line */
    P_CR_START,   /* x-ing: after a CR at a line start */
    P_REQLINE,    /* in the request line: only bad bytes become 'x' */
};

static unsigned fail(struct framing_scan *s, enum framing_why why)
{
    bool reqline = s->state == S_START || s->state == S_START_CR ||
                   s->state == S_METHOD || s->state == S_REQLINE ||
                   s->state == S_REQLINE_CR;

    s->why = why;
    s->bad_head = s->heads;
    s->state = S_POISON;
    /* the violating byte is in this line */
    s->poison_line = reqline ? P_REQLINE : P_MID;
    return 400;
}

/*
 * After a violation: follow the lines to the end of the refused head (an
 * empty line). With @out, the field lines from the violating byte on become
 * 'x' but for their LF, so that a parser behind sees lines it can only
 * refuse as malformed, and never the field that was refused (libmicrohttpd
 * 0.9.75 answers a malformed Content-Length with its status line and
 * headers twice). In the request line only control bytes become 'x': the
 * request still parses, and is answered 400 from the scanner's verdict.
 */
static void poison(struct framing_scan *s, unsigned char c, unsigned char *out)
{
    if (c == '\n') {
        if (s->poison_line == P_LINE_START || s->poison_line == P_CR_START)
            s->state = S_STOP;
        s->poison_line = P_LINE_START;
        return;
    }
    if (s->poison_line == P_REQLINE) {
        if (out && is_ctl(c) && c != '\r')
            *out = 'x';
        return;
    }
    if (c == '\r' && s->poison_line == P_LINE_START) {
        s->poison_line = P_CR_START;
        return;
    }
    s->poison_line = P_MID;
    if (out)
        *out = 'x';
}

static unsigned ctl(struct framing_scan *s, unsigned char c)
{
    return fail(s, c == 0 ? FRAMING_NUL : FRAMING_CTL);
}

static void name_char(struct framing_scan *s, unsigned char c)
{
    if (s->name_len < sizeof s->name)
        s->name[s->name_len] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (s->name_len < UINT8_MAX)
        s->name_len++;
}

static bool name_is(const struct framing_scan *s, const char *want)
{
    size_t n = strlen(want);

    return s->name_len == n && memcmp(s->name, want, n) == 0;
}

/*
 * A byte of a Content-Length value: leading whitespace, then at most 19
 * digits (any such number fits 64 bits), nothing after. Stricter than RFC
 * 9110 (no trailing whitespace, no list of equal values): libmicrohttpd
 * 0.9.75 answers any other value with its status line and headers sent
 * twice, so such a value must never reach it.
 */
static unsigned length_char(struct framing_scan *s, unsigned char c)
{
    if ((c == ' ' || c == '\t') && s->length_digits == 0)
        return 0;
    if (c < '0' || c > '9' || s->length_digits >= 19)
        return fail(s, FRAMING_BAD_LENGTH);
    s->length_digits++;
    if (c != '0')
        s->body = true;
    return 0;
}

/* The end of a head: the next one, or stop before a body. */
static void head_end(struct framing_scan *s)
{
    s->heads++;
    if (s->body) {
        s->state = S_STOP;
        return;
    }
    s->state = S_START;
}

/* One byte; 0, or 400 after fail(). */
static unsigned step(struct framing_scan *s, unsigned char c)
{
    switch (s->state) {
    case S_START:
        if (c == '\r') {
            s->state = S_START_CR;
            return 0;
        }
        if (c == '\n')
            return 0;
        if (!text_is_tchar(c))
            return c == 0 ? ctl(s, c) : fail(s, FRAMING_BAD_METHOD);
        s->body = false;
        s->in_length = false;
        s->state = S_METHOD;
        return 0;
    case S_START_CR:
        if (c != '\n')
            return fail(s, FRAMING_BARE_CR);
        s->state = S_START;
        return 0;
    case S_METHOD:
        if (c == ' ') {
            s->state = S_REQLINE;
            return 0;
        }
        if (c == '\r' || c == '\n' || is_ctl(c))
            return c == '\r' || c == '\n' ? fail(s, FRAMING_BAD_METHOD)
                                          : ctl(s, c);
        if (!text_is_tchar(c))
            return fail(s, FRAMING_BAD_METHOD);
        return 0;
    case S_REQLINE:
        if (c == '\r') {
            s->state = S_REQLINE_CR;
            return 0;
        }
        if (c == '\n') {
            s->state = S_LINE;
            return 0;
        }
        return is_ctl(c) ? ctl(s, c) : 0;
    case S_REQLINE_CR:
    case S_VALUE_CR:
        if (c != '\n')
            return fail(s, FRAMING_BARE_CR);
        s->state = S_LINE;
        return 0;
    case S_LINE:
        if (c == '\r') {
            s->state = S_LINE_CR;
            return 0;
        }
        if (c == '\n') {
            head_end(s);
            return 0;
        }
        if (c == ' ' || c == '\t')
            return fail(s, FRAMING_OBS_FOLD);
        if (c == ':' || !text_is_tchar(c))
            return is_ctl(c) ? ctl(s, c) : fail(s, FRAMING_BAD_NAME);
        s->name_len = 0;
        s->in_length = false;
        name_char(s, c);
        s->state = S_NAME;
        return 0;
    case S_LINE_CR:
        if (c != '\n')
            return fail(s, FRAMING_BARE_CR);
        head_end(s);
        return 0;
    case S_NAME:
        if (c == ':') {
            if (name_is(s, "transfer-encoding"))
                s->body = true;
            s->in_length = name_is(s, "content-length");
            s->length_digits = 0;
            s->state = S_VALUE;
            return 0;
        }
        if (c == ' ' || c == '\t')
            return fail(s, FRAMING_SPACE_COLON);
        if (!text_is_tchar(c))
            return is_ctl(c) && c != '\r' && c != '\n'
                       ? ctl(s, c)
                       : fail(s, FRAMING_BAD_NAME);
        name_char(s, c);
        return 0;
    case S_VALUE:
        if (c == '\r' || c == '\n') {
            if (s->in_length && s->length_digits == 0)
                return fail(s, FRAMING_BAD_LENGTH);
            s->state = c == '\r' ? S_VALUE_CR : S_LINE;
            return 0;
        }
        /* NUL is refused (RFC 9110 5.5: reject or replace); other
         * control bytes may be kept, and are (the log escapes them). */
        if (c == 0)
            return ctl(s, c);
        if (s->in_length)
            return length_char(s, c);
        return 0;
    default:
        return 0;
    }
}

/* Scan, and with @out rewrite what follows a violation (see poison). */
static unsigned scan(struct framing_scan *s, const unsigned char *b,
                     unsigned char *out, size_t n)
{
    /* Where the current field line starts in @b; SIZE_MAX: in an earlier
     * read (its bytes are gone to the parser already). */
    size_t line = s->state == S_LINE ? 0 : SIZE_MAX;

    for (size_t i = 0; i < n && s->state != S_STOP; i++) {
        if (s->state == S_POISON) {
            poison(s, b[i], out ? out + i : NULL);
        } else if (step(s, b[i])) {
            if (!out)
                continue;
            if (b[i] != '\n')
                out[i] = 'x';
            /* A refused field line goes as 'x' from its start when that is
             * still here, so the parser never sees its name: a
             * Content-Length it could otherwise still try to read. */
            if (s->poison_line == P_MID && line != SIZE_MAX)
                memset(out + line, 'x', i - line);
        } else if (s->state == S_LINE) {
            line = i + 1;
        }
    }
    return s->why ? 400 : 0;
}

unsigned framing_scan_feed(struct framing_scan *s, const void *p, size_t n)
{
    return scan(s, p, NULL, n);
}

unsigned framing_scan_filter(struct framing_scan *s, void *p, size_t n)
{
    return scan(s, p, p, n);
}

bool framing_scan_mid_head(const struct framing_scan *s)
{
    return s->state != S_START && s->state != S_START_CR && s->state != S_STOP;
}

bool framing_scan_poisoned(const struct framing_scan *s)
{
    return s->state == S_POISON;
}

bool framing_scan_stopped(const struct framing_scan *s)
{
    return s->state == S_STOP;
}

void framing_fields_init(struct framing_fields *f)
{
    memset(f, 0, sizeof *f);
}

static bool is_token(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!text_is_tchar((unsigned char)s[i]))
            return false;
    return true;
}

/* Content-Length: 1*DIGIT, or a list of equal ones (RFC 9112 6.3 item 5). */
static void add_length(struct framing_fields *f, const char *v, size_t n)
{
    size_t i = 0;

    for (;;) {
        uint64_t x = 0;
        size_t digits = 0;

        while (i < n && (v[i] == ' ' || v[i] == '\t'))
            i++;
        while (i < n && v[i] >= '0' && v[i] <= '9') {
            unsigned d = (unsigned)(v[i] - '0');
            if (x > (UINT64_MAX - d) / 10) {
                f->length_bad = true;
                return;
            }
            x = x * 10 + d;
            digits++;
            i++;
        }
        while (i < n && (v[i] == ' ' || v[i] == '\t'))
            i++;
        if (digits == 0 || (i < n && v[i] != ',')) {
            f->length_bad = true;
            return;
        }
        if (f->length_seen && x != f->length)
            f->lengths_differ = true;
        f->length = x;
        f->length_seen = true;
        if (i >= n)
            return;
        i++; /* the comma */
    }
}

static bool coding_known(const char *s, size_t n)
{
    static const char *const known[] = {"gzip", "x-gzip", "deflate", "compress",
                                        "x-compress"};

    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (text_token_is(s, n, known[i]))
            return true;
    return false;
}

static void add_te(struct framing_fields *f, const char *v, size_t n)
{
    /* field_next works on C strings: parse a bounded copy. */
    char buf[256];
    const char *p = buf;
    struct field_elem e;

    if (n >= sizeof buf) {
        f->te_unknown = true;
        return;
    }
    memcpy(buf, v, n);
    buf[n] = '\0';
    while ((p = field_next(p, &e)) != NULL) {
        if (e.len == 0)
            continue;
        f->te_codings++;
        if (!e.ok) {
            f->te_unknown = true;
            f->te_chunked_last = false;
        } else if (text_token_is(e.tok, e.len, "chunked")) {
            f->te_chunked++;
            f->te_chunked_last = true;
        } else {
            if (!coding_known(e.tok, e.len))
                f->te_unknown = true;
            f->te_chunked_last = false;
        }
    }
}

void framing_fields_add(struct framing_fields *f, const char *name,
                        size_t name_len, const char *value, size_t value_len)
{
    if (!is_token(name, name_len)) {
        f->bad_name = true;
        return;
    }
    if (text_token_is(name, name_len, "Content-Length")) {
        f->n_length++;
        add_length(f, value, value_len);
    } else if (text_token_is(name, name_len, "Transfer-Encoding")) {
        f->n_te++;
        add_te(f, value, value_len);
    }
}

unsigned framing_fields_verdict(const struct framing_fields *f,
                                const char *version, bool *body,
                                enum framing_why *why)
{
    enum framing_why w = FRAMING_FINE;
    unsigned status = 400;
    bool b = false;

    if (f->bad_name)
        w = FRAMING_BAD_NAME;
    else if (f->n_te && f->n_length)
        w = FRAMING_LENGTH_AND_TE;
    else if (f->n_te && (!version || strcmp(version, "HTTP/1.0") == 0))
        w = FRAMING_TE_HTTP10;
    else if (f->n_te && f->te_unknown) {
        w = FRAMING_TE_UNKNOWN;
        status = 501;
    } else if (f->n_te && (f->te_chunked != 1 || !f->te_chunked_last))
        w = FRAMING_TE_NOT_CHUNKED;
    else if (f->n_length && f->length_bad)
        w = FRAMING_BAD_LENGTH;
    else if (f->n_length && f->lengths_differ)
        w = FRAMING_LENGTHS;
    b = f->n_te || (f->n_length && f->length > 0);
    if (body)
        *body = w != FRAMING_FINE || b;
    if (why)
        *why = w;
    return w == FRAMING_FINE ? 0 : status;
}
