#!/usr/bin/env bash
# Output files (issue 10: cases 1, 8, 10, 11, 12, 15): devices, FIFOs and symbolic links are
# written through, never replaced; a closed or full stdout is reported after everything else;
# a failed or interrupted setup leaves a JSON saying so; every output of every subcommand;
# bad paths and locations found before anything is created; message details.
set -u
. "$(dirname "$0")/lib.bash"
cd "$work" || exit 1 # an old fsmix writes "--lat-log -" to a file named "-" in the current directory

# A run that ends by count (no time to wait for): 2 threads x 40 operations on 20 small files.
prof="$work/tiny.ffsb"
cat >"$prof" <<'EOF'
time=0
[filesystem0]
	location=/tmp
	num_files=20
	num_dirs=2
	size_weight 4KB 1
[end0]
[threadgroup0]
	num_threads=2
	num_ops=40
	read_weight=2
	append_weight=1
	read_size=4KB
	read_blocksize=4KB
	write_size=4KB
	write_blocksize=4KB
	[stats]
		enable_stats=1
		enable_range=1
		msec_range 0.00 1.00
		msec_range 1.00 100000.00
	[end]
[end0]
EOF
loc=$(shmdir)
out="$work/out"
mkdir -p "$out"

# valid_json FILE [PYTHON-ASSERTION on d]: FILE is one complete JSON document.
valid_json() {
	python3 -c "import json, sys; d = json.load(open(sys.argv[1])); assert ${2:-True}, d" "$1" 2>/dev/null
}
# valid_csv FILE MIN_ROWS: a CSV with a header and at least MIN_ROWS records.
valid_csv() {
	python3 -c "import csv, sys; r = list(csv.reader(open(sys.argv[1]))); assert len(r) > int(sys.argv[2]), len(r)" "$1" "$2" 2>/dev/null
}
# reap PID: wait for a FIFO's reader; a reader still blocked 10 s after fsmix has exited never
# got a writer (the FIFO was replaced): kill it and return 1.
reap() {
	for ((i = 0; i < 100; i++)); do
		kill -0 "$1" 2>/dev/null || { wait "$1"; return 0; }
		sleep 0.1
	done
	kill "$1" 2>/dev/null
	wait "$1"
	return 1
}
# run_tiny ARGS...: the tiny run in $loc.
run_tiny() { "$bin" run "$prof" --location "$loc" "$@"; }

# ---- 1. devices, FIFOs and symbolic links are never replaced ----

# --json to a FIFO: streamed to its reader; the FIFO stays a FIFO.
mkfifo "$out/json.fifo"
cat "$out/json.fifo" >"$out/fifo.json" &
reader=$!
run_tiny --json "$out/json.fifo" >/dev/null 2>"$out/fifo.err"
rc=$?
reap $reader
[ $rc -eq 0 ] && [ -p "$out/json.fifo" ] && valid_json "$out/fifo.json" 'd["schema"] == "fsmix-report"' &&
	ok "--json FIFO: the reader got the whole JSON, the FIFO is still a FIFO" ||
	{ bad "--json FIFO (exit $rc)"; ls -l "$out/json.fifo"; cat "$out/fifo.err"; }
ls "$out"/json.fifo.tmp* >/dev/null 2>&1 && bad "a temporary file was made next to the FIFO"

# --csv to a FIFO, and compare --json to a FIFO.
mkfifo "$out/csv.fifo"
cat "$out/csv.fifo" >"$out/fifo.csv" &
reader=$!
run_tiny --csv "$out/csv.fifo" --json "$out/base.json" >/dev/null 2>&1
rc=$?
reap $reader
[ $rc -eq 0 ] && [ -p "$out/csv.fifo" ] && valid_csv "$out/fifo.csv" 2 &&
	ok "--csv FIFO: streamed, still a FIFO" || bad "--csv FIFO (exit $rc)"
