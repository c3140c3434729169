#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fresh_machine.sh SOURCE_DIR - the README's commands on a new Debian 12:
# a root made by debootstrap --variant=minbase (deploy/debian-root.sh,
# cached by the hash of its recipe) with git, as a user who cloned has it,
# and a clone of SOURCE_DIR (what git tracks: the commit checked out and
# its uncommitted changes, never the build directories). In a copy of that
# root, as root, with apt reaching this machine's mirror:
#  a) ./scripts/serve on a terminal installs "scripts/deps.sh build",
#     builds with its progress shown, and (run again in a network namespace
#     of its own, its loopback up, so that port 8080 here is not taken)
#     answers GET http://127.0.0.1:8080/ with www-sample's index.html
#     (the build's copy, in the site's layout);
#  b) scripts/deps.sh test installs, and a second run finds nothing
#     missing;
# and after each, every row of tests/tools.txt that it should have
# installed is there: the program on PATH, the Python module python3
# imports, the pkg-config module, the file. A package missing from
# scripts/deps.sh fails here, naming the row and its package.
# The downloaded packages and apt's lists are kept between runs
# ($BENEATH_TEST_CACHE/fresh-apt, the packages no longer on the mirror
# cleaned out); the packages are installed on every run.
# Installed services are not started (a policy-rc.d, as in any chroot).
# Exits 77 only where it cannot run at all: not root, no debootstrap, or
# the mirror of this machine's apt sources out of reach.
#   fresh_machine.sh SOURCE_DIR
#   STEP_SECONDS  bound on each of a) and b), and on the wait for another
#                 run's apt cache (default 900)
#   FRESH_MACHINE_KEEP  when set, the root is left in place (its path is
#                       printed), to look into or run more in
set -euo pipefail
src=$(cd "$1" && pwd)
# shellcheck source=deploy/host-apt.sh
. "$src/deploy/host-apt.sh"
cache=${BENEATH_TEST_CACHE:-/var/cache/beneath-test}
bound=${STEP_SECONDS:-900}
t0=$(date +%s)
work=
cleanup() {
  # every mount was made in a namespace of a process that is gone: here
  # the root is plain directories
  if [ -n "$work" ] && [ -n "${FRESH_MACHINE_KEEP:-}" ]; then
    echo "kept: $work/root (FRESH_MACHINE_KEEP)"
  elif [ -n "$work" ]; then
    rm -rf "$work"
  fi
}
trap cleanup EXIT
skip() {
  echo "SKIP: $*"
  exit 77
}
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
took() { echo "$(($(date +%s) - $1)) s"; }

[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot, mounts)"
command -v debootstrap >/dev/null ||
  skip "debootstrap is not installed (scripts/deps.sh test installs it)"
command -v curl >/dev/null || fail "curl is not installed (scripts/deps.sh test installs it)"
mirror=$(host_apt_mirror 2>&1) || skip "no mirror: $mirror"
proxy=$(host_apt_proxy)
code=$(env ${proxy:+http_proxy=$proxy} curl -sS -o /dev/null --max-time 30 \
  -w '%{http_code}' "$mirror/dists/bookworm/Release" 2>"${TMPDIR:-/tmp}/beneath-fresh-curl.$$") || true
why=$(cat "${TMPDIR:-/tmp}/beneath-fresh-curl.$$")
rm -f "${TMPDIR:-/tmp}/beneath-fresh-curl.$$"
[ "$code" = 200 ] ||
  skip "the package registry $mirror cannot be reached: ${why:-HTTP status $code for dists/bookworm/Release}"

