#!/usr/bin/env bash
# fsmix-powercut --reorder-across-flush (docs/durability.md; issue 27): a broken disk on which
# writes issued after a flush persist while the writes that flush acknowledged are lost.
#   1. On the raw disk: A written and flushed (fsync of the loop device), then B written, then
#      the cut: the backing image holds B and not A. The same on an honest disk: A, not B.
#   2. ext4 barrier=1 on it, fsmix run with fsync cut mid-run: fsmix verify must report broken
#      promises (exit 1), or the image is damaged past mounting cleanly (e2fsck -fn flags it):
#      either way the fault is seen. The checker is checked.
# Needs root, /dev/fuse, loop devices and fsmix-powercut; skipped with a message otherwise.
set -u
. "$(dirname "$0")/lib.bash"
. "$src/examples/powercut-lib.bash"
if ! pc_init "$work/pc"; then
	skip_env fuse "--reorder-across-flush: $pc_why"
	summary
fi
trap 'pc_cleanup; cleanup' EXIT

head -c 262144 /dev/urandom >"$work/A"
head -c 262144 /dev/urandom >"$work/B"
# has FILE OFFSET: whether the backing image holds FILE at byte OFFSET
has() { cmp -s -i 0:"$2" -n 262144 "$work/$1" "$pc_img"; }

# 1. The raw disk.
for mode in honest reorder; do
	opts=(--seed 1 --destage-delay off)
	[ $mode = reorder ] && opts+=(--reorder-across-flush)
	if ! pc_disk raw-$mode 16 "${opts[@]}"; then
		bad "raw-$mode: cannot start fsmix-powercut and a loop device"
		continue
	fi
	dd if="$work/A" of="$pc_dev" bs=65536 oflag=direct conv=fsync status=none &&
		dd if="$work/B" of="$pc_dev" bs=65536 seek=16 oflag=direct status=none ||
		bad "raw-$mode: writing to $pc_dev failed"
	pc_cut || bad "raw-$mode: the cut failed"
	pc_detach
	a=no b=no
	has A 0 && a=yes
	has B 1048576 && b=yes
	if [ $mode = honest ]; then
		[ $a = yes ] && [ $b = no ] && ok "honest disk: the flushed write survives the cut, the later one is lost" ||
			bad "honest disk: flushed A kept: $a, unflushed B kept: $b"
	else
		[ $a = no ] && [ $b = yes ] &&
			ok "--reorder-across-flush: the write after the flush persisted, the one it acknowledged is lost" ||
			bad "--reorder-across-flush: flushed A kept: $a (want no), later B kept: $b (want yes)"
	fi
	rm -f "$pc_img"
done

# 2. ext4 barrier=1 on the broken disk: the fault is seen.
crash_profile 20 >"$work/r.ffsb"
name=reorder-ext4 log=$work/reorder.durlog
if pc_disk $name 96 --seed 7 --destage-delay off --reorder-across-flush && pc_mkfs barrier=1; then
	pc_run_cut "$work/r.ffsb" 3 "$log" --seed 5
	pc_detach
	if pc_attach; then
		pc_verify "$work/r.ffsb" "$log"
		line="$pc_checked promises checked, $pc_broken broken; e2fsck -fn after the replay: $pc_fsck_errors problems"
		{ [ "$pc_verify_rc" = 1 ] && [ "$pc_broken" != - ] && [ "$pc_broken" -gt 0 ]; } ||
			{ [ "$pc_fsck_errors" != - ] && [ "$pc_fsck_errors" -gt 0 ]; } &&
			ok "$name: the fault is seen: verify exit $pc_verify_rc: $line" ||
			{ bad "$name: nothing found on a disk that reorders across flushes (verify exit $pc_verify_rc): $line"; tail -5 "$pc_dir/$name.verify" | sed 's/^/     /'; }
		pc_release
	else
		ok "$name: the persisted image does not mount even after e2fsck -fy: the fault is seen"
		pc_cleanup
	fi
else
	bad "$name: cannot set up the disk"
	pc_cleanup
fi

summary
