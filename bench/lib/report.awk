# report.awk: raw.csv (bench/run) -> results.csv (with ratios), table.txt, and
# the gnuplot data files rps.dat and overhead.dat. Variables: outdir, cc (the
# connection count the charts show). POSIX awk (Debian's mawk).
function twin(i) { # the unconfined configuration this row is compared with
  if (srv[i] == "beneath") return "lexical:" flg[i]
  if (srv[i] == "nginx") return "nginx:disable_symlinks=off"
  if (srv[i] == "lighttpd") return "lighttpd:follow-symlink=enable"
  return ""
}
function lexical(i) {
  return srv[i] == "beneath" ? "lexical:" flg[i] : "lexical:beneath"
}
function ratio(ref, i,   k) {
  k = ref SUBSEP file[i] SUBSEP conns[i]
  if (st[i] != "ok" || !(k in okrps) || okrps[k] <= 0) return ""
  return sprintf("%.3f", rps[i] / okrps[k])
}
NR == 1 { header = $0; next }
{
  n++
  line[n] = $0; cfg[n] = $1; srv[n] = $2; flg[n] = $4; file[n] = $7
  conns[n] = $10; st[n] = $11; rps[n] = $15; p50[n] = $16; p99[n] = $17; mbps[n] = $18
  if ($11 == "ok") okrps[$1 SUBSEP $7 SUBSEP $10] = $15
  if (!($1 in seencfg)) { seencfg[$1] = 1; cfgs[++ncfg] = $1 }
  if (!($7 in seenfile) && $7 != "10m") { seenfile[$7] = 1; files[++nfile] = $7 }
}
END {
  csv = outdir "/results.csv"
  table = outdir "/table.txt"
  print header ",ratio_lexical,ratio_nginx,overhead_pct" > csv
  printf "%-34s %-6s %5s %-11s %9s %8s %8s %8s %9s %11s %8s\n", "config", "file", "conns",
    "status", "req/s", "p50_us", "p99_us", "MB/s", "ratio_lex", "ratio_nginx", "overhead" > table
  for (i = 1; i <= n; i++) {
    rl = ratio(lexical(i), i)
    rn = ratio("nginx:disable_symlinks=off", i)
    rt = ratio(twin(i), i)
    ov = rt == "" ? "" : sprintf("%.1f", (1 - rt) * 100)
    if (rt != "") overhead[cfg[i] SUBSEP file[i] SUBSEP conns[i]] = ov
    print line[i], rl, rn, ov > csv
    if (st[i] == "ok")
      printf "%-34s %-6s %5d %-11s %9d %8d %8d %8.1f %9s %11s %7s%%\n", cfg[i], file[i], conns[i],
        st[i], rps[i], p50[i], p99[i], mbps[i], rl == "" ? "-" : rl, rn == "" ? "-" : rn,
        ov == "" ? "-" : ov > table
    else
      printf "%-34s %-6s %5d %-11s %9s %8s %8s %8s %9s %11s %8s\n", cfg[i], file[i], conns[i],
        st[i], "-", "-", "-", "-", "-", "-", "-" > table
  }
  # chart data: one row per configuration, one column per file (10 MiB left
  # out: its requests/s are on another scale), "?" where nothing was measured
  rd = outdir "/rps.dat"
  od = outdir "/overhead.dat"
  h = "config"
  for (f = 1; f <= nfile; f++) h = h "\t" files[f]
  print h > rd
  print h > od
  for (c = 1; c <= ncfg; c++) {
    r = cfgs[c]
    o = r
    any = 0
    for (f = 1; f <= nfile; f++) {
      k = cfgs[c] SUBSEP files[f] SUBSEP cc
      r = r "\t" ((k in okrps) ? okrps[k] : "?")
      if ((k in overhead) && cfgs[c] !~ /^lexical:/ && cfgs[c] !~ /\// && cfgs[c] != "nginx:disable_symlinks=off" &&
          cfgs[c] != "lighttpd:follow-symlink=enable") {
        o = o "\t" overhead[k]
        any = 1
      } else
        o = o "\t?"
    }
    print r > rd
    if (any) print o > od
  }
  print nfile > (outdir "/chart.cols")
}
