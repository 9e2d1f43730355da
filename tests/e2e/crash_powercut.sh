#!/usr/bin/env bash
# Crash mode (b), docs/durability.md: ext4 on a loop device on fsmix-powercut's disk.img (a disk
# with a volatile write cache), the power cut mid-run, the persisted image attached, e2fsck -fn
# after the journal's replay (its count recorded), fsmix verify against the durability log.
#   0. The daemon's own safety: one daemon per backing file, cut and stats only on its mount, no
#      backing file left behind by a daemon that could not mount.
#   1. The simulator alone: a file fsynced before the cut survives it with barrier=1; with
#      --ignore-flush (flushes persist nothing) it is lost; the dead disk fails reads with EIO;
#      the counters say what happened (cut_mono_ns: 0, then the cut's CLOCK_MONOTONIC time); a
#      cut that persists 50 % of the cache keeps a random part of what was cached, neither none
#      nor all.
#   (2-4 verify with --cut-at the daemon's cut_mono_ns: the run outlives the simulated cut, and
#   what it was told after it is no promise; the records after the cut are counted.)
#   2. fsmix run on barrier=1: verify passes (promises checked, none broken).
#   3. The same on a disk with --ignore-flush: verify must report broken promises (exit 1). The
#      test fails if it finds nothing there: the checker itself is checked.
#   4. btrfs (no shutdown ioctl on this kernel: mode (b) is its crash test) and xfs: barriers on,
#      verify passes.
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

# 0. The daemon's own safety (each fails on the old fsmix-powercut):
#    a second daemon on a backing file the first still serves is refused (exit 3, nothing
#    mounted): it would serve the file beside the first, and the first's stale cache would
#    overwrite what the second had flushed; once the first is gone the file can be served again;
#    `cut` and `stats` act only on a live mount of fsmix-powercut (a plain directory holding
#    files named control and stats: exit 2, nothing written); a daemon that cannot mount removes
#    the backing file it had just made, and only that (an existing one stays).
s0=$pc_dir/safety
mkdir -p "$s0/m1" "$s0/m2" "$s0/plain"
"$pc_powercut" --size 16M "$s0/b.img" "$s0/m1" 2>"$s0/first.err" && pc_fuses+=("$s0/m1")
"$pc_powercut" "$s0/b.img" "$s0/m2" 2>"$s0/second.err"
rc=$?
mountpoint -q "$s0/m2" && { pc_fuses+=("$s0/m2"); mounted=yes; } || mounted=no
[ $rc -eq 3 ] && [ $mounted = no ] && grep -q "in use: another fsmix-powercut serves it" "$s0/second.err" &&
	"$pc_powercut" stats "$s0/m1" >/dev/null &&
	ok "a second daemon on a served backing file: exit 3, nothing mounted, the first serves on" ||
	{ bad "a second daemon on a served backing file: exit $rc, mounted: $mounted"; tail -2 "$s0/second.err" | sed 's/^/     /'; }
mountpoint -q "$s0/m2" && fusermount3 -u "$s0/m2"
fusermount3 -u "$s0/m1" && _pc_forget pc_fuses "$s0/m1"
for ((i = 0; i < 50; i++)); do # the daemon ends after the unmount: its lock goes with it
	"$pc_powercut" "$s0/b.img" "$s0/m2" 2>"$s0/third.err" && break
	sleep 0.1
done
mountpoint -q "$s0/m2" && pc_fuses+=("$s0/m2") && ok "once the first daemon is gone the file is served again" ||
	{ bad "the backing file cannot be served after the first daemon ended"; tail -2 "$s0/third.err" | sed 's/^/     /'; }
mountpoint -q "$s0/m2" && fusermount3 -u "$s0/m2" && _pc_forget pc_fuses "$s0/m2"
echo "a neighbour's file" >"$s0/plain/control"
echo "a neighbour's stats" >"$s0/plain/stats"
"$pc_powercut" cut "$s0/plain" 2>"$s0/cut.err"
crc=$?
"$pc_powercut" stats "$s0/plain" >"$s0/stats.out" 2>"$s0/stats.err"
src=$?
[ $crc -eq 2 ] && [ "$(cat "$s0/plain/control")" = "a neighbour's file" ] &&
	grep -q "is not a mount of fsmix-powercut" "$s0/cut.err" &&
	ok "cut on a directory that is no fsmix-powercut mount: exit 2, its control file untouched" ||
	{ bad "cut on a plain directory: exit $crc, control now: $(cat "$s0/plain/control")"; cat "$s0/cut.err" | sed 's/^/     /'; }
[ $src -eq 2 ] && [ ! -s "$s0/stats.out" ] && grep -q "is not a mount of fsmix-powercut" "$s0/stats.err" &&
	ok "stats on a directory that is no fsmix-powercut mount: exit 2, nothing read" ||
	bad "stats on a plain directory: exit $src, printed: $(head -1 "$s0/stats.out")"
