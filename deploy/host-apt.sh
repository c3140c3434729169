# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# deploy/host-apt.sh: sourced, not run. How this machine reaches Debian's
# packages, read from its own apt configuration at run time (the mirror is
# never written into the repository), for the debootstrapped roots of the
# tests (deploy/debian-root.sh, tests/fresh_machine.sh).

# host_apt_sources: Debian 12's entries of this machine's apt sources, one
# "deb URI SUITE COMPONENT..." line each: the one-line files
# (/etc/apt/sources.list, sources.list.d/*.list) and the deb822 ones
# (sources.list.d/*.sources), "deb" entries only, not "Enabled: no", with
# suites bookworm, bookworm-updates, bookworm-security or
# bookworm-backports and Debian's components (another vendor's repository
# needs a key a new root does not have). Options ([signed-by=...]) are
# dropped: Debian's keys are in every Debian root.
host_apt_sources() {
  local d=/etc/apt
  {
    for f in "$d/sources.list" "$d"/sources.list.d/*.list; do
      [ -f "$f" ] || continue
      sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk '$1 == "deb" && NF >= 4'
    done
    for f in "$d"/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      # paragraphs of "Field: value" lines; a value may go on over
      # indented lines
      awk '
        function flush(   i, j, k, nu, ns, u, s) {
          if (types ~ /(^| )deb( |$)/ && tolower(enabled) != "no") {
            nu = split(uris, u, " "); ns = split(suites, s, " ")
            for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++)
              print "deb", u[i], s[j], comps
          }
          types = uris = suites = comps = enabled = ""; last = ""
        }
        /^[ \t]*#/ { next }
        /^[ \t]*$/ { flush(); next }
        /^[ \t]/ {
          v = $0; gsub(/^[ \t]+|[ \t]+$/, "", v)
          if (last == "uris") uris = uris " " v
          else if (last == "suites") suites = suites " " v
          else if (last == "components") comps = comps " " v
          next
        }
        {
          k = tolower(substr($0, 1, index($0, ":") - 1)); v = substr($0, index($0, ":") + 1)
          gsub(/^[ \t]+|[ \t]+$/, "", v); last = k
          if (k == "types") types = v; else if (k == "uris") uris = v
          else if (k == "suites") suites = v; else if (k == "components") comps = v
          else if (k == "enabled") enabled = v
        }
        END { flush() }' "$f"
    done
  } | awk '$3 ~ /^bookworm(-updates|-security|-backports)?$/ {
      ok = 1
      for (i = 4; i <= NF; i++)
        if ($i !~ /^(main|contrib|non-free|non-free-firmware)$/) ok = 0
      if (ok && !seen[$0]++) { $1 = $1; print }
    }'
}

# host_apt_mirror: the URI of this machine's "bookworm" entry (the mirror
# debootstrap fetches from); $BENEATH_DEBIAN_MIRROR when set. Fails with a
# message when there is none.
host_apt_mirror() {
  if [ -n "${BENEATH_DEBIAN_MIRROR:-}" ]; then
    echo "$BENEATH_DEBIAN_MIRROR"
    return 0
  fi
  local m
  m=$(host_apt_sources | awk '$3 == "bookworm" { print $2; exit }')
  if [ -z "$m" ]; then
    echo "no Debian 12 (bookworm) entry in /etc/apt/sources.list or /etc/apt/sources.list.d/" >&2
    return 1
  fi
  echo "${m%/}"
}

# host_apt_conf: this machine's apt settings for reaching the mirror, as
# apt.conf lines: proxies, and whether the Release files' dates are checked
# (a mirror frozen at a snapshot needs Check-Valid-Until "false").
host_apt_conf() {
  apt-config dump 2>/dev/null |
    grep -E '^Acquire::(Check-Valid-Until|Check-Date|Max-ValidTime|https?::Proxy)( |::)' || true
}

# host_apt_proxy: the http proxy apt uses here, for debootstrap and curl
# (empty: none).
host_apt_proxy() {
  apt-config shell p Acquire::http::Proxy 2>/dev/null | sed -n "s/^p='\(.*\)'$/\1/p"
}
