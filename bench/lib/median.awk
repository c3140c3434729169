# median.awk: the order statistics every bench table reports, functions
# only (no rules), so that any awk program can be given them: with -f
# before its own file (awk -f lib/median.awk -f lib/stats.awk -f
# lib/cpu.awk), or as text in front of an inline program ("$median_awk",
# lib/common.sh). POSIX awk (Debian's mawk).
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
# mmm(a, n, fmt): "median (min .. max)" of a[1..n], each with fmt; "-" if n
# is 0
function mmm(a, n, fmt,   m) {
  if (n == 0) return "-"
  m = median(a, n)
  return sprintf(fmt " (" fmt " .. " fmt ")", m, a[1], a[n])
}
