# shellcheck shell=bash
# deploy/podman-env.sh: sourced by the tests that run podman (the image's,
# the systemd one), not run.
#
# podman_env DIR [isolated]: set rootful podman up for this machine kind,
# with its containers.conf in DIR: hybrid cgroups (crun refuses them, runc
# works) and hard limits lower than the ones rootful podman asks for by
# default. "isolated": images, containers, pods and volumes in a store of
# their own under DIR, so the names a test uses (the shipped manifests')
# cannot meet another run's; podman_isolated_down empties it.
# Prints why podman cannot run here (not root, not installed, "podman info"
# fails) and returns 1; the caller skips with that reason. Call it in this
# shell, not in $(...): it exports CONTAINERS_CONF.
podman_env() {
  if ! command -v podman >/dev/null; then
    echo "podman is not installed (scripts/deps.sh test installs it)"
    return 1
  fi
  if [ "$(id -u)" -ne 0 ]; then
    echo "the test runs rootful podman: run it as root"
    return 1
  fi
  cat >"$1/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=4096:4096", "nproc=1024:1024"]
[engine]
runtime = "runc"
CONF
  export CONTAINERS_CONF=$1/containers.conf
  if [ "${2:-}" = isolated ]; then
    mkdir -p "$1/podman"
    # [engine] is the file's last table; no events log to outlive the store
    printf 'tmp_dir = "%s/podman/tmp"\nevents_logger = "none"\n' "$1" \
      >>"$1/containers.conf"
    printf '[storage]\ndriver = "overlay"\nrunroot = "%s/podman/run"\ngraphroot = "%s/podman/storage"\n' \
      "$1" "$1" >"$1/storage.conf"
    export CONTAINERS_STORAGE_CONF=$1/storage.conf
  fi
  if ! podman info >/dev/null 2>&1; then
    echo "podman cannot run here: $(podman info 2>&1 | tail -n 1)"
    return 1
  fi
}

# podman_isolated_down DIR: remove everything in podman_env's isolated store
# under DIR (pods, containers, volumes, images) and unmount what is left.
podman_isolated_down() {
  [ -n "${CONTAINERS_STORAGE_CONF:-}" ] || return 0
  podman pod rm -a -f -t 1 >/dev/null 2>&1 || true
  podman rm -a -f -t 1 >/dev/null 2>&1 || true
  podman volume rm -a -f >/dev/null 2>&1 || true
  podman rmi -a -f >/dev/null 2>&1 || true
  { findmnt -rn -o TARGET | grep "^$1/podman/" || true; } | sort -r |
    while read -r m; do umount -l "$m" 2>/dev/null || true; done
  # conmon's exit commands ("podman container cleanup") may still be
  # writing their lock and exit files for a moment
  for _ in 1 2 3 4 5; do
    rm -rf "$1/podman" 2>/dev/null && [ ! -e "$1/podman" ] && break
    sleep 0.5
  done
}
