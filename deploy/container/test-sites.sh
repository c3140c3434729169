#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test-sites.sh - the shipped many-sites manifests (deploy/kubernetes/sites/)
# played by "podman kube play" (runc, a podman store of this run's own:
# deploy/podman-env.sh): two replicas serving one --sites DIR from a shared
# volume and sharing --acme-dir in another, as a cluster runs them.
#
# volumes.yaml plays unchanged. deployment.yaml plays with two changes, to
# reach a test CA instead of Let's Encrypt's staging one: the
# BENEATH_ACME_CA line names Pebble's directory, and a BENEATH_ACME_CA_ROOT
# variable (2 lines) is added, naming Pebble's HTTPS certificate, which the
# test writes into the volume beneath-acme (both replicas mount it; the
# shipped manifest mounts nothing else that is writable from outside).
#
# Checked: both replicas up with the kernel backend and both walls, no
# host port, a Host with no site answered 421 (no root: the image's
# placeholder page is no site); a site written once into the volume
# beneath-sites, before the Deployment, is served by both; plain HTTP gets
# 308 to https:// on port 443 (the Service's, not the pod's 8443); Pebble and
# its DNS run in replica 0's network namespace, so only replica 0 can reach
# the CA, and the CA validates on replica 0's 127.0.0.1: the first handshake
# naming the site on replica 0 orders its certificate (Pebble verifies
# HTTP-01 there), replica 1 answers the challenge too (it read challenges/
# from the shared volume), and replica 0 waited for it (the shared replicas
# lock); a handshake on replica 1 then gets the same certificate from the
# shared --acme-dir, without ordering, verified against Pebble's root; a
# site created after start (a symlink flip, as docs/sites.md deploys) is
# served by both, its certificate ordered once; flipped to a new release,
# both serve the new one at the next request; a site renamed away is 421 on
# both at the next request; a name with no directory orders nothing. Pebble's
# log shows exactly one order (and one validation) per site. All traffic is
# on 127.0.0.1 inside the pods' network namespaces; everything is removed
# on exit. Exits 77 (skipped) only where podman cannot run.
#   test-sites.sh BENEATH_BIN SOURCE_DIR
set -euo pipefail
bin=$1 src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-sites-XXXXXX")
version=$("$bin" --version | awk '{print $2}')
tag=localhost/beneath:$version
kube=$src/deploy/kubernetes/sites
containers=() plays=() pebble_pids=()
cleanup() {
  local p
  [ ${#pebble_pids[@]} -eq 0 ] || pebble_stop
  for p in "${plays[@]}"; do podman kube down "$p" >/dev/null 2>&1 || true; done
  podman_isolated_down "$tmp"
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  container_logs "${containers[@]}"
  [ ! -s "$tmp/pebble.log" ] || { echo "--- pebble.log" >&2; tail -n 20 "$tmp/pebble.log" >&2; }
  exit 1
}
skip() { echo "SKIP: $*"; exit 77; }
t0=$(date +%s.%N)
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

# shellcheck source=deploy/podman-env.sh
. "$src/deploy/podman-env.sh"
# shellcheck source=deploy/container/lib.sh
. "$src/deploy/container/lib.sh"
# shellcheck source=deploy/pebble-netns.sh
. "$src/deploy/pebble-netns.sh"
podman_env "$tmp" isolated >"$tmp/why" || skip "$(cat "$tmp/why")"
for tool in pebble pebble-challtestsrv nsenter openssl curl; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/deps.sh test installs it)"
done

# the manifests, as shipped: what the test relies on in them
for f in volumes.yaml deployment.yaml service.yaml; do
  grep -qx "  - $f" "$kube/kustomization.yaml" || fail "kustomization.yaml does not list $f"
done
grep -qx "          image: $tag" "$kube/deployment.yaml" ||
  fail "deployment.yaml does not name the image $tag: $(grep 'image:' "$kube/deployment.yaml")"
replicas=$(sed -n 's/^  replicas: \([0-9]*\)$/\1/p' "$kube/deployment.yaml")
[ "$replicas" = 2 ] || fail "deployment.yaml: replicas '$replicas', want 2"
grep -qx '              value: "0.0.0.0:8080 https://0.0.0.0:8443"' "$kube/deployment.yaml" ||
  fail "deployment.yaml: BENEATH_LISTEN is not 8080 and https:// 8443"
for p in 8080 8443; do
  grep -q "^      targetPort: $p " "$kube/service.yaml" || fail "service.yaml: no targetPort $p"
done

build_image "$bin" "$src" "$tag" "$tmp/build.log"
echo "ok: image built: $tag ($(since "$t0") s)"

# 1. the volumes, unchanged; Pebble's HTTPS certificate into beneath-acme
plays+=("$kube/volumes.yaml")
quiet podman kube play "$kube/volumes.yaml" >"$tmp/play-volumes.log" ||
  fail "podman kube play volumes.yaml: $(cat "$tmp/play-volumes.log")"
sites=$(podman volume inspect -f '{{.Mountpoint}}' beneath-sites) ||
  fail "no volume beneath-sites: $(cat "$tmp/play-volumes.log")"
acme=$(podman volume inspect -f '{{.Mountpoint}}' beneath-acme) ||
  fail "no volume beneath-acme: $(cat "$tmp/play-volumes.log")"
pebble_api_cert
install -m 644 "$tmp/api.pem" "$acme/pebble-api.pem"

# a site deployed once, before the replicas start: written into the volume
# as a deploy job with it mounted read-write would; its link into another
# tree of the volume is refused
mkdir -p "$sites/a.example" "$sites/.private"
echo "site a" >"$sites/a.example/index.html"
echo "not a site" >"$sites/.private/secret.txt"
ln -s ../.private/secret.txt "$sites/a.example/steal.txt"

# 2. deployment.yaml, its CA lines changed (above)
sed -e 's|^              value: letsencrypt-staging$|              value: https://127.0.0.1:14000/dir|' \
  -e '/^            - name: BENEATH_ACME_DIR$/i\            - name: BENEATH_ACME_CA_ROOT\n              value: /var/lib/beneath/acme/pebble-api.pem' \
  "$kube/deployment.yaml" >"$tmp/deployment.yaml"
[ "$(diff "$kube/deployment.yaml" "$tmp/deployment.yaml" | grep -c '^[<>]')" = 4 ] ||
  fail "deployment.yaml: not exactly the CA line changed and 2 lines added: $(diff "$kube/deployment.yaml" "$tmp/deployment.yaml")"
plays+=("$tmp/deployment.yaml")
quiet podman kube play "$tmp/deployment.yaml" >"$tmp/play.log" ||
  fail "podman kube play deployment.yaml: $(cat "$tmp/play.log")"
pids=()
for r in 0 1; do
  c=beneath-sites-pod-$r-beneath
  containers+=("$c")
  [ "$(podman inspect -f '{{.State.Status}}' "$c" 2>/dev/null)" = running ] ||
    fail "replica $r ($c) is not running: $(cat "$tmp/play.log")"
  [ -z "$(podman port "$c")" ] || fail "replica $r publishes a host port: $(podman port "$c")"
  pids+=("$(podman inspect -f '{{.State.Pid}}' "$c")")
done

# inpod R CMD...: CMD run from the host in replica R's network namespace
inpod() {
  local r=$1
  shift
  nsenter -t "${pids[$r]}" -n "$@"
}
# logged R REGEX: replica R's log has a line matching REGEX (bounded wait:
# podman's log file trails the container's stderr)
logged() {
  for _ in $(seq 50); do
    podman logs "beneath-sites-pod-$1-beneath" 2>&1 | grep -qE "$2" && return 0
    sleep 0.1
  done
  return 1
}
# get R HOST PATH: the status of a plain-HTTP GET on replica R; the body
# in $tmp/body, the headers in $tmp/head
get() {
  inpod "$1" curl -s --max-time 10 -o "$tmp/body" -D "$tmp/head" -w '%{http_code}' \
    -H "Host: $2" "http://127.0.0.1:8080$3" || true
}
# tls_get R HOST PATH: the same over https:// on 8443, HOST as SNI, the
# certificate verified against Pebble's root
tls_get() {
  inpod "$1" curl -s --max-time 20 --cacert "$tmp/root.pem" \
    --resolve "$2:8443:127.0.0.1" -o "$tmp/body" -w '%{http_code}' \
    "https://$2:8443$3" || true
}
# handshake R NAME: a TLS handshake naming NAME on replica R, the chain
# verified against Pebble's root; the leaf's SHA-256 fingerprint on stdout
handshake() {
  inpod "$1" timeout 30 openssl s_client -connect 127.0.0.1:8443 -servername "$2" \
    -verify_hostname "$2" -CAfile "$tmp/root.pem" -verify_return_error \
    </dev/null >"$tmp/s_client.out" 2>&1 || return 1
  openssl x509 -noout -fingerprint -sha256 <"$tmp/s_client.out" | sed 's/.*=//'
}
# orders NAME: how many of Pebble's validations were for NAME (one an
# order: authorizations are not reused, PEBBLE_AUTHZREUSE=0)
orders() { grep -c "Pulled a task from the Tasks queue: .*Value:\"$1\"" "$tmp/pebble.log" || true; }

for r in 0 1; do
  c=beneath-sites-pod-$r-beneath
  logged "$r" '^beneath: listening on https://0\.0\.0\.0:8443$' || fail "replica $r: not listening on 8443"
  logged "$r" '^beneath: acme: 0 certificates from https://127\.0\.0\.1:14000/dir \(http-01\), state in /var/lib/beneath/acme$' ||
    fail "replica $r: no ACME manager on Pebble's directory"
  [ "$(podman logs "$c" 2>&1 | grep '^beneath: resolver ')" = "beneath: resolver kernel (auto: openat2 available)" ] ||
    fail "replica $r: $(podman logs "$c" 2>&1 | grep '^beneath: resolver ')"
  walls "$c"
  logged "$r" '^beneath: sites /srv/sites: .*any other Host gets 421$' ||
    fail "replica $r: an unknown Host does not get 421: $(podman logs "$c" 2>&1 | grep '^beneath: sites')"
  [ "$(get "$r" a.example /healthz)" = 200 ] || fail "replica $r: /healthz over plain HTTP"
  code=$(get "$r" a.example '/x?y')
  loc=$(sed -n 's/^[Ll]ocation: *\(.*\)\r$/\1/p' "$tmp/head")
  [ "$code" = 308 ] && [ "$loc" = 'https://a.example/x?y' ] ||
    fail "replica $r: plain HTTP gave $code to '$loc', want 308 to https://a.example/x?y"
  echo "ok: replica $r: no host port, kernel backend, both walls, no root (421), plain HTTP 308 to $loc"
done

# 3. Pebble and its DNS in replica 0's network namespace; it validates
# HTTP-01 on replica 0's port 8080 (authorizations not reused: one
# validation is one order)
PEBBLE_AUTHZREUSE=0 pebble_netns "${pids[0]}" 8080 8443
for _ in $(seq 100); do
  inpod 0 curl -sf --cacert "$tmp/api.pem" -o "$tmp/root.pem" https://127.0.0.1:15000/roots/0 && break
  sleep 0.1
done
[ -s "$tmp/root.pem" ] || fail "Pebble did not start: $(tail -n 5 "$tmp/pebble.log")"
inpod 1 curl -s --max-time 5 --cacert "$tmp/api.pem" -o /dev/null https://127.0.0.1:14000/dir &&
  fail "replica 1 reaches Pebble: the test would not show that it orders nothing"
echo "ok: Pebble in replica 0's network namespace; replica 1 cannot reach it"

# 4. the site deployed once: replica 0 orders its certificate at the first
# handshake, replica 1 takes it from the shared --acme-dir
t=$(date +%s.%N)
fp0=$(handshake 0 a.example) || fail "replica 0: no certificate for a.example that verifies: $(tail -n 5 "$tmp/s_client.out")"
first=$(since "$t")
logged 0 '^beneath: acme: a\.example: certificate issued until ' ||
  fail "replica 0: a.example's certificate not issued: $(podman logs beneath-sites-pod-0-beneath 2>&1 | grep acme)"
logged 0 '^beneath: acme: another replica shares --acme-dir; waiting 2 s' ||
  fail "replica 0 did not see replica 1 sharing --acme-dir (the replicas lock)"
logged 1 '^beneath: acme: a\.example: answering http-01 for another replica$' ||
  fail "replica 1 did not read the challenge from the shared --acme-dir"
[ "$(tls_get 0 a.example /)" = 200 ] && [ "$(cat "$tmp/body")" = "site a" ] ||
  fail "replica 0: https://a.example/ gave $(cat "$tmp/body")"
[ "$(tls_get 0 a.example /steal.txt)" = 403 ] ||
  fail "replica 0: a link out of the site was not refused"
echo "ok: replica 0: a.example's certificate ordered at the first handshake (${first} s, the 2 s wait for the other replica included), verified; https://a.example/ is the site; a link out of it 403"
t=$(date +%s.%N)
fp1=$(handshake 1 a.example) || fail "replica 1: no certificate for a.example that verifies: $(tail -n 5 "$tmp/s_client.out")"
second=$(since "$t")
[ "$fp1" = "$fp0" ] || fail "replica 1 serves another certificate: $fp1, replica 0 $fp0"
logged 1 '^beneath: acme: a\.example: certificate from --acme-dir until .*, served$' ||
  fail "replica 1: a.example's certificate not read from --acme-dir: $(podman logs beneath-sites-pod-1-beneath 2>&1 | grep acme)"
[ "$(tls_get 1 a.example /)" = 200 ] && [ "$(cat "$tmp/body")" = "site a" ] ||
  fail "replica 1: https://a.example/ gave $(cat "$tmp/body")"
[ "$(stat -c %u "$acme/certs/a.example/cert.pem")" = 65532 ] ||
  fail "no certificate in the volume beneath-acme: $(ls -lR "$acme" | head)"
echo "ok: replica 1: the same certificate (${fp1:0:23}...) from the shared --acme-dir (${second} s), the site served"

# 5. a site created after start, by a symlink flip; then a new release
mkdir -p "$sites/.releases/b.example-1" "$sites/.releases/b.example-2"
echo "site b 1" >"$sites/.releases/b.example-1/index.html"
echo "site b 2" >"$sites/.releases/b.example-2/index.html"
flip() {
  ln -sfn ".releases/b.example-$1" "$sites/.b.example.new"
  mv -T "$sites/.b.example.new" "$sites/b.example"
}
flip 1
t=$(date +%s.%N)
handshake 0 b.example >"$tmp/b0.fp" || fail "replica 0: no certificate for b.example: $(tail -n 5 "$tmp/s_client.out")"
first=$(since "$t") t=$(date +%s.%N)
handshake 1 b.example >"$tmp/b1.fp" || fail "replica 1: no certificate for b.example: $(tail -n 5 "$tmp/s_client.out")"
second=$(since "$t")
cmp -s "$tmp/b0.fp" "$tmp/b1.fp" || fail "b.example: the replicas serve different certificates"
logged 1 '^beneath: acme: b\.example: certificate from --acme-dir until ' ||
  fail "replica 1: b.example's certificate not read from --acme-dir"
for r in 0 1; do
  [ "$(tls_get "$r" b.example /)" = 200 ] && [ "$(cat "$tmp/body")" = "site b 1" ] ||
    fail "replica $r: a site created after start: https://b.example/ gave $(cat "$tmp/body")"
done
flip 2
for r in 0 1; do
  [ "$(tls_get "$r" b.example /)" = 200 ] && [ "$(cat "$tmp/body")" = "site b 2" ] ||
    fail "replica $r: after the flip to release 2, https://b.example/ gave $(cat "$tmp/body")"
done
echo "ok: b.example created after start (a symlink flip): one certificate for both (first handshake: replica 0 $first s, replica 1 $second s), both serve it; flipped to release 2, both serve that at the next request"

# 6. a site renamed away: 421 on both at the next request (the handshake
# still has its certificate)
mv -T "$sites/a.example" "$sites/.a.example.old"
for r in 0 1; do
  code=$(tls_get "$r" a.example /)
  [ "$code" = 421 ] || fail "replica $r: a.example renamed away gave $code, want 421"
done
# a name with no directory: no certificate, nothing ordered
handshake 0 nosuch.example >/dev/null && fail "replica 0: a handshake for nosuch.example succeeded"
echo "ok: a.example renamed away: 421 on both; nosuch.example: the handshake fails"

# 7. one order per site at the CA, and none from replica 1
for r in 0 1; do
  podman logs "beneath-sites-pod-$r-beneath" 2>&1 | grep '^beneath: acme: ' >"$tmp/acme-$r.log" || true
done
grep -q ': ordering$' "$tmp/acme-1.log" && fail "replica 1 ordered: $(grep ': ordering$' "$tmp/acme-1.log")"
[ "$(grep -c ': ordering$' "$tmp/acme-0.log")" = 2 ] ||
  fail "replica 0: not 2 orders: $(grep ': ordering$' "$tmp/acme-0.log")"
for name in a.example b.example; do
  [ "$(orders "$name")" = 1 ] || fail "Pebble validated $name $(orders "$name") times, want 1"
done
[ "$(orders nosuch.example)" = 0 ] || fail "Pebble validated nosuch.example"
[ "$(grep -c 'Added order' "$tmp/pebble.log")" = 2 ] ||
  fail "Pebble has $(grep -c 'Added order' "$tmp/pebble.log") orders, want 2"
echo "ok: Pebble: one order and one validation for each site, none for nosuch.example; replica 1 ordered nothing ($(since "$t0") s in all)"
