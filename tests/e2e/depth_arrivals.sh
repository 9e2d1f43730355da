#!/usr/bin/env bash
# Scheduled arrivals at iodepth > 1 (issue 29, item 2; docs/engines.md, "Schedules at depth"):
# op_rate, op_period and op_delay with engine=io_uring iodepth=8, on tmpfs.
# 1. They check (before: "cannot be combined with op_rate", exit 2).
# 2. op_rate=200 for 3 s: about 600 intended starts, most of them served, far below what the
#    same worker does unthrottled; fixed starts 5 ms apart, poisson gaps with a CV near 1
#    (from the latency log's start times); strace: the worker's stats still go through
#    io_uring_enter (no statx, no newfstatat from it).
# 3. op_delay at depth is each slot's: 8 slots, 100 ms each, make about 8 times what one does.
#    Refused (-EAGAIN) and broken (-EFAULT) submissions while the worker waits for its starts
#    (tests/tools/preload/uring_hide.c): every start served, no hang.
# 4. Overload (a FUSE passthrough, tests/tools/fsfault, holds the run's first open for a second
#    and, being single-threaded, every other call with it: all 8 slots busy, whatever the
#    machine's speed), one start a millisecond: drop skips and counts the starts that passed;
#    queue serves every start, the late ones counted, each response time from its intended
#    start (>= ~1 s); queue at a bound of 10 periods drops the oldest, with the warning.
# Fails on the old binary (1: the refusal, exit 2).
set -u
. "$(dirname "$0")/lib.bash"

py_check() { # py_check OK BAD FILE...: ok OK when the Python on stdin holds, else bad BAD
	local yes=$1 no=$2
	shift 2
	if python3 <(echo "$intended_py"; cat) "$@"; then ok "$yes"; else bad "$no"; fi
}
# intended_gaps(LATLOG): the gaps between the operations' intended starts, s. A line has the
# operation's start (t_s), latency and response time (from its intended start): the intended
# start is t_s + lat - resp. The starts the worker made (t_s) move with how soon a loaded
# machine wakes it; the schedule does not.
intended_py='
def intended_gaps(path):
    t = []
    for l in open(path):
        if not l.startswith("#"):
            f = l.split()
            t.append(float(f[0]) + (int(f[4]) - int(f[7])) / 1e9)
    t.sort()
    return [b - a for a, b in zip(t, t[1:])]
'

profile() { # profile TIME SCHEDULE-LINES [OPS-LINES]
	cat <<EOF
time=$1
[filesystem0]
	location=/unused
	num_files=64
	num_dirs=2
	min_filesize=4KB
	max_filesize=4KB
[end0]
[threadgroup0]
	num_threads=1
	engine=io_uring
	iodepth=8
${3:-	stat_weight=1}
$2
	[stats]
		enable_stats=1
	[end]
[end0]
EOF
}

