#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test.sh - the beneath image in a real container engine (podman with runc),
# in a podman store of this run's own (deploy/podman-env.sh), so the
# shipped manifests play unchanged: build the image as the manifests name
# it (localhost/beneath:VERSION); serve a tree mounted read-only from a
# read-only root filesystem, with the image's HEALTHCHECK, under podman's
# default seccomp profile: the kernel backend and both walls (Landlock, the
# seccomp allow-list) up; then under that profile changed so that openat2
# answers ENOSYS, then EPERM: the emulated backend serves, the start-up line
# says that the container's filter refused openat2 (not the kernel), and the
# traversal set is still refused; then "podman kube play" of exactly the
# shipped deploy/kubernetes/ files: deployment.yaml (with configmap.yaml)
# brings up its two replicas, with no port on the host, each with the
# kernel backend and both walls under the manifest's securityContext and
# RuntimeDefault seccomp, serving the ConfigMap's page with the same content
# ETag (asked inside each pod's network namespace, on its 127.0.0.1); and
# play-local.yaml serves on 127.0.0.1 (its hostPort the only line changed:
# to a free port). Published ports are on 127.0.0.1 only; everything is
# removed on exit. Exits 77 (skipped) only where podman cannot run.
#   test.sh BENEATH_BIN SOURCE_DIR
set -euo pipefail
bin=$1 src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-container-XXXXXX")
version=$("$bin" --version | awk '{print $2}')
tag=localhost/beneath:$version
id=beneath-test
containers=() plays=()
cleanup() {
  for p in "${plays[@]}"; do podman kube down "$p" >/dev/null 2>&1 || true; done
  podman_isolated_down "$tmp"
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  container_logs "${containers[@]}"
  exit 1
}
skip() { echo "SKIP: $*"; exit 77; }

# shellcheck source=deploy/podman-env.sh
. "$src/deploy/podman-env.sh"
# shellcheck source=deploy/container/lib.sh
. "$src/deploy/container/lib.sh"
podman_env "$tmp" isolated >"$tmp/why" || skip "$(cat "$tmp/why")"
command -v jq >/dev/null || fail "jq is not installed (scripts/deps.sh test)"

build_image "$bin" "$src" "$tag" "$tmp/build.log"
size=$(podman image inspect -f '{{.Size}}' "$tag")
echo "ok: image built: $tag, $size bytes"
# docs/containers.md gives the size on Debian 12 amd64: within 5% there
if grep -q '^VERSION_ID="12"' /etc/os-release && [ "$(dpkg --print-architecture)" = amd64 ]; then
  doc=$(sed -n 's/.*(\([0-9.]*\) MB on Debian 12$/\1/p; s/.*(\([0-9.]*\) MB on Debian 12 amd64.*/\1/p' \
    "$src/docs/containers.md" | head -n 1)
  [ -n "$doc" ] || fail "docs/containers.md gives no size on Debian 12 amd64"
  awk -v d="$doc" -v s="$size" 'BEGIN { r = s / (d * 1e6); exit !(r > 0.95 && r < 1.05) }' ||
    fail "docs/containers.md says $doc MB, the image is $size bytes"
  echo "ok: docs/containers.md's $doc MB is the image's size ($size bytes)"
fi

