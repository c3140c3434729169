# shellcheck shell=bash
# deploy/container/lib.sh: sourced by the container tests (test.sh,
# test-sites.sh), not run. Each caller defines fail MESSAGE.

# quiet CMD...: CMD with podman's healthcheck-timer and syslog complaints
# (no systemd, no syslog here: not ours) taken out of its stderr
quiet() { "$@" 2> >(grep -v 'systemd connection\|connect to syslog' >&2); }

# build_image BENEATH_BIN SOURCE_DIR TAG LOG: the image, as the manifests
# name it
build_image() {
  BENEATH_BIN=$1 "$2/deploy/container/build" "$3" >"$4" 2>&1 ||
    fail "image build: $(tail -n 20 "$4")"
}

# walls NAME: the start-up lines of container NAME name both walls up
walls() {
  local line
  line=$(podman logs "$1" 2>&1 | grep '^beneath: sandbox: ' | head -n 1 || true)
  grep -qE '^beneath: sandbox: landlock ABI [0-9]+ \(.*\), seccomp allow-list \([0-9]+ calls, EPERM for the rest\)$' <<<"$line" ||
    fail "$1: not both walls up: '$line'"
}

# container_logs NAME...: the last 20 lines of each container's log, on
# stderr (what fail shows)
container_logs() {
  local c
  for c in "$@"; do
    echo "--- podman logs $c" >&2
    podman logs "$c" 2>&1 | grep -v 'systemd connection' | tail -n 20 >&2 || true
  done
}