mkdir -p "$cache/fresh-apt/archives/partial" "$cache/fresh-apt/lists/partial"
# one run at a time uses the apt cache
exec 9>"$cache/.lock-fresh-machine"
flock -w "$bound" 9 || fail "another fresh_machine held $cache for $bound s"
tarball=$("$src/deploy/debian-root.sh" minbase git) || fail "no Debian root (deploy/debian-root.sh)"
work=$(mktemp -d "${TMPDIR:-/tmp}/beneath-fresh-XXXXXX")
root=$work/root
clone=$root/root/beneath
mkdir "$root"
tar --numeric-owner -C "$root" -xf "$tarball"
host_apt_sources >"$root/etc/apt/sources.list"
host_apt_conf >"$root/etc/apt/apt.conf.d/99beneath-host"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
# what a container build does for speed, nothing the check looks at: no
# fsync per unpacked file, no man-db index after every install
echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/beneath-unsafe-io"
git clone -q --depth 1 "file://$src" "$clone"
git -C "$src" diff HEAD --binary >"$work/local.diff"
changed=
if [ -s "$work/local.diff" ]; then
  git -C "$clone" apply "$work/local.diff" || fail "git apply of the uncommitted changes"
  changed=", with the uncommitted changes of $(git -C "$src" diff HEAD --name-only | wc -l) file(s)"
fi
echo "ok: Debian 12 minbase and git ($(basename "$tarball")), a clone of $(git -C "$src" rev-parse --short HEAD)$changed in $root, $(took "$t0")"

# root_argv [-n] CMD...: sets argv to the command that runs CMD in the root
# as root, with a new machine's environment, in mount and PID namespaces of
# its own (the root itself, /proc, /dev, /sys, /run and the apt cache
# mounted there; whatever it starts ends with it); -n: in a network
# namespace of its own too, with its loopback up. in_root [-n] CMD...: runs
# it.
root_argv() {
  local net=()
  if [ "$1" = -n ]; then
    net=(--net)
    shift
  fi
  # shellcheck disable=SC2016 # expanded by the bash in the namespaces
  argv=(unshare --mount --pid --fork --kill-child "${net[@]}" -- bash -c '
    set -e
    root=$1 apt=$2 net=$3
    shift 3
    mount --bind "$root" "$root" # "/" a mount point, as on a machine
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount -t sysfs sysfs "$root/sys"
    mount -t tmpfs tmpfs "$root/run"
    mount --bind "$apt/archives" "$root/var/cache/apt/archives"
    mount --bind "$apt/lists" "$root/var/lib/apt/lists"
    [ -z "$net" ] || ip link set lo up
    exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
  ' in_root "$root" "$cache/fresh-apt" "${net[*]}" "$@")
}
in_root() {
  root_argv "$@"
  "${argv[@]}"
}

echo 'man-db man-db/auto-update boolean false' | in_root debconf-set-selections

# missing PHASE: the rows of tests/tools.txt (the clone's) not in the root;
# PHASE build: all but those of scripts/deps.sh's test-only list (a row
# whose package is in no list is missing from the start)
missing() {
  local tests line kind name pkg test checks=
  [ -f "$clone/tests/tools.txt" ] || fail "the clone has no tests/tools.txt"
  tests=" $(bash "$clone/scripts/deps.sh" list test-only | tr '\n' ' ') "
  while read -r line kind name pkg; do
    [ "$1" = test ] || [[ $tests != *" $pkg "* ]] || continue
    case "$kind" in
    cmd) test="command -v '$name' >/dev/null" ;;
    py) test="python3 -c 'import $name' 2>/dev/null" ;;
    pc) test="pkg-config --exists '$name' 2>/dev/null" ;;
    file) test="compgen -G '$name' >/dev/null" ;;
    *) continue ;;
    esac
    checks+="$test || echo 'tests/tools.txt:$line: $kind $name (package $pkg)'"$'\n'
  done < <(awk '{ sub(/#.*/, "") } NF >= 3 { print NR, $1, $2, $3 }' "$clone/tests/tools.txt")
  in_root bash -c "$checks"
}

