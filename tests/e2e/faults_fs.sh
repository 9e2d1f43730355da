#!/usr/bin/env bash
# Real filesystem faults during a run: ENOSPC on a small loop ext4, inodes exhausted on tmpfs,
# ENOSPC while building, EIO from the ext4 shutdown ioctl, read-only remounts (by mount and by
# the kernel after an error), the location removed or replaced under a running fsmix, and
# SIGINT while the filesystem is frozen.
# Each: the documented exit status, a whole JSON naming the error, error counts, no hang
# (timeout), and a victim directory beside the tree unchanged. Mid-run faults are triggered once
# fsmix says its workers run ("fsmix: running"), never after a guessed delay.
# Loop devices and mounts need root; cases are skipped with a message where unavailable.
set -u
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/faults.bash"

# A frozen filesystem cannot be unmounted: thaw every mount before the lib's cleanup.
frozen=()
faults_cleanup() {
	local m
	for m in "${frozen[@]}"; do
		fsfreeze -u "$m" 2>/dev/null
	done
	cleanup
}
trap faults_cleanup EXIT

# remount DIR: unmount and mount the same loop device again (after a shutdown or an emergency
# read-only remount, the files can only be read after this).
remount() {
	local dev
	dev=$(findmnt -n -o SOURCE --mountpoint "$1") && umount "$1" && mount -t ext4 "$dev" "$1"
}

# 1. ENOSPC during the run: a 16 MB ext4, a 5 MB tree; creates of 256 KB files fill it.
if mount_ext4 "$work/full" 16; then
	victim_make "$work/full"
	fp_size=256KB fault_profile "$work/full.ffsb" create=1 readall=1
	run_bg "$work/full" run "$work/full.ffsb" --location "$work/full" --json "$work/full.json"
	run_wait
	if [ "$rc" -eq 1 ] && json_has_error "$work/full.json" "write|create|fsync|close" ENOSPC; then
		ok "ENOSPC (ext4, 16 MB): exit 1, the JSON names ENOSPC, counts agree"
	else
		bad "ENOSPC (ext4): exit $rc"; show_run "$work/full"
	fi
	victim_check "$work/full" && ok "ENOSPC (ext4): the victim is unchanged" ||
		bad "ENOSPC (ext4): the victim changed"
	timeout 60 "$bin" clean "$work/full.ffsb" --location "$work/full" >"$work/full.clean" 2>&1 &&
		[ ! -e "$work/full/fsmix.fs0" ] && ok "ENOSPC (ext4): clean removes the tree of the full disk" ||
		{ bad "ENOSPC (ext4): clean failed"; show "$work/full.clean" 2; }
else
	skip_env loop "ENOSPC (ext4): no loop device or mkfs.ext4 here (needs root)"
fi

# 2. Inodes exhausted (tmpfs nr_inodes=48; plenty of space): creates fail with ENOSPC; clean
# must still work on the full filesystem, since removing needs no inode (issue 10 case 6).
if mount_tmpfs "$work/inodes" "size=64m,nr_inodes=48"; then
	victim_make "$work/inodes"
	fault_profile "$work/inodes.ffsb" create=1 createdir=1 stat=1
	run_bg "$work/inodes" run "$work/inodes.ffsb" --location "$work/inodes" --json "$work/inodes.json"
	run_wait
	if [ "$rc" -eq 1 ] && json_has_error "$work/inodes.json" "create|mkdir" ENOSPC; then
		ok "inodes exhausted (tmpfs): exit 1, the JSON names ENOSPC"
	else
		bad "inodes exhausted: exit $rc"; show_run "$work/inodes"
	fi
	victim_check "$work/inodes" && ok "inodes exhausted: the victim is unchanged" ||
		bad "inodes exhausted: the victim changed"
	timeout 60 "$bin" clean "$work/inodes.ffsb" --location "$work/inodes" >"$work/inodes.clean" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ ! -e "$work/inodes/fsmix.fs0" ]; then
		ok "inodes exhausted: clean removes the tree without a free inode"
	else
		bad "inodes exhausted: clean exit $rc (issue 10 case 6: clean needs a free inode)"
		show "$work/inodes.clean" 1
	fi
else
	skip_env mount "inodes exhausted: cannot mount tmpfs here (needs root)"
fi

# 3. ENOSPC while building (400 files of 4 KB on a 1 MB tmpfs): exit 1 naming the error, and no
# older JSON left claiming success (issue 10 case 10).
if mount_tmpfs "$work/small" "size=1m"; then
	victim_make "$work/small"
	echo '{"schema": "fsmix-report", "exit_status": 0, "stop_reason": "time"}' >"$work/small.json"
	run_bg "$work/small" run "$steady" --location "$work/small" --set filesystem0.num_files=400 \
		--json "$work/small.json"
	run_wait
	[ "$rc" -eq 1 ] && grep -q "No space left on device" "$work/small.err" &&
		ok "ENOSPC while building: exit 1 naming the error" ||
		{ bad "ENOSPC while building: exit $rc"; show_run "$work/small"; }
	no_stale_json "$work/small.json" "ENOSPC while building"
	victim_check "$work/small" && ok "ENOSPC while building: the victim is unchanged" ||
		bad "ENOSPC while building: the victim changed"
