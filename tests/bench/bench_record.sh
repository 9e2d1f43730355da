#!/usr/bin/env bash
# bench_record.sh - what fsmix-powercut --record costs (prints figures; asserts nothing).
#
#   bash tests/bench/bench_record.sh [BUILD_DIR]
#
# The scaled 2010 profile (profiles/ext4-barrier-2010.ffsb with 1000 files in 50 directories,
# BENCH_THREADS threads, default 8) on ext4 (barrier=1) on a loop device (direct I/O) over a
# fresh fsmix-powercut disk of BENCH_MB (default 1024) MB, destage delay 1000 ms, each run on a
# new disk: A without --record, B with --record (the record on BENCH_DIR, default /tmp, beside
# the backing image, never on the disk it records). BENCH_REPS rounds (default 2) of four
# BENCH_SECONDS runs (default 10), A-B-B-A then B-A-A-B (only ratios within one session mean
# anything on a shared machine). Printed: the median trans/s of A and B, the median ratio
# B/A of the rounds ((B1 + B2) / (A1 + A2)) and its range, against the target >= 0.8x
# (issue 27); and for every B run the record's size against the bytes the disk received
# (its write requests' data) and against the bytes fsmix wrote, against the target < 4x.
# BENCH_RECORD_DIR puts the record elsewhere (default: beside the backing image). Needs root,
# /dev/fuse, loop devices, mkfs.ext4, jq.
#
# Figures here (2 shared CPUs, load 9 to 20 from other jobs; 3 rounds x 10 s, 1 GiB disk):
#   record through the page cache, two buffers     trans/s 0.6-0.75x (partial runs, partly
#                                                  beside a second bench by mistake: indicative)
#   O_DIRECT, two buffers (45f7835)                trans/s 0.860x (0.747 .. 0.933)
#   O_DIRECT, ring of 8, word-load checksum (8418ecf)
#                                                  trans/s 1.052x (0.977 .. 1.412),
#                                                  per CPU second 0.874x (0.865 .. 1.085)
#   record size 1.003x the disk's write bytes, 1.37x fsmix's bytes written (1.55 GB largest)
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
export FSMIX=$build/src/fsmix FSMIX_POWERCUT=$build/src/fsmix-powercut
reps=${BENCH_REPS:-2}
secs=${BENCH_SECONDS:-10}
threads=${BENCH_THREADS:-8}
mb=${BENCH_MB:-1024}
prof=$top/profiles/ext4-barrier-2010.ffsb
scaled=(--set filesystem0.num_files=1000 --set filesystem0.num_dirs=50 --set filesystem0.reuse=0)
. "$top/examples/powercut-lib.bash"
pc_init "$(mktemp -d "${BENCH_DIR:-/tmp}/fsmix-bench-record.XXXXXX")" || { echo "bench_record: $pc_why" >&2; exit 3; }
command -v jq >/dev/null || { echo "bench_record: needs jq" >&2; exit 3; }
trap 'pc_cleanup; rm -rf "$pc_dir"' EXIT
trap 'exit 130' INT TERM

