#!/usr/bin/env bash
# fsync-tester.sh - fsync latency under a random writer (seed 004): profiles/fsync-tester.ffsb on
# a fresh loop-mounted ext4 (barrier=1): a thread overwrites random 4 KB blocks of a SIZE file
# while every PERIOD ms 1 MB is written and fsync()ed, COUNT times; prints each fsync's time
# from the latency log, as fsync-tester.c printed it.
#   sudo bash examples/fsync-tester.sh       # SIZE=8GB PERIOD=4000 COUNT=15 (the seed's 60 s)
# PLOT=FILE.png (or .svg) also draws the run: every operation's latency over time, the fsyncs
# marked (fsmix plot --lat-log); PLOT_TIME=FILE.png draws ops/s, MB/s and p99 per second.
. "$(dirname "$0")/seed-lib.bash"
size=${SIZE:-8GB} period=${PERIOD:-4000} count=${COUNT:-15}
# The image: the file plus half as much again and 256 MB for the small file and ext4's own
# (12544 MB for the seed's 8 GB): a scaled-down SIZE gets a small image, so that ext4's lazy
# inode-table init does not write hundreds of MB beside the fsyncs being timed.
size_mb=$(numfmt --from=iec "${size%[bB]}" 2>/dev/null) && size_mb=$((size_mb >> 20)) || size_mb=8192
fresh_ext4 fsynctest $((size_mb * 3 / 2 + 256)) barrier=1
"$fsmix" run "$profiles/fsync-tester.ffsb" --location "$mnt" \
	--set filesystem0.min_filesize="$size" --set filesystem0.max_filesize="$size" \
	--set threadgroup1.op_period="$period" --set threadgroup1.num_ops="$count" \
	--lat-log "$work/lat.log" ${PLOT_TIME:+--interval 1 --plot "$PLOT_TIME"} \
	>"$work/run.out" 2>"$work/run.err" || { cat "$work/run.err" >&2; exit 1; }
echo "random writer: $(awk '$2 == 0' "$work/lat.log" | wc -l) ops of 256 x 4 KB in $(took "$work/run.out") s; flushes: $(flushes "$work/run.out")"
sort -n "$work/lat.log" | awk '$4 == "write_fsync" { printf "fsync time: %.4fs   (at %7.3f s; write+fsync op %.4fs)\n", $7 / 1e9, $1, $5 / 1e9 }'
if [ -n "${PLOT:-}" ]; then
	"$fsmix" plot --lat-log "$work/lat.log" -o "$PLOT"
fi
