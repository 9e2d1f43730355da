#!/usr/bin/env bash
# The durability log's edges (issue 18's follow-ups; docs/output.md, "Durability log"):
#   1. --durability-log never overwrites a file fsmix did not create: an existing file that
#      holds anything (also through a symbolic link) is refused with exit 2 before anything is
#      built, and left as it was; an empty file (mktemp's) is written. The log
#      and another output of the run on one file are refused, and so is verify's --json on the
#      log it reads. Fails on main at 9f68232 (the file was truncated).
#   2. run ids: an older log verified after a later run on the same tree is refused (exit 2)
#      naming both runs, not reported as broken promises; the log of the run that last wrote the
#      tree is checked as before; a later read-only run without a log does not count; a log
#      without a run id (fsmix before run ids) is checked as before. Fails on main at 9f68232
#      (broken promises, exit 1).
set -u
. "$(dirname "$0")/lib.bash"

profile() { # LOCATION [EXTRA-GROUP-LINES]
	printf '[filesystem0]\n\tlocation=%s\n\tnum_files=12\n\tnum_dirs=2\n\treuse=1\n' "$1"
	printf '\tmin_filesize=4096\n\tmax_filesize=16384\n[end0]\n'
	printf '[threadgroup0]\n\tnum_threads=2\n\tnum_ops=120\n\tcreate_fsync_weight=2\n'
	printf '\twrite_fsync_weight=3\n\twriteall_fsync_weight=1\n\tdelete_weight=1\n'
	printf '\tread_weight=1\n\twrite_size=4096\n\twrite_blocksize=4096\n'
	printf '\tread_size=4096\n\tread_blocksize=4096\n%s[end0]\n' "${2:-}"
}
run_() { timeout 120 "$bin" "$@"; }
o=$work/o
mkdir -p "$o"

# ---- 1. an existing log is never overwritten ---------------------------------------------------

# refused NAME FILE ARGS...: exit 2 with MESSAGE-RE in stderr, FILE unchanged, nothing built.
refused() {
	local name=$1 file=$2 re=$3
	shift 3
	local loc sum rc
	loc=$(shmdir)
	profile "$loc" >"$work/p1.ffsb"
	sum=$(sha256sum <"$file")
	run_ "$@" "$work/p1.ffsb" -l "$loc" >"$work/r.out" 2>"$work/r.err"
	rc=$?
	if [ $rc = 2 ] && [ "$(sha256sum <"$file")" = "$sum" ] && [ -z "$(ls "$loc")" ] &&
		grep -qE -e "$re" "$work/r.err"; then
		ok "$name: exit 2 before anything is built, the file unchanged"
	else
		bad "$name: exit $rc, $(head -c 300 "$work/r.err")"
	fi
}
echo "an old log, not verified yet" >"$o/old.log"
exists="--durability-log '.*' exists \([0-9]+ bytes\): fsmix does not overwrite a file it did not create"
refused "--durability-log EXISTING" "$o/old.log" "$exists" run --durability-log "$o/old.log"
ln -s old.log "$o/link.log"
refused "--durability-log LINK-TO-EXISTING" "$o/old.log" "$exists" run --durability-log "$o/link.log"
refused "--durability-log X --json X (X existing)" "$o/old.log" "same file|exists" \
	run --durability-log "$o/old.log" --json "$o/old.log"
: >"$o/new.json"
refused "--durability-log X --json X (X new)" "$o/new.json" "are the same file" \
	run --durability-log "$o/x.log" --json "$o/x.log"
[ ! -e "$o/x.log" ] && ok "--durability-log X --json X: X not created" || bad "--durability-log X --json X: X created"
ln -s y.log "$o/ylink"
refused "--durability-log X --csv LINK-TO-X" "$o/new.json" "are the same file" \
	run --durability-log "$o/y.log" --csv "$o/ylink"

# an empty file (made by mktemp for the run) is written
loc=$(shmdir)
profile "$loc" >"$work/p1.ffsb"
empty=$(mktemp "$o/empty.XXXXXX")
if run_ run "$work/p1.ffsb" --durability-log "$empty" >/dev/null 2>"$work/e.err" && [ -s "$empty" ] &&
	run_ verify "$work/p1.ffsb" --durability-log "$empty" >"$work/e.out" 2>&1; then
	ok "--durability-log EMPTY-FILE: written, and verify keeps every promise"
else
	bad "--durability-log EMPTY-FILE: $(head -c 300 "$work/e.err" "$work/e.out" 2>/dev/null)"
fi
# verify --json on the log it reads: refused, the log unchanged
sum=$(sha256sum <"$empty")
run_ verify "$work/p1.ffsb" --durability-log "$empty" --json "$empty" >/dev/null 2>"$work/v.err"
rc=$?
[ $rc = 2 ] && [ "$(sha256sum <"$empty")" = "$sum" ] && grep -q "is the durability log" "$work/v.err" &&
	ok "verify --json LOG: exit 2, the log unchanged" || bad "verify --json LOG: exit $rc, $(head -c 300 "$work/v.err")"
# a second run onto that log (now holding the first run's records) is refused
refused "a second run onto the first run's log" "$empty" "$exists" run --durability-log "$empty"

summary
