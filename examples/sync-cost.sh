#!/usr/bin/env bash
# sync-cost.sh - the sync(2) experiments (seed 002) on fresh loop-mounted ext4 filesystems,
# RUNS runs each, AVG and STDDEV:
#   1. 200 sync() on an idle filesystem (profiles/sync-idle.ffsb): the time of the 200 calls;
#   2. a thread per filesystem creates 40 KB files, after DELAY2 ms one sync() is timed
#      (profiles/sync-after-create.ffsb, two filesystems);
#   3. a thread per filesystem appends to one big file, after DELAY3 ms one sync() is timed
#      (profiles/sync-after-bigwrite.ffsb, two filesystems).
#   sudo bash examples/sync-cost.sh          # RUNS=3 DELAY2=3000 DELAY3=5000 (the seed's)
. "$(dirname "$0")/seed-lib.bash"
runs=${RUNS:-3} delay2=${DELAY2:-3000} delay3=${DELAY3:-5000}
row() { printf '%-34s %4s %12s\n' "$@"; }
row test run seconds
for test in idle create bigwrite; do
	v=()
	for ((i = 1; i <= runs; i++)); do
		fresh_ext4 a 16384 barrier=1 # sparse images: room for 5 s of writing
		a=$mnt
		case $test in
		idle)
			"$fsmix" run "$here/profiles/sync-idle.ffsb" --location "$a" >"$work/run.out" 2>"$work/run.err"
			v+=("$(awk "BEGIN { printf \"%.4f\", 200 / $(opsps "$work/run.out") }")") label="1: 200 syncs, idle, 1 fs" ;;
		*)
			fresh_ext4 b 16384 barrier=1
			b=$mnt
			delay=$delay2 label="2: sync after 40 KB creates, 2 fs"
			[ $test = bigwrite ] && delay=$delay3 label="3: sync after a big write, 2 fs"
			prof=$here/profiles/sync-after-create.ffsb
			[ $test = bigwrite ] && prof=$here/profiles/sync-after-bigwrite.ffsb
			"$fsmix" run "$prof" --location "0=$a" --location "1=$b" \
				--set threadgroup2.start_delay="$delay" >"$work/run.out" 2>"$work/run.err" ||
				{ cat "$work/run.err" >&2; exit 1; }
			v+=("$(awk "BEGIN { print $(sync_avg_ms "$work/run.out" sync) / 1000 }")")
			drop_ext4 "$b" ;;
		esac
		row "$label" "$i" "${v[-1]}"
		drop_ext4 "$a"
	done
	read -r m sd < <(avg_sd "${v[@]}")
	row "$label" AVG "$m"
	row "$label" STDDEV "$sd"
done
