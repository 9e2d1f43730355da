#!/usr/bin/env bash
# fsmix crashtest (docs/durability.md, "Every crash state"; issue 27): CI-sized runs (2-3 s, a
# bounded number of states each).
#   1. Bad usage (a TMPDIR too long included): exit 2; what the environment lacks
#      (fsmix-powercut): exit 3, nothing left.
#   2. Caught (exit 1, states_broken > 0): ext4 barrier=0; a disk that ignores flushes
#      (--disk-fault ignore-flush); one that persists writes after a flush and loses those
#      it acknowledged (--disk-fault reorder-across-flush).
#   3. --run-dir keeps the run; --state N rebuilds that state twice byte for byte.
#   4. A SIGINT mid-run: exit 130, no loop device, mount or temporary directory left.
#   5. The served loop device held open by another process: no stale state (no false alarm).
#   6. A loop detach that reports failure although it detached: no run failure, nothing left.
# The clean configurations (nothing broken) are crashtest_kept.sh.
# Needs root, /dev/fuse, loop devices and fsmix-powercut; skipped with a message otherwise.
set -u
. "$(dirname "$0")/lib.bash"
. "$src/examples/powercut-lib.bash"
if ! pc_init "$work/pc"; then
	skip_env fuse "crashtest: $pc_why"
	summary
fi
export FSMIX_POWERCUT=$pc_powercut
export TMPDIR=$work/tmp # crashtest's private directories: checked empty at the end
mkdir -p "$TMPDIR"
crash_profile 2 >"$work/p.ffsb"

# ct_start NAME ARGS..: fsmix crashtest on the small profile, in the background; the document in
# $work/NAME.json. ct NAME: waits for it, its exit status in $rc. Those of 2 and 3 are
# independent (each its own disk, loop device and daemon below TMPDIR) and mostly wait (mkfs,
# mounts, flushes, the paced runs): two run at a time.
declare -A ct_pid=()
ct_start() {
	local name=$1
	shift
	timeout 300 "$bin" crashtest "$work/p.ffsb" --seed 3 --json "$work/$name.json" "$@" \
		>"$work/$name.out" 2>&1 &
	ct_pid[$name]=$!
}
ct() {
	wait "${ct_pid[$1]}"
	rc=$?
}
key() { jq -r ".$2" "$work/$1.json" 2>/dev/null; }
left() { # what crashtest may have left: loop devices over its files, its mounts, its dirs
	# (only this test's: crashtest_kept.sh may run beside it, with crashtest dirs of its own)
	losetup -a | grep -cF "$TMPDIR/fsmix-crashtest"
	findmnt -rn | grep -cF "$TMPDIR/fsmix-crashtest"
	ls "$TMPDIR" | wc -l
}

# 1. Usage and environment.
"$bin" crashtest "$work/p.ffsb" >"$work/u1" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "needs --fs" "$work/u1" && ok "no --fs: exit 2" || { bad "no --fs: exit $rc"; cat "$work/u1"; }
"$bin" crashtest "$work/p.ffsb" --fs zfs >"$work/u2" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "ext4, xfs or btrfs" "$work/u2" && ok "--fs zfs: exit 2" || { bad "--fs zfs: exit $rc"; cat "$work/u2"; }
"$bin" crashtest "$work/p.ffsb" --fs ext4 --state 3 >"$work/u3" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "needs --image" "$work/u3" && ok "--state without --image: exit 2" || { bad "--state alone: exit $rc"; cat "$work/u3"; }
FSMIX_POWERCUT=$work/none "$bin" crashtest "$work/p.ffsb" --fs ext4 >"$work/u4" 2>&1
rc=$?
[ $rc = 3 ] && grep -q "fsmix-powercut not found" "$work/u4" && [ "$(left | tr '\n' ' ')" = "0 0 0 " ] &&
	ok "fsmix-powercut missing: exit 3, nothing left" || { bad "fsmix-powercut missing: exit $rc"; cat "$work/u4"; }

long=$TMPDIR/$(printf 'd%.0s' $(seq 470)) # with fsmix-crashtest.XXXXXX and the names below it: over 512
TMPDIR=$long "$bin" crashtest "$work/p.ffsb" --fs ext4 >"$work/u5" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "TMPDIR is too long" "$work/u5" && [ "$(left | tr '\n' ' ')" = "0 0 0 " ] &&
	ok "a TMPDIR too long for crashtest's names: exit 2, said, nothing left" ||
	{ bad "TMPDIR too long: exit $rc"; cat "$work/u5"; }

# 2. Caught.
ct_start nobarrier --fs ext4 --mount-options barrier=0 --states 4 --reorder 2
ct_start ignore --fs ext4 --mount-options barrier=1 --states 6 --disk-fault ignore-flush
ct nobarrier
ct_start reorder --fs ext4 --mount-options barrier=1 --states 15 --reorder 1 --disk-fault reorder-across-flush
b=$(key nobarrier states_broken)
[ $rc = 1 ] && [ "${b:-0}" -gt 0 ] &&
	ok "ext4 barrier=0: exit 1, $b of $(key nobarrier states_explored) states broken ($(key nobarrier broken_by_kind | tr -d ' \n'))" ||
	{ bad "ext4 barrier=0: exit $rc, states_broken '$b'"; tail -12 "$work/nobarrier.out"; }
ct ignore
ct_start keep --fs ext4 --states 3 --reorder 1 --run-dir "$work/run"
b=$(key ignore states_broken)
[ $rc = 1 ] && [ "${b:-0}" -gt 0 ] &&
	ok "--disk-fault ignore-flush: exit 1, $b of $(key ignore states_explored) states broken" ||
	{ bad "--disk-fault ignore-flush: exit $rc, states_broken '$b'"; tail -12 "$work/ignore.out"; }