# one run of variant $1 (a: no record, b: --record); prints "trans/s trans-per-CPU-second" (fsmix's
# and the daemon's CPU time) and, for b, the record's bytes, the disk's write bytes and fsmix's
# bytes written
run1() {
	local rec=${BENCH_RECORD_DIR:-$pc_dir}/fsmix-bench.rec extra=()
	rm -f "$rec"
	[ "$1" = b ] && extra=(--record "$rec")
	pc_disk bench "$mb" --seed 1 --destage-delay 1000 "${extra[@]}" && pc_mkfs barrier=1 ||
		{ echo "bench_record: cannot set up the disk" >&2; exit 1; }
	"$FSMIX" run "$prof" --location "$pc_mnt" --time "$secs" "${scaled[@]}" --threads "$threads" \
		--json "$pc_dir/j" >/dev/null 2>"$pc_dir/err" ||
		{ echo "bench_record: fsmix run failed:" >&2; tail -3 "$pc_dir/err" >&2; exit 1; }
	# the daemon's CPU time (all its threads: the record's writer too), before it ends
	local dcpu tps wrote
	dcpu=$(awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print ($12 + $13) / hz }' "/proc/$pc_pid/stat")
	pc_detach
	tps=$(jq -r --arg d "$dcpu" '"\(.groups[0].trans_per_s) \(.groups[0].transactions / (.cpu.user_s + .cpu.sys_s + ($d | tonumber)))"' "$pc_dir/j")
	wrote=$(jq -r '.groups[0].bytes_written' "$pc_dir/j")
	if [ "$1" = b ]; then
		echo "$tps $(stat -c %s "$rec") $(pc_stat write_bytes) $wrote"
	else
		echo "$tps"
	fi
	rm -f "$pc_img" "$rec"
}

: >"$pc_dir/pairs2"
: >"$pc_dir/pairs3"
: >"$pc_dir/sizes"
for ((i = 0; i < reps; i++)); do
	: >"$pc_dir/round"
	for v in $([ $((i % 2)) -eq 0 ] && echo a b b a || echo b a a b); do
		line=$(run1 $v) || exit 1
		echo "$v $line" >>"$pc_dir/round"
		[ $v = b ] && echo "$line" | cut -d' ' -f3- >>"$pc_dir/sizes"
		echo "$line" | awk -v r=$((i + 1)) -v v=$v '{ printf "  round %d %s: %.0f trans/s, %.0f trans per CPU second", r, v, $1, $2
			if (NF > 2) printf "; record %.1f MB, the disk received %.1f MB, fsmix wrote %.1f MB", $3 / 1048576, $4 / 1048576, $5 / 1048576
			printf "\n" }' >&2
	done
	for k in 2 3; do
		awk -v k=$k '$1 == "a" { a[++na] = $k } $1 == "b" { b[++nb] = $k } END { print a[1], b[1], b[2], a[2] }' \
			"$pc_dir/round" >>"$pc_dir/pairs$k"
	done
done

printf 'fsmix-powercut --record: 2010 scaled (1000 files), ext4 barrier=1 on a %d MB powercut disk,\n' "$mb"
printf '%d threads, %d rounds x 4 runs x %d s (ABBA / BAAB):\n' "$threads" "$reps" "$secs"
# ratio LABEL: the pairs "a1 b1 b2 a2" on stdin; the medians and the median ratio of the rounds
ratio() {
	awk -v label="$1" '{ r[NR] = ($2 + $3) / ($1 + $4); a[NR] = ($1 + $4) / 2; b[NR] = ($2 + $3) / 2 }
	function sortv(v, m,   i, j, t) { for (i = 2; i <= m; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t } }
	function med(v, m) { return (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
	END { m = NR; sortv(r, m); sortv(a, m); sortv(b, m)
		printf "  %-24s without %6.0f | with %6.0f | with/without %.3f (rounds %.3f .. %.3f) | target >= 0.8: %s\n",
			label, med(a, m), med(b, m), med(r, m), r[1], r[m], (med(r, m) >= 0.8) ? "met" : "NOT met" }'
}
ratio "trans/s:" <"$pc_dir/pairs2"
ratio "trans per CPU second:" <"$pc_dir/pairs3"
awk '{ d = $1 / $2; f = $1 / $3; if (NR == 1 || d > dmax) dmax = d; if (NR == 1 || f > fmax) fmax = f
	if (NR == 1 || $1 > big) big = $1 }
	END { printf "  record size: up to %.3fx the bytes the disk received, %.3fx the bytes fsmix wrote (largest record %.1f MB) | target < 4: %s\n",
		dmax, fmax, big / 1048576, (dmax < 4 && fmax < 4) ? "met" : "NOT met" }' "$pc_dir/sizes"