# 1. They check.
for key in "op_rate=200" "op_period=5" "op_delay=100" "op_rate=200
	arrival=poisson
	arrival_backlog=queue"; do
	profile 1 "	$key" >"$work/check.ffsb"
	"$bin" check "$work/check.ffsb" >"$work/check.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] && ok "iodepth=8 with ${key//$'\n'/ }: checks" ||
		{ bad "iodepth=8 with ${key//$'\n'/ }: exit $rc"; sed 's/^/     /' "$work/check.out"; }
done

# Is io_uring available here?
profile 1 "" >"$work/probe.ffsb"
"$bin" run "$work/probe.ffsb" --location "$(shmdir)" >"$work/probe.out" 2>&1
if [ $? -eq 3 ]; then
	skipped "engine=io_uring cannot run here: $(grep -m1 'engine=io_uring' "$work/probe.out")"
	summary
fi

# 2. The rate, the gaps, the calls.
profile 3 "	op_rate=200" >"$work/rate.ffsb"
"$bin" run "$work/rate.ffsb" --location "$(shmdir)" --json "$work/rate.json" \
	--lat-log "$work/rate.lat" >"$work/rate.out" 2>&1
rc=$?
profile 1 "" >"$work/free.ffsb"
"$bin" run "$work/free.ffsb" --location "$(shmdir)" --json "$work/free.json" >"$work/free.out" 2>&1
rc2=$?
py_check "op_rate=200 at depth 8: ~600 starts in 3 s, far below unthrottled, fixed gaps (exit $rc $rc2)" \
	"op_rate=200 at depth 8 (exit $rc $rc2)" "$work/rate.json" "$work/free.json" "$work/rate.lat" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
free = json.load(open(sys.argv[2]))["groups"][0]
a = g["arrivals"]
# the schedule's starts until the deadline: 200/s for 3 s (the deadline's clock is coarse)
assert 540 <= a["intended"] <= 660, a
assert a["intended"] == a["served"] + a["dropped"], a
# a loaded machine may stall the worker past a few starts (dropped); most are served
assert a["served"] >= a["intended"] / 2, a
rate = g["operations"] / 3.0
assert rate <= 220, rate
unthrottled = free["operations"] / 1.0
assert unthrottled >= 4 * rate, (unthrottled, rate)
assert g["response_latency"]["count"] >= a["served"] - a["served"] // 10, g["response_latency"]
gaps = intended_gaps(sys.argv[3])
# one start every 5 ms: every gap a multiple of 5 ms (a dropped start makes one of 10), most
# of them 5 ms (poisson gaps would be anything)
near = sum(1 for x in gaps if abs(x - 0.005) <= 0.00005) / len(gaps)
steps = sum(1 for x in gaps if x > 0.004 and abs(x - 0.005 * round(x / 0.005)) <= 0.00005)
assert steps == len(gaps) and near >= 0.5, (steps, len(gaps), near)
print("rate: %s, %.0f ops/s (unthrottled %.0f/s), %.1f%% of the intended gaps 5 ms, the others"
      " multiples" % (a, rate, unthrottled, 100 * near))
PY

profile 3 "	op_rate=200
	arrival=poisson" >"$work/poi.ffsb"
"$bin" run "$work/poi.ffsb" --location "$(shmdir)" --json "$work/poi.json" \
	--lat-log "$work/poi.lat" >"$work/poi.out" 2>&1
rc=$?
py_check "arrival=poisson at depth 8: gaps' CV near 1 (exit $rc)" "poisson at depth 8 (exit $rc)" \
	"$work/poi.json" "$work/poi.lat" <<'PY'
import json, statistics, sys
a = json.load(open(sys.argv[1]))["groups"][0]["arrivals"]
assert 450 <= a["intended"] <= 750 and a["served"] >= a["intended"] / 2, a
gaps = intended_gaps(sys.argv[2])
m = statistics.mean(gaps)
cv = statistics.pstdev(gaps) / m
near = sum(1 for x in gaps if 0.8 * m <= x <= 1.2 * m) / len(gaps)
# exponential gaps: CV 1, 15 % of them within 20 % of the mean (fixed: nearly all)
assert 0.75 <= cv <= 1.35 and near <= 0.3, (cv, near)
print("poisson: %s, mean intended gap %.2f ms, CV %.2f, %.0f%% within 20%% of the mean" %
      (a, 1000 * m, cv, 100 * near))
PY

if ! command -v strace >/dev/null; then
	skipped "no strace"
else
	profile 1 "	op_rate=200" >"$work/trace.ffsb"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 300 strace -f -qq \
		-o "$work/trace" -e trace=io_uring_enter,statx,newfstatat "$bin" run "$work/trace.ffsb" \
		--location "$(shmdir)" --json "$work/trace.json" >"$work/trace.out" 2>&1
	rc=$?
	# the worker: the thread that entered io_uring; no stat call of its own
	workers=$(awk '$2 ~ /^io_uring_enter\(/ { print $1 }' "$work/trace" | sort -u)
	stray=$(awk -v w="$workers" '$1 == w && $2 ~ /^(statx|newfstatat)\(/' "$work/trace" | head -3)
	# submissions: io_uring_enter's second argument; one statx each
	subs=$(awk -v w="$workers" '$1 == w && $2 ~ /^io_uring_enter\(/ { s += $3 } END { print s + 0 }' "$work/trace")
	ops=$(jq -r '.groups[0].operations' "$work/trace.json" 2>/dev/null)
	[ $rc -eq 0 ] && [ "$(wc -w <<<"$workers")" = 1 ] && [ -z "$stray" ] &&
		[ "${ops:-0}" -ge 50 ] && [ "$subs" = "$ops" ] &&
		ok "strace: the worker's $ops stats at depth 8 with op_rate: $subs submissions to io_uring_enter, no stat call" ||
		{ bad "strace: exit $rc, workers '$workers', $ops ops, $subs submissions; stray: $stray"; }
fi

# 3. op_delay: each slot's own pause.
profile 2 "	op_delay=100" >"$work/delay.ffsb"
"$bin" run "$work/delay.ffsb" --location "$(shmdir)" --json "$work/delay.json" >"$work/delay.out" 2>&1
rc=$?
py_check "op_delay=100 at depth 8: each slot pauses 100 ms, 8 slots ~160 ops in 2 s (exit $rc)" \
	"op_delay at depth 8 (exit $rc)" "$work/delay.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
# one slot: at most 2 s / 100 ms = 20 (and one more at the start); 8 slots: at most 8 x 21
assert 3 * 21 <= g["operations"] <= 8 * 21, g["operations"]
assert "arrivals" not in g or g["arrivals"] is None, g.get("arrivals")
print("op_delay: %d operations" % g["operations"])
PY

# 3b. Refused and broken submissions (tests/tools/preload/uring_hide.c) while the worker waits
# for its starts (the engine's wait with a deadline submits on its own): every third submission
# -EAGAIN is submitted again, no error; a ring broken at the 20th fails the calls not submitted
# (at most one a slot) and the worker goes on making its calls directly. No hang either way.
hide=${FSMIX_TOOLS:-}/uring_hide.so
if [ -f "$hide" ]; then
	profile 0 "	op_rate=1000
	num_ops=200
	arrival_backlog=queue" "	read_weight=2
	read_size=4KB
	read_blocksize=4KB
	write_fsync_weight=1
	write_size=4KB
	write_blocksize=4KB
	create_fdatasync_weight=1
	stat_weight=1" >"$work/refused.ffsb"
	for how in URING_EAGAIN_EVERY=3 URING_FAIL_FROM=20; do
		env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$how" \
			LD_PRELOAD="$hide" timeout 120 "$bin" run "$work/refused.ffsb" --location "$(shmdir)" \
			--seed 4 --continue-on-error --json "$work/refused.json" >"$work/refused.out" 2>&1
		rc=$?
		py_check "op_rate at depth 8 with $how: all 200 starts served, exit $rc" \
			"op_rate at depth 8 with $how: exit $rc" "$work/refused.json" "$how" <<'PY' ||
import json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
a = g["arrivals"]
errors = sum(o["errors"] for o in json.load(open(sys.argv[1]))["total"]["ops"])
assert a == dict(a, intended=200, served=200, dropped=0), a
if sys.argv[2].startswith("URING_EAGAIN"):
    assert errors == 0, errors
else:
    # the calls in the refused submission fail (at most the 8 slots'); when the 20th
    # submission is a deadline wait's with nothing prepared, none does: 0 is no less right
    assert errors <= 8, errors
print("%s: %s, %d errors" % (sys.argv[2], a, errors))
PY
			tail -3 "$work/refused.out" | sed 's/^/     /'
	done
else
	skipped "refused submissions: no $hide"
fi

# 4. Overload: every slot busy for a second.
if ! fsfault_ready; then
	skip_env fuse "overloaded arrivals at depth: $fsfault_why"
	summary
fi
mnt=$work/held-mnt
fsfault_mount "$mnt" "$(shmdir)" -f "open:0:PAUSE:/drop/fsmix.fs0/data/" \
	-f "open:0:PAUSE:/queue/fsmix.fs0/data/" -f "open:0:PAUSE:/bound/fsmix.fs0/data/" ||
	{ bad "fsfault did not mount"; summary; }
# 40 writes, one start a millisecond: the first write's open held >= 1 s holds the daemon, so
# the other slots' calls wait behind it: for that second no slot is free.
profile 0 "	op_period=1
	num_ops=40" "	write_weight=1
	write_size=4KB
	write_blocksize=4KB" >"$work/held.ffsb"
run_held() { # run_held DIR OUT ARGS...: the run in $mnt/DIR, its first open held for 1 s
	local dir=$1 out=$2 pid
	shift 2
	mkdir -p "$mnt/$dir"
	timeout 300 "$bin" run "$work/held.ffsb" --location "$mnt/$dir" --json "$out.json" \
		"$@" >"$out.out" 2>"$out.err" &
	pid=$!
	fsfault_held "$dir" $pid 1
	wait $pid
}

run_held drop "$work/drop"
rc=$?
py_check "drop at depth 8: the starts that passed while all 8 slots were busy skipped and counted (exit $rc)" \
	"drop at depth 8 (exit $rc)" "$work/drop.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
a = g["arrivals"]
assert a["backlog"] == "drop" and a["served"] == 40 and a["dropped"] >= 900, a
assert a["queued_late"] == 0 and a["dropped"] == g["missed_starts"], a
assert a["intended"] == a["served"] + a["dropped"], a
assert g["max_in_flight"] == 8, g["max_in_flight"]
# one response sample per dropped start, besides the operations' own
assert g["response_latency"]["count"] >= a["dropped"], g["response_latency"]["count"]
print("drop: %s" % a)
PY

run_held queue "$work/queue" --set threadgroup0.arrival_backlog=queue \
	--set threadgroup0.arrival_backlog_max=100000
rc=$?
py_check "queue at depth 8: every start served, the late ones counted, response from the intended start (exit $rc)" \
	"queue at depth 8 (exit $rc)" "$work/queue.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
a = g["arrivals"]
assert a == dict(a, intended=40, served=40, dropped=0, bound_hits=0), a
# starts 8..39 found every slot busy (fewer when a pick found its file held by another slot:
# that slot was free again at once)
assert 24 <= a["queued_late"] <= 32, a
assert g["max_in_flight"] == 8, g["max_in_flight"]
r = g["response_latency"]
# every operation ended after the release (>= 1 s after the first start); start k is at k ms
assert r["count"] == g["operations"] and r["min_ms"] >= 900, r
assert g["op_latency"]["max_ms"] >= 900, g["op_latency"]
print("queue: %s, response min %.0f ms" % (a, r["min_ms"]))
PY

run_held bound "$work/bound" --set threadgroup0.arrival_backlog=queue \
	--set threadgroup0.arrival_backlog_max=10
rc=$?
py_check "queue at depth 8 at its bound: the oldest starts dropped and counted (exit $rc)" \
	"queue at its bound at depth 8 (exit $rc)" "$work/bound.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["groups"][0]
a = g["arrivals"]
assert a["served"] == 40 and a["bound_hits"] >= 1 and a["dropped"] >= 900, a
assert a["intended"] == a["served"] + a["dropped"] and a["dropped"] == g["missed_starts"], a
print("bound: %s" % a)
PY
cat "$work/bound.out" "$work/bound.err" | grep -Eq "^fsmix: warning: threadgroup0: the queued starts reached arrival_backlog_max \(10 a thread\) [1-9][0-9]* times; [0-9]+ starts were dropped" &&
	ok "queue at its bound at depth 8: the warning" ||
	{ bad "bound warning at depth 8"; cat "$work/bound.err"; }
summary