"$pc_powercut" --size 16M "$s0/new.img" "$s0/missing" 2>"$s0/nomount.err"
rc=$?
[ $rc -ne 0 ] && [ ! -e "$s0/new.img" ] &&
	ok "a daemon that cannot mount removes the backing file it made (exit $rc)" ||
	bad "a daemon that cannot mount: exit $rc, $([ -e "$s0/new.img" ] && echo "its new backing file left behind")"
"$pc_powercut" --size 16M "$s0/b.img" "$s0/missing" 2>"$s0/nomount2.err"
rc=$?
[ $rc -ne 0 ] && [ -s "$s0/b.img" ] && ok "... and leaves an existing backing file in place (exit $rc)" ||
	bad "a daemon that cannot mount: exit $rc, the existing backing file is gone"

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
	cut0=$(awk '$1 == "cut_mono_ns" { print $2 }' "$pc_fuse/stats")
	t0=$(python3 -c 'import time; print(time.monotonic_ns())')
	pc_cut || bad "$name: fsmix-powercut cut failed"
	t1=$(python3 -c 'import time; print(time.monotonic_ns())')
	dd if="$pc_dev" of=/dev/null bs=4096 count=1 iflag=direct 2>"$work/dead.err" &&
		bad "$name: the dead disk still reads" || ok "$name: after the cut the disk fails reads"
	pc_detach
	lost=$(pc_stat dropped_bytes) kept=$(pc_stat flushed_bytes)
	[ "$(pc_stat cut)" = 1 ] && [ "$(pc_stat flushes)" -gt 0 ] &&
		if [ $mode = flush ]; then [ "$kept" -gt 0 ]; else [ "$lost" -gt 0 ] && [ "$(pc_stat flushes_ignored)" -gt 0 ]; fi &&
		ok "$name: counters: $(pc_stat flushes) flushes ($(pc_stat flushes_ignored) ignored), $kept bytes flushed, $lost dropped" ||
		bad "$name: counters: $(tr '\n' ' ' <"$pc_stats")"
	cut=$(pc_stat cut_mono_ns)
	[ "$cut0" = 0 ] && [ "${cut:-0}" -ge "$t0" ] && [ "${cut:-0}" -le "$t1" ] &&
		ok "$name: cut_mono_ns: 0 before the cut, then its CLOCK_MONOTONIC time" ||
		bad "$name: cut_mono_ns ${cut0:-none} before the cut, ${cut:-none} after (the cut ran from $t0 to $t1)"
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
	line="$pc_checked promises checked ($pc_acked fsyncs acknowledged), $pc_broken broken, $pc_after_cut records after the cut; $(pc_stat flushes) flushes, $(pc_stat dropped_bytes) bytes dropped"
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

# 4. btrfs and xfs: this kernel's btrfs has no shutdown ioctl (6.18 has it only with
# CONFIG_BTRFS_EXPERIMENTAL), so mode (b) is its crash test; xfs has both. Barriers on (their
# default), an honest disk, the cut mid-run; the mount replays the log (tree); verify finds
# every promise kept.
for fs in btrfs xfs; do
	name=powercut-run-$fs log=$work/$fs.durlog
	case $fs in
	btrfs) tools="mkfs.btrfs btrfs" mb=256 ;;
	xfs) tools="mkfs.xfs xfs_repair" mb=320 ;; # mkfs.xfs: 300 MB at least
	esac
	missing=
	for t in $tools; do command -v $t >/dev/null || missing=$t; done
	if [ -n "$missing" ]; then
		skipped "$name: no $missing"
		continue
	fi
	pc_fs=$fs
	if pc_disk $name $mb --seed 13 --destage-delay 1500 && pc_mkfs ""; then
		sleep 2
		pc_run_cut "$work/pc.ffsb" 3 "$log" --seed 6
		[ "$pc_rc" = 1 ] && ok "$name: fsmix ends by itself after the cut (exit 1)" ||
			{ bad "$name: fsmix exit $pc_rc after the cut"; tail -5 "$pc_out.err" | sed 's/^/     /'; }
		pc_detach
		if pc_attach; then
			echo "note $name: the read-only check after the log's replay: $pc_fsck_errors problems (exit $pc_fsck_rc)"
			pc_verify "$work/pc.ffsb" "$log"
			line="$pc_checked promises checked ($pc_acked fsyncs acknowledged), $pc_broken broken, $pc_after_cut records after the cut; $(pc_stat flushes) flushes, $(pc_stat dropped_bytes) bytes dropped"
			[ "$pc_verify_rc" = 0 ] && [ "$pc_checked" != - ] && [ "$pc_checked" -gt 0 ] && [ "$pc_broken" = 0 ] &&
				ok "$name: barriers on, an honest disk: verify passes: $line" ||
				{ bad "$name: verify exit $pc_verify_rc: $line"; tail -8 "$pc_dir/$name.verify" | sed 's/^/     /'; }
			pc_release
		else
			bad "$name: the persisted image does not mount: $(tail -1 "$pc_dir/$name.mount.err")"
			pc_cleanup
		fi
	else
		bad "$name: cannot set up the disk"
		pc_cleanup
	fi
	pc_fs=ext4
done

summary
