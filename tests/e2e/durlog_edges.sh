#!/usr/bin/env bash
# The durability log's edges (issue 18's follow-ups; docs/output.md, "Durability log"):
#   1. --durability-log never overwrites a file fsmix did not create: an existing file that
#      holds anything (also through a symbolic link) is refused with exit 2 before anything is
#      built, and left as it was; an empty file (mktemp's) is written. The log
#      and another output of the run on one file are refused, and so is verify's --json on the
#      log it reads. Fails on main at 9f68232 (the file was truncated).
#   2. run ids: an older log verified after a later run on the same tree is refused (exit 2)
#      naming both runs, not reported as broken promises; the log of the run that last wrote the
#      tree is checked as before; a later run without a log that writes the tree, and a rebuild,
#      count too; a log without a run id (fsmix before run ids) is checked as before. Fails on
#      main at 9f68232 (broken promises, exit 1).
#   2. run ids: an older log verified after a later run on the same tree is refused (exit 2)
#      naming both runs, not reported as broken promises; the log of the run that last wrote the
#      tree is checked as before; a later read-only run without a log does not count; a log
#      without a run id (fsmix before run ids) is checked as before. Fails on main at 9f68232
#      (broken promises, exit 1).
#   3. a log that cannot be synced: --durability-log /dev/null runs (exit 0, its report, a
#      warning naming it, 0 fdatasyncs); a FIFO read by `cat >COPY` gets every record, and
#      verify of COPY keeps every promise of the run (it ended) and warns that the log is no
#      crash check; a FIFO in the location itself is no log on the tested filesystem; a FIFO
#      without a reader is waited for and Ctrl-C ends the wait (exit 130). Fails on main at
#      6d51b57 (EINVAL from fdatasync: exit 1; exit 2; a hang SIGINT cannot end). A regular
#      file is still fdatasynced, and its fdatasync failing with EINVAL still fails the run
#      (exit 1, the errno named): not taken for a device's EINVAL.
#   4. verify --cut-at NS, a simulated power cut's moment (fsmix-powercut's cut_mono_ns): what the
#      run was told at or after NS is no promise. A file created and fsynced in the run, cut to 0
#      bytes after it: verify exit 1 (short). With --cut-at its create's time: exit 0, the file
#      not broken, the later records counted (records_after_cut, the text's "power cut at"), and
#      the reader (tests/tools/durlog_reader.py --cut-at) agrees file by file. With a cut after
#      the log's last record: the verdict without one (exit 1, 0 records after). --cut-at 0, 12x
#      and a cut before the log was made: exit 2, nothing verified. Fails without --cut-at.
set -u
. "$(dirname "$0")/lib.bash"