ct reorder
b=$(key reorder states_broken)
[ $rc = 1 ] && [ "${b:-0}" -gt 0 ] &&
	ok "--disk-fault reorder-across-flush: exit 1, $b of $(key reorder states_explored) states broken" ||
	{ bad "--disk-fault reorder-across-flush: exit $rc, states_broken '$b'"; tail -12 "$work/reorder.out"; }

# 3. A kept run, one state rebuilt twice.
ct keep
n=$(key keep states_explored)
[ $rc = 0 ] && [ "$n" = 3 ] || [ "$n" = 6 ] && [ -s "$work/run/run.rec" ] &&
	ok "--run-dir: $n states, exit $rc, the record kept" || { bad "--run-dir: exit $rc, $n states"; tail "$work/keep.out"; }
last=$((n - 1))
for i in 1 2; do
	timeout 120 "$bin" crashtest "$work/p.ffsb" --seed 3 --fs ext4 --states 3 --reorder 1 \
		--run-dir "$work/run" --state $last --image "$work/s$i.img" >"$work/s$i.out" 2>&1 ||
		bad "--state $last ($i): exit $?: $(tail -1 "$work/s$i.out")"
done
[ -s "$work/s1.img" ] && cmp -s "$work/s1.img" "$work/s2.img" &&
	ok "--state $last twice: byte-identical images ($(head -1 "$work/s1.out"))" || bad "--state $last: the two images differ"
timeout 120 "$bin" crashtest "$work/p.ffsb" --seed 3 --fs ext4 --states 3 --reorder 1 \
	--run-dir "$work/run" --state $last --image "$work/s1.img" >"$work/s3.out" 2>&1
rc=$?
[ $rc = 2 ] && cmp -s "$work/s1.img" "$work/s2.img" && ok "--image onto an existing file: refused (exit $rc), the file untouched" ||
	bad "--image onto an existing file: exit $rc"
rm -f "$work"/s?.img

# 4. Ctrl-C mid-run: everything undone.
"$bin" crashtest "$work/p.ffsb" --seed 3 --fs ext4 --states 50 >"$work/int.out" 2>&1 &
pid=$!
for ((i = 0; i < 300; i++)); do # the run's mount, then a moment into the run
	findmnt -rn | grep -qF "$TMPDIR/fsmix-crashtest" && break
	sleep 0.1
done
sleep 1.5
kill -INT $pid
timeout 60 tail --pid=$pid -f /dev/null
wait $pid
rc=$?
l=$(left | tr '\n' ' ')
[ $rc = 130 ] && [ "$l" = "0 0 0 " ] && grep -q "stopped; everything it made was removed" "$work/int.out" &&
	ok "SIGINT mid-run: exit 130, no loop device, mount or directory left" ||
	{ bad "SIGINT: exit $rc, left (loops mounts dirs): $l"; tail -5 "$work/int.out"; }

# 5. Another process holds the served loop device open while states are explored (as a probe
# does: blkid, btrfs device scan): its page cache then outlives each unmount and check, and
# the next state must not be read partly from the previous one's pages (17 of 20 states
# "broken" before crashtest dropped the cache at each switch).
before=$(ls -d "$TMPDIR"/fsmix-crashtest.* 2>/dev/null) # (a check above may have left one)
"$bin" crashtest "$work/p.ffsb" --seed 3 --fs ext4 --states 20 --json "$work/hold.json" >"$work/hold.out" 2>&1 &
pid=$!
dev=
for ((i = 0; i < 1200; i++)); do # the served state's loop device: after the record's inspect
	d=$(ls -d "$TMPDIR"/fsmix-crashtest.* 2>/dev/null | grep -vxF "${before:-/}" | head -1)
	if [ -n "$d" ] && [ -e "$d/inspect" ]; then
		dev=$(losetup -a | grep -F "$d/disk/disk.img" | cut -d: -f1)
		[ -n "$dev" ] && break
	fi
	sleep 0.05
done
[ -n "$dev" ] && { sleep 4 <"$dev" & }
wait $pid
rc=$?
[ -n "$dev" ] && [ $rc = 0 ] && [ "$(key hold states_broken)" = 0 ] && [ "$(key hold states_fsck_flagged)" = 0 ] &&
	ok "$dev held open by another process: $(key hold states_explored) states, none broken or flagged" ||
	{ bad "$dev held open: exit $rc, broken $(key hold states_broken), flagged $(key hold states_fsck_flagged)"; head -3 "$work/hold.out"; }
wait

# 6. A detach that reports failure although it detached (as after a stop, while the unmount's
# last release is still under way): crashtest sees the device is no longer its file's, goes on
# and leaves nothing (before: the run failed, exit 1, its directory left "busy").
real_losetup=$(command -v losetup)
mkdir -p "$work/shim"
cat >"$work/shim/losetup" <<EOF
#!/bin/sh
if [ "\$1" = "-d" ]; then "$real_losetup" "\$@"; echo "losetup: \$2: detach failed (test shim)" >&2; exit 1; fi
exec "$real_losetup" "\$@"
EOF
chmod +x "$work/shim/losetup"
PATH=$work/shim:$PATH ct_start shim --fs ext4 --states 3
ct shim
[ $rc = 0 ] && [ "$(key shim states_explored)" = 3 ] && [ "$(left | tr '\n' ' ')" = "0 0 0 " ] &&
	ok "a detach that says it failed after detaching: exit 0, 3 states, nothing left" ||
	{ bad "detach shim: exit $rc, left: $(left | tr '\n' ' ')"; tail -3 "$work/shim.out"; }

[ "$(left | tr '\n' ' ')" = "0 0 0 " ] && ok "nothing left behind by any run" || bad "left behind: $(left | tr '\n' ' ')"
summary
