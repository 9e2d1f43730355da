#!/usr/bin/env bash
# A file set that no group changes is frozen for the run (pool.h: readers take no share count,
# and every change to a frozen set is refused with EROFS). These runs check that freezing is
# only ever done where it is safe: a group that deletes next to readers (on the same filesystem,
# and bound to another one) still deletes every file it was asked to, and read-only groups of
# several threads read without a skip or an error (under ThreadSanitizer too).
set -u
. "$(dirname "$0")/lib.bash"

# A run of the profile $work/NAME.ffsb (tiny counted groups); its JSON is $work/NAME.json.
run_counted() { # NAME PROFILE-ARGS...
	local name=$1
	shift
	"$bin" run "$work/$name.ffsb" "$@" --json "$work/$name.json" >"$work/$name.out" 2>"$work/$name.err"
}
# group INDEX FIELD from the JSON of run NAME: operations, skipped, errors, or the count of OP.
jget() { # NAME GROUP KEY
	python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["groups"][int(sys.argv[2])]
k = sys.argv[3]
print(g[k] if k in g else sum(o["count"] for o in g["ops"] if o["name"] == k))' "$work/$1.json" "$2" "$3" 2>/dev/null
}
files_in() { find "$1/fsmix.fs$2/data" -type f -name 'f*' | wc -l; }

fs_block() { # INDEX
	printf '[filesystem%s]\n\tlocation=/tmp\n\tnum_files=300\n\tnum_dirs=3\n\tmin_filesize=1KB\n\tmax_filesize=1KB\n[end%s]\n' "$1" "$1"
}
readers() { # INDEX THREADS [BINDFS]
	printf '[threadgroup%s]\n\tnum_threads=%s\n\tnum_ops=200\n' "$1" "$2"
	[ -n "${3:-}" ] && printf '\tbindfs=%s\n' "$3"
	printf '\tstat_weight=1\n\tread_weight=1\n\treadall_weight=1\n\topen_close_weight=1\n\tread_size=1KB\n\tread_blocksize=1KB\n[end%s]\n' "$1"
}
deleter() { # INDEX [BINDFS]
	printf '[threadgroup%s]\n\tnum_threads=1\n\tnum_ops=50\n' "$1"
	[ -n "${2:-}" ] && printf '\tbindfs=%s\n' "$2"
	printf '\tdelete_weight=1\n[end%s]\n' "$1"
}

# ---- 1. readers and a deleter on one filesystem: the set is not frozen --------------------
{ echo "time=0"; fs_block 0; readers 0 2; deleter 1; } >"$work/one.ffsb"
loc=$(shmdir)
run_counted one --location "$loc"
rc=$?
if [ $rc -eq 0 ] && [ "$(jget one 1 delete)" = 50 ] && [ "$(jget one 1 skipped)" = 0 ] &&
	[ "$(jget one 0 operations)" = 400 ] && [ "$(jget one 0 errors)" = 0 ] &&
	[ "$(files_in "$loc" 0)" = 250 ]; then
	ok "readers next to a deleter: 50 of 50 deletes done, 250 files left, readers without error"
else
	bad "readers next to a deleter: exit $rc, deletes $(jget one 1 delete), skipped $(jget one 1 skipped), files $(files_in "$loc" 0)"
	tail -3 "$work/one.err" | sed 's/^/     /'
fi

# ---- 2. two filesystems: readers bound to fs0 (frozen), the deleter bound to fs1 (not) ------
{ echo "time=0"; fs_block 0; fs_block 1; readers 0 2 "$(shmdir)"; deleter 1 "$(shmdir)"; } >"$work/two.ffsb"
loc0=$(sed -n 's/^\tbindfs=//p' "$work/two.ffsb" | head -1)
loc1=$(sed -n 's/^\tbindfs=//p' "$work/two.ffsb" | tail -1)
run_counted two --location 0="$loc0" --location 1="$loc1"
rc=$?
if [ $rc -eq 0 ] && [ "$(jget two 1 delete)" = 50 ] && [ "$(jget two 1 skipped)" = 0 ] &&
	[ "$(jget two 0 operations)" = 400 ] && [ "$(jget two 0 errors)" = 0 ] &&
	[ "$(jget two 0 skipped)" = 0 ] && [ "$(files_in "$loc0" 0)" = 300 ] &&
	[ "$(files_in "$loc1" 1)" = 250 ]; then
	ok "readers bound to fs0, a deleter bound to fs1: 50 deletes on fs1, fs0 untouched"
else
	bad "two filesystems: exit $rc, deletes $(jget two 1 delete), skipped $(jget two 1 skipped), files $(files_in "$loc0" 0)/$(files_in "$loc1" 1)"
	tail -3 "$work/two.err" | sed 's/^/     /'
fi

# ---- 3. readers only, four threads: a frozen set, read without a skip or an error -----------
{ echo "time=0"; fs_block 0; readers 0 4; } >"$work/ro.ffsb"
loc=$(shmdir)
run_counted ro --location "$loc"
rc=$?
if [ $rc -eq 0 ] && [ "$(jget ro 0 operations)" = 800 ] && [ "$(jget ro 0 errors)" = 0 ] &&
	[ "$(jget ro 0 skipped)" = 0 ] && [ "$(files_in "$loc" 0)" = 300 ] &&
	! grep -qE "WARNING|ERROR|runtime error" "$work/ro.err"; then
	ok "four readers of a frozen set: 800 operations, no skip, no error, no sanitizer report"
else
	bad "four readers: exit $rc, ops $(jget ro 0 operations), errors $(jget ro 0 errors), skipped $(jget ro 0 skipped)"
	grep -m3 -A3 -E "WARNING|ERROR|runtime error|^fsmix" "$work/ro.err" | sed 's/^/     /'
fi
summary