else
	skip_env mount "ENOSPC while building: cannot mount tmpfs here (needs root)"
fi

# 4. EIO: the ext4 shutdown ioctl (xfs_io -x -c shutdown) once the workers run. After a
# shutdown the journal aborts, and ext4 then turns the filesystem read-only: a worker whose
# first failing call comes after that gets EROFS instead of EIO (CI saw a create fail so), and
# both are the kernel's honest answer, so either is accepted.
if ! command -v xfs_io >/dev/null; then
	skip_env xfs "EIO (ext4 shutdown): no xfs_io (xfsprogs)"
elif mount_ext4 "$work/down" 64; then
	victim_make "$work/down"
	run_bg "$work/down" run "$steady" --location "$work/down" --json "$work/down.json"
	wait_for "$work/down.err" "^fsmix: running" 30 && xfs_io -x -c shutdown "$work/down"
	run_wait
	if [ "$rc" -eq 1 ] && json_has_error "$work/down.json" "[a-z]+" "EIO|EROFS"; then
		ok "EIO (ext4 shutdown mid-run): exit 1, the JSON names EIO or EROFS, counts agree"
	else
		bad "EIO (ext4 shutdown): exit $rc, or an error other than EIO/EROFS in the JSON"
		show_run "$work/down"
	fi
	remount "$work/down" && victim_check "$work/down" &&
		ok "EIO (ext4 shutdown): the victim is unchanged" || bad "EIO (ext4 shutdown): the victim changed"
else
	skip_env loop "EIO (ext4 shutdown): no loop device or mkfs.ext4 here (needs root)"
fi

# 5a. Read-only remount mid-run: `mount -o remount,ro` under the running workers. The kernel
# refuses it (EBUSY) while a file is open for writing, so the profile writes without holding
# files open long (create, delete) and the remount is retried until it is accepted.
if mount_ext4 "$work/ro" 64; then
	victim_make "$work/ro"
	fault_profile "$work/ro.ffsb" create=1 delete=1 readall=1 stat=1
	run_bg "$work/ro" run "$work/ro.ffsb" --location "$work/ro" --json "$work/ro.json"
	remounted=0
	if wait_for "$work/ro.err" "^fsmix: running" 30; then
		for ((i = 0; i < 500 && !remounted; i++)); do
			kill -0 "$run_pid" 2>/dev/null || break
			mount -o remount,ro "$work/ro" 2>/dev/null && remounted=1
		done
	fi
	if [ $remounted -eq 0 ]; then
		kill -INT "$run_pid" 2>/dev/null
		run_wait
		skipped "read-only remount: the kernel refused every remount,ro (EBUSY) during the run"
	else
		run_wait
		if [ "$rc" -eq 1 ] && json_has_error "$work/ro.json" "[a-z]+" EROFS; then
			ok "read-only remount mid-run: exit 1, the JSON names EROFS"
		else
			bad "read-only remount: exit $rc"; show_run "$work/ro"
		fi
		victim_check "$work/ro" && ok "read-only remount: the victim is unchanged" ||
			bad "read-only remount: the victim changed"
	fi
else
	skip_env loop "read-only remount: no loop device or mkfs.ext4 here (needs root)"
fi

# 5b. Emergency read-only remount mid-run: ext4 with errors=remount-ro and an error raised
# through sysfs (trigger_fs_error), under the steady profile's fsync'ed writes.
if mount_ext4 "$work/ero" 64 errors=remount-ro; then
	trigger=/sys/fs/ext4/$(basename "$(findmnt -n -o SOURCE --mountpoint "$work/ero")")/trigger_fs_error
	if [ -w "$trigger" ]; then
		victim_make "$work/ero"
		run_bg "$work/ero" run "$steady" --location "$work/ero" --json "$work/ero.json"
		wait_for "$work/ero.err" "^fsmix: running" 30 && echo fsmix-e2e >"$trigger"
		run_wait
		if [ "$rc" -eq 1 ] && json_has_error "$work/ero.json" "[a-z]+" "EIO|EROFS"; then
			ok "emergency read-only remount mid-run: exit 1, the JSON names the error"
		else
			bad "emergency read-only remount: exit $rc"; show_run "$work/ero"
		fi
		victim_check "$work/ero" && ok "emergency read-only remount: the victim is unchanged" ||
			bad "emergency read-only remount: the victim changed"
	else
		skipped "emergency read-only remount: no $trigger (kernel without ext4 trigger_fs_error)"
	fi
else
	skip_env loop "emergency read-only remount: no loop device or mkfs.ext4 here (needs root)"
fi

# 6. The location removed under the run (rm -rf of the location, tree included): exit 1 with
# the error (ENOENT), no hang, nothing recreated, the victim beside the location unchanged.
parent=$(shmdir)
victim_make "$parent"
mkdir "$parent/loc"
run_bg "$work/gone" run "$steady" --location "$parent/loc" --json "$work/gone.json" --cleanup
if wait_for "$work/gone.err" "^fsmix: running" 30; then
	for ((i = 0; i < 100; i++)); do
		rm -rf "$parent/loc" 2>/dev/null
		[ -e "$parent/loc" ] || break
	done
