#!/usr/bin/env bash
# Queued arrivals (issue 28, item 5): arrival_backlog=drop (the default: a start that passed
# while the thread was busy is skipped and counted) against arrival_backlog=queue (every start
# kept, a late one served at once and its response time counted from the start it was meant to
# have), the backlog's bound (arrival_backlog_max: a warning with its count), the counts in the
# JSON, the CSV and the text, and bad values refused at their line. The overload is made
# deterministic by tests/tools/fsfault (a FUSE passthrough): the run's first open of a data
# file is held for a second (rule open:0:PAUSE) while the schedule asks for one start a
# millisecond, whatever the machine's speed. Needs root, /dev/fuse, fusermount3 and fsfault for
# that part (skipped otherwise); the rest runs everywhere.
set -u
. "$(dirname "$0")/lib.bash"

# py_check OK BAD FILE...: ok OK when the Python assertions on stdin hold for FILE..., else bad BAD
py_check() {
	local yes=$1 no=$2 # (not "fail": bad counts in that global)
	shift 2
	if python3 - "$@"; then ok "$yes"; else bad "$no"; fi
}

# ---- bad values: refused at their file:line and key ---------------------------------------
cat >"$work/bad.ffsb" <<'PROFILE'
time=1
[filesystem0]
	location=/tmp
	num_files=4
[end0]
[threadgroup0]
	num_threads=1
	stat_weight=1
	op_rate=100
	arrival_backlog=later
	arrival_backlog_max=0
[end0]
PROFILE
"$bin" check "$work/bad.ffsb" >"$work/bad.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "bad.ffsb:10: error: .* arrival_backlog: 'later' is not one of drop, queue" "$work/bad.out" &&
	grep -q "bad.ffsb:11: error: .* arrival_backlog_max: 0 is out of range" "$work/bad.out" &&
	ok "bad arrival_backlog and arrival_backlog_max: exit 2, each at its line" ||
	{ bad "bad values: exit $rc"; cat "$work/bad.out"; }
"$bin" check "$work/bad.ffsb" --strict-ffsb --set threadgroup0.arrival_backlog=queue \
	--set threadgroup0.arrival_backlog_max=5 >"$work/strict.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "arrival_backlog.*--strict-ffsb\|--strict-ffsb.*arrival_backlog" "$work/strict.out" &&
	grep -q "arrival_backlog: fsmix extension, rejected by --strict-ffsb" "$work/strict.out" &&
	grep -q "arrival_backlog_max: fsmix extension, rejected by --strict-ffsb" "$work/strict.out" &&
	ok "--strict-ffsb refuses arrival_backlog and arrival_backlog_max (extensions)" ||
	{ bad "--strict-ffsb: exit $rc"; cat "$work/strict.out"; }
# a bound with nothing to bound, and a backlog without a schedule: warned at their lines
sed -e '/arrival_backlog=later/d' -e 's/arrival_backlog_max=0/arrival_backlog_max=5/' \
	"$work/bad.ffsb" >"$work/unused.ffsb"
"$bin" check "$work/unused.ffsb" >"$work/unused.out" 2>&1
rc=$?
sed '/op_rate=/d' "$work/unused.ffsb" >"$work/unsched.ffsb"
"$bin" check "$work/unsched.ffsb" --set threadgroup0.arrival_backlog=queue \
	--set threadgroup0.arrival=poisson >"$work/unsched.out" 2>&1
rc2=$?
[ $rc -eq 0 ] && [ $rc2 -eq 0 ] &&
	grep -q "unused.ffsb:10: warning: .* arrival_backlog_max: ignored: arrival_backlog=drop keeps no backlog" "$work/unused.out" &&
	[ "$(grep -c "warning: .* arrival\(_backlog\|_backlog_max\)\?: ignored: neither op_rate nor op_period schedules this group" "$work/unsched.out")" -eq 3 ] &&
	ok "arrival_backlog_max with drop, arrival keys without a schedule: warned as ignored" ||
	{ bad "ignored-key warnings: exit $rc $rc2"; grep warning "$work/unused.out" "$work/unsched.out"; }

# ---- the accounting, at any speed: queue drops nothing below its bound ---------------------
cat >"$work/fast.ffsb" <<'PROFILE'
[filesystem0]
	location=/tmp
	num_files=8
	num_dirs=1
	min_filesize=4KB
	max_filesize=4KB
[end0]
[threadgroup0]
	num_threads=2
	num_ops=400
	stat_weight=1
	op_rate=20000
	arrival=poisson
	arrival_backlog=queue
	arrival_backlog_max=100000000
	[stats]
		enable_stats=1
	[end]
[end0]
PROFILE
loc=$(shmdir)
"$bin" run "$work/fast.ffsb" --location "$loc" --json "$work/fast.json" >"$work/fast.out" 2>&1
rc=$?
py_check "queue: intended = served = 800, none dropped, one response sample each (exit $rc)" "queue accounting (exit $rc)" \
	"$work/fast.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
a = g["arrivals"]
assert a["backlog"] == "queue" and a["backlog_max"] == 100000000, a
assert a["served"] == 800 and a["dropped"] == 0 and a["intended"] == 800, a
assert a["bound_hits"] == 0 and g["missed_starts"] == 0, a
assert 0 <= a["queued_late"] <= 798, a
# one response sample per operation: none made up for dropped starts
assert g["response_latency"]["count"] == g["operations"] == 800, g["response_latency"]
print("queue at any speed: %s" % a)
PY

