#!/usr/bin/env bash
# run --durability-log and fsmix verify (docs/output.md, "Durability log" and "fsmix verify"):
# a run on tmpfs with its log on another filesystem, then verify: every promise kept (no crash
# happened); a log on the tested filesystem is refused (exit 2, naming both) before anything is
# built; a file truncated and a block zeroed behind fsmix's back make verify exit 1 naming the
# files and the kinds (short, zeroed); --model posix without dirsync promises no name of a file
# created in the run (and says so), with dirsync=1 it does, and a file removed behind fsmix's
# back is then reported missing. A record spoilt mid-log is refused (a cut end only noted);
# verify while the run goes on is refused (the location lock); an empty log (a crash during the
# build) says it holds no promise; dirsync=1 fsyncs data/ after each createdir; a tree removed
# by hand is named as such. Fails on a binary without --durability-log (and on main before
# these fixes: steps 7, 8, 9, 10, 11).
set -u
. "$(dirname "$0")/lib.bash"

profile() { # LOCATION [EXTRA-GROUP-LINES]
	printf '[filesystem0]\n\tlocation=%s\n\tnum_files=16\n\tnum_dirs=2\n' "$1"
	printf '\tmin_filesize=3000\n\tmax_filesize=24000\n[end0]\n'
	printf '[threadgroup0]\n\tnum_threads=2\n\tnum_ops=150\n\tcreate_fsync_weight=3\n'
	printf '\twrite_fsync_weight=3\n\tappend_fdatasync_weight=2\n\twriteall_fsync_weight=1\n'
	printf '\tdelete_weight=1\n\tread_weight=1\n\twrite_size=3001\n\twrite_blocksize=999\n'
	printf '\tread_size=4096\n\tread_blocksize=4096\n%s[end0]\n' "${2:-}"
}
jq_() { # JSON PYTHON-EXPRESSION-OF-d
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}
# A file of the tree at least SIZE KiB long (default 4): its path; SKIP picks a later one.
a_file() { # TREE [SKIP] [SIZE]
	find "$1/data" -type f -name 'f*' -size +"${3:-4}"k | sort | sed -n "$((${2:-0} + 1))p"
}
run_() { timeout 120 "$bin" "$@"; }

# 1. a run, then verify: every promise kept
loc=$(shmdir)
profile "$loc" >"$work/p.ffsb"
run_ run "$work/p.ffsb" --durability-log "$work/d.log" >"$work/run.out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "durability log $work/d.log: [0-9]* records, [0-9]* waits" "$work/run.out" &&
	[ -s "$work/d.log" ]; then
	ok "a run with --durability-log on another filesystem (exit 0, its figures said)"
else
	bad "run --durability-log: exit $rc"
	tail -5 "$work/run.out"
fi
run_ verify "$work/p.ffsb" --durability-log "$work/d.log" --json "$work/v.json" >"$work/v.out" 2>&1
rc=$?
checked=$(jq_ "$work/v.json" 'd["checked"]')
if [ $rc = 0 ] && grep -q "every promise kept" "$work/v.out" &&
	[ "$(jq_ "$work/v.json" 'd["broken"]')" = 0 ] && [ "${checked:-0}" -gt 16 ] &&
	[ "$(jq_ "$work/v.json" 'd["acknowledged"]["fsync"] > 0 and d["acknowledged"]["fdatasync"] > 0')" = True ]; then
	ok "verify after a run without a crash: every promise kept ($checked checked)"
else
	bad "verify of an intact tree: exit $rc, checked '$checked'"
	head -12 "$work/v.out"
fi

# 2. the log on the tested filesystem: refused before anything is built
loc2=$(shmdir)
profile "$loc2" >"$work/p2.ffsb"
run_ run "$work/p2.ffsb" --durability-log "$loc2/d.log" >"$work/same.out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q "durability-log '$loc2/d.log' is on the filesystem under test (location '$loc2')" "$work/same.out" &&
	[ ! -e "$loc2/fsmix.fs0" ] && [ ! -e "$loc2/d.log" ]; then
	ok "a log on the tested filesystem is refused (exit 2, naming the log and the location; nothing built)"
