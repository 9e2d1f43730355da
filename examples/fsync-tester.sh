#!/usr/bin/env bash
# fsync-tester.sh - fsync latency under a random writer (seed 004): profiles/fsync-tester.ffsb on
# a fresh loop-mounted ext4 (barrier=1): a thread overwrites random 4 KB blocks of a SIZE file
# while every PERIOD ms 1 MB is written and fsync()ed, COUNT times; prints each fsync's time
# from the latency log, as fsync-tester.c printed it.
#   sudo bash examples/fsync-tester.sh       # SIZE=8GB PERIOD=4000 COUNT=15 (the seed's 60 s)
. "$(dirname "$0")/seed-lib.bash"
size=${SIZE:-8GB} period=${PERIOD:-4000} count=${COUNT:-15}
fresh_ext4 fsynctest 12288 barrier=1
"$fsmix" run "$profiles/fsync-tester.ffsb" --location "$mnt" \
	--set filesystem0.min_filesize="$size" --set filesystem0.max_filesize="$size" \
	--set threadgroup1.op_period="$period" --set threadgroup1.num_ops="$count" \
	--lat-log "$work/lat.log" >"$work/run.out" 2>"$work/run.err" || { cat "$work/run.err" >&2; exit 1; }
echo "random writer: $(awk '$2 == 0' "$work/lat.log" | wc -l) ops of 256 x 4 KB in $(took "$work/run.out") s; flushes: $(flushes "$work/run.out")"
sort -n "$work/lat.log" | awk '$4 == "write_fsync" { printf "fsync time: %.4fs   (at %7.3f s; write+fsync op %.4fs)\n", $7 / 1e9, $1, $5 / 1e9 }'
