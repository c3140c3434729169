# shellcheck shell=bash
# deploy/podman-env.sh: sourced by the tests that run podman (the image's,
# the systemd one), not run.
#
# podman_env DIR: set rootful podman up for this machine kind, with its
# containers.conf in DIR: hybrid cgroups (crun refuses them, runc works)
# and hard limits lower than the ones rootful podman asks for by default.
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
  if ! podman info >/dev/null 2>&1; then
    echo "podman cannot run here: $(podman info 2>&1 | tail -n 1)"
    return 1
  fi
}
