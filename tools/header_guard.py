#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The one include-guard scheme: BENEATH_<PATH>_H, PATH the header's path
with server/, include/ and src/ left out and a repeated component named
once (server/http/status.h -> BENEATH_HTTP_STATUS_H, resolver/include/
resolver.h -> BENEATH_RESOLVER_H, conf/src/lexer.h -> BENEATH_CONF_LEXER_H).

tools/header_guard.py --fix FILE...   rewrite the guards
tools/header_guard.py FILE...         list the headers that break it (exit 1)
"""
import re
import sys


def guard(path):
    parts = [p for p in path.split('/') if p not in ('server', 'include', 'src')]
    stem = parts[-1][:-2]
    parts = parts[:-1] + [stem]
    out = []
    for p in parts:
        if not out or out[-1] != p:
            out.append(p)
    return 'BENEATH_' + '_'.join(re.sub(r'[^A-Za-z0-9]', '_', p).upper()
                                 for p in out) + '_H'


def main(argv):
    fix = argv[:1] == ['--fix']
    bad = 0
    for path in argv[1:] if fix else argv:
        text = open(path).read()
        m = re.search(r'^#ifndef (\w+)\n#define (\w+)\n', text, re.M)
        want = guard(path)
        if not m or m.group(1) != m.group(2):
            print(f'{path}: no include guard (#ifndef X / #define X)')
            bad += 1
            continue
        if m.group(1) == want:
            continue
        if fix:
            text = re.sub(r'\b%s\b' % re.escape(m.group(1)), want, text)
            open(path, 'w').write(text)
        else:
            print(f'{path}: guard {m.group(1)}, the scheme says {want}')
            bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
