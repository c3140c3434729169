// SPDX-License-Identifier: MIT
/*
 * preface.c - HTTP/2 with prior knowledge or HTTP/1.x, from a cleartext
 * connection's first bytes (preface.h).
 */
#include "transport/front/preface.h"

#include <string.h>

enum preface preface_check(const void *buf, size_t n)
{
    size_t k = n < PREFACE_H2_LEN ? n : PREFACE_H2_LEN;

    if (memcmp(buf, PREFACE_H2, k) != 0)
        return PREFACE_NO;
    return k == PREFACE_H2_LEN ? PREFACE_YES : PREFACE_MORE;
}
