#!/usr/bin/env bash
# bench_memory.sh - memory and start-up per thread (prints figures; asserts nothing).
#
#   bash tests/bench/bench_memory.sh [BUILD_DIR [OLD_BUILD_DIR]]
#
# For the stat-only profile (tests/bench/stat-only.ffsb) with enable_stats=0 (stat-off, the
# profile's own) and 1 (stat-on), and the 2010 profile
# (profiles/ext4-barrier-2010.ffsb scaled to 2000 files / 100 dirs, directio=0), both on small
# trees on tmpfs, at 1, 64, 1024 and 4096 threads, a run of BENCH_MEMORY_SECONDS (default 2):
#   rss        the process's peak RSS (/usr/bin/time %M), KB
#   per-thread (rss(N) - rss(1)) / (N - 1), KB: what one more thread costs
#   start      seconds from the command's start to "fsmix: running N threads" on stderr (the tree
#              loaded, every worker made and its thread started)
#   took       the report's runtime ("Benchmark took"), which should be the time
#   wall       the whole command, seconds; wall - time is start-up plus join, merge and reports
# With OLD_BUILD_DIR the same for that binary first (before/after); with FFSB_BIN=path/to/ffsb
# (FFSB 6.0, built from its sources) also FFSB's figures for the same profiles (reuse=0: FFSB
# builds its tree in the run; "start" is then until its "Starting Actual Benchmark" line).
# The machine may be shared: run it once, look at the per-thread figures (goals of issue 20:
# <= 32 KB stat-only, <= 560 KB for the 2010 profile). A short run touches less of the buffers
# than a long one (each of 4096 threads gets few operations in 2 s): compare per-thread figures
# at 64 threads for that. BENCH_MEMORY_THREADS overrides the thread counts ("1 64 1024 4096"),
# BENCH_MEMORY_PROFILES the profiles ("stat-off stat-on 2010"). BENCH_MEMORY_REPS (default 1)
# runs every point that many times and prints the median of each column: a worker's share of its
# buffer, and how much the tree grows, differ from run to run by several KB per thread.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
old=${2:-}
secs=${BENCH_MEMORY_SECONDS:-2}
threads=${BENCH_MEMORY_THREADS:-1 64 1024 4096}
profiles=${BENCH_MEMORY_PROFILES:-stat-off stat-on 2010}
reps=${BENCH_MEMORY_REPS:-1}
work=$(mktemp -d /dev/shm/fsmix-bench-memory.XXXXXX)
trap 'rm -rf "$work"' EXIT
command -v /usr/bin/time >/dev/null || { echo "bench_memory: needs /usr/bin/time (GNU time)"; exit 77; }

stat_prof=$top/tests/bench/stat-only.ffsb
stat_args=(--set filesystem0.num_files=1000 --set filesystem0.num_dirs=10)
y2010_prof=$top/profiles/ext4-barrier-2010.ffsb
y2010_args=(--set filesystem0.num_files=2000 --set filesystem0.num_dirs=100 --set directio=0)

# one BIN PROFILE THREADS ARGS...: prints "rss start took wall"
one() {
	local bin=$1 prof=$2 t=$3
	shift 3
	local loc=$work/loc
	mkdir -p "$loc"
	"$bin" run "$prof" --location "$loc" --time 0 "$@" >/dev/null 2>&1 # the tree, built once
	local s0
	s0=$(date +%s.%N)
	/usr/bin/time -f 'TIME %M %e' -o "$work/time" "$bin" run "$prof" --location "$loc" \
		--time "$secs" --threads "$t" "$@" 2>&1 >"$work/out" |
		while IFS= read -r line; do
			case $line in "fsmix: running "*) echo "$(date +%s.%N)" >"$work/started" ;; esac
		done
	local rss wall took start
	read -r _ rss wall <"$work/time"
	took=$(sed -n 's/^Benchmark took \([0-9.]*\) sec/\1/p' "$work/out")
	start=$(echo "$(cat "$work/started" 2>/dev/null || echo "$s0") - $s0" | bc -l)
	rm -f "$work/started"
	"$bin" clean "$prof" --location "$loc" >/dev/null 2>&1
	rm -rf "$loc"
	printf '%s %s %s %s\n' "$rss" "$start" "${took:-?}" "$wall"
}

