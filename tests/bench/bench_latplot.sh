#!/usr/bin/env bash
# bench_latplot.sh - how long `fsmix plot --lat-log` takes on a long latency log (prints the
# figures; asserts nothing). Target (issue 14): a 10-million-line log plots in under 10 s.
#
#   bash tests/bench/bench_latplot.sh [LINES] [BUILD_DIR]
#
# Writes a synthetic log of LINES operations (default 10 000 000) to /dev/shm: 60 s of a
# 4-thread random writer and reader (log-normal latencies around 20 us and 8 us, a slow tail)
# and one thread's write_fsync every 0.25 s whose sync time spikes every 8 s, as in the
# fsync-tester experiment (seed 004). Then draws it BENCH_REPS times (default 3) to PNG and
# once to SVG, and prints the median wall time and fsmix's thinning message.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
lines=${1:-10000000}
build=${2:-$top/build}
fsmix=$build/src/fsmix
reps=${BENCH_REPS:-3}
work=$(mktemp -d /dev/shm/fsmix-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

t0=$(date +%s.%N)
awk -v n="$lines" 'BEGIN {
	srand(4096)
	print "# t_s group thread op lat_ns bytes sync_ns"
	fs = 0
	for (i = 0; i < n; i++) {
		t = 60.0 * i / n
		if (t >= fs) { # the fsync thread: a 1 MB write and its fsync
			sync = 2e6 * exp(rand() * 2)
			if (int(fs) % 8 == 0) sync *= 300
			printf "%.6f 1 0 write_fsync %d 1048576 %d\n", fs, sync + 400000, sync
			fs += 0.25
			continue
		}
		g = rand() + rand() + rand() - 1.5
		if (i % 3) { op = "write"; lat = 20000 * exp(1.6 * g) } else { op = "read"; lat = 8000 * exp(1.2 * g) }
		if (rand() < 0.001) lat *= 50
		printf "%.6f 0 %d %s %d 4096 0\n", t, i % 4, op, lat
	}
}' >"$work/lat.log"
t1=$(date +%s.%N)
echo "log: $(wc -l <"$work/lat.log") lines, $(du -m "$work/lat.log" | cut -f1) MB, written in $(echo "$t1 - $t0" | bc) s"
for r in $(seq "$reps"); do
	s=$(date +%s.%N)
	"$fsmix" plot --lat-log "$work/lat.log" -o "$work/lat.png" 2>"$work/err" || { cat "$work/err"; exit 1; }
	e=$(date +%s.%N)
	echo "$e - $s" | bc
done >"$work/times"
echo "plot --lat-log to PNG: median $(median <"$work/times") s of $reps ($(tr '\n' ' ' <"$work/times"))"
s=$(date +%s.%N)
"$fsmix" plot --lat-log "$work/lat.log" -o "$work/lat.svg" 2>/dev/null
e=$(date +%s.%N)
echo "plot --lat-log to SVG: $(echo "$e - $s" | bc) s, $(du -k "$work/lat.svg" | cut -f1) KB"
grep thinned "$work/err"
[ -n "${BENCH_KEEP:-}" ] && cp "$work/lat.png" "$BENCH_KEEP" && echo "picture: $BENCH_KEEP"
exit 0
