#!/usr/bin/env bash
# bench_durlog.sh - what the journal of promises costs (prints figures; asserts nothing).
#
#   bash tests/bench/bench_durlog.sh BASE_BUILD_DIR [BUILD_DIR]
#
# The scaled 2010 profile (2000 files, 100 dirs, directio=0) on tmpfs at 1 and 16 threads, three
# variants alternating in one session (the machine is shared and noisy: only ratios within one
# run mean anything): `base`, a build without the journal (e.g. the branch before it), `off`,
# this build without --durability-log (the hooks are one branch each: goal 1.00x of base), and
# `on`, this build with --durability-log on /tmp (another filesystem): trans/s, its ratio to
# off, and the log's records, waits for the logger and size. BENCH_REPS rounds (default 3) of
# BENCH_SECONDS runs (default 5), medians; BENCH_THREADS (default "1 16") the thread counts.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
base=${1:?usage: bench_durlog.sh BASE_BUILD_DIR [BUILD_DIR]}
build=${2:-$top/build}
reps=${BENCH_REPS:-3}
secs=${BENCH_SECONDS:-5}
prof=$top/profiles/ext4-barrier-2010.ffsb
scaled=(--set filesystem0.num_files=2000 --set filesystem0.num_dirs=100 --set directio=0)
work=$(mktemp -d /dev/shm/fsmix-bench-durlog.XXXXXX)
logdir=$(mktemp -d /tmp/fsmix-bench-durlog.XXXXXX)
trap 'rm -rf "$work" "$logdir"' EXIT
declare -A bin=([base]=$base/src/fsmix [off]=$build/src/fsmix [on]=$build/src/fsmix)
for v in base off; do
	[ -x "${bin[$v]}" ] || { echo "no fsmix: ${bin[$v]}" >&2; exit 2; }
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
tps() { sed -n 's/^\([0-9.]*\) Transactions per Second/\1/p' | head -1; }

for t in ${BENCH_THREADS:-1 16}; do
	for v in base off on; do : >"$work/t_$v"; done
	: >"$work/rec"; : >"$work/waits"; : >"$work/bytes"
	for ((i = 0; i < reps; i++)); do
		order="base off on"
		[ $((i % 2)) -eq 1 ] && order="on off base"
		for v in $order; do
			# content=header in every variant: without a log the default (auto) would
			# write content=fixed, and on vs off would measure the headers' cost too
			extra=(--set content=header)
			[ "$v" = on ] && extra+=(--durability-log "$logdir/d.log")
			"${bin[$v]}" run "$prof" --location "$work" --time "$secs" "${scaled[@]}" \
				--threads "$t" "${extra[@]}" >"$work/out" 2>"$work/err"
			tps <"$work/out" >>"$work/t_$v"
			if [ "$v" = on ]; then
				sed -n 's/.*durability log .*: \([0-9]*\) records, \([0-9]*\) waits.*/\1 \2/p' "$work/err" >"$work/dl"
				awk '{ print $1 }' "$work/dl" >>"$work/rec"
				awk '{ print $2 }' "$work/dl" >>"$work/waits"
				stat -c %s "$logdir/d.log" >>"$work/bytes"
			fi
			"${bin[off]}" clean "$prof" --location "$work" >/dev/null 2>&1
		done
	done
	b=$(median <"$work/t_base"); o=$(median <"$work/t_off"); n=$(median <"$work/t_on")
	printf '2010 scaled, tmpfs, %2d threads: trans/s base %8.0f | off %8.0f (%.3fx base) | on %8.0f (%.3fx off); log: %s records, %s waits, %s MB   [median of %d x %d s]\n' \
		"$t" "$b" "$o" "$(echo "$o/$b" | bc -l)" "$n" "$(echo "$n/$o" | bc -l)" \
		"$(median <"$work/rec")" "$(median <"$work/waits")" \
		"$(echo "$(median <"$work/bytes") / 1000000" | bc -l | xargs printf '%.1f')" "$reps" "$secs"
done
