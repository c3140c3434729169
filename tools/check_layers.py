#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The rules that keep server/ in layers (server/README.md), checked over the
sources as they are in the tree. Run from the repository root; exit 1 with
one line per break.

- only server/transport/ includes a wire library (<microhttpd.h>,
  <gnutls/...>, <nghttp2/...>);
- no source lies at the top of server/ (each is in its layer's folder);
- a folder includes only the folders below it (LAYERS), so dependencies
  point one way and no two folders include each other; every folder of
  server/ may include syntax/ and common/;
- inside server/transport/, a part's folder includes only the parts
  TRANSPORT lists: conn/ (what every connection shares) none, front/
  only conn/, h1/ and h2/ conn/ and front/; only the top of transport/
  (TRANSPORT_TOP) includes every part, and no part includes it;
- syntax/ (what a configuration writes, parsed) includes only common/, and
  conf/ only syntax/, common/ and the resolver: neither includes server/
  (BESIDE);
- no include cycle between files (server/ and syntax/);
- N_ELEMS is defined once (common/elems.h);
- every header has the one include-guard scheme (tools/header_guard.py);
- with --objects BUILD_DIR: no call cycle between the files of server/ and
  syntax/ (a
  file calls another when its object uses a symbol the other defines; nm
  over BUILD_DIR's objects), so each file's callers are above it.
"""
import os
import re
import subprocess
import sys

# folder -> the server folders its files may include (besides its own)
LAYERS = {
    'http': set(),
    'runtime': {'http'},
    'files': {'http', 'runtime'},
    'observe': {'http', 'runtime'},
    'access': {'http', 'runtime', 'observe'},
    # the ACME challenge material in memory: libc, pthread, libcrypto
    'challenge': set(),
    'respond': {'http', 'runtime', 'files', 'observe', 'access', 'challenge'},
    'tls': {'http'},
    # ACME (RFC 8555) with no server types: OpenSSL, libcurl, jansson only;
    # never libmicrohttpd (the wire rule) nor the serving layers
    'acme': {'challenge'},
    'transport': {'http', 'runtime', 'files', 'observe', 'access', 'respond',
                  'tls', 'challenge'},
    'process': {'http', 'runtime', 'files', 'observe', 'access', 'respond',
                'tls', 'challenge', 'acme', 'transport'},
    'precompress': {'http', 'files', 'runtime'},
}
# server/transport/'s parts -> the parts their files may include (besides
# their own). conn/ is below the rest; the front knows no protocol engine
# (its socket BIO and the HTTP/2 preface it tells apart are its own, and
# it hands connections over through struct front_ops); h1/ (libmicrohttpd)
# and h2/ (libnghttp2) each know the front they are handed connections by
# and conn/, not each other. The top of transport/ (TRANSPORT_TOP: the
# daemon, daemon.c) puts them together and may include every part; no
# part includes it.
TRANSPORT = {
    'conn': set(),
    'front': {'conn'},
    'h1': {'conn', 'front'},
    'h2': {'conn', 'front'},
}
TRANSPORT_TOP = {'daemon.c', 'daemon.h'}
# the folders beside server/ -> the folders their files may include (besides
# their own; "resolver.h" and conf's own headers are named without a folder)
BESIDE = {
    'syntax': {'common'},
    'conf': {'common', 'syntax'},
}
WIRE = re.compile(r'^\s*#\s*include\s*<(microhttpd\.h|gnutls/|nghttp2/)', re.M)
# OpenSSL's TLS API (as against its crypto): transport/, and tls/ for the
# store of contexts SNI picks from
TLS_API = re.compile(r'^\s*#\s*include\s*<openssl/ssl\.h>', re.M)
LOCAL = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def files():
    out = subprocess.check_output(['git', 'ls-files', '-co', '--exclude-standard',
                                   '*.c', '*.h'], text=True)
    return [f for f in out.split() if os.path.exists(f)]


def main():
    errors = []
    all_files = files()
    server = [f for f in all_files if f.startswith('server/')]
    graph = {}
    for f in server:
        text = open(f, encoding='utf-8', errors='replace').read()
        parts = f.split('/')
        if len(parts) == 2:
            errors.append(f'{f}: a source at the top of server/ (put it in '
                          'its layer\'s folder)')
            continue
        folder = parts[1]
        if folder not in LAYERS:
            errors.append(f'{f}: folder server/{folder}/ is not in '
                          'tools/check_layers.py LAYERS')
            continue
        if folder == 'transport':
            errors += transport_part(f, text)
        if folder != 'transport' and WIRE.search(text):
            errors.append(f'{f}: includes a wire library (only '
                          'server/transport/ may)')
        if folder not in ('transport', 'tls') and TLS_API.search(text):
            errors.append(f'{f}: includes <openssl/ssl.h> (only '
                          'server/transport/ and server/tls/ may)')
        graph[f] = []
        for inc in LOCAL.findall(text):
            head = inc.split('/')[0]
            if '/' in inc and head in LAYERS:
                if head != folder and head not in LAYERS[folder]:
                    errors.append(f'{f}: includes "{inc}": server/{folder}/ '
                                  f'may not depend on server/{head}/')
                graph[f].append('server/' + inc)
            elif head == 'syntax':
                graph[f].append(inc)
    for f in all_files:
        folder = f.split('/')[0]
        if folder not in BESIDE:
            continue
        text = open(f, encoding='utf-8', errors='replace').read()
        if folder == 'syntax':
            graph[f] = []
        for inc in LOCAL.findall(text):
            head = inc.split('/')[0]
            if '/' in inc and head != folder and head not in BESIDE[folder]:
                where = 'server/' + head if head in LAYERS else head
                errors.append(f'{f}: includes "{inc}": {folder}/ may not '
                              f'depend on {where}/')
            if folder == 'syntax' and head == 'syntax':
                graph[f].append(inc)
    errors += cycles(graph, 'include')
    # one N_ELEMS
    defs = [f for f in all_files
            if re.search(r'^\s*#\s*define\s+N_ELEMS\b',
                         open(f, encoding='utf-8', errors='replace').read(),
                         re.M)]
    if defs != ['common/elems.h']:
        errors.append('N_ELEMS is defined in ' + ', '.join(defs) +
                      ' (only common/elems.h may)')
    # the guard scheme
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run([sys.executable, os.path.join(here, 'header_guard.py')] +
                       [f for f in all_files if f.endswith('.h')],
                       capture_output=True, text=True)
    errors += [l for l in r.stdout.splitlines() if l]
    if len(sys.argv) == 3 and sys.argv[1] == '--objects':
        errors += call_cycles(sys.argv[2])
    for e in errors:
        print(e)
    return 1 if errors else 0


def transport_part(f, text):
    """The includes of @f (in server/transport/, @text) against
    TRANSPORT."""
    parts = f.split('/')
    if len(parts) == 3:
        if parts[2] in TRANSPORT_TOP:
            return []
        return [f'{f}: a source at the top of server/transport/ (put it in '
                'its part\'s folder, or name it in TRANSPORT_TOP)']
    part = parts[2]
    if part not in TRANSPORT:
        return [f'{f}: folder server/transport/{part}/ is not in '
                'tools/check_layers.py TRANSPORT']
    errors = []
    for inc in LOCAL.findall(text):
        names = inc.split('/')
        if len(names) == 2 and names[0] == 'transport':
            errors.append(f'{f}: includes "{inc}": server/transport/{part}/ '
                          'may not depend on the top of server/transport/')
            continue
        if len(names) < 3 or names[0] != 'transport':
            continue
        if names[1] != part and names[1] not in TRANSPORT[part]:
            errors.append(f'{f}: includes "{inc}": server/transport/{part}/ '
                          f'may not depend on server/transport/{names[1]}/')
    return errors


def call_cycles(build):
    """File-level call graph of server/'s and syntax/'s objects under
    @build."""
    objs = {}
    for root, _, names in os.walk(os.path.join(build, 'syntax')):
        rel = os.path.relpath(root, build).split(os.sep)
        # syntax/CMakeFiles/beneath_syntax.dir
        if len(rel) != 3 or rel[1] != 'CMakeFiles':
            continue
        for n in names:
            if n.endswith('.c.o'):
                objs.setdefault('syntax/' + n[:-2], os.path.join(root, n))
    for root, _, names in os.walk(os.path.join(build, 'server')):
        rel = os.path.relpath(root, build).split(os.sep)
        # server/<folder>/CMakeFiles/<target>.dir[/<subfolder>...]: one
        # object per source, a source of a subfolder (transport/h1/) under
        # the subfolder's name
        if len(rel) < 4 or rel[1] not in LAYERS or rel[2] != 'CMakeFiles':
            continue
        for n in names:
            if n.endswith('.c.o'):
                src = '/'.join(['server', rel[1]] + rel[4:] + [n[:-2]])
                objs.setdefault(src, os.path.join(root, n))
    defined, used = {}, {}
    for src, obj in objs.items():
        out = subprocess.check_output(['nm', obj], text=True)
        used[src] = set()
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in 'TDBR':
                defined.setdefault(f[2], src)
            elif len(f) == 2 and f[0] == 'U':
                used[src].add(f[1])
    graph = {s: sorted({defined[u] for u in used[s]
                        if u in defined and defined[u] != s})
             for s in objs}
    return cycles(graph, 'call')


def cycles(graph, kind):
    """Every cycle a depth-first walk of @graph (file -> files) meets."""
    errors, state = [], {}

    def visit(n, stack):
        state[n] = 1
        stack.append(n)
        for m in graph[n]:
            if state.get(m) == 1:
                errors.append(kind + ' cycle: ' +
                              ' -> '.join(stack[stack.index(m):] + [m]))
            elif m in graph and not state.get(m):
                visit(m, stack)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if not state.get(n):
            visit(n, [])
    return errors


if __name__ == '__main__':
    sys.exit(main())