# the served tree, with the traversal set planted in it
www=$tmp/www
mkdir -p "$www/sub"
echo "beneath in a container" >"$www/index.html"
echo "a page" >"$www/sub/page.html"
ln -s /etc/passwd "$www/passwd-abs"
ln -s ../../../../../../etc/passwd "$www/passwd-rel"
ln -s / "$www/rootlink"
chmod -R a+rX "$www"
traversal=(/../etc/passwd /../../../../etc/passwd /%2e%2e/etc/passwd
  /%2e%2e/%2e%2e/etc/passwd /sub/..%2f..%2fetc/passwd /passwd-abs /passwd-rel
  /rootlink/etc/passwd //etc/passwd)

# run NAME [podman run options...]: serve $www read-only; sets $port.
# Not in a $(...) subshell: $containers must reach the cleanup.
run() {
  local name=$id-$1
  shift
  containers+=("$name")
  port=
  quiet podman run -d --name "$name" --read-only --cap-drop=all \
    --security-opt no-new-privileges -v "$www:/srv/www:ro" \
    -p 127.0.0.1::8080 "$@" "$tag" >/dev/null </dev/null ||
    fail "podman run $name"
  port=$(podman port "$name" 8080 | sed -n 's/^127\.0\.0\.1:\([0-9]*\)$/\1/p')
  for _ in $(seq 100); do
    podman logs "$name" 2>&1 | grep -q "listening on" && break
    sleep 0.1
  done
  [ -n "$port" ] || fail "$name: no published port"
}

# check NAME PORT BACKEND_LINE: content served, traversal refused, the
# resolver's start-up line exactly BACKEND_LINE, both walls up
check() {
  local name=$1 port=$2 want=$3 code body
  local line
  line=$(podman logs "$name" 2>&1 | grep '^beneath: resolver ' || true)
  [ "$line" = "beneath: resolver $want" ] ||
    fail "$name: start-up line '$line', want 'beneath: resolver $want'"
  walls "$name"
  body=$(curl -fsS "http://127.0.0.1:$port/") || fail "$name: GET /"
  [ "$body" = "beneath in a container" ] || fail "$name: GET / gave '$body'"
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/sub/page.html")
  [ "$code" = 200 ] || fail "$name: /sub/page.html: $code"
  for path in "${traversal[@]}"; do
    code=$(curl -s --path-as-is -o "$tmp/body" -w '%{http_code}' \
      "http://127.0.0.1:$port$path")
    case "$code" in
    400 | 403 | 404) ;;
    *) fail "$name: $path answered $code" ;;
    esac
    ! grep -q 'root:x:0:0\|nonroot:x:65532' "$tmp/body" ||
      fail "$name: $path served a passwd file"
  done
  echo "ok: $name: $line; both walls; ${#traversal[@]} traversal paths refused"
}

# 1. the default profile: openat2 allowed, the kernel backend serves
run plain
check "$id-plain" "$port" "kernel (auto: openat2 available)"
quiet podman healthcheck run "$id-plain" >/dev/null ||
  fail "the image's HEALTHCHECK (beneath --probe) failed"
[ "$(podman inspect -f '{{.HostConfig.ReadonlyRootfs}}' "$id-plain")" = true ] ||
  fail "root filesystem not read-only"
echo "ok: HEALTHCHECK healthy, read-only root, user $(podman inspect -f '{{.Config.User}}' "$id-plain")"