# ---- overload: one operation held for a second, a start wanted every millisecond -----------
if ! fsfault_ready; then
	skip_env fuse "overloaded arrivals: $fsfault_why"
	summary
fi
# The build creates (FUSE create), the run's writes open existing files (FUSE open): the first
# open below a tree's data/ is its run's first operation. One rule per run (a rule holds one
# call), each run in a directory of its own.
mnt=$work/held-mnt
fsfault_mount "$mnt" "$(shmdir)" -f "open:0:PAUSE:/drop/fsmix.fs0/data/" \
	-f "open:0:PAUSE:/queue/fsmix.fs0/data/" -f "open:0:PAUSE:/bound/fsmix.fs0/data/" ||
	{ bad "fsfault did not mount"; summary; }

# One thread, 20 writes, one start a millisecond: the first write's open is held >= 1 s, so
# every later start has passed (by >= 980 ms) when the thread is free again.
cat >"$work/held.ffsb" <<'PROFILE'
[filesystem0]
	location=/tmp
	num_files=2
	num_dirs=1
	min_filesize=4KB
	max_filesize=4KB
[end0]
[threadgroup0]
	num_threads=1
	num_ops=20
	write_weight=1
	write_size=4KB
	write_blocksize=4KB
	op_period=1
	[stats]
		enable_stats=1
	[end]
[end0]
PROFILE
# run_held DIR OUT ARGS...: the run in $mnt/DIR, its first open held for 1 s, then released.
run_held() {
	local dir=$1 out=$2 pid
	shift 2
	mkdir -p "$mnt/$dir"
	timeout 300 "$bin" run "$work/held.ffsb" --location "$mnt/$dir" --json "$out.json" \
		--csv "$out.csv" "$@" >"$out.out" 2>"$out.err" &
	pid=$!
	fsfault_held "$dir" $pid 1
	wait $pid
}

run_held drop "$work/drop"
rc=$?
py_check "drop: the late starts dropped and counted (exit $rc)" "drop (exit $rc)" \
	"$work/drop.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
a = g["arrivals"]
assert a["backlog"] == "drop" and a["backlog_max"] is None, a
assert a["served"] == 20 and a["dropped"] >= 900 and a["queued_late"] == 0, a
assert a["intended"] == a["served"] + a["dropped"] and a["dropped"] == g["missed_starts"], a
# HdrHistogram's correction: one response sample per dropped start
assert g["response_latency"]["count"] == 20 + a["dropped"], g["response_latency"]["count"]
print("drop: %s" % a)
PY

run_held queue "$work/queue" --set threadgroup0.arrival_backlog=queue \
	--set threadgroup0.arrival_backlog_max=100000
rc=$?
py_check "queue: every start served, 19 late, response time from the intended start (exit $rc)" "queue (exit $rc)" \
	"$work/queue.json" "$work/queue.csv" <<'PY'
import csv, json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
a = g["arrivals"]
assert a["backlog"] == "queue" and a["backlog_max"] == 100000, a
assert a == dict(a, intended=20, served=20, dropped=0, queued_late=19, bound_hits=0), a
r = g["response_latency"]
# every start waited behind the held one: start k (ms k) ended after the release (>= 1 s)
assert r["count"] == 20 and r["min_ms"] >= 980, r
assert g["op_latency"]["max_ms"] >= 1000, g["op_latency"]
rows = {x["name"]: x["count"] for x in csv.DictReader(open(sys.argv[2])) if x["kind"] == "arrivals"}
assert rows == {"intended": "20", "served": "20", "dropped": "0", "queued_late": "19",
                "bound_hits": "0"}, rows
print("queue: %s, response min %.1f ms" % (a, r["min_ms"]))
PY
grep -q "^threadgroup0: arrival_backlog=queue: 20 intended starts, 20 served, 0 dropped, 19 queued late, 0 bound hits" "$work/queue.out" &&
	! grep -q "arrival_backlog_max" "$work/queue.out" &&
	ok "queue: the counts in the text, no bound warning" ||
	{ bad "queue: text"; grep -A3 "Scheduled" "$work/queue.out"; }

run_held bound "$work/bound" --set threadgroup0.arrival_backlog=queue \
	--set threadgroup0.arrival_backlog_max=10 --format ffsb
rc=$?
py_check "queue at its bound: the oldest starts dropped and counted (exit $rc)" "queue at its bound (exit $rc)" \
	"$work/bound.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
a = g["arrivals"]
# the bound: 10 periods of lateness; after the held second, >= 970 starts are past it
assert a["served"] == 20 and a["bound_hits"] >= 1 and a["dropped"] >= 970, a
assert a["intended"] == a["served"] + a["dropped"] and a["dropped"] == g["missed_starts"], a
print("bound: %s" % a)
PY
grep -Eq "^fsmix: warning: threadgroup0: the queued starts reached arrival_backlog_max \(10 a thread\) [1-9][0-9]* times; [0-9]+ starts were dropped" "$work/bound.err" &&
	! grep -q "arrival_backlog" "$work/bound.out" &&
	ok "--format ffsb: FFSB's text unchanged, the bound's warning on stderr" ||
	{ bad "bound warning"; cat "$work/bound.err"; }
summary