cat "$out/json.fifo" >"$out/cmp-fifo.json" &
reader=$!
"$bin" compare "$out/base.json" "$out/base.json" --json "$out/json.fifo" >/dev/null 2>"$out/cmpfifo.err"
rc=$?
reap $reader
[ $rc -eq 0 ] && [ -p "$out/json.fifo" ] && valid_json "$out/cmp-fifo.json" 'd["schema"] == "fsmix-compare"' &&
	ok "compare --json FIFO: streamed, still a FIFO" || { bad "compare --json FIFO (exit $rc)"; cat "$out/cmpfifo.err"; }

# A FIFO nobody reads: fsmix says it waits, and Ctrl-C ends the wait (before, a blocking open
# held fsmix until SIGKILL). The run itself was complete; the JSON is not written: exit 130.
mkfifo "$out/noreader.fifo"
"$bin" run "$prof" --location "$loc" --json "$out/noreader.fifo" >/dev/null 2>"$out/noreader.err" &
pid=$!
if wait_for "$out/noreader.err" "waiting for a reader" 60; then
	kill -INT $pid
	for ((i = 0; i < 100; i++)); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	if kill -0 $pid 2>/dev/null; then
		kill -KILL $pid; wait $pid
		bad "--json FIFO without a reader: SIGINT did not end the wait"
	else
		wait $pid
		rc=$?
		[ $rc -eq 130 ] && [ -p "$out/noreader.fifo" ] && grep -q "interrupted while waiting for a reader" "$out/noreader.err" &&
			ok "--json FIFO without a reader: Ctrl-C ends the wait, exit 130, still a FIFO" ||
			{ bad "--json FIFO without a reader (exit $rc)"; cat "$out/noreader.err"; }
	fi
else
	kill -KILL $pid; wait $pid
	bad "--json FIFO without a reader: no 'waiting' message"; cat "$out/noreader.err"
fi

# A character device made here (the same device as /dev/null, never /dev/null itself).
if mknod "$out/null" c 1 3 2>/dev/null; then
	run_tiny --csv "$out/null" --json "$out/null" >/dev/null 2>"$out/chr.err"
	rc=$?
	[ $rc -eq 0 ] && [ -c "$out/null" ] && ok "--json/--csv to a character device: written in place, still a device" ||
		{ bad "char device (exit $rc)"; ls -l "$out/null"; cat "$out/chr.err"; }
	"$bin" compare "$out/base.json" "$out/base.json" --csv "$out/null" >/dev/null 2>&1
	[ $? -eq 0 ] && [ -c "$out/null" ] && ok "compare --csv to a character device: still a device" || bad "compare --csv device"
	run_tiny --lat-log "$out/null" >/dev/null 2>&1
	[ $? -eq 0 ] && [ -c "$out/null" ] && ok "--lat-log to a character device: still a device" || bad "--lat-log device"
else
	skipped "character devices: mknod is not permitted here"
fi
# A block device is refused before anything runs, and stays what it was.
if mknod "$out/blk" b 7 255 2>/dev/null; then
	empty=$(shmdir)
	"$bin" run "$prof" --location "$empty" --json "$out/blk" >/dev/null 2>"$out/blk.err"
	rc=$?
	[ $rc -eq 2 ] && [ -b "$out/blk" ] && grep -q "block device" "$out/blk.err" && [ -z "$(ls "$empty")" ] &&
		ok "--json to a block device: refused (exit 2), nothing run" || { bad "block device (exit $rc)"; cat "$out/blk.err"; }
else
	skipped "block devices: mknod is not permitted here"
fi

# Symbolic links: followed to the target, the link itself stays.
echo old >"$out/target.json"
ln -s target.json "$out/link.json"
ln -s missing.csv "$out/dangling.csv"
run_tiny --json "$out/link.json" --csv "$out/dangling.csv" >/dev/null 2>"$out/link.err"
rc=$?
[ $rc -eq 0 ] && [ -L "$out/link.json" ] && [ "$(readlink "$out/link.json")" = target.json ] &&
	valid_json "$out/target.json" && [ -L "$out/dangling.csv" ] && valid_csv "$out/missing.csv" 2 &&
	ok "--json/--csv to symbolic links: the links stay, their targets are written" ||
	{ bad "symlink outputs (exit $rc)"; ls -l "$out"; cat "$out/link.err"; }
