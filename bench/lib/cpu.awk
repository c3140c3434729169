# cpu.awk: cpu.csv (bench/cpu.sh, one row per round x file x configuration)
# -> a markdown table on stdout and summary.csv (variable summary = its path).
# Variables: configs and files (names in table order, separated by spaces),
# ref (the configuration ratios are taken to: nginx), kernel and emulated
# (the names the targets compare). Per configuration and file, over the
# rounds whose row is ok: server CPU per request in µs (median, min .. max),
# its ratio to ref's row of the same round and file (median, min .. max),
# requests/s (median, min .. max), and the median p50/p99 latency.
# POSIX awk (Debian's mawk); reading the CSV, median and label: lib/stats.awk.
# rmed(a, b, f): median over the rounds of a's CPU/request / b's, "" if none
function rmed(a, b, f,   k, r, n, v, rd) {
  n = ok_rounds(f, a, b, rd)
  split("", v)
  for (k = 1; k <= n; k++) {
    r = rd[k]
    v[k] = cpu[r, f, a] / cpu[r, f, b]
  }
  if (n == 0) return ""
  rlo = 0; rhi = 0
  m = median(v, n)
  rlo = v[1]; rhi = v[n]
  return m
}
{
  ok[r, f, c] = $col["status"] == "ok" && $col["requests"] > 0 && $col["cpu_ns"] > 0
  cpu[r, f, c] = $col["cpu_ns_per_request"] / 1000
  rps[r, f, c] = $col["rps"]; p50[r, f, c] = $col["p50_us"]; p99[r, f, c] = $col["p99_us"]
}
END {
  table_head("| configuration | file | rounds | CPU µs/request: median | min .. max | ÷ " ref ": median | min .. max | req/s: median | min .. max | p50 µs | p99 µs |",
    "config,file,rounds,cpu_us_median,cpu_us_min,cpu_us_max,ratio_ref_median,ratio_ref_min,ratio_ref_max,rps_median,rps_min,rps_max,p50_us_median,p99_us_median")
  for (t = 1; t <= nrow; t++) {
    f = row_f[t]; c = row_c[t]
    n = ok_rounds(f, c, "", rd)
    split("", cv); split("", rv); split("", av); split("", bv)
    for (k = 1; k <= n; k++) {
      r = rd[k]
      cv[k] = cpu[r, f, c]; rv[k] = rps[r, f, c]; av[k] = p50[r, f, c]; bv[k] = p99[r, f, c]
    }
    if (n == 0) {
      printf "| %s | %s | 0 | not measured | — | — | — | — | — | — | — |\n", c, label(f)
      printf "%s,%s,0,,,,,,,,,,,\n", c, f >summary
      continue
    }
    cm = median(cv, n); rm = median(rv, n); am = median(av, n); bm = median(bv, n)
    rr = rmed(c, ref, f)
    rr_md = rr == "" ? "—" : sprintf("%.2f×", rr)
    rr_mm = rr == "" ? "—" : sprintf("%.2f .. %.2f", rlo, rhi)
    printf "| %s | %s | %d | **%.1f** | %.1f .. %.1f | %s | %s | %.0f | %.0f .. %.0f | %d | %d |\n", c, label(f), n,
      cm, cv[1], cv[n], rr_md, rr_mm, rm, rv[1], rv[n], am, bm
    printf "%s,%s,%d,%.2f,%.2f,%.2f,%s,%s,%s,%.0f,%.0f,%.0f,%d,%d\n", c, f, n, cm, cv[1], cv[n],
      rr == "" ? "" : sprintf("%.3f", rr), rr == "" ? "" : sprintf("%.3f", rlo),
      rr == "" ? "" : sprintf("%.3f", rhi), rm, rv[1], rv[n], am, bm >summary
  }
  # targets (ratios of CPU per request within this run, lower is better)
  print ""
  print "| target (CPU per request, same rounds) | file | measured: median (min .. max) | verdict |"
  print "|---|---|---|---|"
  for (fi = 1; fi <= nf; fi++) {
    f = fil[fi]
    rr = rmed(kernel, ref, f)
    if (rr == "") printf "| %s ≤ 1.0× %s | %s | not measured | — |\n", kernel, ref, label(f)
    else printf "| %s ≤ 1.0× %s (stretch 0.85×) | %s | %.2f× (%.2f .. %.2f) | %s |\n", kernel, ref, label(f),
      rr, rlo, rhi, rr <= 0.85 ? "met, stretch met" : rr <= 1.0 ? "met" : "NOT met"
  }
  # other beneath binaries (bench/cpu.sh --also) against the kernel row
  for (ci = 1; ci <= nc; ci++) {
    c = cfg[ci]
    if (c !~ /^kernel:/ || c == kernel) continue
    for (fi = 1; fi <= nf; fi++) {
      f = fil[fi]
      rr = rmed(c, kernel, f)
      if (rr == "") printf "| %s ÷ %s (no target) | %s | not measured | — |\n", c, kernel, label(f)
      else printf "| %s ÷ %s (no target) | %s | %.2f× (%.2f .. %.2f) | — |\n", c, kernel, label(f), rr, rlo, rhi
    }
  }
  for (fi = 1; fi <= nf; fi++) {
    f = fil[fi]
    rr = rmed(emulated, kernel, f)
    if (rr == "") printf "| %s ≤ 1.1× %s | %s | not measured | — |\n", emulated, kernel, label(f)
    else printf "| %s ≤ 1.1× %s | %s | %.2f× (%.2f .. %.2f) | %s |\n", emulated, kernel, label(f),
      rr, rlo, rhi, rr <= 1.1 ? "met" : "NOT met"
  }
}
