#!/usr/bin/env bash
# bench_mpi.sh - figures of distributed runs (prints them; asserts nothing; not a test).
#
#   bash tests/bench/bench_mpi.sh [ranks|report|all] [BUILD_DIR]
#
#   ranks   the 2010 profile scaled to 2000 files / 100 dirs, directio=0, on tmpfs: 4 ranks x 1
#           thread (mpirun -np 4) against 1 process x 4 threads, BENCH_REPS (default 3)
#           alternating runs of BENCH_SECONDS (default 5) each, every run on a fresh tree
#           (--cleanup); medians of the job's ops/s and trans/s, ratio ranks/threads.
#           Goal (issue 13): >= 0.90.
#   report  16 ranks (oversubscribed) of a short run: the time from the last rank's end to the
#           written report (rank 0's "merged and reported X s after the last rank's end" line,
#           which also covers the JSON written), BENCH_REPS runs, median. Goal: < 0.5 s.
# Needs mpirun and an fsmix built with MPI. OpenMPI as root needs --allow-run-as-root (added).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
mode=${1:-all}
build=${2:-$top/build}
fsmix=$build/src/fsmix
reps=${BENCH_REPS:-3}
secs=${BENCH_SECONDS:-5}
work=$(mktemp -d /dev/shm/fsmix-bench-mpi.XXXXXX)
trap 'rm -rf "$work"' EXIT
command -v mpirun >/dev/null || { echo "bench_mpi: no mpirun"; exit 77; }
ldd "$fsmix" | grep -q libmpi || { echo "bench_mpi: $fsmix has no MPI support"; exit 77; }

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mpi() { mpirun --allow-run-as-root --oversubscribe -np "$1" "$fsmix" "${@:2}"; }
scaled=(run "$top/profiles/ext4-barrier-2010.ffsb" --location "$work" --time "$secs"
	--set filesystem0.num_files=2000 --set filesystem0.num_dirs=100 --set directio=0 --cleanup)
# "ops trans" of the run's JSON (the job's rates).
rates() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=d["total"]; print(t["ops_per_s"], t["trans_per_s"])' "$1"; }

ranks() {
	: >"$work/r.txt"
	: >"$work/t.txt"
	for ((i = 0; i < reps; i++)); do
		mpi 4 "${scaled[@]}" --threads 1 --json "$work/r.json" >/dev/null 2>&1 && rates "$work/r.json" >>"$work/r.txt"
		"$fsmix" "${scaled[@]}" --threads 4 --json "$work/t.json" >/dev/null 2>&1 && rates "$work/t.json" >>"$work/t.txt"
	done
	local ro rt to tt
	ro=$(cut -d' ' -f1 "$work/r.txt" | median); rt=$(cut -d' ' -f2 "$work/r.txt" | median)
	to=$(cut -d' ' -f1 "$work/t.txt" | median); tt=$(cut -d' ' -f2 "$work/t.txt" | median)
	printf 'ranks   4 ranks x 1 thread: %9.0f ops/s %9.0f trans/s | 1 process x 4 threads: %9.0f ops/s %9.0f trans/s | ratio ops %.3f trans %.3f  [median of %d, %d s runs]\n' \
		"$ro" "$rt" "$to" "$tt" "$(echo "$ro/$to" | bc -l)" "$(echo "$rt/$tt" | bc -l)" "$reps" "$secs"
}

report() {
	: >"$work/m.txt"
	for ((i = 0; i < reps; i++)); do
		# no --cleanup: removing the trees would count in the time measured
		mpi 16 run "$top/profiles/default.ffsb" --location "$work" --time 1 --threads 1 \
			--set filesystem0.num_files=100 --json "$work/m.json" 2>&1 >/dev/null |
			sed -n 's/.*merged and reported \([0-9.]*\) s after.*/\1/p' >>"$work/m.txt"
		"$fsmix" clean "$top/profiles/default.ffsb" --location "$work" >/dev/null 2>&1
	done
	printf 'report  16 ranks: %.3f s from the last rank'"'"'s end to the written report (median of %d; all: %s)\n' \
		"$(median <"$work/m.txt")" "$reps" "$(tr '\n' ' ' <"$work/m.txt")"
}

case $mode in
ranks) ranks ;;
report) report ;;
all) ranks; report ;;
*) echo "usage: bench_mpi.sh [ranks|report|all] [BUILD_DIR]" >&2; exit 2 ;;
esac
