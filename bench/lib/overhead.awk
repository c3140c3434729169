# overhead.awk: overhead.csv (bench/overhead.sh, one row per round x file x
# configuration) -> a markdown table on stdout and summary.csv (variable
# summary = its path). Variables: baseline (the configuration every other is
# divided by), configs and files (names in table order, separated by spaces).
# Per round and file: ratio = req/s / baseline's req/s of that round and file;
# overhead = 1 - ratio. Per configuration and file: median over the rounds,
# min .. max, mean and its 95% confidence interval (Student t, n - 1 degrees
# of freedom). A round whose row or baseline row is not ok does not count.
# POSIX awk (Debian's mawk); reading the CSV, median and label: lib/stats.awk.
function t975(df,   z) { # two-sided 95% quantile of Student's t
  if (df <= 30) return tq[df]
  z = 1.959964 # Cornish-Fisher expansion around the normal quantile
  return z + (z ^ 3 + z) / (4 * df) + (5 * z ^ 5 + 16 * z ^ 3 + 3 * z) / (96 * df ^ 2) \
    + (3 * z ^ 7 + 19 * z ^ 5 + 17 * z ^ 3 - 15 * z) / (384 * df ^ 3)
}
function pct(x) { return sprintf("%.1f%%", 100 * x) }
BEGIN {
  split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 " \
    "2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", tq, " ")
}
{
  ok[r, f, c] = $col["status"] == "ok" && $col["rps"] > 0
  rps[r, f, c] = $col["rps"]
}
END {
  table_head("| configuration | file | pairs | median req/s | overhead: median | min .. max | mean | 95% CI of the mean |",
    "config,file,pairs,median_rps,overhead_median_pct,overhead_min_pct,overhead_max_pct,overhead_mean_pct,ci95_low_pct,ci95_high_pct")
  for (t = 1; t <= nrow; t++) {
    f = row_f[t]; c = row_c[t]
    n = ok_rounds(f, c, baseline, rd)
    sum = 0
    split("", ov); split("", rv)
    for (k = 1; k <= n; k++) {
      r = rd[k]
      rv[k] = rps[r, f, c]
      ov[k] = 1 - rps[r, f, c] / rps[r, f, baseline]
      sum += ov[k]
    }
    if (n == 0) {
      printf "| %s | %s | 0 | — | not measured | — | — | — |\n", c, label(f)
      printf "%s,%s,0,,,,,,,\n", c, f >summary
      continue
    }
    mrps = median(rv, n)
    if (c == baseline) {
      printf "| %s | %s | %d | %.0f | baseline | — | — | — |\n", c, label(f), n, mrps
      printf "%s,%s,%d,%.0f,0,0,0,0,,\n", c, f, n, mrps >summary
      continue
    }
    mean = sum / n
    ss = 0
    for (i = 1; i <= n; i++) ss += (ov[i] - mean) ^ 2
    med = median(ov, n) # sorts ov: ov[1] is the min, ov[n] the max
    if (n >= 2) {
      half = t975(n - 1) * sqrt(ss / (n - 1)) / sqrt(n)
      ci_md = "[" pct(mean - half) ", " pct(mean + half) "]"
      ci_csv = sprintf("%.2f,%.2f", 100 * (mean - half), 100 * (mean + half))
    } else {
      ci_md = "— (one pair)"
      ci_csv = ","
    }
    printf "| %s | %s | %d | %.0f | %s | %s .. %s | %s | %s |\n", c, label(f), n, mrps, pct(med),
      pct(ov[1]), pct(ov[n]), pct(mean), ci_md
    printf "%s,%s,%d,%.0f,%.2f,%.2f,%.2f,%.2f,%s\n", c, f, n, mrps, 100 * med, 100 * ov[1],
      100 * ov[n], 100 * mean, ci_csv >summary
  }
}
