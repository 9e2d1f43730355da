#!/usr/bin/env bash
# Crash mode (b), docs/durability.md: ext4 on a loop device on fsmix-powercut's disk.img (a disk
# with a volatile write cache), the power cut mid-run, the persisted image attached, e2fsck -fn
# after the journal's replay (its count recorded), fsmix verify against the durability log.
#   1. The simulator alone: a file fsynced before the cut survives it with barrier=1; with
#      --ignore-flush (flushes persist nothing) it is lost; the dead disk fails reads with EIO;
#      the counters say what happened; a cut that persists 50 % of the cache keeps a random
#      part of what was cached, neither none nor all.
#   2. fsmix run on barrier=1: verify passes (promises checked, none broken).
#   3. The same on a disk with --ignore-flush: verify must report broken promises (exit 1). The
#      test fails if it finds nothing there: the checker itself is checked.
# Needs root, /dev/fuse, loop devices and fsmix-powercut (built where libfuse3-dev is found);
# skipped with a message otherwise. Small trees; no time bound but generous timeouts.
set -u
. "$(dirname "$0")/lib.bash"
. "$src/examples/powercut-lib.bash"
if ! pc_init "$work/pc"; then
	skip_env fuse "crash mode (b): $pc_why"
	summary
fi
trap 'pc_cleanup; cleanup' EXIT

# witness FILE: 256 KiB of random data written to the mounted disk and fsynced; the copy kept
# in $work to compare with after the cut.
witness() {
	head -c 262144 /dev/urandom >"$work/$1"
	cp "$work/$1" "$pc_mnt/$1" && python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd)
dfd = os.open(os.path.dirname(sys.argv[1]), os.O_RDONLY); os.fsync(dfd)' "$pc_mnt/$1"
}

# 1. The simulator, without fsmix.
for mode in flush ignore; do
	opts=(--seed 7 --destage-delay off)
	[ $mode = ignore ] && opts+=(--ignore-flush)
	name=powercut-sim-$mode
	if ! pc_disk $name 64 "${opts[@]}"; then
		bad "$name: cannot start fsmix-powercut and a loop device"
		continue
	fi
	# mkfs's flushes are ignored on the broken disk: the control file's flush (which always
	# persists) makes the new filesystem durable before the witness
	pc_mkfs barrier=1 || { bad "$name: mkfs.ext4 or mount on the loop device failed"; continue; }
	echo flush >"$pc_fuse/control" || bad "$name: the control file refuses 'flush'"
	if ! witness w1; then
		bad "$name: cannot write the witness file"
		pc_cleanup
		continue
	fi
	pc_cut || bad "$name: fsmix-powercut cut failed"
	dd if="$pc_dev" of=/dev/null bs=4096 count=1 iflag=direct 2>"$work/dead.err" &&
		bad "$name: the dead disk still reads" || ok "$name: after the cut the disk fails reads"
	pc_detach
	lost=$(pc_stat dropped_bytes) kept=$(pc_stat flushed_bytes)
	[ "$(pc_stat cut)" = 1 ] && [ "$(pc_stat flushes)" -gt 0 ] &&
		if [ $mode = flush ]; then [ "$kept" -gt 0 ]; else [ "$lost" -gt 0 ] && [ "$(pc_stat flushes_ignored)" -gt 0 ]; fi &&
		ok "$name: counters: $(pc_stat flushes) flushes ($(pc_stat flushes_ignored) ignored), $kept bytes flushed, $lost dropped" ||
		bad "$name: counters: $(tr '\n' ' ' <"$pc_stats")"
	if ! pc_attach; then
		bad "$name: the persisted image does not mount"
		continue
	fi
	if [ $mode = flush ]; then
		cmp -s "$work/w1" "$pc_mnt/w1" && ok "$name: the fsynced file survives the cut" ||
			bad "$name: the fsynced file is lost or changed on an honest disk"
	else
		cmp -s "$work/w1" "$pc_mnt/w1" && bad "$name: the fsynced file survived --ignore-flush" ||
			ok "$name: --ignore-flush loses the fsynced file"
	fi
	[ "$pc_fsck_rc" = 0 ] && ok "$name: e2fsck -fn after the journal's replay: clean" ||
		echo "note $name: e2fsck -fn found $pc_fsck_errors problems (exit $pc_fsck_rc)"
	pc_release
done