echo old >"$out/private.json"
chmod 600 "$out/private.json"
run_tiny --json "$out/private.json" >/dev/null 2>&1
[ "$(stat -c %a "$out/private.json")" = 600 ] && valid_json "$out/private.json" &&
	ok "a replaced file keeps its permissions" || bad "permissions not kept"
ln -s target.log "$out/link.log"
run_tiny --lat-log "$out/link.log" >/dev/null 2>&1
[ $? -eq 0 ] && [ -L "$out/link.log" ] && [ "$(head -1 "$out/target.log")" = "# t_s group thread op lat_ns bytes sync_ns resp_ns" ] &&
	[ "$(grep -vc '^#' "$out/target.log")" -eq 80 ] && ok "--lat-log to a symbolic link: link kept, 80 lines in the target" ||
	bad "--lat-log symlink"
mkfifo "$out/log.fifo"
cat "$out/log.fifo" >"$out/fifo.log" &
reader=$!
run_tiny --lat-log "$out/log.fifo" >/dev/null 2>&1
rc=$?
reap $reader
[ $rc -eq 0 ] && [ -p "$out/log.fifo" ] && [ "$(grep -vc '^#' "$out/fifo.log")" -eq 80 ] &&
	ok "--lat-log to a FIFO: streamed, still a FIFO" || bad "--lat-log FIFO (exit $rc)"
ln -s sweep-target.json "$out/sweep-link.json"
run_tiny --threads 1,2 --json "$out/sweep-link.json" >/dev/null 2>&1
[ $? -eq 0 ] && [ -L "$out/sweep-link.json" ] && valid_json "$out/sweep-target.json" 'd["schema"] == "fsmix-sweep"' &&
	ok "sweep --json to a symbolic link: link kept" || bad "sweep symlink"

# ---- 8. a closed or failing stdout ----

# The reader takes one line and goes away (head exits, the shell around it lets go of the pipe);
# the callout waits until then, so every later line of the report meets a closed pipe.
rm -f "$out/gone"
{
	run_tiny --set "callout=while [ ! -e '$out/gone' ]; do sleep 0.05; done" --json "$out/pipe.json" \
		--cleanup 2>"$out/pipe.err"
	echo $? >"$out/pipe.rc"
} | { head -1 >"$out/pipe.first"; exec </dev/null; touch "$out/gone"; } # no reader is left
rc=$(cat "$out/pipe.rc")
# The JSON is written last and says so too (issue 19, item 6: it said 0).
[ "$rc" -eq 1 ] && valid_json "$out/pipe.json" 'd["exit_status"] == 1 and d["measured"]' &&
	grep -q "standard output: cannot write: Broken pipe" "$out/pipe.err" && [ ! -e "$loc/fsmix.fs0" ] &&
	ok "| head -1: trees cleaned up, exit 1 with 'Broken pipe', and the JSON says exit_status 1" ||
	{ bad "closed stdout (exit $rc)"; cat "$out/pipe.err"; }
if [ -c /dev/full ]; then
	run_tiny --json "$out/full.json" >/dev/full 2>"$out/full.err"
	rc=$?
	[ $rc -eq 1 ] && valid_json "$out/full.json" && grep -q "standard output: cannot write: No space left" "$out/full.err" &&
		ok ">/dev/full: exit 1 with the reason, the JSON still written" || { bad "/dev/full stdout (exit $rc)"; cat "$out/full.err"; }
	run_tiny --json - >/dev/full 2>"$out/full2.err"
	[ $? -eq 1 ] && [ "$(grep -c "standard output" "$out/full2.err")" -eq 1 ] &&
		ok "--json - >/dev/full: exit 1, reported once" || { bad "--json - to /dev/full"; cat "$out/full2.err"; }
else
	skipped "/dev/full is missing"
fi

# ---- 10. a failed or interrupted setup replaces an older JSON ----