profile() { # LOCATION [EXTRA-GROUP-LINES]
	printf 'verify=1\n[filesystem0]\n\tlocation=%s\n\tnum_files=12\n\tnum_dirs=2\n\treuse=1\n' "$1"
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

# ---- 2. run ids: an older log after a later run on the same tree -------------------------------

# (verify=1: a run that changed a reuse=1 tree leaves its manifest, so the next one reuses it)
loc=$(shmdir)
profile "$loc" >"$work/p2.ffsb"
v() { # LOG: fsmix verify of the p2 profile, its output in $work/v.out, its exit status in $vrc
	run_ verify "$work/p2.ffsb" --durability-log "$1" >"$work/v.out" 2>&1
	vrc=$?
}
run_ run "$work/p2.ffsb" --durability-log "$o/a.log" >/dev/null 2>"$work/a.err"
runa=$(sed -n 's/.*durability log .*; run \([0-9a-f]\{16\}\)$/\1/p' "$work/a.err")
v "$o/a.log"
[ $vrc = 0 ] && grep -q "every promise kept" "$work/v.out" &&
	ok "run A's log after run A: every promise kept" || bad "run A's log after run A: exit $vrc: $(tail -3 "$work/v.out")"
run_ run "$work/p2.ffsb" --durability-log "$o/b.log" >/dev/null 2>"$work/b.err"
runb=$(sed -n 's/.*durability log .*; run \([0-9a-f]\{16\}\)$/\1/p' "$work/b.err")
grep -q "reused" "$work/b.err" || bad "run B did not reuse run A's tree: $(head -3 "$work/b.err")"
v "$o/a.log"
if [ $vrc = 2 ] && [ -n "$runa" ] && [ -n "$runb" ] && [ "$runa" != "$runb" ] &&
	grep -q "is the log of the run $runa, but the tree in $loc was written since by the run $runb" "$work/v.out" &&
	! grep -q "promises broken" "$work/v.out"; then
	ok "run A's log after run B on the same tree: refused (exit 2), naming both runs"
else
	bad "run A's log after run B: exit $vrc (runs '$runa', '$runb'): $(tail -3 "$work/v.out")"
fi
v "$o/b.log"
[ $vrc = 0 ] && grep -q "every promise kept" "$work/v.out" &&
	ok "run B's log after run B: every promise kept" || bad "run B's log: exit $vrc: $(tail -3 "$work/v.out")"
# a run without a log that writes the tree also counts
run_ run "$work/p2.ffsb" >/dev/null 2>&1
v "$o/b.log"
[ $vrc = 2 ] && grep -q "is the log of the run $runb, but the tree in $loc was written since by the run [0-9a-f]\{16\}" "$work/v.out" &&
	ok "run B's log after a writing run without a log: refused (exit 2)" ||
	bad "run B's log after a writing run without a log: exit $vrc: $(tail -3 "$work/v.out")"
# a rebuild (the tree emptied and built anew under the same tree id) counts too
run_ run "$work/p2.ffsb" --set filesystem0.reuse=0 --durability-log "$o/c.log" >/dev/null 2>&1
run_ run "$work/p2.ffsb" --set filesystem0.reuse=0 --set threadgroup0.num_ops=1 >/dev/null 2>&1
run_ verify "$work/p2.ffsb" --set filesystem0.reuse=0 --durability-log "$o/c.log" >"$work/v.out" 2>&1
vrc=$?
[ $vrc = 2 ] && grep -q "was written since by the run" "$work/v.out" &&
	ok "a log after a rebuild of its tree: refused (exit 2)" ||
	bad "a log after a rebuild of its tree: exit $vrc: $(tail -3 "$work/v.out")"

# A log without a run id (fsmix before run ids) is checked as before, also after a later run:
# FSMIX_OLD_BIN (main at 9f68232) writes one where it is given; else a log's run id is zeroed
# here (bytes 48..55) and its header's check redone.
loc=$(shmdir)
profile "$loc" >"$work/p4.ffsb"
old=${FSMIX_OLD_BIN:-}
if [ -n "$old" ] && [ -x "$old" ]; then
	timeout 120 "$old" run "$work/p4.ffsb" --durability-log "$o/old-run.log" >/dev/null 2>&1
else
	run_ run "$work/p4.ffsb" --durability-log "$o/new-run.log" >/dev/null 2>&1
	python3 - "$o/new-run.log" "$o/old-run.log" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[48:56] = bytes(8)
h = 0xcbf29ce484222325
for x in b[:2112]:
    h = ((h ^ x) * 0x100000001b3) & 0xffffffffffffffff
b[2112:2120] = h.to_bytes(8, 'little')
open(sys.argv[2], 'wb').write(b)
PY
fi
run_ verify "$work/p4.ffsb" --durability-log "$o/old-run.log" >"$work/v.out" 2>&1
vrc=$?
[ $vrc = 0 ] && grep -q "every promise kept" "$work/v.out" &&
	ok "a log without a run id: checked as before, every promise kept" ||
	bad "a log without a run id: exit $vrc: $(tail -3 "$work/v.out")"
run_ run "$work/p4.ffsb" >/dev/null 2>&1 # a later run: not seen with a log without a run id
run_ verify "$work/p4.ffsb" --durability-log "$o/old-run.log" >"$work/v.out" 2>&1
vrc=$?
[ $vrc != 2 ] && ! grep -q "written since" "$work/v.out" &&
	ok "a log without a run id after a later run: checked as before (exit $vrc), not refused" ||
	bad "a log without a run id after a later run: exit $vrc: $(tail -3 "$work/v.out")"


# ---- 3. a log that cannot be synced: /dev/null, a FIFO ----------------------------------------

warned() { # FILE LOG-PATH KIND: the run's one warning about LOG-PATH
	[ "$(grep -c "fsmix: warning: --durability-log '$2' is $3, not a regular file: its records are written but cannot be made durable (no fdatasync), so fsmix verify cannot use it after a crash" "$1")" = 1 ]
}
syncs() { sed -n 's/.*durability log .*: [0-9]* records, [0-9]* waits for the logger, \([0-9]*\) fdatasyncs; run .*/\1/p' "$1"; }
loc=$(shmdir)
profile "$loc" >"$work/p3.ffsb"
run_ run "$work/p3.ffsb" --durability-log /dev/null >"$work/n.out" 2>"$work/n.err"
rc=$?
if [ $rc = 0 ] && grep -q "Transactions per Second" "$work/n.out" &&
	warned "$work/n.err" /dev/null "a character device" && [ "$(syncs "$work/n.err")" = 0 ]; then
	ok "--durability-log /dev/null: exit 0, the report, one warning, 0 fdatasyncs"
else
	bad "--durability-log /dev/null: exit $rc, $(head -c 400 "$work/n.err")"
fi

# (each reader ends when fsmix closes the FIFO, at the latest when its timeout outlasts fsmix's)
mkfifo "$o/fifo"
timeout 150 cat "$o/fifo" >"$o/fifo.copy" &
reader=$!
run_ run "$work/p3.ffsb" --durability-log "$o/fifo" >"$work/f.out" 2>"$work/f.err"
rc=$?
wait $reader
records=$(sed -n 's/.*durability log .*: \([0-9]*\) records, .*/\1/p' "$work/f.err")
size=$(stat -c %s "$o/fifo.copy")
if [ $rc = 0 ] && grep -q "Transactions per Second" "$work/f.out" &&
	warned "$work/f.err" "$o/fifo" "a FIFO (a pipe)" && [ "$(syncs "$work/f.err")" = 0 ] &&
	[ -n "$records" ] && [ "$size" = $((2120 + 80 * records)) ]; then
	ok "--durability-log FIFO: exit 0, one warning, every record ($records) through the FIFO"
else
	bad "--durability-log FIFO: exit $rc, $size bytes for '$records' records, $(head -c 400 "$work/f.err")"
fi
# what went through it is a log; the run ended, so verify checks its promises as usual, and says
# the log was no crash check
run_ verify "$work/p3.ffsb" --durability-log "$o/fifo.copy" >"$work/fv.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q "every promise kept" "$work/fv.out" &&
	grep -q "warning: $o/fifo.copy was written to a character device or FIFO and never fdatasynced: after a crash its last records may be missing, so it is no crash check" "$work/fv.out" &&
	ok "verify of the FIFO's copy: every promise kept, and the log named no crash check" ||
	bad "verify of the FIFO's copy: exit $rc: $(tail -4 "$work/fv.out")"

# a FIFO in the location itself keeps nothing on the tested filesystem: no same-device refusal
mkfifo "$loc/log.fifo"
timeout 150 cat "$loc/log.fifo" >/dev/null &
reader=$!
run_ run "$work/p3.ffsb" --durability-log "$loc/log.fifo" >/dev/null 2>"$work/fl.err"
rc=$?
kill $reader 2>/dev/null # (only if fsmix never opened it)
wait $reader 2>/dev/null
[ $rc = 0 ] && warned "$work/fl.err" "$loc/log.fifo" "a FIFO (a pipe)" &&
	ok "--durability-log FIFO in the location: exit 0 (no same-device rule)" ||
	bad "--durability-log FIFO in the location: exit $rc, $(head -c 400 "$work/fl.err")"
rm -f "$loc/log.fifo"

# a FIFO nobody reads: waited for, and SIGINT ends the wait (exit 130) before anything is built
mkfifo "$o/lonely"
timeout -k 2 40 "$bin" run "$work/p3.ffsb" --durability-log "$o/lonely" >/dev/null 2>"$work/w.err" &
pid=$!
if wait_for "$work/w.err" "$o/lonely: waiting for a reader of the FIFO (Ctrl-C gives up)" 20; then
	kill -INT $pid
	wait $pid
	rc=$?
	[ $rc = 130 ] && grep -q "fsmix: --durability-log '$o/lonely': interrupted while waiting for a reader of the FIFO" "$work/w.err" &&
		ok "--durability-log FIFO without a reader: waited for, SIGINT gives up (exit 130)" ||
		bad "--durability-log FIFO without a reader: exit $rc after SIGINT, $(head -c 400 "$work/w.err")"
else
	kill -INT $pid 2>/dev/null
	wait $pid
	bad "--durability-log FIFO without a reader: exit $?, never said it waits: $(head -c 400 "$work/w.err")"
fi

# a regular file is still fdatasynced, and a failing fdatasync (EINVAL, as a device's) fails
run_ run "$work/p3.ffsb" --durability-log "$o/reg.log" >/dev/null 2>"$work/g.err"
rc=$?
n=$(syncs "$work/g.err")
[ $rc = 0 ] && [ "${n:-0}" -ge 1 ] && ! grep -q "warning: --durability-log" "$work/g.err" &&
	ok "--durability-log FILE: fdatasynced ($n), no warning" ||
	bad "--durability-log FILE: exit $rc, '$n' fdatasyncs, $(head -c 400 "$work/g.err")"
if command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null; then
	timeout 120 strace -f -qq -o /dev/null -e trace=fdatasync -e inject=fdatasync:error=EINVAL \
		"$bin" run "$work/p3.ffsb" --durability-log "$o/einval.log" >/dev/null 2>"$work/i.err"
	rc=$?
	[ $rc = 1 ] && grep -q "fsmix: --durability-log '$o/einval.log': Invalid argument" "$work/i.err" &&
		! grep -q "warning: --durability-log" "$work/i.err" &&
		ok "--durability-log FILE whose fdatasync fails with EINVAL: exit 1, the errno named" ||
		bad "--durability-log FILE whose fdatasync fails with EINVAL: exit $rc, $(head -c 400 "$work/i.err")"
else
	skip_env strace "a regular log's failing fdatasync: strace is unavailable or cannot trace here"
fi

# ---- 4. verify --cut-at ------------------------------------------------------------------------

loc=$(shmdir)
printf 'time=1\n[filesystem0]\n\tlocation=%s\n\tnum_files=10\n\tnum_dirs=2\n' "$loc" >"$work/p4.ffsb"
printf '\tmin_filesize=4096\n\tmax_filesize=16384\n[end0]\n[threadgroup0]\n\tnum_threads=2\n' >>"$work/p4.ffsb"
printf '\top_rate=300\n\tcreate_fsync_weight=2\n\tappend_fsync_weight=1\n\twrite_size=4096\n' >>"$work/p4.ffsb"
printf '\twrite_blocksize=4096\n[end0]\n' >>"$work/p4.ffsb"
log4=$work/p4.durlog
run_ run "$work/p4.ffsb" --seed 3 --durability-log "$log4" >"$work/p4.out" 2>&1 || bad "--cut-at: the run failed: $(tail -2 "$work/p4.out")"
# the last file created in the run and fsynced after: its id, directory and the create's t_end
read -r fid fdir t_create t_last <<<"$(python3 - "$log4" "$src/tests/tools" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
import durlog_reader as R
_, recs, _ = R.parse(sys.argv[1])
synced = {r["file"] for r in recs if r["kind"] == "fsync"}
c = [r for r in recs if r["kind"] == "create" and r["file"] in synced]
print(c[-1]["file"], c[-1]["dir"], c[-1]["t1"], max(r["t1"] for r in recs)) if c else print("-")
EOF
)"
if [ "${fid:--}" = - ]; then
	bad "--cut-at: no file was created and fsynced in the run"
