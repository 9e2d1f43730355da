#!/usr/bin/env bash
# Reports: device flushes on a loop-mounted ext4 with and without barriers, n/a on tmpfs,
# --format ffsb, --interval rows, the live progress line on a terminal.
set -u
. "$(dirname "$0")/lib.bash"

flushes() { sed -n 's/^  flush requests \([0-9]*\) .*/\1/p' "$1" | head -1; }
fsyncs() { awk '$1 == "fsync" && $2 ~ /^[0-9]+$/ { print $2; exit }' "$1"; }

if mount_ext4 "$work/barrier" 256 && mount_ext4 "$work/nobarrier" 256 "barrier=0"; then
	for m in barrier nobarrier; do
		"$bin" run "$src/examples/fsync-append.ffsb" --location "$work/$m" --time 2 >"$work/$m.out" 2>"$work/$m.err" ||
			bad "$m run failed: $(tail -1 "$work/$m.err")"
	done
	fb=$(flushes "$work/barrier.out") fn=$(flushes "$work/nobarrier.out")
	sb=$(fsyncs "$work/barrier.out") sn=$(fsyncs "$work/nobarrier.out")
	echo "     barrier: $fb flushes for $sb fsyncs; barrier=0: $fn flushes for $sn fsyncs"
	[ -n "$fb" ] && [ -n "$sb" ] && [ "$sb" -gt 100 ] && [ "$fb" -ge "$sb" ] &&
		ok "ext4 with barriers: at least one flush per fsync reported" || bad "ext4 barrier flushes"
	[ -n "$fn" ] && [ -n "$sn" ] && [ "$sn" -gt 100 ] && [ "$fn" -le $((sn / 100 + 2)) ] &&
		ok "ext4 with barrier=0: (almost) no flushes" || bad "ext4 nobarrier flushes"
	grep -q "flush requests .*/sec, .* per sync call" "$work/barrier.out" &&
		ok "flushes per second and per sync call are printed" || bad "flush rates"
else
	skipped "device flushes: no loop-mounted ext4 here (needs root and loop devices)"
fi

loc=$(shmdir)
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 2 --interval 0.5 >"$work/shm.out" 2>"$work/shm.err"
grep -q "^  n/a: tmpfs has no block device" "$work/shm.out" && ! grep -q "flush requests [0-9]" "$work/shm.out" &&
	ok "tmpfs: device counters are n/a with the reason" || bad "tmpfs n/a"
rows=$(awk '/^Intervals/ { f = 1; next } f && NF == 0 { f = 0 } f && $1 ~ /^[0-9.]+$/ { n++ } END { print n + 0 }' "$work/shm.out")
[ "$rows" -ge 4 ] && [ "$rows" -le 6 ] && ok "--interval 0.5 over 2 s: $rows rows" || bad "--interval rows: $rows"
for s in "Operation latency" "Sync latency" "System call latency" "CPU: user"; do
	grep -q "^$s" "$work/shm.out" || bad "text report lacks '$s'"
done
ok "text report has its latency, sync and CPU sections"

"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 1 --format ffsb >"$work/ffsb.out" 2>/dev/null
grep -q "^Total Results" "$work/ffsb.out" && grep -q "Transactions per Second" "$work/ffsb.out" &&
	grep -q "^System Call Latency statistics in millisecs" "$work/ffsb.out" &&
	! grep -q "^Operation latency\|^fsmix:\|^Device counters" "$work/ffsb.out" &&
	ok "--format ffsb prints only the FFSB-compatible part" || bad "--format ffsb"

if command -v script >/dev/null; then
	script -qc "$bin run $src/profiles/default.ffsb --location $loc --time 3 >/dev/null" /dev/null >"$work/tty.out" 2>&1
	grep -q "elapsed, .* left\] .* ops/s" "$work/tty.out" && ok "progress line on a terminal" || bad "progress line"
	"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 2 2>"$work/notty.err" >/dev/null
	! grep -q "elapsed" "$work/notty.err" && ok "no progress line when stderr is not a terminal" || bad "progress without a tty"
else
	skipped "progress line: no script(1) here"
fi
summary