else
	bad "log on the tested filesystem: exit $rc"
	tail -3 "$work/same.out"
fi

# 3. tampering behind fsmix's back: a file truncated, a block zeroed
tree=$loc/fsmix.fs0
short=$(a_file "$tree" 0)
zeroed=$(a_file "$tree" 1)
if [ -n "$short" ] && [ -n "$zeroed" ]; then
	truncate -s 2000 "$short"
	dd if=/dev/zero of="$zeroed" bs=512 seek=2 count=1 conv=notrunc status=none
	run_ verify "$work/p.ffsb" --durability-log "$work/d.log" --json "$work/t.json" >"$work/t.out" 2>&1
	rc=$?
	if [ $rc = 1 ] && grep -q "short: $short: 2000 bytes, acknowledged" "$work/t.out" &&
		grep -q "zeroed: $zeroed at offset 1024" "$work/t.out" &&
		[ "$(jq_ "$work/t.json" 'd["broken_by_kind"]["short"]')" = 1 ] &&
		[ "$(jq_ "$work/t.json" 'd["broken_by_kind"]["zeroed"]')" = 1 ] &&
		[ "$(jq_ "$work/t.json" 'd["examples"]["short"][0]["path"]')" = "$short" ] &&
		grep -q "2 promises broken" "$work/t.out"; then
		ok "a truncated file and a zeroed block: exit 1, short and zeroed, naming the files"
	else
		bad "tampered tree: exit $rc"
		head -14 "$work/t.out"
	fi
else
	bad "no file of 4 KiB to tamper with in $tree"
fi

# 4. --model posix without dirsync: no name of a created file is promised, and it says so (the
# exit status is 1: the tree is still the one tampered with above)
run_ verify "$work/p.ffsb" --durability-log "$work/d.log" --model posix --json "$work/px.json" >"$work/px.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q "no directory was fsynced (dirsync=0), so no name of a file created in the run is promised" "$work/px.out" &&
	[ "$(jq_ "$work/px.json" 'd["created_names_promised"]')" = 0 ] &&
	[ "$(jq_ "$work/px.json" 'd["model"]')" = posix ]; then
	ok "--model posix without dirsync promises no created name (said so)"
else
	bad "--model posix without dirsync: exit $rc"
	head -8 "$work/px.out"
fi

# 5. dirsync=1: the posix model promises names, and a created file removed is missing
loc3=$(shmdir)
profile "$loc3" $'\tdirsync=1\n' >"$work/p3.ffsb"
run_ run "$work/p3.ffsb" --durability-log "$work/d3.log" --set threadgroup0.enable_stats=1 \
	--json "$work/r3.json" >"$work/r3.out" 2>&1
rc=$?
run_ verify "$work/p3.ffsb" --durability-log "$work/d3.log" --model posix --json "$work/v3.json" >"$work/v3.out" 2>&1
rc2=$?
named=$(jq_ "$work/v3.json" 'd["created_names_promised"]')
if [ $rc = 0 ] && [ $rc2 = 0 ] && [ "${named:-0}" -gt 0 ] &&
	[ "$(jq_ "$work/v3.json" 'd["acknowledged"]["dirsync"] > 0')" = True ]; then
	ok "dirsync=1: --model posix promises $named names of created files, every promise kept"
else
	bad "dirsync=1 and --model posix: run exit $rc, verify exit $rc2, names '$named'"
	head -8 "$work/v3.out"
fi
# a file created in the run: an id above the initial ones (f16 and up)
gone=$(find "$loc3/fsmix.fs0/data" -type f -name 'f*' | grep -E '/f(1[6-9]|[2-9][0-9]|[0-9]{3,})$' | sort | head -1)
if [ -n "$gone" ]; then
	rm -f "$gone"
	run_ verify "$work/p3.ffsb" --durability-log "$work/d3.log" --model posix >"$work/m3.out" 2>&1
	rc=$?
	if [ $rc = 1 ] && grep -q "missing: $gone; promised by dirsync" "$work/m3.out"; then
		ok "a created file removed behind fsmix's back: missing, promised by its directory's fsync"
	else
		bad "removed file under posix: exit $rc"
		head -10 "$work/m3.out"
	fi
