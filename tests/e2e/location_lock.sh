#!/usr/bin/env bash
# The location's lock and a tree fsmix does not fully own (issue 30): a neighbour's flock on a
# shared location is named as such (not as another fsmix); a location fsmix may write but not
# read cannot be locked, so it is refused (exit 2) instead of used unlocked; a reused tree whose
# data/d000 became a symbolic link is bad input (exit 2), and the link and its target are kept.
set -u
. "$(dirname "$0")/lib.bash"

prof="$src/profiles/default.ffsb"
small=(--set filesystem0.num_files=20 --set filesystem0.num_dirs=2 --threads 1)

# 1. A neighbour (flock(1), not fsmix) holds a flock on the location: exit 2, the lock and its
# holder named, no claim that fsmix runs there.
if command -v flock >/dev/null; then
	loc=$(shmdir)
	flock "$loc" sleep 60 &
	holder=$!
	for ((i = 0; i < 300; i++)); do flock -n "$loc" true || break; sleep 0.05; done
	"$bin" run "$prof" -l "$loc" "${small[@]}" --time 0 >/dev/null 2>"$work/f.err"
	rc=$?
	# flock(1) waits for its child (sleep), which holds the lock too: end both
	kill $(ps -o pid= --ppid "$holder") "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	if [ $rc -eq 2 ] && grep -q "location '$loc' is locked by another process (PID $holder, 'flock'), not fsmix" "$work/f.err" &&
		! grep -q "fsmix runs" "$work/f.err" && [ ! -e "$loc/fsmix.fs0" ]; then
		ok "a neighbour's flock: exit 2, 'locked by another process (PID $holder, 'flock'), not fsmix'"
	else
		bad "a neighbour's flock: exit $rc: $(cat "$work/f.err")"
	fi
else
	skipped "no flock(1) (util-linux) to hold a neighbour's lock"
fi

# 2. A location the user may write but not read (0733, another user's): no lock can be had
# (flock needs a descriptor open for reading), so it is refused before anything is made.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 711 "$shm_root"
	loc=$(shmdir)
	chmod 0733 "$loc"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" run "$prof" -l "$loc" "${small[@]}" \
		--time 0 >/dev/null 2>"$work/d.err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "location '$loc' is not readable (Permission denied)" "$work/d.err" &&
		[ -z "$(ls -A "$loc")" ]; then
		ok "a location writable but not readable (0733): exit 2, not readable, nothing made"
	else
		bad "0733 location: exit $rc: $(cat "$work/d.err"); $(ls -A "$loc")"
	fi
else
	skipped "needs root and setpriv (to act as uid 65534 on a 0733 location)"
fi

# 3. A reused tree whose data/d000 was replaced by a symbolic link to a directory elsewhere:
# bad input (exit 2, the entry named), nothing written through the link, the link kept.
loc=$(shmdir)
"$bin" run "$prof" -l "$loc" "${small[@]}" --time 0 >/dev/null 2>"$work/e0.err" ||
	bad "building the tree: $(cat "$work/e0.err")"
mkdir "$loc/elsewhere"
mv "$loc/fsmix.fs0/data/d000" "$loc/elsewhere/d000"
before=$(ls -A "$loc/elsewhere/d000" | sort | tr '\n' ' ')
ln -s "$loc/elsewhere/d000" "$loc/fsmix.fs0/data/d000"
"$bin" run "$prof" -l "$loc" "${small[@]}" --time 0 >/dev/null 2>"$work/e.err"
rc=$?
after=$(ls -A "$loc/elsewhere/d000" | sort | tr '\n' ' ')
if [ $rc -eq 2 ] && grep -q "'$loc/fsmix.fs0/data/d000' is not a directory of fsmix's (a symbolic link or another file)" "$work/e.err" &&
	[ -L "$loc/fsmix.fs0/data/d000" ] && [ "$before" = "$after" ]; then
	ok "data/d000 replaced by a symbolic link: exit 2, named, the link and its target untouched"
else
	bad "symlinked data/d000: exit $rc: $(cat "$work/e.err")"
fi
summary