fi
run_wait
if [ "$rc" -eq 1 ] && json_has_error "$work/gone.json" "[a-z]+" ENOENT && [ ! -e "$parent/loc" ]; then
	ok "location removed mid-run: exit 1, the JSON names ENOENT, nothing recreated"
else
	bad "location removed mid-run: exit $rc"; show_run "$work/gone"
fi
victim_check "$parent" && ok "location removed: the victim is unchanged" ||
	bad "location removed: the victim changed"

# 7. The location replaced under the run (renamed away, a new directory of the same name holding
# user files laid out like a tree, without marker): fsmix goes on in its own tree (it works
# through directory descriptors), never touches the new directory, and --cleanup removes only
# its own tree. Stopped with SIGINT once its workers have written after the swap.
parent=$(shmdir)
mkdir "$parent/loc"
run_bg "$work/swap" run "$steady" --location "$parent/loc" --json "$work/swap.json" --cleanup
if wait_for "$work/swap.err" "^fsmix: running" 30; then
	mv "$parent/loc" "$parent/old"
	mkdir -p "$parent/loc/fsmix.fs0/data/d000"
	victim_make "$parent/loc/fsmix.fs0/data/d000"
	echo "not fsmix's" >"$parent/loc/fsmix.fs0/data/d000/f0"
	sums=$(cd "$parent/loc" && find . -print0 | sort -z | xargs -0 sha256sum 2>&1)
	touch "$work/swap.stamp"
	for ((i = 0; i < 300; i++)); do
		[ -n "$(find "$parent/old" -newer "$work/swap.stamp" -print -quit)" ] && break
		sleep 0.1
	done
	kill -INT "$run_pid"
fi
run_wait
if [ "$rc" -eq 130 ] && json_ok "$work/swap.json" '.exit_status == 130 and .interrupted and (.errors | length) == 0'; then
	ok "location replaced mid-run: the run goes on in its own tree, SIGINT gives exit 130 and a JSON"
else
	bad "location replaced mid-run: exit $rc"; show_run "$work/swap"
fi
[ "$(cd "$parent/loc" && find . -print0 | sort -z | xargs -0 sha256sum 2>&1)" = "$sums" ] &&
	ok "location replaced: the new directory is untouched (run and --cleanup)" ||
	bad "location replaced: fsmix changed the directory that replaced its location"

# 8. fsfreeze, then SIGINT: writers block in the kernel (uninterruptibly, in sb_start_write)
# until the filesystem is thawed, so the process cannot end while frozen; what fsmix must do is
# end with exit 130, a partial report and the JSON right after the thaw. Thawed at exit whatever
# happens.
if ! command -v fsfreeze >/dev/null; then
	skip_env tool "fsfreeze: no fsfreeze (util-linux)"
elif mount_ext4 "$work/frozen" 64; then
	victim_make "$work/frozen"
	run_bg "$work/frozen" run "$steady" --location "$work/frozen" --json "$work/frozen.json"
	if wait_for "$work/frozen.err" "^fsmix: running" 30; then
		frozen+=("$work/frozen")
		fsfreeze -f "$work/frozen"
		# SIGINT once a worker sleeps in the frozen filesystem (its wchan names the
		# freeze lock); where wchan says nothing useful, after 5 s without it.
		for ((i = 0; i < 100; i++)); do
			pid=$(pgrep -P "$run_pid" -x fsmix) || break
			grep -qs "percpu_rwsem\|sb_start\|freeze" "/proc/$pid/task/"*/wchan && break
			sleep 0.05
		done
		[ $i -eq 100 ] && echo "     (no worker seen blocked in the frozen filesystem)"
		# To fsmix itself (kill queues it at once), then until its signal watcher has
		# taken it (no SIGINT pending), all before the thaw.
		kill -INT "${pid:-$run_pid}"
		for ((i = 0; i < 100; i++)); do
			pending=$(awk '$1 == "ShdPnd:" { print $2 }' "/proc/$pid/status" 2>/dev/null) || break
			[ -n "$pending" ] && (((16#$pending & 2) == 0)) && break
			sleep 0.05
		done
		fsfreeze -u "$work/frozen"
		frozen=()
	fi
	run_wait
	if [ "$rc" -eq 130 ] && grep -q "Transactions per Second" "$work/frozen.out" &&
		json_ok "$work/frozen.json" '.exit_status == 130 and .interrupted and .stop_reason == "signal" and .signal == "SIGINT"'; then
		ok "fsfreeze + SIGINT: exit 130 with a partial report and JSON after the thaw"
	else
		bad "fsfreeze + SIGINT: exit $rc"; show_run "$work/frozen"
	fi
	victim_check "$work/frozen" && ok "fsfreeze + SIGINT: the victim is unchanged" ||
		bad "fsfreeze + SIGINT: the victim changed"
else
	skip_env loop "fsfreeze: no loop device or mkfs.ext4 here (needs root)"
fi
summary
