# SPDX-License-Identifier: MIT
# bench/chart.gp: bench/chart.svg from the data bench/report.py writes (bench/run calls it):
#   gnuplot -e "datafile='build/bench/chart.dat'; outfile='bench/chart.svg'" bench/chart.gp
# Grouped bars: animate in ns per node, one group per shape, one bar per peer; log scale.
if (!exists("datafile")) datafile = "build/bench/chart.dat"
if (!exists("outfile")) outfile = "bench/chart.svg"
set terminal svg size 1100,600 dynamic enhanced font "sans,12" background rgb "white"
set output outfile
set datafile separator "\t"
set datafile missing "?"
set title "animate: a new rotation on every node, then the update (ns per node, log scale, lower is better)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb "black"
set boxwidth 0.9
set logscale y
set format y "%g"
set yrange [0.5:*]
set ylabel "ns per node"
set grid ytics mytics
set key outside right top vertical noenhanced
set xtics nomirror
set border 3
ncols = system("head -1 '" . datafile . "' | awk -F'\t' '{print NF}'") + 0
# arbor in greens, the C loops in blues, the JavaScript peers in reds, the memory bounds in greys
# (bench/report.py writes the columns in that order; a peer that did not run has no column).
colors = "#1b7837 #5aae61 #a6dba0 #d9f0d3 #2166ac #67a9cf #d6604d #8c2d04 #878787 #c9c9c9 #762a83 #e08214"
color(name, i) = strstrt(name, "arbor") == 1 ? (strstrt(name, "bulk") ? (strstrt(name, "t1") ? "#a6dba0" : "#d9f0d3") : (strstrt(name, "t1") ? "#1b7837" : "#5aae61")) : \
                 strstrt(name, "C loop cglm") == 1 ? "#2166ac" : strstrt(name, "C loop") == 1 ? "#67a9cf" : \
                 strstrt(name, "three") == 1 ? "#d6604d" : strstrt(name, "Babylon") == 1 ? "#8c2d04" : \
                 strstrt(name, "memory bound t1") == 1 ? "#636363" : strstrt(name, "memory bound") == 1 ? "#bdbdbd" : word(colors, i)
plot for [i=2:ncols] datafile using i:xtic(1) title columnheader(i) lc rgb color(system("head -1 '" . datafile . "' | cut -f" . i . " | tr -d '\"'"), i)
