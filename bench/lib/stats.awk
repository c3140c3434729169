# stats.awk: what cpu.awk and overhead.awk share; given to awk before them
# (awk -f lib/stats.awk -f lib/cpu.awk). POSIX awk (Debian's mawk).
# Their input: a CSV whose first row names the columns (col[NAME] = its
# number), then one row per round x file x configuration. Every row sets
# r, f and c (its round, file and configuration) before their own rules see
# it; rounds[1..nr] are the rounds in the order they came. The variables
# configs and files (names in table order, separated by spaces) give
# cfg[1..nc] and fil[1..nf].
BEGIN {
  FS = ","
  nc = split(configs, cfg, " ")
  nf = split(files, fil, " ")
}
NR == 1 {
  for (i = 1; i <= NF; i++) col[$i] = i
  next
}
{
  r = $col["round"]; f = $col["file"]; c = $col["config"]
  if (!(r in seen)) { seen[r] = 1; rounds[++nr] = r }
}
function sort_n(a, n,   i, j, v) { # insertion sort of a[1..n], numbers
  for (i = 2; i <= n; i++) {
    v = a[i]
    for (j = i - 1; j >= 1 && a[j] > v; j--) a[j + 1] = a[j]
    a[j + 1] = v
  }
}
function median(a, n) { # sorts a: a[1] is then the min, a[n] the max
  sort_n(a, n)
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function label(f) { return f == "1k-d1" ? "1 KiB, depth 1" : f == "1k-d8" ? "1 KiB, depth 8" : f }
