# shellcheck shell=bash
# deploy/listen-url.sh: sourced by test-install.sh and test-deb.sh, not run.
#
# listen_url ERRFILE: wait up to 5 s for beneath's "listening on" line in
# ERRFILE (its stderr) and print the URL it names; nothing if none came.
listen_url() {
  for _ in $(seq 100); do
    grep -q "listening on" "$1" && break
    sleep 0.05
  done
  sed -n 's/^beneath: listening on \(http:[^ ]*\)$/\1/p' "$1" | head -n 1
}
