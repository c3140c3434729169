#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What the build, the tests and scripts/ call, against tests/tools.txt (the
one list of it) and scripts/deps.sh (what installs it). Run from the
repository root; exit 1 with one line per break.

Found in the sources (the files under tests/, bench/, scripts/, deploy/ and
tools/, and every CMake file, that git tracks or does not ignore):
- programs: the first word of each command in shell scripts, and in the
  string literals of C, Python, CMake and JSON files (the shell code they
  run, the argv they exec); a word counts when it names a program on this
  machine that is not in Debian's base system (a package of priority
  required, which debootstrap --variant=minbase installs);
- Python modules: what .py files and python3 here-documents import, outside
  the standard library and the script's own folder;
- pkg-config modules: every pkg_check_modules and pkg_search_module.

The rules:
- each program, module and pkg-config module found has a row in
  tests/tools.txt (a word that names a program without calling one has a
  "word" row saying so);
- each row's name occurs in the sources (no row outlives its caller);
- each row's package is in a list of scripts/deps.sh, and each package
  there has a row (nothing installed that nothing uses).
A program this machine does not have cannot be told from any other word:
the check sees what the developer who wrote the call has installed.
tests/fresh_machine.sh then checks, in a new Debian 12, that scripts/deps.sh
really installs every row.
"""
import os
import re
import shutil
import subprocess
import sys

TABLE = 'tests/tools.txt'
KINDS = ('cmd', 'py', 'pc', 'file', 'word')
SCANNED = ('tests/', 'bench/', 'scripts/', 'deploy/', 'tools/')
# scripts/deps.sh names packages, not calls, and this file names kinds
SKIPPED = ('tests/fuzz/corpus/', 'scripts/deps.sh', 'tools/check_tools.py')
# where a program is looked up: Debian's PATH for root, not this shell's
PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

# Where a command starts: after an operator, a keyword, or a command that
# runs the next word (with its options).
SEP = re.compile(r'''(?:\|\||&&|;;|[;|&(){}`\n]|\$\(|<\(|>\(
    |\b(?:then|do|else|elif|if|while|until|exec|time|command(?:\ -[vV])?
    |sudo|xargs(?:\ -\S+)*|env(?:\ -\S+)*|setsid(?:\ -\S+)*|flock\ \S+
    |nice(?:\ -n\ ?-?\d+)?|timeout(?:\ -\S+(?:\ \d+)?)*\ [\d.]+[smh]?
    |taskset(?:\ -\S+)*\ [\d,-]+|chroot\ \S+|strace(?:\ -\S+(?:\ \S+)?)*)\b
    |!\ )''', re.X)
ASSIGN = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*=')
WORD = re.compile(r'^/?[A-Za-z0-9_][A-Za-z0-9_.+/-]*$')
# a string literal, not a key ("name": in JSON, a dict, a ternary's first)
C_LIT = re.compile(r'"((?:[^"\\\n]|\\.)*)"(?!\s*:)')
PY_LIT = re.compile(r'''("|')((?:(?!\1)[^\\\n]|\\.)*)\1(?!\s*:)''')
CASE_LABEL = re.compile(r'^\s*\(?[^()\s|]+(?:\s*\|\s*[^()\s|]+)*\)')
HEREDOC = re.compile(r'<<-?\s*([\'"]?)([A-Za-z_]+)\1')
PY_IMPORT = re.compile(r'^\s*(?:import\s+([\w.]+(?:\s*,\s*[\w.]+)*)|from\s+(\w+)[\w.]*\s+import)',
                       re.M)
PKG_CHECK = re.compile(r'pkg_(?:check_modules|search_module)\s*\(\s*\w+([^)]*)\)')
PKG_WORDS = {'REQUIRED', 'QUIET', 'IMPORTED_TARGET', 'GLOBAL', 'NO_CMAKE_PATH',
             'NO_CMAKE_ENVIRONMENT_PATH'}


def git_files():
    out = subprocess.check_output(['git', 'ls-files', '-co', '--exclude-standard'], text=True)
    files = []
    for f in out.split('\n'):
        if not f or f.startswith(SKIPPED) or not os.path.isfile(f):
            continue
        name = os.path.basename(f)
        if f.startswith(SCANNED) or name == 'CMakeLists.txt' or \
                name.endswith('.cmake') or name == 'CMakePresets.json':
            files.append(f)
    return files


def read(path):
    try:
        with open(path, encoding='utf-8') as fh:
            return fh.read()
    except (UnicodeDecodeError, OSError):
        return None


def kind_of(path, text):
    name = os.path.basename(path)
    first = text.split('\n', 1)[0]
    if name.endswith('.py') or (first.startswith('#!') and 'python' in first):
        return 'py'
    if name.endswith('.sh') or (first.startswith('#!') and re.search(r'\b(ba)?sh\b', first)) \
            or name.startswith(('postinst', 'postrm', 'prerm', 'preinst')):
        return 'sh'
    if name.endswith(('.c', '.h')):
        return 'c'
    if name == 'CMakeLists.txt' or name.endswith('.cmake'):
        return 'cmake'
    if name.endswith('.json'):
        return 'json'
    return None


def commands(code):
    """The first word of each command in @code (shell), unquoted."""
    for piece in SEP.split(code):
        words = piece.split()
        while words and (ASSIGN.match(words[0]) or words[0][0] in '<>'):
            words = words[1:]
        if not words:
            continue
        w = words[0].strip('"\'')
        if WORD.match(w) and '$' not in w:
            yield w


def strip_comment(line):
    """A shell line without its comment (a # that starts a word, outside
    quotes)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in '\'"':
            quote = ch
        elif ch == '#' and (i == 0 or line[i - 1] in ' \t;'):
            return line[:i]
    return line


