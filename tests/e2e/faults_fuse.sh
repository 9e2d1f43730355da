#!/usr/bin/env bash
# Fault injection through tests/tools/fsfault (a FUSE passthrough that fails chosen operations
# with EIO/ENOSPC): every failing system call of a run gives exit 1, a JSON naming the op, the
# syscall and the errno, no hang, a victim directory unchanged, and the FUSE mount gone at exit.
# Needs root, /dev/fuse, fusermount3 and the fsfault tool (built when pkg-config finds fuse3);
# skipped otherwise.
set -u
. "$(dirname "$0")/lib.bash"
. "$(dirname "$0")/faults.bash"

if ! fsfault_ready; then
	skip_env fuse "FUSE faults: $fsfault_why"
	summary
fi

# fuse_mount DIR RULES...: a fresh fsfault mount over a fresh backing directory on tmpfs
# (fsfault_mount); the daemon's PID in $fuse_pid, the backing directory in $fuse_back, its log in
# DIR.log. Unmounted by fuse_umount, and at exit whatever happens.
fuse_mount() {
	local dir=$1
	shift
	fuse_back=$(shmdir)
	fsfault_mount "$dir" "$fuse_back" "$@"
}
# fuse_umount DIR: unmount and wait for the daemon; 1 if the mount or the daemon stays.
fuse_umount() {
	fusermount3 -u "$1" 2>/dev/null || umount -l "$1" 2>/dev/null
	for ((i = 0; i < 600; i++)); do
		kill -0 "$fuse_pid" 2>/dev/null || break
		sleep 0.1
	done
	! kill -0 "$fuse_pid" 2>/dev/null && ! findmnt --mountpoint "$1" >/dev/null 2>&1
}
# fuse_case NAME RULE SYSCALL-REGEX ERRNO WEIGHTS...: mount with RULE armed once the run phase
# has started, run a profile of WEIGHTS, expect exit 1 and the error in the JSON.
n=0
fuse_case() {
	local name=$1 rule=$2 sys=$3 err=$4 dir out rc
	shift 4
	n=$((n + 1))
	dir="$work/fuse$n"
	out="$work/case$n"
	fault_profile "$out.ffsb" "$@"
	fuse_mount "$dir" -f "$rule" --arm-on-usr1 || { bad "$name: no FUSE mount"; return; }
	victim_make "$dir"
	run_bg "$out" run "$out.ffsb" --location "$dir" --json "$out.json"
	# Arm the fault once the workers run: the tree is built by then.
	wait_for "$out.err" "^fsmix: running" 30 && kill -USR1 "$fuse_pid"
	run_wait
	if [ "$rc" -eq 1 ] && json_has_error "$out.json" "$sys" "$err" &&
		grep -q "fsmix: worker .*($dir/fsmix.fs0/.*):" "$out.err"; then
		ok "FUSE $name: exit 1, the JSON names $sys and $err, the error is on stderr"
	else
		bad "FUSE $name: exit $rc"; show "$out.err"
		[ -f "$out.json" ] && jq -c '.errors' "$out.json" 2>/dev/null | head -c 600 | sed 's/^/     /'
	fi
	victim_check "$fuse_back" && ok "FUSE $name: the victim beside the tree is unchanged" ||
		bad "FUSE $name: the victim directory changed"
	fuse_umount "$dir" && ok "FUSE $name: unmounted, fsfault gone" ||
		bad "FUSE $name: the FUSE mount or its daemon stays"
}

#         name                 rule               syscall       errno   weights
fuse_case "write EIO"          write:0:EIO        write         EIO     writeall=1
fuse_case "write ENOSPC"       write:0:ENOSPC     write         ENOSPC  append=1
fuse_case "fsync EIO"          fsync:0:EIO        "fsync|fdatasync" EIO writeall_fsync=1 append_fdatasync=1
fuse_case "close EIO"          flush:0:EIO        close         EIO     open_close=1 readall=1
fuse_case "create ENOSPC"      create:0:ENOSPC    create        ENOSPC  create=1
fuse_case "unlink EIO"         unlink:0:EIO       unlink        EIO     delete=1 create=1
fuse_case "mkdir ENOSPC"       mkdir:0:ENOSPC     mkdir         ENOSPC  createdir=1 metaop=1
fuse_case "rename EIO"         rename:0:EIO       rename        EIO     metaop=1
fuse_case "rmdir EIO"          rmdir:0:EIO        rmdir         EIO     metaop=1
fuse_case "open EIO"           open:0:EIO         open          EIO     readall=1 open_close=1
fuse_case "getattr EIO"        getattr:0:EIO      stat          EIO     stat=1
fuse_case "read EIO"           read:2:EIO         read          EIO     readall=1