# 2. podman's default profile with openat2 answering ENOSYS, then EPERM
profile=/usr/share/containers/seccomp.json
[ -f "$profile" ] || fail "no $profile"
for e in ENOSYS:38 EPERM:1; do
  name=${e%%:*} num=${e##*:}
  jq --argjson errno "$num" '
    .syscalls |= map(.names -= ["openat2"] | select(.names | length > 0))
    | .syscalls += [{"names": ["openat2"], "action": "SCMP_ACT_ERRNO",
                     "errnoRet": $errno}]' "$profile" >"$tmp/seccomp-$name.json"
  jq -e '[.syscalls[] | select(.names | index("openat2"))] | length == 1' \
    "$tmp/seccomp-$name.json" >/dev/null || fail "derived profile $name"
  run "$(tr 'A-Z' 'a-z' <<<"$name")" --security-opt "seccomp=$tmp/seccomp-$name.json"
  check "$id-$(tr 'A-Z' 'a-z' <<<"$name")" "$port" \
    "emulated (auto: openat2 refused with $name by a seccomp filter in place before beneath started (Seccomp_filters: 1, NoNewPrivs: 1 in /proc/self/status), not by the kernel: that filter (a container runtime's seccomp profile, or a parent's) must allow openat2); directory cache: 493 per worker"
done

# 3. the shipped Kubernetes files, unchanged: the Deployment's replicas
kube=$src/deploy/kubernetes
grep -qx "          image: $tag" "$kube/deployment.yaml" ||
  fail "deployment.yaml does not name the image $tag: $(grep 'image:' "$kube/deployment.yaml")"
replicas=$(sed -n 's/^  replicas: \([0-9]*\)$/\1/p' "$kube/deployment.yaml")
[ "$replicas" = 2 ] || fail "deployment.yaml: replicas '$replicas', want 2"
plays+=("$kube/deployment.yaml")
quiet podman kube play --configmap "$kube/configmap.yaml" "$kube/deployment.yaml" \
  >"$tmp/play.log" || fail "podman kube play deployment.yaml: $(cat "$tmp/play.log")"
etags=()
for r in $(seq 0 $((replicas - 1))); do
  c=beneath-pod-$r-beneath
  containers+=("$c")
  [ "$(podman inspect -f '{{.State.Status}}' "$c" 2>/dev/null)" = running ] ||
    fail "replica $r ($c) is not running: $(cat "$tmp/play.log")"
  [ -z "$(podman port "$c")" ] || fail "replica $r publishes a host port: $(podman port "$c")"
  pid=$(podman inspect -f '{{.State.Pid}}' "$c")
  # inside the pod's network namespace, on its own 127.0.0.1
  pod_get() { nsenter -t "$pid" -n curl -s "$@"; }
  code=
  for _ in $(seq 100); do
    code=$(pod_get -o "$tmp/kbody" -D "$tmp/khead" -w '%{http_code}' http://127.0.0.1:8080/ || true)
    [ "$code" = 200 ] && break
    sleep 0.1
  done
  [ "$code" = 200 ] || fail "replica $r: GET / gave '$code'"
  grep -q "Served by beneath" "$tmp/kbody" || fail "replica $r: not the ConfigMap's page"
  [ "$(pod_get -o /dev/null -w '%{http_code}' http://127.0.0.1:8080/healthz)" = 200 ] ||
    fail "replica $r: /healthz"
  [ "$(podman logs "$c" 2>&1 | grep '^beneath: resolver ')" = "beneath: resolver kernel (auto: openat2 available)" ] ||
    fail "replica $r: $(podman logs "$c" 2>&1 | grep '^beneath: resolver ')"
  walls "$c"
  etag=$(sed -n 's/^[Ee][Tt][Aa][Gg]: *\(.*\)\r$/\1/p' "$tmp/khead")
  [ -n "$etag" ] || fail "replica $r: no ETag"
  etags+=("$etag")
  echo "ok: replica $r of the shipped Deployment: no host port, kernel backend, both walls, 200, ETag $etag"
done
[ "${etags[0]}" = "${etags[1]}" ] || fail "ETags differ: ${etags[*]}"
code=$(pod_get -o /dev/null -w '%{http_code}' -H "If-None-Match: ${etags[0]}" http://127.0.0.1:8080/)
[ "$code" = 304 ] || fail "If-None-Match with replica 0's ETag on replica 1: $code"
echo "ok: both replicas give ETag ${etags[0]}; replica 0's ETag revalidates on replica 1 (304)"

# 4. play-local.yaml: one pod on 127.0.0.1; only its host port is changed,
# to one that is free (8080 may be taken on this machine)
hp=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed "s/^          hostPort: 8080\$/          hostPort: $hp/" "$kube/play-local.yaml" >"$tmp/play-local.yaml"
[ "$(diff "$kube/play-local.yaml" "$tmp/play-local.yaml" | grep -c '^[<>]')" = 2 ] ||
  fail "play-local.yaml: not exactly its hostPort line changed"
plays+=("$tmp/play-local.yaml")
containers+=(beneath-local-beneath)
quiet podman kube play --configmap "$kube/configmap.yaml" "$tmp/play-local.yaml" \
  >"$tmp/play-local.log" || fail "podman kube play play-local.yaml: $(cat "$tmp/play-local.log")"
for _ in $(seq 100); do
  code=$(curl -s -o "$tmp/kbody" -w '%{http_code}' "http://127.0.0.1:$hp/" || true)
  [ "$code" = 200 ] && break
  sleep 0.1
done
[ "$code" = 200 ] && grep -q "Served by beneath" "$tmp/kbody" ||
  fail "play-local.yaml on 127.0.0.1:$hp: GET / gave '$code'"
walls beneath-local-beneath
echo "ok: play-local.yaml serves the ConfigMap's page on 127.0.0.1 ($hp), both walls up"
