# targets.awk: issue 6's speed targets, checked against one run.
#   awk -F, -f targets.awk results.csv rss.csv
# Prints a small table: target, measured value, met / NOT met / not measured.
# "default flags" are measured with the flag set `beneath` (the default adds
# no-magiclinks, which the benchmark tree never meets).
FNR == 1 { file_no++; next }
file_no == 1 && $11 == "ok" { rps[$1 SUBSEP $7 SUBSEP $10] = $15; mbps[$1 SUBSEP $7 SUBSEP $10] = $18 }
file_no == 2 { rss_idle[$1] = $3; rss_opened[$1] = $4; rss_held[$1] = $5; rss_conns[$1] = $6 }
function row(what, value, verdict) { printf "%-64s %-16s %s\n", what, value, verdict }
function cmp(what, a, b, op, limit, arr,   ka, kb, r) {
  ka = a; kb = b
  if (!(ka in arr) || !(kb in arr) || arr[kb] <= 0) { row(what, "-", "not measured"); return }
  r = arr[ka] / arr[kb]
  if (op == "info") row(what, sprintf("%.2fx", r), "")
  else row(what, sprintf("%.2fx", r), (op == ">=" ? r >= limit : r <= limit) ? "met" : "NOT met")
}
function over(what, a, b, limit,   r) {
  if (!(a in rps) || !(b in rps) || rps[b] <= 0) { row(what, "-", "not measured"); return }
  r = (1 - rps[a] / rps[b]) * 100
  row(what, sprintf("%.1f%%", r), r <= limit ? "met" : "NOT met")
}
function key(c, f, n) { return c SUBSEP f SUBSEP n }
END {
  k = "kernel:beneath"; off = "nginx:disable_symlinks=off"; on = "nginx:disable_symlinks=on"
  lt = "lighttpd:follow-symlink=enable"
  row("target (50 connections unless said)", "measured", "verdict")
  cmp("kernel >= 1.0x nginx (symlinks off), 1 KiB depth 1", key(k, "1k-d1", 50), key(off, "1k-d1", 50), ">=", 1.0, rps)
  cmp("kernel >= 2.0x nginx (disable_symlinks on), 1 KiB depth 8", key(k, "1k-d8", 50), key(on, "1k-d8", 50), ">=", 2.0, rps)
  over("kernel overhead vs lexical <= 3%, 1 KiB depth 8", key(k, "1k-d8", 50), key("lexical:beneath", "1k-d8", 50), 3)
  over("emulated overhead vs lexical <= 15%, 1 KiB depth 8", key("emulated:beneath", "1k-d8", 50), key("lexical:beneath", "1k-d8", 50), 15)
  cmp("kernel >= 0.9x nginx MB/s, 10 MiB", key(k, "10m", 50), key(off, "10m", 50), ">=", 0.9, mbps)
  cmp("kernel >= 0.9x nginx MB/s, 10 MiB, 1 connection", key(k, "10m", 1), key(off, "10m", 1), ">=", 0.9, mbps)
  if (k in rss_idle && rss_idle[k] != "")
    row("kernel RSS idle < 10 MiB", sprintf("%.1f MiB", rss_idle[k] / 1024), rss_idle[k] < 10240 ? "met" : "NOT met")
  else
    row("kernel RSS idle < 10 MiB", "-", "not measured")
  if (k in rss_conns && rss_conns[k] != "" && rss_held[k] >= 1000)
    row("kernel RSS with 1,000 idle keep-alive connections < 64 MiB", sprintf("%.1f MiB", rss_conns[k] / 1024),
      rss_conns[k] < 65536 ? "met" : "NOT met")
  else
    row("kernel RSS with 1,000 idle keep-alive connections < 64 MiB",
      (k in rss_held) ? sprintf("%s held", rss_held[k]) : "-", "not measured (fewer than 1,000 held)")
  # not targets, but the issue asks how far beneath is from lighttpd
  cmp("kernel / lighttpd (no target, for reference), 1 KiB depth 1", key(k, "1k-d1", 50), key(lt, "1k-d1", 50), "info", 0, rps)
  cmp("kernel / lighttpd (no target, for reference), 1 KiB depth 8", key(k, "1k-d8", 50), key(lt, "1k-d8", 50), "info", 0, rps)
}
