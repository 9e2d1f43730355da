#!/usr/bin/env bash
# sync-cost.sh - the sync(2) experiments (seed 002) on fresh loop-mounted ext4 filesystems, with
# 1, 2 and 4 filesystems mounted as in the seed, RUNS runs each, AVG and STDDEV:
#   1. 200 sync() with N filesystems mounted and idle (profiles/sync-idle.ffsb, run on the
#      first): the time of the 200 calls;
#   2. a thread per filesystem creates 40 KB files, after DELAY2 ms one sync() is timed
#      (profiles/sync-after-create{-1fs,,-4fs}.ffsb);
#   3. a thread per filesystem appends to one big file, after DELAY3 ms one sync() is timed
#      (profiles/sync-after-bigwrite{-1fs,,-4fs}.ffsb).
#   sudo bash examples/sync-cost.sh   # RUNS=3 DELAY2=3000 DELAY3=5000 FS_COUNTS="1 2 4"
# The seed put 2 filesystems on each of 2 disks for its 4-filesystem case; here every
# filesystem is a loop image on the disk under /tmp.
. "$(dirname "$0")/seed-lib.bash"
runs=${RUNS:-3} delay2=${DELAY2:-3000} delay3=${DELAY3:-5000} counts=${FS_COUNTS:-1 2 4}
row() { printf '%-38s %4s %12s\n' "$@"; }
# profile TEST N: the profile of test 2 or 3 for N filesystems (the 2-filesystem one is the
# unsuffixed original).
profile() {
	local base=$profiles/sync-after-$1
	if [ "$2" = 2 ]; then echo "$base.ffsb"; else echo "$base-$2fs.ffsb"; fi
}
row test run seconds
for test in idle create bigwrite; do
	for n in $counts; do
		v=()
		for ((i = 1; i <= runs; i++)); do
			locs=() dirs=()
			for ((k = 0; k < n; k++)); do
				fresh_ext4 "fs$k" 16384 barrier=1 # sparse images: room for 5 s of writing
				dirs+=("$mnt") locs+=(--location "$k=$mnt")
			done
			case $test in
			idle)
				label="1: 200 syncs, idle, $n fs"
				"$fsmix" run "$profiles/sync-idle.ffsb" --location "${dirs[0]}" \
					>"$work/run.out" 2>"$work/run.err" || { cat "$work/run.err" >&2; exit 1; }
				v+=("$(awk "BEGIN { printf \"%.4f\", 200 / $(opsps "$work/run.out") }")") ;;
			*)
				delay=$delay2 label="2: sync after 40 KB creates, $n fs"
				[ $test = bigwrite ] && delay=$delay3 label="3: sync after a big write, $n fs"
				# The timed sync() is the last thread group: threadgroupN.
				"$fsmix" run "$(profile $test "$n")" "${locs[@]}" \
					--set "threadgroup$n.start_delay=$delay" >"$work/run.out" 2>"$work/run.err" ||
					{ cat "$work/run.err" >&2; exit 1; }
				v+=("$(awk "BEGIN { print $(sync_avg_ms "$work/run.out" sync) / 1000 }")") ;;
			esac
			row "$label" "$i" "${v[-1]}"
			for ((k = n - 1; k >= 0; k--)); do drop_ext4 "${dirs[$k]}"; done
		done
		read -r m sd < <(avg_sd "${v[@]}")
		row "$label" AVG "$m"
		row "$label" STDDEV "$sd"
	done
done