def unescape(lit):
    return re.sub(r'\\(.)', lambda m: {'n': '\n', 't': '\t'}.get(m.group(1), m.group(1)), lit)


def scan_shell(text, found, imports, where):
    lines = text.split('\n')
    i = 0
    while i < len(lines):
        line = CASE_LABEL.sub('', strip_comment(lines[i]))
        for w in commands(line):
            found.setdefault(w, set()).add(where)
        m = HEREDOC.search(line)
        if m:
            end = m.group(2)
            body = []
            i += 1
            while i < len(lines) and lines[i].strip() != end:
                body.append(lines[i])
                i += 1
            # a here-document is data, unless a shell or python3 reads it
            before = line[:m.start()]
            if re.search(r'\bpython3\b', before):
                scan_python(''.join(x + '\n' for x in body), found, imports, where)
            elif re.search(r'(^|[\s;|&])(ba)?sh(\s|$)', before) or \
                    re.search(r'>\s*"?\$bin"?', before):
                scan_shell('\n'.join(body), found, imports, where)
        i += 1


def scan_literals(regex, group, text, found, where):
    for m in regex.finditer(text):
        for w in commands(unescape(m.group(group))):
            found.setdefault(w, set()).add(where)


def scan_python(text, found, imports, where):
    code = '\n'.join(l for l in text.split('\n') if not l.lstrip().startswith('#'))
    scan_literals(PY_LIT, 2, code, found, where)
    for m in PY_IMPORT.finditer(code):
        names = m.group(1).split(',') if m.group(1) else [m.group(2)]
        for n in names:
            imports.setdefault(n.strip().split('.')[0], set()).add(where)


def scan(files):
    found, imports, pcs = {}, {}, {}
    texts = {}
    for f in files:
        text = read(f)
        if text is None:
            continue
        texts[f] = text
        k = kind_of(f, text)
        if k == 'sh':
            scan_shell(text, found, imports, f)
        elif k == 'py':
            scan_python(text, found, imports, f)
        elif k == 'c':
            code = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', text, flags=re.S)
            scan_literals(C_LIT, 1, code, found, f)
        elif k in ('cmake', 'json'):
            code = '\n'.join(l for l in text.split('\n') if not l.lstrip().startswith('#'))
            scan_literals(C_LIT, 1, code, found, f)
            for m in re.finditer(r'\bCOMMAND\s+(\S+)', code):
                for w in commands(m.group(1)):
                    found.setdefault(w, set()).add(f)
            for m in PKG_CHECK.finditer(code):
                for w in m.group(1).split():
                    if w not in PKG_WORDS and not w.startswith('$'):
                        pcs.setdefault(re.split(r'[<>=]', w)[0], set()).add(f)
    return found, imports, pcs, texts


def dpkg(*args):
    r = subprocess.run(['dpkg-query'] + list(args), capture_output=True, text=True)
    return r.stdout


def shell_builtins():
    r = subprocess.run(['bash', '-c', 'compgen -b; compgen -k'], capture_output=True, text=True)
    return set(r.stdout.split())


def file_index():
    """Path -> packages, from dpkg's lists of installed files."""
    index = {}
    info = '/var/lib/dpkg/info'
    for name in os.listdir(info):
        if not name.endswith('.list'):
            continue
        pkg = name[:-5].split(':')[0]
        with open(os.path.join(info, name), encoding='utf-8', errors='replace') as fh:
            for line in fh:
                if '/bin/' in line or '/sbin/' in line or '/games/' in line:
                    index.setdefault(line.rstrip('\n'), set()).add(pkg)
    return index


def base_packages():
    out = dpkg('-W', '-f', '${binary:Package} ${Package} ${Priority} ${Essential}\n')
    base = set()
    for line in out.split('\n'):
        f = line.split()
        if len(f) >= 3 and (f[2] == 'required' or f[3:] == ['yes']):
            base.update(f[:2])
    return base | {'apt'}