else
	bad "no file created in the dirsync run"
fi

# 6. verify refuses what is not the run's log, and a tree that is not the log's
printf 'not a log' >"$work/junk.log"
run_ verify "$work/p.ffsb" --durability-log "$work/junk.log" >"$work/j.out" 2>&1
rc=$?
run_ verify "$work/p3.ffsb" --durability-log "$work/d.log" >"$work/o.out" 2>&1
rc2=$?
if [ $rc = 2 ] && grep -q "too short for a durability log\|not a durability log" "$work/j.out" &&
	[ $rc2 = 2 ] && grep -q "does not belong to the tree in $loc3" "$work/o.out"; then
	ok "verify refuses a file that is not a log, and a log of another tree (exit 2)"
else
	bad "verify of a wrong log: exit $rc / $rc2"
	cat "$work/j.out" "$work/o.out" | head -4
fi

# 7. a record spoilt in the middle of the log (not its torn end): the log is damaged, a promise or
# a delete may be lost from it: refused (exit 2), naming the record; a cut end is only a note
rl=80 # docs/output.md, "Durability log": the records, 80 bytes each, fill the log to its end
cp "$work/d.log" "$work/mid.log"
printf '\xff\xff\xff\xff' | dd of="$work/mid.log" bs=1 seek=$(($(stat -c %s "$work/d.log") - 10 * rl + 8)) conv=notrunc 2>/dev/null
run_ verify "$work/p.ffsb" --durability-log "$work/mid.log" >"$work/mid.out" 2>&1
rc=$?
head -c $(($(stat -c %s "$work/d.log") - rl / 2)) "$work/d.log" >"$work/cut.log"
run_ verify "$work/p.ffsb" --durability-log "$work/cut.log" >"$work/cut.out" 2>&1
rc2=$?
if [ $rc = 2 ] && grep -q "is a bad log: 1 record fail their check before its end record (the first: record [0-9]*)" "$work/mid.out" &&
	[ $rc2 != 2 ] && grep -q "1 torn record ignored" "$work/cut.out"; then
	ok "a record spoilt mid-log: refused (exit 2, the record named); a cut end: noted, verified (exit $rc2)"
else
	bad "a record spoilt mid-log: exit $rc; a cut end: exit $rc2"
	cat "$work/mid.out" "$work/cut.out" | head -4
fi

# 8. verify while a run is still going on the tree: refused (exit 2, the location lock), then
# after the run ended it verifies (the old binary checked the live tree from a partial log)
loc8=$(shmdir)
printf '[filesystem0]\n\tlocation=%s\n\tnum_files=8\n\tmin_filesize=4096\n\tmax_filesize=8192\n[end0]\n' "$loc8" >"$work/p8.ffsb"
printf '[threadgroup0]\n\tnum_threads=1\n\tcreate_fsync_weight=1\n\tdelete_weight=1\n\twrite_size=4096\n\twrite_blocksize=4096\n[end0]\n' >>"$work/p8.ffsb"
timeout 120 "$bin" run "$work/p8.ffsb" --time 60 --durability-log "$work/live.log" >"$work/live-run.out" 2>&1 &
lpid=$!
for ((i = 0; i < 600; i++)); do
	[ "$(stat -c %s "$work/live.log" 2>/dev/null || echo 0)" -gt 16384 ] && break
	sleep 0.1
done
run_ verify "$work/p8.ffsb" --durability-log "$work/live.log" >"$work/live.out" 2>&1
rc=$?
kill -INT $lpid
wait $lpid
run_ verify "$work/p8.ffsb" --durability-log "$work/live.log" >"$work/live2.out" 2>&1
rc2=$?
if [ $rc = 2 ] && grep -q "is in use by another process.*a run still going there" "$work/live.out" && [ $rc2 = 0 ]; then
	ok "verify while the run goes on: refused (exit 2, the location lock); after it: exit 0"