# ffsb_one PROFILE THREADS NAME: FFSB on the same profile, same tree; prints "rss start took wall"
ffsb_one() {
	local prof=$1 t=$2 name=$3 loc=$work/ffsb
	rm -rf "$loc"
	mkdir -p "$loc"
	if [ "$name" != 2010 ]; then
		local stats=0
		[ "$name" = stat-on ] && stats=1
		sed -e "s|^time=.*|time=$secs|" -e "s|location=.*|location=$loc|" -e 's/num_files=.*/num_files=1000/' \
			-e 's/num_dirs=.*/num_dirs=10/' -e 's/reuse=1/reuse=0/' -e "s/num_threads=.*/num_threads=$t/" \
			-e "s/enable_stats=0/enable_stats=$stats/" "$prof"
	else
		sed -e "s|^time=.*|time=$secs|" -e "s|location=.*|location=$loc|" -e 's/num_files=.*/num_files=2000/' \
			-e 's/num_dirs=.*/num_dirs=100/' -e 's/reuse=1/reuse=0/' -e "s/num_threads=.*/num_threads=$t/" \
			-e 's/directio=1/directio=0/' "$prof"
	fi >"$work/ffsb.prof"
	local s0
	s0=$(date +%s.%N)
	# FFSB prints much with stats on: to a file, watched for its start line (a pipe read line
	# by line would hold it up)
	/usr/bin/time -f 'TIME %M %e' -o "$work/time" "$FFSB_BIN" "$work/ffsb.prof" >"$work/out" 2>&1 &
	local pid=$!
	while kill -0 $pid 2>/dev/null; do
		if grep -q "^Starting Actual Benchmark" "$work/out"; then
			date +%s.%N >"$work/started"
			break
		fi
		sleep 0.01
	done
	wait $pid
	local rss wall took start
	read -r _ rss wall <"$work/time"
	took=$(sed -n 's/^Benchmark took \([0-9.]*\) sec/\1/p' "$work/out")
	start=$(echo "$(cat "$work/started" 2>/dev/null || echo "$s0") - $s0" | bc -l)
	rm -rf "$work/started" "$loc"
	printf '%s %s %s %s\n' "$rss" "$start" "${took:-?}" "$wall"
}

table() {
	local label=$1 bin=$2
	echo "== $label ($bin), time=$secs s"
	printf '%-9s %7s %10s %10s %8s %7s %7s\n' profile threads rss_KB per_thr_KB start_s took_s wall_s
	local name prof base t r
	for name in $profiles; do
		local -a args
		case $name in
		stat-off) prof=$stat_prof; args=("${stat_args[@]}" --set threadgroup0.enable_stats=0) ;;
		stat-on) prof=$stat_prof; args=("${stat_args[@]}" --set threadgroup0.enable_stats=1) ;;
		*) prof=$y2010_prof; args=("${y2010_args[@]}") ;;
		esac
		base=
		for t in $threads; do
			local k
			for ((k = 0; k < reps; k++)); do
				if [ "$bin" = ffsb ]; then
					ffsb_one "$prof" "$t" "$name"
				else
					one "$bin" "$prof" "$t" "${args[@]}"
				fi
			done >"$work/reps"
			# the median of each column over the repetitions
			r=($(for k in 1 2 3 4; do cut -d' ' -f$k "$work/reps" | sort -g | awk '{ v[NR] = $1 } END { printf "%s ", v[int((NR + 1) / 2)] }'; done))
			[ -z "$base" ] && base=${r[0]}
			local per=-
			[ "$t" -gt 1 ] && per=$(echo "(${r[0]} - $base) / ($t - 1)" | bc -l | xargs printf '%.1f')
			printf '%-9s %7d %10d %10s %8.2f %7s %7.2f\n' "$name" "$t" "${r[0]}" "$per" "${r[1]}" "${r[2]}" "${r[3]}"
		done
	done
}

[ -n "${FFSB_BIN:-}" ] && table "FFSB 6.0 ($FFSB_BIN)" ffsb
[ -n "$old" ] && table before "$old/src/fsmix"
table after "$build/src/fsmix"
