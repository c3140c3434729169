#!/usr/bin/env bash
# Install what beneath needs from Debian 12's packages, only what is missing.
#   scripts/deps.sh build   compiler, CMake and the libraries
#   scripts/deps.sh test    also the test, analysis and benchmark tools
#   scripts/deps.sh list build|test-only   print a list, install nothing
set -euo pipefail

# tests/tools.txt says what each package is for (ctest tools_listed checks
# that every program, module and pkg-config module the sources use has a
# package here, ctest fresh_machine that this installs them on a new Debian
# 12). libgnutls28-dev: libmicrohttpd is linked from its static archive
# (server/transport/h1/mhd_tap.cmake), which needs GnuTLS's; check brings
# libsubunit-dev.
build_pkgs=(build-essential cmake pkg-config libmicrohttpd-dev libgnutls28-dev
  libssl-dev libcrypt-dev libseccomp-dev zlib1g-dev libbrotli-dev libzstd-dev
  libcurl4-openssl-dev libjansson-dev libnghttp2-dev media-types)
# pebble: the ACME test CA and pebble-challtestsrv (tests/acme/); caddy: beside
# beneath in bench/acme_start.sh (its postinst starts nothing without systemd)
# python3-doc: a Debian documentation tree with links into
# /usr/share/javascript (tests/docs/test_e2e_docs_follow.c)
test_pkgs=(check curl clang-format
  clang-tidy clang libclang-rt-14-dev util-linux procps wrk nginx-light
  lighttpd gnuplot-nox brotli zstd openssl chromium testssl.sh
  man-db systemd dpkg-dev lintian jq podman runc catatonit netavark aardvark-dns
  iptables debootstrap apache2-utils prometheus python3-minimal python3-h2
  nghttp2-client strace pebble caddy python3-doc git bc util-linux-extra
  linux-perf iproute2 bsdextrautils)

if [ "${1:-}" = list ]; then
  case "${2:-}" in
  build) printf '%s\n' "${build_pkgs[@]}" ;;
  test-only) printf '%s\n' "${test_pkgs[@]}" ;;
  *) echo "usage: scripts/deps.sh list build|test-only" >&2; exit 2 ;;
  esac
  exit 0
fi

want=("${build_pkgs[@]}")
if [ "${1:-build}" = test ]; then
  want+=("${test_pkgs[@]}")
fi

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
    missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "beneath: missing packages: ${missing[*]}; run as root (or with sudo) to install them" >&2
  exit 1
fi
echo "beneath: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q </dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
