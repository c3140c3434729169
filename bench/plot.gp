# plot.gp: the bench/run bar chart. gnuplot -e "outdir='DIR'; term='svg|png'; cc=50"
# Reads DIR/rps.dat, DIR/overhead.dat (tab-separated, one row per
# configuration, one column per file; "?" = not measured) and DIR/chart.cols.
if (!exists("outdir")) outdir = "."
if (!exists("term")) term = "svg"
if (!exists("cc")) cc = 50
nfiles = int(system("cat '" . outdir . "/chart.cols'"))
noverhead = int(system("wc -l < '" . outdir . "/overhead.dat'")) - 1

if (term eq "svg") {
  set terminal svg size 1400,1100 dynamic noenhanced font "sans,11" background "white"
  set output outdir . "/bench.svg"
} else {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1400,1100 noenhanced font "sans,10" background "white"
  } else {
    set terminal png size 1400,1100 noenhanced
  }
  set output outdir . "/bench.png"
}

set datafile separator "\t"
set datafile missing "?"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -30 left nomirror
set grid ytics
set key outside right top vertical
set bmargin 9
set rmargin 14

set multiplot layout 2,1 title sprintf("beneath, nginx, lighttpd: %d keep-alive connections, server on one core", cc)

set title "requests/s by configuration (a missing bar: the configuration refuses that path, or it was not run)"
set ylabel "requests/s"
set yrange [0:*]
plot for [i=2:nfiles+1] outdir . "/rps.dat" using i:xtic(1) title columnheader(i)

set title "confinement overhead in %: 1 - requests/s / unconfined twin (beneath: lexical, same flags; nginx: disable_symlinks off; lighttpd: follow-symlink enable)"
set ylabel "overhead, %"
set yrange [*<0:0<*]
if (noverhead > 0) {
  plot for [i=2:nfiles+1] outdir . "/overhead.dat" using i:xtic(1) title columnheader(i)
} else {
  unset xtics
  set label 1 "no confined/unconfined pair was measured" at graph 0.5, 0.5 center
  plot [0:1] [0:1] NaN notitle
}
unset multiplot
