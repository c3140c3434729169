# stats.awk: what cpu.awk and overhead.awk share; given to awk before them,
# after median.awk (awk -f lib/median.awk -f lib/stats.awk -f lib/cpu.awk).
# POSIX awk (Debian's mawk).
# Their input: a CSV whose first row names the columns (col[NAME] = its
# number), then one row per round x file x configuration. Every row sets
# r, f and c (its round, file and configuration) before their own rules see
# it; rounds[1..nr] are the rounds in the order they came. The variables
# configs and files (names in table order, separated by spaces) give
# cfg[1..nc] and fil[1..nf], and the tables' rows: every configuration for
# every file, row_f[1..nrow] and row_c[1..nrow].
BEGIN {
  FS = ","
  nc = split(configs, cfg, " ")
  nf = split(files, fil, " ")
  for (fi = 1; fi <= nf; fi++)
    for (ci = 1; ci <= nc; ci++) {
      row_f[++nrow] = fil[fi]
      row_c[nrow] = cfg[ci]
    }
}
NR == 1 {
  for (i = 1; i <= NF; i++) col[$i] = i
  next
}
{
  r = $col["round"]; f = $col["file"]; c = $col["config"]
  if (!(r in seen)) { seen[r] = 1; rounds[++nr] = r }
}
# ok_rounds(f, c, c2, rd): the rounds whose row of file f and configuration
# c is ok (ok[r, f, c], set by the reader), and that of c2 too unless c2 is
# "", into rd[1..n] in order; returns n
function ok_rounds(f, c, c2, rd,   k, n) {
  n = 0
  split("", rd)
  for (k = 1; k <= nr; k++)
    if (ok[rounds[k], f, c] && (c2 == "" || ok[rounds[k], f, c2])) rd[++n] = rounds[k]
  return n
}
# table_head(md, csv): the markdown header row md ("| a | b |"), a separator
# row with as many columns, and the CSV header csv to the file summary
function table_head(md, csv,   n, sep) {
  print md
  sep = "|"
  for (n = gsub(/\|/, "|", md) - 1; n > 0; n--) sep = sep "---|"
  print sep
  print csv >summary
}
function label(f) { return f == "1k-d1" ? "1 KiB, depth 1" : f == "1k-d8" ? "1 KiB, depth 8" : f }
