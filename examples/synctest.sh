#!/usr/bin/env bash
# synctest.sh - the 1999 synctest experiment (seed 000): 1000 writes of 2 KB, each followed by
# fsync() or fdatasync(), stepping through a file of 5000 or 50000 2 KB blocks, on a fresh
# loop-mounted ext4 (barrier=1), RUNS runs each. Prints the time of the 1000 writes (the seed's
# table) and the average sync call, then AVG and STDDEV.
#   sudo bash examples/synctest.sh               # RUNS=3
. "$(dirname "$0")/seed-lib.bash"
runs=${RUNS:-3}
prof=$profiles/synctest.ffsb
printf '%-7s %-10s %4s %12s %14s\n' blocks call run "time (s)" "avg sync (ms)"
for blocks in 5000 50000; do
	kb=$((blocks * 2)) stride=$((blocks / 1000 * 2))
	for call in fsync fdatasync; do
		sw=()
		[ $call = fdatasync ] && sw=(--set threadgroup0.write_fsync_weight=0 --set threadgroup0.write_fdatasync_weight=1)
		t=() s=()
		for ((i = 1; i <= runs; i++)); do
			fresh_ext4 synctest 512 barrier=1
			d=$mnt
			"$fsmix" run "$prof" --location "$d" "${sw[@]}" \
				--set filesystem0.min_filesize=${kb}KB --set filesystem0.max_filesize=${kb}KB \
				--set threadgroup0.write_stride=${stride}KB >"$work/run.out" 2>"$work/run.err" ||
				{ cat "$work/run.err" >&2; exit 1; }
			t+=("$(awk "BEGIN { printf \"%.3f\", 1000 / $(opsps "$work/run.out") }")") s+=("$(sync_avg_ms "$work/run.out" $call)")
			printf '%-7s %-10s %4s %12s %14s\n' $blocks $call "$i" "${t[-1]}" "${s[-1]}"
			drop_ext4 "$d"
		done
		read -r a sd < <(avg_sd "${t[@]}")
		read -r sa ssd < <(avg_sd "${s[@]}")
		printf '%-7s %-10s %4s %12s %14s\n' $blocks $call AVG "$a" "$sa"
		printf '%-7s %-10s %4s %12s %14s\n' $blocks $call SD "$sd" "$ssd"
	done
done