# 1b. The cut's reordering, on the raw disk: 1 MiB written with O_DIRECT (into the cache, no
# flush), then `cut MOUNT 50`: a random part of its 256 blocks, neither none nor all, reaches
# the backing image, and the counters account for every byte.
name=powercut-sim-reorder
if pc_disk $name 16 --seed 3 --destage-delay off; then
	head -c 1048576 /dev/urandom >"$work/pattern"
	if dd if="$work/pattern" of="$pc_dev" bs=65536 oflag=direct status=none; then
		"$pc_powercut" cut "$pc_fuse" 50 || bad "$name: fsmix-powercut cut MOUNT 50 failed"
		pc_detach
		kept=0
		for ((b = 0; b < 256; b++)); do
			cmp -s -i $((b * 4096)):$((b * 4096)) -n 4096 "$work/pattern" "$pc_img" && kept=$((kept + 1))
		done
		p=$(pc_stat cut_persisted_bytes) d=$(pc_stat dropped_bytes)
		[ "$kept" -gt 0 ] && [ "$kept" -lt 256 ] && [ "$p" = $((kept * 4096)) ] && [ $((p + d)) = 1048576 ] &&
			ok "$name: the cut persisted $kept of 256 cached blocks ($p bytes; $d dropped)" ||
			bad "$name: $kept of 256 blocks persisted; counters: persisted $p, dropped $d"
	else
		bad "$name: O_DIRECT write to $pc_dev failed"
	fi
	pc_cleanup
	rm -f "$pc_img"
else
	bad "$name: cannot start fsmix-powercut and a loop device"
fi

# 2 and 3. fsmix on the disk: barrier=1 on an honest disk passes verify; the same on a disk that
# ignores flushes must break promises. Destaging (after 1.5 s) makes mkfs and the tree durable
# on the broken disk too; what the run fsynced in its last 1.5 s before the cut is lost there.
crash_profile 20 >"$work/pc.ffsb"
for mode in flush ignore; do
	opts=(--seed 11 --destage-delay 1500)
	[ $mode = ignore ] && opts+=(--ignore-flush)
	name=powercut-run-$mode log=$work/$mode.durlog
	if ! pc_disk $name 128 "${opts[@]}" || ! pc_mkfs barrier=1; then
		bad "$name: cannot set up the disk"
		pc_cleanup
		continue
	fi
	sleep 2 # the broken disk destages mkfs's writes
	pc_run_cut "$work/pc.ffsb" 3 "$log" --seed 5
	# the run ends by itself: its calls fail (EIO) or ext4 turns read-only
	[ "$pc_rc" = 1 ] && ok "$name: fsmix ends by itself after the cut (exit 1)" ||
		{ bad "$name: fsmix exit $pc_rc after the cut"; tail -5 "$pc_out.err" | sed 's/^/     /'; }
	pc_detach
	if ! pc_attach; then
		bad "$name: the persisted image does not mount even after e2fsck -fy"
		pc_cleanup
		continue
	fi
	echo "note $name: e2fsck -fn after the journal's replay: $pc_fsck_errors problems (exit $pc_fsck_rc)$([ "$pc_unmountable" = 1 ] && echo '; the image needed e2fsck -fy to mount')"
	pc_verify "$work/pc.ffsb" "$log"
	line="$pc_checked promises checked ($pc_acked fsyncs acknowledged), $pc_broken broken; $(pc_stat flushes) flushes, $(pc_stat dropped_bytes) bytes dropped"
	if [ $mode = flush ]; then
		[ "$pc_verify_rc" = 0 ] && [ "$pc_checked" != - ] && [ "$pc_checked" -gt 0 ] && [ "$pc_broken" = 0 ] &&
			ok "$name: barrier=1 on an honest disk: verify passes: $line" ||
			{ bad "$name: verify exit $pc_verify_rc: $line"; tail -8 "$pc_dir/$name.verify" | sed 's/^/     /'; }
	else
		[ "$pc_verify_rc" = 1 ] && [ "$pc_broken" != - ] && [ "$pc_broken" -gt 0 ] &&
			ok "$name: --ignore-flush: verify reports broken promises: $line" ||
			{ bad "$name: --ignore-flush: verify found nothing to report (exit $pc_verify_rc): $line"; tail -8 "$pc_dir/$name.verify" | sed 's/^/     /'; }
	fi
	pc_release
done

summary