else
	# (found by name: a create in data/ itself has no d<dir>)
	victim=$(find "$loc/fsmix.fs0/data" -name "f$fid" -type f)
	[ -n "$victim" ] && truncate -s 0 "$victim" || bad "--cut-at: f$fid (dir $fdir) is not in the tree"
	verify4() { # NAME [ARGS...]: verify's exit in v4rc, its JSON in $o/NAME.json
		local name=$1
		shift
		run_ verify "$work/p4.ffsb" --durability-log "$log4" --json "$o/$name.json" "$@" >"$o/$name.out" 2>&1
		v4rc=$?
	}
	verdict() { jq -r --argjson f "$fid" '[.files[] | select(.[1] == $f)][0][2] // "none"' "$o/$1.json"; }
	verify4 nocut
	[ $v4rc = 1 ] && [ "$(verdict nocut)" = broken ] && [ "$(jq -r .records_after_cut "$o/nocut.json")" = 0 ] &&
		[ "$(jq -r .cut_at_ns "$o/nocut.json")" = null ] &&
		ok "--cut-at: without it, f$fid cut to 0 bytes is broken (exit 1)" ||
		bad "--cut-at: without it: exit $v4rc, f$fid $(verdict nocut)"
	verify4 cut --cut-at "$t_create"
	after=$(jq -r .records_after_cut "$o/cut.json")
	python3 "$src/tests/tools/durlog_reader.py" --durability-log "$log4" --location "$loc" \
		--cut-at "$t_create" --json >"$o/cut.reader.json"
	differ=$(jq -n --slurpfile v "$o/cut.json" --slurpfile r "$o/cut.reader.json" '
		($v[0].files | map({key: "\(.[0]).\(.[1])", value: .[2]}) | from_entries) as $a |
		($r[0].files | map(select(.[2] != "not_promised")) | map({key: "\(.[0]).\(.[1])", value: .[2]}) | from_entries) as $b |
		[($a + $b) | keys[] | select($a[.] != $b[.])] | length')
	[ $v4rc = 0 ] && [ "$(verdict cut)" != broken ] && [ "${after:-0}" -gt 0 ] &&
		[ "$(jq -r .cut_at_ns "$o/cut.json")" = "$t_create" ] && [ "$differ" = 0 ] &&
		grep -q "power cut at .*(--cut-at $t_create): $after records acknowledged from then on" "$o/cut.out" &&
		ok "--cut-at its create's time: exit 0, f$fid $(verdict cut), $after records after the cut; the reader agrees" ||
		bad "--cut-at $t_create: exit $v4rc, f$fid $(verdict cut), records after ${after:-?}, the reader differs on ${differ:-?} files"
	verify4 late --cut-at $((t_last + 1))
	[ $v4rc = 1 ] && [ "$(verdict late)" = broken ] && [ "$(jq -r .records_after_cut "$o/late.json")" = 0 ] &&
		[ "$(jq .checked "$o/late.json")" = "$(jq .checked "$o/nocut.json")" ] &&
		ok "--cut-at after the last record: the verdict without one (exit 1)" ||
		bad "--cut-at after the last record: exit $v4rc, f$fid $(verdict late)"
	for v in 0 12x $((t_create / 1000)); do
		verify4 badcut --cut-at "$v"
		[ $v4rc = 2 ] && grep -qE "cut-at takes|before .* was made" "$o/badcut.out" &&
			[ "$(jq -r .checked "$o/badcut.json" 2>/dev/null)" != "$(jq .checked "$o/nocut.json")" ] &&
			ok "--cut-at $v: exit 2, nothing verified" ||
			bad "--cut-at $v: exit $v4rc: $(head -c 200 "$o/badcut.out")"
	done
fi

summary