# --continue-on-error: failing writes are counted and the run goes on until SIGINT (sent once
# fsfault has failed 5 writes): exit 130, interrupted, every failed write counted.
dir="$work/fusecont"
if fuse_mount "$dir" -f write:0:EIO --arm-on-usr1; then
	victim_make "$dir"
	fault_profile "$work/cont.ffsb" writeall=1 readall=1
	run_bg "$work/cont" run "$work/cont.ffsb" --location "$dir" --continue-on-error \
		--json "$work/cont.json"
	wait_for "$work/cont.err" "^fsmix: running" 30 && kill -USR1 "$fuse_pid" &&
		wait_for "$dir.log" "(call 5)" 30
	kill -INT "$run_pid"
	run_wait
	if [ "$rc" -eq 130 ] && json_ok "$work/cont.json" '.exit_status == 130 and .interrupted
		and .stop_reason == "signal" and .total.errors >= 5
		and ([.total.ops[] | select(.name == "writeall") | .errors] | add) == .total.errors
		and all(.errors[]; .syscall == "write" and .errno_name == "EIO")'; then
		ok "FUSE write EIO, --continue-on-error: goes on, counts the errors, SIGINT gives exit 130"
	else
		bad "FUSE --continue-on-error: exit $rc"; show "$work/cont.err"
	fi
	victim_check "$fuse_back" && ok "FUSE --continue-on-error: the victim is unchanged" ||
		bad "FUSE --continue-on-error: the victim changed"
	fuse_umount "$dir" || bad "FUSE --continue-on-error: the mount stays"
else
	bad "FUSE --continue-on-error: no mount"
fi

# The marker read fails (EIO) when a second run opens the tree the first one built: that is an
# I/O error, exit 1 naming the errno, not "not created by fsmix" (exit 2), and nothing is removed.
dir="$work/fusemarker"
if fuse_mount "$dir" -f read:0:EIO:.fsmix-tree --arm-on-usr1; then
	victim_make "$dir"
	timeout 60 "$bin" run "$steady" --location "$dir" --time 0 >"$work/marker1.out" 2>&1
	rc1=$?
	before=$(cd "$dir" && find fsmix.fs0 | sort | md5sum)
	kill -USR1 "$fuse_pid"
	timeout 60 "$bin" run "$steady" --location "$dir" --time 1 --json "$work/marker.json" \
		>"$work/marker.out" 2>"$work/marker.err"
	rc=$?
	after=$(cd "$dir" && find fsmix.fs0 | sort | md5sum)
	if [ $rc1 -eq 0 ] && [ $rc -eq 1 ] && grep -q "Input/output error" "$work/marker.err" &&
		! grep -q "not created by fsmix" "$work/marker.err" && [ "$before" = "$after" ]; then
		ok "FUSE marker read EIO: exit 1 with the errno, the tree left as it was"
	else
		bad "FUSE marker read EIO: exits $rc1/$rc (want 0/1 and the errno, not 'not created by fsmix')"
		show "$work/marker.err" 2
	fi
	victim_check "$fuse_back" && ok "FUSE marker read EIO: the victim is unchanged" ||
		bad "FUSE marker read EIO: the victim changed"
	fuse_umount "$dir" || bad "FUSE marker read EIO: the mount stays"
else
	bad "FUSE marker read: no mount"
fi

