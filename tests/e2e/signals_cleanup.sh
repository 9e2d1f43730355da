#!/usr/bin/env bash
# A stop signal during --cleanup (issue 19 item 3): the removal stops where it is, the run exits
# 130 with "interrupted": true in its JSON, and `fsmix clean` finishes the tree it left. The
# cleanup is held inside one unlink by tests/tools/fsfault (a FUSE passthrough; rule
# unlink:N:PAUSE), which says so; the signal is sent then, and the unlink released once fsmix
# has read the signal: no step depends on speed. Needs root, /dev/fuse, fusermount3 and
# fsfault (built when pkg-config finds fuse3); skipped otherwise.
set -u
. "$(dirname "$0")/lib.bash"

if ! fsfault_ready; then
	skip_env fuse "signal during --cleanup: $fsfault_why"
	summary
fi

mnt=$work/sigclean-mnt back=$(shmdir)
# The 6th unlink below data/ (the run is read-only: only the cleanup unlinks there) is held.
fsfault_mount "$mnt" "$back" -f "unlink:5:PAUSE:/data/" || { bad "fsfault did not mount"; summary; }

ro=(--set threadgroup0.create_weight=0 --set threadgroup0.create_fsync_weight=0
	--set threadgroup0.delete_weight=0 --set threadgroup0.append_weight=0
	--set threadgroup0.append_fsync_weight=0 --set threadgroup0.writeall_weight=0
	--set threadgroup0.writeall_fsync_weight=0)
out=$work/clean
timeout 300 "$bin" run "$src/profiles/default.ffsb" --location "$mnt" --time 1 --threads 1 \
	--set filesystem0.num_files=40 --set filesystem0.num_dirs=2 --set filesystem0.size_weight="1KB 1" \
	"${ro[@]}" --cleanup --json "$out.json" >"$out.out" 2>"$out.err" &
pid=$!
if wait_for "$fuse_log" "unlink(.*/data/.*): paused" 240; then
	kill -TERM $pid
	wait_for "$out.err" "SIGTERM received: stopping" 60
	kill -USR2 $fuse_pid
	wait $pid
	rc=$?
	python3 - "$out.json" <<'PY' && json=ok || json=bad
import json, sys
d = json.load(open(sys.argv[1]))
assert d["interrupted"] is True and d["exit_status"] == 130, (d["interrupted"], d["exit_status"])
assert d["signal"] == "SIGTERM" and d["measured"] is True, (d["signal"], d["measured"])
assert "--cleanup" in d["error"], d["error"]
PY
	left=$(find "$back" -path '*/data/*' -type f | wc -l)
	[ $rc -eq 130 ] && [ $json = ok ] && grep -q "cleanup interrupted: removing .*stopped after" "$out.err" &&
		[ -d "$back/fsmix.fs0.del" ] && [ "$left" -gt 0 ] && [ "$left" -lt 40 ] &&
		ok "SIGTERM during --cleanup: stopped where it was ($left of 40 files left in fsmix.fs0.del), exit 130, JSON interrupted" ||
		{ bad "SIGTERM during --cleanup: exit $rc, JSON $json, $left files left"; tail -3 "$out.err" | sed 's/^/     /'; }
	"$bin" clean "$src/profiles/default.ffsb" --location "$mnt" >"$work/clean2.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] && [ -z "$(ls -A "$back" | grep '^fsmix\.fs')" ] &&
		ok "fsmix clean finishes the tree the interrupted cleanup left (exit 0)" ||
		{ bad "clean after an interrupted cleanup: exit $rc, left: $(ls "$back")"; sed 's/^/     /' "$work/clean2.out"; }
else
	bad "the cleanup's unlink was never held: $(tail -2 "$out.err")"
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
fi
kill -USR2 $fuse_pid 2>/dev/null
summary
