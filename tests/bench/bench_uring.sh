#!/usr/bin/env bash
# bench_uring.sh - engine=io_uring against engine=sync (docs/engines.md; prints, asserts nothing).
#
#   bash tests/bench/bench_uring.sh [BUILD_DIR]
#
# Two one-thread mixes on tmpfs (/dev/shm), each over a tree built once (reuse=1):
#   stat-only  tests/bench/stat-only.ffsb: stat() of random files of a 10 000-file tree
#   read-only  random 4 KiB reads (read_size=read_blocksize=4 KiB, read_random=1) of 1 000 files
#              of 64 KiB: open, lseek, read, close per operation
# BENCH_REPS rounds (default 6) of four runs of BENCH_SECONDS (default 3) each, sync-uring-uring-
# sync then uring-sync-sync-uring (ABBA: a drift of the shared machine weighs on both alike). Per
# run: operations per second and per CPU-second (user + system of the process, the JSON's cpu);
# per round the ratio io_uring/sync of the sums; printed: the medians and the median ratio with
# its range over the rounds. enable_stats=0 (no clock reads per call).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
fsmix=$build/src/fsmix
reps=${BENCH_REPS:-6}
secs=${BENCH_SECONDS:-3}
work=$(mktemp -d /dev/shm/fsmix-bench-uring.XXXXXX)
trap 'rm -rf "$work"' EXIT

cp "$top/tests/bench/read-only.ffsb" "$work/read-only.ffsb"
cp "$top/tests/bench/stat-only.ffsb" "$work/stat-only.ffsb"

# run PROFILE ENGINE: "ops_per_s ops_per_cpu_s" of one run
run() {
	"$fsmix" run "$work/$1.ffsb" --location "$work" --time "$secs" --json "$work/r.json" \
		--set "threadgroup0.engine=$2" >/dev/null 2>&1 || { echo "0 0"; return; }
	jq -r '"\(.total.ops_per_s) \(.total.operations / ((.cpu.user_s + .cpu.sys_s) | if . > 0 then . else 1e-9 end))"' "$work/r.json"
}

# stdin: per round "s_a u_a u_b s_b" (sync and io_uring in the order they ran); prints the
# median sync, median io_uring, median ratio, min and max ratio.
ratios() {
	awk '{ s[NR] = ($1 + $4) / 2; u[NR] = ($2 + $3) / 2; r[NR] = u[NR] / s[NR] }
	function sortv(v, m,   i, j, t) { for (i = 2; i <= m; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t } }
	function med(v, m) { return (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
	END { m = NR; sortv(s, m); sortv(u, m); sortv(r, m)
	      printf "sync %10.0f | io_uring %10.0f | io_uring/sync %.3f (rounds %.3f .. %.3f)", med(s, m), med(u, m), med(r, m), r[1], r[m] }'
}

for mix in stat-only read-only; do
	"$fsmix" run "$work/$mix.ffsb" --location "$work" --time 0 >/dev/null 2>&1 # build once
	: >"$work/ops"
	: >"$work/cpu"
	for ((i = 0; i < reps; i++)); do
		if ((i % 2 == 0)); then order="sync io_uring io_uring sync"; else order="io_uring sync sync io_uring"; fi
		declare -A o=() c=()
		k=0
		for e in $order; do
			read -r ops cpu < <(run "$mix" "$e")
			o[$k]=$ops c[$k]=$cpu
			k=$((k + 1))
		done
		if ((i % 2 == 0)); then # s u u s
			echo "${o[0]} ${o[1]} ${o[2]} ${o[3]}" >>"$work/ops"
			echo "${c[0]} ${c[1]} ${c[2]} ${c[3]}" >>"$work/cpu"
		else # u s s u: sync first, as ratios() reads them
			echo "${o[1]} ${o[0]} ${o[3]} ${o[2]}" >>"$work/ops"
			echo "${c[1]} ${c[0]} ${c[3]} ${c[2]}" >>"$work/cpu"
		fi
	done
	printf '%-9s ops/s:            %s   [%d rounds of %d s]\n' "$mix" "$(ratios <"$work/ops")" "$reps" "$secs"
	printf '%-9s ops/CPU-second:   %s\n' "$mix" "$(ratios <"$work/cpu")"
	"$fsmix" clean "$work/$mix.ffsb" --location "$work" >/dev/null 2>&1
done