stale='{"schema": "fsmix-report", "exit_status": 0, "stale": true}'
if mount_tmpfs "$work/small" size=256k; then
	echo "$stale" >"$out/enospc.json"
	echo stale >"$out/enospc.csv"
	"$bin" run "$prof" --location "$work/small" --set filesystem0.num_files=200 \
		--json "$out/enospc.json" --csv "$out/enospc.csv" >/dev/null 2>"$out/enospc.err"
	rc=$?
	[ $rc -eq 1 ] && valid_json "$out/enospc.json" \
		'd["exit_status"] == 1 and not d["measured"] and d["stop_reason"] == "error" and "No space left" in d["error"] and "stale" not in d and d["total"]["operations"] == 0' &&
		[ "$(wc -l <"$out/enospc.csv")" -eq 1 ] && head -1 "$out/enospc.csv" | grep -q "^kind,group" &&
		ok "ENOSPC while building: the JSON says exit 1, error, nothing measured; CSV header only" ||
		{ bad "ENOSPC setup JSON (exit $rc)"; cat "$out/enospc.err"; head -c 400 "$out/enospc.json"; }
else
	skip_env mount "ENOSPC during the build: cannot mount a tmpfs here"
fi
# SIGINT while aging towards a fill level the filesystem is far from (it ages until stopped).
cat >"$work/age.ffsb" <<'EOF'
time=1
[filesystem0]
	location=/tmp
	num_files=20
	num_dirs=2
	size_weight 4KB 1
	agefs=1
	desired_util=0.99
	[threadgroup]
		num_threads=1
		create_weight=1
		write_blocksize=4KB
		op_delay=10
	[end]
[end0]
[threadgroup0]
	num_threads=1
	stat_weight=1
[end0]
EOF
echo "$stale" >"$out/int.json"
aged=$(shmdir)
"$bin" run "$work/age.ffsb" --location "$aged" --json "$out/int.json" >/dev/null 2>"$out/int.err" &
pid=$!
wait_for "$out/int.err" "aging from" 30
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && valid_json "$out/int.json" \
	'd["exit_status"] == 130 and d["interrupted"] and not d["measured"] and d["stop_reason"] == "signal" and d["signal"] == "SIGINT" and "stale" not in d' &&
	ok "SIGINT while aging: the JSON says 130, signal, nothing measured" ||
	{ bad "SIGINT in setup (exit $rc)"; cat "$out/int.err"; }
echo "$stale" >"$out/t0.json"
run_tiny --set threadgroup0.num_ops=0 --json "$out/t0.json" >/dev/null 2>&1
[ $? -eq 0 ] && valid_json "$out/t0.json" 'd["exit_status"] == 0 and not d["measured"] and d["error"] is None and "stale" not in d' &&
	ok "time=0 (build only): a JSON saying nothing was measured" || bad "time=0 JSON"

# ---- 11. every output of every subcommand ----

run_tiny --json "$out/r.json" --csv "$out/r.csv" --lat-log "$out/r.log" >"$out/r.txt" 2>/dev/null
[ $? -eq 0 ] && valid_json "$out/r.json" 'd["measured"] and d["total"]["operations"] == 80' && valid_csv "$out/r.csv" 3 &&
	[ "$(grep -vc '^#' "$out/r.log")" -eq 80 ] && grep -q "^Total Results" "$out/r.txt" &&
	ok "run: text, --json, --csv, --lat-log files" || bad "run outputs"
for o in json csv lat-log; do
	run_tiny --$o - >"$out/std.$o" 2>"$out/std.err"
	rc=$?
	case $o in
	json) valid_json "$out/std.$o" ;;
	csv) valid_csv "$out/std.$o" 3 ;;
	lat-log) [ "$(grep -vc '^#' "$out/std.$o")" -eq 80 ] ;;
	esac && [ $rc -eq 0 ] && grep -q "^Total Results" "$out/std.err" &&
		ok "run --$o -: only the document on stdout, the report on stderr" || bad "run --$o - (exit $rc)"