# a) install, build (on a terminal: script(1)), then serve
t=$(date +%s)
status=0
root_argv script -qefc 'cd /root/beneath && ./scripts/serve --version' /dev/null
timeout -k 10 "$bound" "${argv[@]}" >"$work/serve.log" 2>&1 || status=$?
gone=$(missing build)
if [ "$status" -ne 0 ] || [ -n "$gone" ]; then
  echo "--- ./scripts/serve --version (exit $status), the last 25 lines" >&2
  tail -n 25 "$work/serve.log" | tr -d '\r' >&2
  fail "./scripts/serve on a new Debian 12${gone:+: missing after scripts/deps.sh build:
$gone}"
fi
grep -q 'Built target beneath' "$work/serve.log" ||
  fail "./scripts/serve on a terminal showed no build progress: $(tail -n 5 "$work/serve.log")"
echo "ok: ./scripts/serve installed scripts/deps.sh build, built (progress shown: $(grep -c '%\]' "$work/serve.log") lines) and ran $(grep -o 'beneath [0-9][0-9.]*' "$work/serve.log" | tail -n 1) in $(took "$t")"

# again, as the README has it, in a network namespace of its own ($! is
# unshare, in that namespace)
t=$(date +%s)
root_argv -n bash -c 'cd /root/beneath && exec ./scripts/serve'
: >"$work/serve2.log" # before the loop reads it, not by the job's redirection
"${argv[@]}" >>"$work/serve2.log" 2>&1 &
spid=$!
up=
for _ in $(seq 1500); do
  grep -q 'listening on http://127.0.0.1:8080' "$work/serve2.log" && up=1 && break
  kill -0 "$spid" 2>/dev/null || break
  sleep 0.2
done
code=
if [ -n "$up" ]; then
  code=$(nsenter --net="/proc/$spid/ns/net" curl -s --max-time 20 \
    -o "$work/index.html" -w '%{http_code}' http://127.0.0.1:8080/ || true)
fi
# unshare --fork ignores SIGTERM; its SIGKILL takes the namespace down
{
  kill -KILL "$spid"
  wait "$spid"
} 2>/dev/null || true
[ -n "$up" ] ||
  fail "./scripts/serve did not listen on 127.0.0.1:8080 in 300 s: $(tail -n 20 "$work/serve2.log")"
[ "$code" = 200 ] || fail "GET http://127.0.0.1:8080/: status '$code'"
# the build's copy of www-sample/ (its pages in the site's layout)
cmp -s "$work/index.html" "$clone/build/release/www-sample/index.html" ||
  fail "GET /: not www-sample's index.html: $(head -c 300 "$work/index.html")"
echo "ok: ./scripts/serve answered GET http://127.0.0.1:8080/ with 200 and www-sample's index.html ($(wc -c <"$work/index.html") bytes) in $(took "$t")"

# b) the test packages
t=$(date +%s)
status=0
root_argv bash -c 'cd /root/beneath && scripts/deps.sh test'
timeout -k 10 "$bound" "${argv[@]}" >"$work/deps.log" 2>&1 || status=$?
[ "$status" -eq 0 ] || fail "scripts/deps.sh test (exit $status): $(tail -n 25 "$work/deps.log")"
root_argv bash -c 'cd /root/beneath && scripts/deps.sh test 2>&1 && apt-get -qq autoclean >/dev/null'
again=$(timeout -k 10 "$bound" "${argv[@]}" </dev/null 2>&1 | head -n 3)
[ -z "$again" ] || fail "scripts/deps.sh test, run again, still installs: $again"
gone=$(missing test)
[ -z "$gone" ] || fail "missing after scripts/deps.sh test:
$gone"
echo "ok: scripts/deps.sh test installed $(grep -c '^Setting up ' "$work/deps.log") packages in $(took "$t"); a second run installs nothing; all $(awk '{ sub(/#.*/, "") } NF >= 3 && $1 != "word"' "$clone/tests/tools.txt" | wc -l) rows of tests/tools.txt are there"
echo "fresh_machine: all passed in $(took "$t0")"