else
	bad "verify while the run goes on: exit $rc, after it: exit $rc2"
	cat "$work/live.out" "$work/live2.out" | head -4
fi

# 9. an empty log (a crash during the tree's build, before the header): says so, exit 2
: >"$work/empty.log"
run_ verify "$work/p.ffsb" --durability-log "$work/empty.log" >"$work/empty.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "is empty: its run never reached the run phase" "$work/empty.out" &&
	ok "an empty log: exit 2, no promise to check, and why" ||
	{ bad "an empty log: exit $rc"; head -3 "$work/empty.out"; }

# 10. dirsync=1 with createdir: data/ is fsynced after every mkdir (before a file may be created
# in the new directory), so the posix model's names in it stand on a durable directory; the
# old binary fsynced nothing there
loc10=$(shmdir)
printf '[filesystem0]\n\tlocation=%s\n\tnum_files=4\n\tnum_dirs=1\n\tmin_filesize=4096\n\tmax_filesize=4096\n[end0]\n' "$loc10" >"$work/p10.ffsb"
printf '[threadgroup0]\n\tnum_threads=1\n\tnum_ops=20\n\tcreatedir_weight=1\n\tdirsync=1\n[end0]\n' >>"$work/p10.ffsb"
run_ run "$work/p10.ffsb" --durability-log "$work/cd.log" >"$work/cd.out" 2>&1
rc=$?
run_ verify "$work/p10.ffsb" --durability-log "$work/cd.log" --model posix --json "$work/cd.json" >"$work/cdv.out" 2>&1
rc2=$?
n=$(jq -r .acknowledged.dirsync "$work/cd.json" 2>/dev/null)
[ $rc = 0 ] && [ $rc2 = 0 ] && [ "$n" = 20 ] &&
	ok "dirsync=1 with createdir: 20 mkdirs, 20 fsyncs of data/ journaled" ||
	{ bad "dirsync=1 with createdir: run exit $rc, verify exit $rc2, ${n:-no} dirsyncs (20 mkdirs)"; head -3 "$work/cd.out" "$work/cdv.out"; }

# 11. the tree deleted by hand (as a power cut that never wrote it would leave the location): the
# log's promises stand, so every promised file is missing, and each of the 20 directories
# createdir made (their entries promised by data/'s fsyncs) -- none unreadable -- exit 1 with the
# reason (fc73ac9: exit 2, nothing verified); a location that does not exist is still bad input
# (exit 2)
rm -rf "$loc10/fsmix.fs0"
run_ verify "$work/p10.ffsb" --durability-log "$work/cd.log" --model posix --json "$work/gone.json" >"$work/gone.out" 2>&1
rc=$?
miss=$(jq -r '.broken_by_kind.missing' "$work/gone.json" 2>/dev/null)
unr=$(jq -r '.broken_by_kind.unreadable // 0' "$work/gone.json" 2>/dev/null)
files=$(jq -r '[.files[] | select(.[2] == "broken")] | length' "$work/gone.json" 2>/dev/null)
[ $rc = 1 ] && [ "$miss" = 24 ] && [ "$unr" = 0 ] && [ "$files" = 4 ] && grep -q "fsmix.fs0 is missing): the crash lost it, or it was removed" "$work/gone.out" &&
	ok "the tree removed by hand: exit 1, its 4 promised files and 20 directories missing, said why" ||
	{ bad "the tree removed by hand: exit $rc, missing ${miss:-?}, unreadable ${unr:-?}, broken files ${files:-?}"; head -3 "$work/gone.out"; }
"$bin" verify "$work/p10.ffsb" --location "$loc10/nowhere" --durability-log "$work/cd.log" >"$work/nowhere.out" 2>&1
rc=$?
[ $rc = 2 ] && grep -q "nowhere': No such file or directory" "$work/nowhere.out" &&
	ok "a location that does not exist: exit 2" || { bad "a location that does not exist: exit $rc"; head -3 "$work/nowhere.out"; }
summary