done
run_tiny --json - --csv - >/dev/null 2>&1
[ $? -eq 2 ] && ok "two documents on stdout: refused" || bad "--json - --csv - accepted"
"$bin" compare "$out/base.json" "$out/base.json" --json - --csv - >"$out/cmp2.out" 2>"$out/cmp2.err"
[ $? -eq 2 ] && [ ! -s "$out/cmp2.out" ] && grep -q "only one of --json, --csv" "$out/cmp2.err" &&
	ok "compare: two documents on stdout refused, nothing written" ||
	bad "compare --json - --csv - accepted"
run_tiny --threads 1,2 --repeat 2 --json "$out/s.json" --csv "$out/s.csv" >"$out/s.txt" 2>/dev/null
[ $? -eq 0 ] && valid_json "$out/s.json" 'len(d["points"]) == 2' && valid_csv "$out/s.csv" 8 && grep -q "^threads=2 " "$out/s.txt" &&
	ok "sweep: table, --json, --csv" || bad "sweep outputs"
run_tiny --threads 1,2 --json - 2>/dev/null | python3 -c "import json, sys; assert json.load(sys.stdin)['schema'] == 'fsmix-sweep'" &&
	ok "sweep --json -" || bad "sweep --json -"
"$bin" compare "$out/r.json" "$out/base.json" --json "$out/c.json" --csv "$out/c.csv" >"$out/c.txt" 2>"$out/c.err"
rc=$?
[ $rc -eq 0 ] && valid_json "$out/c.json" 'd["schema"] == "fsmix-compare" and len(d["rows"]) >= 2 and all(r["mark"] in "+-0" for r in d["rows"])' &&
	valid_csv "$out/c.csv" 2 && grep -q "^BASE: " "$out/c.txt" &&
	ok "compare: table, --json, --csv" || { bad "compare outputs (exit $rc)"; cat "$out/c.err"; }
"$bin" compare "$out/r.json" "$out/base.json" --json - 2>/dev/null | python3 -c "import json, sys; assert json.load(sys.stdin)['rows']" &&
	ok "compare --json -" || bad "compare --json -"
"$bin" compare "$out/r.json" "$out/base.json" --csv - 2>/dev/null | head -1 | grep -q "^point,metric," &&
	ok "compare --csv -" || bad "compare --csv -"
"$bin" check "$prof" --json 2>/dev/null | python3 -c "import json, sys; assert json.load(sys.stdin)['threadgroups']" &&
	ok "check --json" || bad "check --json"
if command -v gnuplot >/dev/null; then
	ln -s drawn.png "$out/plot-link.png"
	"$bin" plot "$out/s.json" -o "$out/plot-link.png" 2>/dev/null &&
		[ -L "$out/plot-link.png" ] && [ "$(head -c 4 "$out/drawn.png" | od -An -tx1 | tr -d ' \n')" = 89504e47 ] &&
		ok "plot -o to a symbolic link: the PNG is in the target, the link stays" || bad "plot -o symlink"
	"$bin" plot "$out/s.json" -o "$out/s.svg" 2>/dev/null && grep -q "<svg" "$out/s.svg" && ok "plot: sweep SVG" || bad "plot svg"
	"$bin" compare "$out/r.json" "$out/base.json" --plot "$out/c.png" >/dev/null 2>&1 && [ -s "$out/c.png" ] &&
		ok "compare --plot" || bad "compare --plot"
	run_tiny --threads 1,2 --plot "$out/sw.svg" >/dev/null 2>&1 && grep -q "<svg" "$out/sw.svg" &&
		ok "sweep --plot" || bad "sweep --plot"
	mkfifo "$out/fifo.svg"
	cat "$out/fifo.svg" >"$out/from-fifo.svg" &
	reader=$!
	"$bin" plot "$out/s.json" -o "$out/fifo.svg" 2>/dev/null
	rc=$?
	reap $reader
	[ $rc -eq 0 ] && [ -p "$out/fifo.svg" ] && grep -q "<svg" "$out/from-fifo.svg" &&
		ok "plot -o FIFO: the image streamed to its reader, still a FIFO" || bad "plot -o FIFO (exit $rc)"
else
	skip_env gnuplot "plots: gnuplot is not installed"
fi

# ---- 12. bad paths and locations are found before anything is created ----

