#!/usr/bin/env bash
# A limit on threads (a cgroup's pids.max, as in a container): when a worker, aging or builder
# thread cannot be created, fsmix stops the threads it started and says which limit it hit,
# exit 1; it must never hang. Runs fsmix inside a child cgroup of the pids controller (cgroup v1
# /sys/fs/cgroup/pids or v2 pids.max); needs root, skipped otherwise. Each run is under
# `timeout`: a hang fails the test instead of hanging CI.
set -u
. "$(dirname "$0")/lib.bash"

cg=
# cg_make NAME: a child cgroup with the pids controller in $cg; returns 1 where there is none.
cg_make() {
	[ "$(id -u)" = 0 ] || return 1
	if [ -w /sys/fs/cgroup/pids/cgroup.procs ]; then
		cg=/sys/fs/cgroup/pids/$1
	elif grep -qw pids /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		grep -qw pids /sys/fs/cgroup/cgroup.subtree_control ||
			echo +pids >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || return 1
		cg=/sys/fs/cgroup/$1
	else
		return 1
	fi
	mkdir "$cg" 2>/dev/null && [ -w "$cg/pids.max" ] || { cg=; return 1; }
}
trap '[ -n "$cg" ] && rmdir "$cg" 2>/dev/null; cleanup' EXIT

# limited MAX ARGS...: fsmix ARGS in the cgroup with pids.max=MAX (threads count), at most 120 s.
limited() {
	echo "$1" >"$cg/pids.max" || return 99
	shift
	timeout -s KILL 120 sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$bin" "$@"
}

if [ "$(id -u)" != 0 ]; then
	skip_env root "thread limits: a pids cgroup needs root"
	summary
elif ! cg_make "fsmix-e2e-$$"; then
	# a kernel or container without a delegated pids controller: legitimately absent
	skipped "thread limits: no writable pids cgroup here (needs the pids controller)"
	summary
fi

# 50 workers, room for about 18: the started ones are stopped, exit 1 naming the limit.
loc=$(shmdir)
limited 20 run "$src/profiles/default.ffsb" --location "$loc" --time 1 --threads 50 \
	--set filesystem0.num_files=50 >"$work/run.out" 2>"$work/run.err"
rc=$?
if [ $rc -eq 1 ] && grep -qE "cannot start worker thread [0-9]+ of 50 \([0-9]+ started\): Resource temporarily unavailable; the cgroup's pids.max .* is 20" "$work/run.err"; then
	ok "pids.max=20, 50 workers: exit 1, $(grep -o '([0-9]* started)' "$work/run.err"), the limit named"
else
	bad "pids.max=20, 50 workers: exit $rc (137: hung, killed after 120 s)"; tail -3 "$work/run.err" | sed 's/^/     /'
fi
! grep -q "Transactions per Second" "$work/run.out" && ok "no report of a run that did not happen" ||
	bad "a report was printed for a run that could not start"

# An aging group of 40 under the same limit (a private tmpfs, so aging has work to do).
if mount_tmpfs "$work/age" size=64m; then
	limited 20 run "$src/examples/aging.ffsb" --location "$work/age" --time 1 \
		--set filesystem0.desired_util=0.5 --set filesystem0.threadgroup.num_threads=40 \
		>"$work/age.out" 2>"$work/age.err"
	rc=$?
	if [ $rc -eq 1 ] && grep -qE "cannot start aging thread [0-9]+ of 40 \([0-9]+ started\): .*pids.max" "$work/age.err"; then
		ok "pids.max=20, 40 aging threads: exit 1, the limit named"
	else
		bad "pids.max=20, aging group of 40: exit $rc (137: hung)"; tail -3 "$work/age.err" | sed 's/^/     /'
	fi
else
	skip_env mount "aging under a pids limit: cannot mount a tmpfs here"
fi

# Builders: fewer than asked build the same tree (they share the work), with a note.
loc=$(shmdir)
limited 4 run "$src/profiles/default.ffsb" --location "$loc" --time 0 --build-threads 8 \
	--set filesystem0.num_files=2000 --set filesystem0.num_dirs=40 >"$work/build.out" 2>"$work/build.err"
rc=$?
files=$(find "$loc/fsmix.fs0/data" -type f | wc -l)
if [ $rc -eq 0 ] && [ "$files" -eq 2000 ] &&
	grep -qE "note: started only [0-9] of 8 builder threads \(Resource temporarily unavailable; the cgroup's pids.max" "$work/build.err"; then
	ok "pids.max=4, 8 builders: $(grep -o 'started only [0-9] of 8' "$work/build.err"), all 2000 files built"
else
	bad "pids.max=4, 8 builders: exit $rc, $files files"; tail -3 "$work/build.err" | sed 's/^/     /'
fi
# No thread at all (the signal watcher is the first): exit 1 with the reason, and an older
# JSON claiming success is replaced by one saying what happened.
echo '{"exit_status": 0, "stale": true}' >"$work/none.json"
limited 1 run "$src/profiles/default.ffsb" --location "$loc" --time 0 --set filesystem0.reuse=0 \
	--json "$work/none.json" >"$work/none.out" 2>"$work/none.err"
rc=$?
[ $rc -eq 1 ] && grep -q "cannot start .*thread.*pids.max" "$work/none.err" &&
	ok "pids.max=1: exit 1, $(grep -m1 '^fsmix: cannot start' "$work/none.err" | sed 's/^fsmix: //; s/:.*//')" ||
	{ bad "pids.max=1: exit $rc"; tail -3 "$work/none.err" | sed 's/^/     /'; }
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert 'stale' not in d and d['exit_status'] == 1 and d['measured'] is False, d
assert 'pids.max' in d['error'], d['error']" "$work/none.json" &&
	ok "pids.max=1: the JSON says exit 1 and why, not the older success" ||
	bad "pids.max=1: stale or wrong JSON: $(head -c 300 "$work/none.json")"
summary