def owners(index, path):
    """The packages that have @path, trying the /bin and /usr/bin forms."""
    tries = {path, os.path.realpath(path)}
    for p in list(tries):
        tries.add(p[4:] if p.startswith('/usr/') else '/usr' + p)
    return set().union(*(index.get(p, set()) for p in tries))


def deps_lists():
    out = {}
    for which in ('build', 'test-only'):
        r = subprocess.run(['scripts/deps.sh', 'list', which], capture_output=True,
                           text=True, check=True)
        out[which] = r.stdout.split()
    return out


def load_table(errors):
    rows = []
    with open(TABLE, encoding='utf-8') as fh:
        for n, line in enumerate(fh, 1):
            text = line.split('#', 1)[0].split()
            if not text:
                continue
            if text[0] not in KINDS or len(text) != (2 if text[0] == 'word' else 3):
                errors.append(f'{TABLE}:{n}: want "KIND NAME PACKAGE" (KIND: cmd, py, pc, '
                              f'file) or "word NAME", got: {line.strip()}')
                continue
            rows.append((n, text[0], text[1], text[2] if len(text) > 2 else None))
    return rows


def main():
    errors = []
    rows = load_table(errors)
    found, imports, pcs, texts = scan(git_files())
    listed = {(k, name): (n, pkg) for n, k, name, pkg in rows}
    base = base_packages()
    builtins = shell_builtins()
    index = file_index()

    calls = {}  # name -> (the word as called, the files)
    for w in sorted(found):
        name = os.path.basename(w)
        if name in builtins and not w.startswith('/'):
            continue
        calls.setdefault(name, (w, set()))[1].update(found[w])
    for name, (w, where) in sorted(calls.items()):
        if ('cmd', name) in listed or ('word', name) in listed:
            continue
        path = w if w.startswith('/') else shutil.which(name, path=PATH)
        if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
            continue  # not a program here: a function, a variable, a word
        pkgs = owners(index, path)
        if pkgs & base:
            continue
        whence = f'package {", ".join(sorted(pkgs))}' if pkgs else f'{path}, in no Debian package'
        errors.append(f'{", ".join(sorted(where))}: calls {name} ({whence}), which {TABLE} '
                      f'does not list: add "cmd {name} PACKAGE" and the package to scripts/deps.sh '
                      f'(or "word {name}" where it names no program)')
    stdlib = set(sys.stdlib_module_names)
    for mod in sorted(imports):
        local = any(os.path.exists(os.path.join(os.path.dirname(f), mod + '.py'))
                    for f in imports[mod])
        if mod in stdlib or local or ('py', mod) in listed:
            continue
        errors.append(f'{", ".join(sorted(imports[mod]))}: imports {mod}, which {TABLE} does not '
                      f'list: add "py {mod} PACKAGE" and the package to scripts/deps.sh')
    for mod in sorted(pcs):
        if ('pc', mod) not in listed:
            errors.append(f'{", ".join(sorted(pcs[mod]))}: needs pkg-config module {mod}, which '
                          f'{TABLE} does not list: add "pc {mod} PACKAGE" and the package to '
                          f'scripts/deps.sh')

    # every row is used: the scan found its name, or the sources name it
    # (file rows: what a tool loads by itself, which no source names)
    everything = '\n'.join(t for f, t in texts.items() if f not in (TABLE, 'scripts/deps.sh'))
    deps = deps_lists()
    in_deps = set(deps['build']) | set(deps['test-only'])
    scanned = {'cmd': calls, 'word': calls, 'py': imports, 'pc': pcs}
    for n, k, name, pkg in rows:
        used = k == 'file' or name in scanned[k] or \
            re.search(r'(?<![\w.-])' + re.escape(name) + r'(?![\w-])', everything)
        if not used:
            errors.append(f'{TABLE}:{n}: {k} {name}: nothing in the sources uses it; drop the row')
        if pkg and pkg not in in_deps:
            errors.append(f'{TABLE}:{n}: {k} {name}: package {pkg} is in no list of scripts/deps.sh')
    named = {pkg for _, _, _, pkg in rows if pkg}
    for pkg in sorted(in_deps - named):
        errors.append(f'scripts/deps.sh installs {pkg}, which no row of {TABLE} names: drop it, '
                      f'or add the row of what uses it')

    for e in errors:
        print(e)
    n_cmd = sum(1 for r in rows if r[1] == 'cmd')
    print(f'check_tools: {len(rows)} rows ({n_cmd} programs), {len(found)} command words, '
          f'{len(imports)} imports, {len(pcs)} pkg-config modules scanned: '
          f'{"ok" if not errors else f"{len(errors)} problems"}')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
