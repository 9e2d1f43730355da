#!/usr/bin/env bash
# sync-cost.sh - the sync(2) experiments (seed 002) on fresh loop-mounted ext4 filesystems, with
# 1, 2 and 4 filesystems mounted as in the seed, RUNS runs each, AVG and STDDEV:
#   1. 200 sync() with N filesystems mounted and idle (profiles/sync-idle.ffsb, run on the
#      first): the time of the 200 calls;
#   2. a thread per filesystem creates 40 KB files, after DELAY2 ms one sync() is timed
#      (profiles/sync-after-create{-1fs,,-4fs}.ffsb);
#   3. a thread per filesystem appends 1 MB at a time to one big file, after DELAY3 ms one
#      sync() is timed (profiles/sync-after-bigwrite{-1fs,,-4fs}.ffsb).
#   sudo bash examples/sync-cost.sh   # RUNS=3 DELAY2=3000 DELAY3=5000 FS_COUNTS="1 2 4"
#                                     # CREATES=100000 BIG_MB=4096
# The writers are bounded, so no machine can fill its disk while a slow sync() runs (a sync
# under writers took 7-25 s here and over 30 s elsewhere): each creator makes CREATES files of
# 40 KB, each appender writes BIG_MB MB (the seed's file was 20 GB: BIG_MB=20480 where the
# disk has room), and the run ends when they are done and the sync has returned. Each image is
# sparse and sized for its writer; the script checks that the disk under /tmp has room for all
# the images of a run before it starts.
# The seed put 2 filesystems on each of 2 disks for its 4-filesystem case; here every
# filesystem is a loop image on the disk under /tmp.
. "$(dirname "$0")/seed-lib.bash"
runs=${RUNS:-3} delay2=${DELAY2:-3000} delay3=${DELAY3:-5000} counts=${FS_COUNTS:-1 2 4}
creates=${CREATES:-100000} big_mb=${BIG_MB:-4096}
for v in "$runs" "$delay2" "$delay3" "$creates" "$big_mb"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "RUNS, DELAY2, DELAY3, CREATES and BIG_MB take positive integers, not '$v'" >&2; exit 2; }
done
# image_mb TEST: the size of one image (MB) for TEST: what its writer writes, a quarter more
# for ext4's metadata and journal, and 256 MB.
image_mb() {
	case $1 in
	idle) echo 256 ;;
	create) echo $((creates * 40 / 1024 * 5 / 4 + 256)) ;;
	bigwrite) echo $((big_mb * 5 / 4 + 256)) ;;
	esac
}
# room TEST N: fail unless the disk under /tmp has room for N images of TEST (sparse images
# grow as they are written).
room() {
	local need=$(($(image_mb "$1") * $2)) free
	free=$(df -Pm "$work" | awk 'NR == 2 { print $4 }')
	[ "$free" -ge "$need" ] && return 0
	echo "test $1 with $2 filesystems needs $need MB under $work, $free MB free: lower CREATES or BIG_MB" >&2
	exit 1
}
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
			locs=() dirs=() bounds=()
			room $test "$n"
			for ((k = 0; k < n; k++)); do
				fresh_ext4 "fs$k" "$(image_mb $test)" barrier=1
				dirs+=("$mnt") locs+=(--location "$k=$mnt")
			done
			# The writers are threadgroup0..N-1: each does a bounded count of operations.
			bound=$creates
			[ $test = bigwrite ] && bound=$big_mb
			for ((k = 0; k < n; k++)); do bounds+=(--set "threadgroup$k.num_ops=$bound"); done
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
				"$fsmix" run "$(profile $test "$n")" "${locs[@]}" "${bounds[@]}" \
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