# --cleanup fails (unlink EIO on the tree's files) after a good run: exit 1 with the error on
# stderr, not 0; the results are still reported and the victim is unchanged. Removal renames
# the tree to fsmix.fs0.del first, so the rule matches data/dNNN under either name.
dir="$work/fuseclean"
if fuse_mount "$dir" -f unlink:0:EIO:/data/d; then
	victim_make "$dir"
	fault_profile "$work/clean.ffsb" readall=1 stat=1
	timeout 60 "$bin" run "$work/clean.ffsb" --location "$dir" --time 1 --cleanup \
		--json "$work/clean.json" >"$work/clean.out" 2>"$work/clean.err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "cleanup: .*Input/output error" "$work/clean.err" &&
		grep -q "Transactions per Second" "$work/clean.out" &&
		json_ok "$work/clean.json" '(.exit_status == 1) and (.error | test("cleanup: .*Input/output error"))
			and (.total.transactions > 0)'; then
		ok "FUSE --cleanup unlink EIO: exit 1, the error on stderr and in the JSON, the results reported"
	else
		bad "FUSE --cleanup unlink EIO: exit $rc (want 1)"; show "$work/clean.err" 2
	fi
	victim_check "$fuse_back" && ok "FUSE --cleanup unlink EIO: the victim is unchanged" ||
		bad "FUSE --cleanup unlink EIO: the victim changed"
	fuse_umount "$dir" || bad "FUSE --cleanup unlink EIO: the mount stays"
else
	bad "FUSE cleanup fault: no mount"
fi

# clean under I/O errors (reading a directory, removing a directory, a file, the marker): exit 1
# naming the errno, and the tree stays recoverable: a clean without the fault (run on the
# backing directory) removes it.
for rule in readdir:0:EIO rmdir:0:EIO unlink:0:EIO:.fsmix-tree unlink:3:EIO; do
	dir="$work/fuseclean-${rule//[:.]/-}"
	fuse_mount "$dir" -f "$rule" --arm-on-usr1 || { bad "FUSE clean $rule: no mount"; continue; }
	victim_make "$dir"
	timeout 60 "$bin" run "$steady" --location "$dir" --time 0 >/dev/null 2>&1
	kill -USR1 "$fuse_pid"
	timeout 60 "$bin" clean "$steady" --location "$dir" >"$dir.clean" 2>&1
	rc=$?
	if [ $rc -eq 1 ] && grep -q "Input/output error" "$dir.clean"; then
		ok "FUSE clean, $rule: exit 1 naming the error"
	else
		bad "FUSE clean, $rule: exit $rc (want 1 and 'Input/output error')"; show "$dir.clean" 1
	fi
	timeout 60 "$bin" clean "$steady" --location "$fuse_back" >"$dir.clean2" 2>&1 &&
		[ ! -e "$fuse_back/fsmix.fs0" ] && ok "FUSE clean, $rule: a second clean removes the rest" ||
		{ bad "FUSE clean, $rule: the tree is no longer recoverable"; show "$dir.clean2" 1; }
	victim_check "$fuse_back" && ok "FUSE clean, $rule: the victim is unchanged" ||
		bad "FUSE clean, $rule: the victim changed"
	fuse_umount "$dir" || bad "FUSE clean, $rule: the mount stays"
done

# ENOSPC while the tree is built (the 6th create): exit 1 with the error, and no JSON claiming
# success: an older out.json of a successful run is replaced by one that says what happened or
# removed, never left in place.
dir="$work/fusebuild"
if fuse_mount "$dir" -f create:5:ENOSPC:/fsmix.fs0/data --arm-on-usr1; then
	victim_make "$dir"
	echo '{"schema": "fsmix-report", "exit_status": 0, "stop_reason": "time"}' >"$work/build.json"
	kill -USR1 "$fuse_pid"
	timeout 60 "$bin" run "$steady" --location "$dir" --time 1 --json "$work/build.json" \
		>"$work/build.out" 2>"$work/build.err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "No space left on device" "$work/build.err"; then
		ok "FUSE ENOSPC during the build: exit 1 naming ENOSPC"
	else
		bad "FUSE ENOSPC during the build: exit $rc"; show "$work/build.err"
	fi
	no_stale_json "$work/build.json" "FUSE ENOSPC during the build"
	victim_check "$fuse_back" && ok "FUSE ENOSPC during the build: the victim is unchanged" ||
		bad "FUSE ENOSPC during the build: the victim changed"
	fuse_umount "$dir" || bad "FUSE ENOSPC during the build: the mount stays"
else
	bad "FUSE build fault: no mount"
fi
summary