two="$work/two.ffsb"
sed 's/^\[threadgroup0\]/[filesystem1]\n\tlocation=\/tmp\n\tnum_files=20\n\tnum_dirs=2\n[end1]\n[threadgroup0]/' "$prof" >"$two"
loc0=$(shmdir)
"$bin" run "$two" --location "0=$loc0" --location "1=$work/nonexistent" >/dev/null 2>"$out/loc1.err"
rc=$?
[ $rc -eq 2 ] && [ -z "$(ls "$loc0")" ] && grep -q "filesystem1: location '$work/nonexistent'" "$out/loc1.err" &&
	ok "filesystem1's location missing: exit 2, filesystem0's tree never built" ||
	{ bad "bad second location (exit $rc)"; ls "$loc0"; cat "$out/loc1.err"; }
check_before() { # DESCRIPTION ARGS...: exit 2, the message names the path, nothing created in $loc0
	local what=$1
	shift
	"$@" >/dev/null 2>"$out/pre.err"
	local rc=$?
	[ $rc -eq 2 ] && [ -z "$(ls "$loc0")" ] && grep -qF -- "$what" "$out/pre.err" &&
		ok "$what: exit 2 before anything is created" || { bad "$what (exit $rc)"; cat "$out/pre.err"; ls "$loc0"; }
}
check_before "--lat-log $work/nodir/x" "$bin" run "$prof" --location "$loc0" --lat-log "$work/nodir/x"
[ -c /dev/full ] && check_before "--lat-log /dev/full" "$bin" run "$prof" --location "$loc0" --lat-log /dev/full
check_before "--json $work/nodir/x.json" "$bin" run "$prof" --location "$loc0" --json "$work/nodir/x.json"
check_before "--csv $work/nodir/x.csv" "$bin" run "$prof" --location "$loc0" --threads 1,2 --csv "$work/nodir/x.csv"
check_before "--plot $work/nodir/x.png" "$bin" run "$prof" --location "$loc0" --threads 1,2 --plot "$work/nodir/x.png"
check_before "--json $out" "$bin" run "$prof" --location "$loc0" --json "$out"
check_before "--json $work/nodir/c.json" "$bin" compare "$out/r.json" "$out/base.json" --json "$work/nodir/c.json"
check_before "-o $work/nodir/p.png" "$bin" plot "$out/r.json" -o "$work/nodir/p.png"

# ---- 15. messages ----

run_tiny --set threadgroup0.num_ops=0 >/dev/null 2>&1
"$bin" clean "$prof" --location "$loc/" 2>"$out/clean.err"
grep -q "removed $loc/fsmix.fs0 (" "$out/clean.err" && ! grep -q "//" "$out/clean.err" &&
	ok "clean: 'removed DIR/fsmix.fs0' without a doubled slash" || { bad "clean message"; cat "$out/clean.err"; }
"$bin" check "$prof" --set "threadgroup0.msec_range=5 7" --set "threadgroup0.msec_range=6 8" >/dev/null 2>"$out/ovl2.err"
[ $? -eq 2 ] && grep -q "overlaps 5 - 7 (--set threadgroup0.msec_range=5 7)" "$out/ovl2.err" && ! grep -q "line 0" "$out/ovl2.err" &&
	ok "overlap of two --set ranges: names the option, not 'line 0'" || { bad "overlap --set"; cat "$out/ovl2.err"; }
long="$work/$(printf 'a%.0s' {1..200})/$(printf 'b%.0s' {1..200})/$(printf 'c%.0s' {1..200})"
mkdir -p "$long" && touch "$long/fsmix.fs0"
run_tiny --location "$long" >/dev/null 2>"$out/long.err"
[ $? -eq 2 ] && grep -q "fsmix.fs0' exists and is not a directory created by fsmix (move it away or choose another location)" "$out/long.err" &&
	ok "a 600-character location: the message keeps its reason" || { bad "long path message"; cat "$out/long.err"; }
[ -z "$(find "$out" -name '*.tmp-*')" ] && ok "no temporary file left anywhere" || bad "temporary files left: $(find "$out" -name '*.tmp-*')"
summary
