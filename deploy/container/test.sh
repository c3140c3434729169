#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test.sh - the beneath image in a real container engine (podman with runc):
# build it; serve a tree mounted read-only from a read-only root filesystem,
# with the image's HEALTHCHECK; serve under podman's default seccomp profile
# changed so that openat2 answers ENOSYS, then EPERM: the start-up line must
# say the emulated backend serves and the traversal set must still be
# refused; run the Kubernetes Deployment with "podman kube play", one replica
# per host port, and get 200 and the same content ETag from both. Ports are
# published on 127.0.0.1 only; everything started is removed on exit.
# Exits 77 (skipped) where podman cannot run containers.
#   test.sh BENEATH_BIN SOURCE_DIR
set -euo pipefail
bin=$1 src=$2
id=beneath-test-$$
tag=localhost/$id:latest
tmp=$(mktemp -d "${TMPDIR:-/tmp}/beneath-container-XXXXXX")
containers=() plays=()
cleanup() {
  for p in "${plays[@]}"; do podman kube down "$p" >/dev/null 2>&1 || true; done
  for c in "${containers[@]}" $(podman ps -a -q --filter "name=^$id-" 2>/dev/null); do
    podman rm -f -t 2 "$c" >/dev/null 2>&1 || true
  done
  podman rmi -f "$tag" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  for c in "${containers[@]}"; do
    echo "--- podman logs $c" >&2
    podman logs "$c" 2>&1 | grep -v 'systemd connection' | tail -n 20 >&2 || true
  done
  exit 1
}
skip() { echo "SKIP: $*"; exit 77; }

# shellcheck source=deploy/podman-env.sh
. "$src/deploy/podman-env.sh"
podman_env "$tmp" >"$tmp/why" || skip "$(cat "$tmp/why")"
command -v jq >/dev/null || skip "jq is not installed"

# podman prints healthcheck-timer errors without a running systemd: not ours
quiet() { "$@" 2> >(grep -v 'systemd connection\|connect to syslog' >&2); }

BENEATH_BIN=$bin "$src/deploy/container/build" "$tag" >"$tmp/build.log" 2>&1 ||
  fail "image build: $(tail -n 20 "$tmp/build.log")"
echo "ok: image built: $tag, $(podman image inspect -f '{{.Size}}' "$tag") bytes"

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

# check NAME PORT BACKEND: content served, traversal refused, backend named
check() {
  local name=$1 port=$2 backend=$3 code body
  local line
  line=$(podman logs "$name" 2>&1 | grep '^beneath: resolver ' || true)
  [[ "$line" == "beneath: resolver $backend"* ]] ||
    fail "$name: start-up line '$line', want backend $backend"
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
  echo "ok: $name: $line; ${#traversal[@]} traversal paths refused"
}

# 1. the default profile: openat2 allowed, the kernel backend serves
run plain
check "$id-plain" "$port" kernel
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
  check "$id-$(tr 'A-Z' 'a-z' <<<"$name")" "$port" emulated
done

# 3. the Kubernetes Deployment with podman kube play: podman plays one
# replica per Deployment, so two plays of variants, each with a host port
etags=()
for r in a b; do
  hp=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  sed -e "s/^  name: beneath\$/  name: $id-$r/" \
    -e 's/^  replicas: [0-9]*$/  replicas: 1/' \
    -e "s|^          image: .*|          image: $tag|" \
    -e "s/^              containerPort: 8080\$/              containerPort: 8080\\n              hostPort: $hp\\n              hostIP: 127.0.0.1/" \
    "$src/deploy/kubernetes/deployment.yaml" >"$tmp/deploy-$r.yaml"
  grep -q "hostPort: $hp" "$tmp/deploy-$r.yaml" || fail "variant manifest $r"
  { cat "$src/deploy/kubernetes/configmap.yaml"; echo ---; cat "$tmp/deploy-$r.yaml"; } \
    >"$tmp/play-$r.yaml"
  plays+=("$tmp/play-$r.yaml")
  quiet podman kube play "$tmp/play-$r.yaml" >"$tmp/play-$r.log" ||
    fail "podman kube play: $(cat "$tmp/play-$r.log")"
  ok=
  for _ in $(seq 100); do
    code=$(curl -s -o "$tmp/kbody" -D "$tmp/khead" -w '%{http_code}' \
      "http://127.0.0.1:$hp/" || true)
    [ "$code" = 200 ] && ok=1 && break
    sleep 0.1
  done
  [ -n "$ok" ] || fail "kube replica $r: GET / gave $code"
  grep -q "Served by beneath" "$tmp/kbody" || fail "kube replica $r: not the ConfigMap's page"
  hc=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$hp/healthz")
  [ "$hc" = 200 ] || fail "kube replica $r: /healthz gave $hc"
  etag=$(sed -n 's/^[Ee][Tt][Aa][Gg]: *\(.*\)\r$/\1/p' "$tmp/khead")
  [ -n "$etag" ] || fail "kube replica $r: no ETag"
  etags+=("$etag")
  echo "ok: kube replica $r on 127.0.0.1:$hp: 200, ETag $etag"
done
[ "${etags[0]}" = "${etags[1]}" ] || fail "ETags differ: ${etags[*]}"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: ${etags[0]}" \
  "http://127.0.0.1:$hp/")
[ "$code" = 304 ] || fail "If-None-Match with replica a's ETag on replica b: $code"
echo "ok: both replicas give ETag ${etags[0]}; replica a's ETag revalidates on replica b (304)"
