#!/usr/bin/env bash
# End-to-end checks that results mean what FFSB's mean (issue 11, items 6-10): skipped picks
# cost no CPU and are reported, response time under op_period, FFSB's text for aging, time=0
# and count-limited runs, aging as FFSB ages, and the first run of a reuse=1 profile.
set -u
. "$(dirname "$0")/lib.bash"

# ---- item 7: a group whose file set is empty backs off instead of spinning -----------------
cat >"$work/empty.ffsb" <<'PROFILE'
time=2
[filesystem0]
	location=/tmp
	num_files=20
	num_dirs=2
	min_filesize=1KB
	max_filesize=1KB
[end0]
[threadgroup0]
	num_threads=4
	delete_weight=1
[end0]
PROFILE
loc=$(shmdir)
TIMEFORMAT='%U %S %R'
{ time "$bin" run "$work/empty.ffsb" --location "$loc" --json "$work/empty.json" \
	>"$work/empty.out" 2>"$work/empty.err"; } 2>"$work/empty.time"
rc=$?
read -r user sys wall <"$work/empty.time"
# Four workers spinning would use ~100-400 % of a CPU; backing off, a few percent.
if [ $rc -eq 0 ] && awk -v u="$user" -v s="$sys" -v w="$wall" 'BEGIN { exit !((u + s) < 0.25 * w) }'; then
	ok "an emptied file set: CPU ${user}+${sys} s in ${wall} s of wall time"
else
	bad "an emptied file set: exit $rc, CPU ${user}+${sys} s in ${wall} s"
fi
# The run phase alone: a worker that finds no file backs off (worker.c skip_backoff: 4 quick
# retries, then sleeps of 1 us doubling up to 4 ms), so it cannot take CPU from other groups.
# Counted, not timed (a CPU-percentage bound depends on the machine's cost of a wake-up): every
# sleep lasts at least what it asks, so a worker makes at most runtime / 4 ms picks in its long
# sleeps, plus 4 + 12 for each streak (a streak restarts after each of the 20 deletes). Twice
# that bound still fails a worker that spins (hundreds of thousands of picks per second).
read -r skipped runtime < <(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["total"]["skipped"], j["runtime_s"])' "$work/empty.json" 2>/dev/null)
bound=$(awk -v r="${runtime:-0}" 'BEGIN { printf "%d", 2 * (4 * r / 0.004 + (20 + 4) * (4 + 12)) }')
[ -n "${skipped:-}" ] && [ "$skipped" -le "$bound" ] &&
	ok "an emptied file set: $skipped skipped picks in ${runtime} s (backing off: at most $bound)" ||
	bad "an emptied file set: '${skipped:-}' skipped picks in '${runtime:-}' s (more than $bound: not backing off)"
grep -Eq '^fsmix: [0-9]+ operations .*, [0-9]+ skipped \(no file; (9[0-9]|100)\.[0-9]+% of picks\)' "$work/empty.out" &&
	grep -q '^fsmix: warning: .*% of the operations picked found no file' "$work/empty.out" &&
	ok "the summary gives the share of skipped picks and warns" ||
	{ bad "no skipped share or warning in the summary"; tail -3 "$work/empty.out"; }
pct=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["total"]["skipped_percent"])' "$work/empty.json" 2>/dev/null)
awk -v p="${pct:-x}" 'BEGIN { exit !(p + 0 > 90 && p + 0 <= 100) }' &&
	ok "JSON total.skipped_percent = $pct" || bad "JSON total.skipped_percent: '$pct'"
# --format ffsb keeps FFSB's text; the warning goes to stderr.
"$bin" run "$work/empty.ffsb" --location "$loc" --time 1 --format ffsb >"$work/empty-ffsb.out" 2>"$work/empty-ffsb.err"
! grep -q "skipped" "$work/empty-ffsb.out" && grep -q "warning: .*found no file" "$work/empty-ffsb.err" &&
	ok "--format ffsb: the skipped warning goes to stderr" || bad "--format ffsb: skipped warning"

# ---- item 10: the first run of a reuse=1 profile builds without complaint ------------------
loc=$(shmdir)
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 0 --set filesystem0.reuse=1 \
	--set filesystem0.num_files=20 >"$work/reuse1.out" 2>"$work/reuse1.err"
rc=$?
[ $rc -eq 0 ] && grep -q "no tree yet in .*: building it" "$work/reuse1.err" &&
	! grep -q "cannot reuse" "$work/reuse1.err" &&
	ok "reuse=1, first run: 'no tree yet: building it'" || { bad "reuse=1, first run (exit $rc)"; cat "$work/reuse1.err"; }
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 0 --set filesystem0.reuse=1 \
	--set filesystem0.num_files=20 >"$work/reuse2.out" 2>"$work/reuse2.err"
grep -q "reused" "$work/reuse2.err" && ! grep -q "no tree yet\|cannot reuse" "$work/reuse2.err" &&
	ok "reuse=1, second run reuses the tree" || { bad "reuse=1, second run"; cat "$work/reuse2.err"; }

# ---- item 6: aging as FFSB ages: a set of its own, stopped within 1 point of desired_util ----
# statvfs utilisation of a mount, in percent (FFSB's (f_blocks - f_bfree) / f_blocks).
util_of() { stat -f -c '%b %f' "$1" | awk '{ printf "%.2f", 100 * ($1 - $2) / $1 }'; }
# Aged files are f<N> with N >= 2^26 (ENGINE_AGED_ID_BASE); the benchmark's are below.
aged() { awk 'substr($1, 2) + 0 >= 67108864' "$1"; }
bench() { awk 'substr($1, 2) + 0 < 67108864' "$1"; }
if mount_tmpfs "$work/age64" "size=64m"; then
	# Big files against a small filesystem: 4 aging threads, creates up to 512 KB. One 1 KB
	# benchmark file is built after the aging (as FFSB), so the final usage is the aging's.
	for target in 0.20 0.60; do
		"$bin" run "$src/examples/aging.ffsb" --location "$work/age64" --time 0 \
			--set filesystem0.desired_util=$target --set filesystem0.num_files=1 \
			--set filesystem0.min_filesize=1KB --set filesystem0.max_filesize=512KB \
			--set filesystem0.threadgroup.num_threads=4 >"$work/age.out" 2>"$work/age.err"
		rc=$?
		u=$(util_of "$work/age64")
		if [ $rc -eq 0 ] && awk -v u="$u" -v t="$target" 'BEGIN { d = u - 100 * t; exit !(d <= 1 && d >= -1) }'; then
			ok "aging to desired_util=$target on a 64 MiB tmpfs ends at $u % used"
		else
			bad "aging to desired_util=$target on a 64 MiB tmpfs: exit $rc, $u % used"; tail -3 "$work/age.err"
		fi
	done
	grep -q "Aging ThreadGroup for fs" "$work/age.out" &&
		grep -q "desired utilization = 60.00%" "$work/age.out" &&
		ok "the FFSB config echo shows the desired utilization and the aging group" ||
		bad "no 'desired utilization' / 'Aging ThreadGroup' in the config echo"
	# The benchmark never touches the aged files: a callout lists them (after setup, before
	# the run), a delete-heavy group then empties its own set, and the aged files are as
	# they were.
	cat >"$work/age-bench.ffsb" <<PROFILE
time=2
callout=find $work/age64/fsmix.fs0/data -type f -printf '%f %s %T@\n' | sort >$work/aged-before
[filesystem0]
	location=$work/age64
	num_files=30
	num_dirs=2
	min_filesize=4KB
	max_filesize=16KB
	agefs=1
	desired_util=0.10
	[threadgroup]
		num_threads=2
		create_weight=4
		append_weight=2
		delete_weight=1
		write_size=4KB
		write_blocksize=4KB
	[end]
[end0]
[threadgroup0]
	num_threads=2
	delete_weight=4
	append_weight=2
	writeall_weight=1
	readall_weight=1
	write_size=4KB
	write_blocksize=4KB
	read_blocksize=4KB
[end0]
PROFILE
	"$bin" run "$work/age-bench.ffsb" --json "$work/age-bench.json" >"$work/age-bench.out" 2>"$work/age-bench.err"
	rc=$?
	find "$work/age64/fsmix.fs0/data" -type f -printf '%f %s %T@\n' | sort >"$work/aged-after"
	nb=$(aged "$work/aged-before" | wc -l)
	bench_before=$(bench "$work/aged-before" | wc -l)
	if [ $rc -eq 0 ] && [ "$nb" -gt 10 ] && [ "$bench_before" -eq 30 ] &&
		diff <(aged "$work/aged-before") <(aged "$work/aged-after") >/dev/null; then
		ok "the benchmark never touched the $nb aged files (of its own 30 files, $(bench "$work/aged-after" | wc -l) are left)"
	else
		bad "aged files changed by the benchmark (exit $rc, $nb aged, $bench_before benchmark files before)"
		diff <(aged "$work/aged-before") <(aged "$work/aged-after") | head -5
	fi
	# the callout exited 0: no warning about it
	! grep -q "callout" "$work/age-bench.err" && ok "a callout that succeeds: no warning" ||
		bad "a callout that exited 0 was warned about: $(grep callout "$work/age-bench.err")"
else
	skip_env mount "aging on a 64 MiB tmpfs: cannot mount one (needs root)"
fi

# ---- item 8: response time under op_period, from each operation's scheduled start -----------
# A deterministic stall: the process is stopped (SIGSTOP) for 0.3 s while a group fires every
# 10 ms. The starts that pass meanwhile must show in the response time, not in the service time.
# The run is counted, 300 starts 10 ms apart: it lasts at least 3 s on any machine, so the stall
# 0.2 s after it started falls inside it.
cat >"$work/sched.ffsb" <<'PROFILE'
time=0
[filesystem0]
	location=/tmp
	num_files=10
	num_dirs=1
	min_filesize=4KB
	max_filesize=4KB
[end0]
[threadgroup0]
	num_threads=1
	stat_weight=1
	op_period=10
	num_ops=300
	[stats]
		enable_stats=1
	[end]
[end0]
[threadgroup1]
	num_threads=1
	stat_weight=1
	op_delay=5
[end1]
PROFILE
loc=$(shmdir)
"$bin" run "$work/sched.ffsb" --location "$loc" --lat-log "$work/sched.log" --json "$work/sched.json" \
	>"$work/sched.out" 2>"$work/sched.err" &
pid=$!
if wait_for "$work/sched.err" "^fsmix: running" 20; then
	sleep 0.2
	kill -STOP $pid
	sleep 0.3
	kill -CONT $pid
fi
wait $pid
rc=$?
head -1 "$work/sched.log" | grep -q '^# t_s group thread op lat_ns bytes sync_ns resp_ns$' &&
	awk '!/^#/ { n++ } !/^#/ && (NF != 8 || $8 < $5 || ($2 == 1 && $8 != $5)) { exit 1 } END { exit !(n > 0) }' "$work/sched.log" &&
	ok "--lat-log: resp_ns >= lat_ns on every line, = lat_ns without op_period" ||
	{ bad "--lat-log resp_ns column"; head -3 "$work/sched.log"; }
awk '!/^#/ && $2 == 0 && $8 >= 250000000 { found = 1 } END { exit !found }' "$work/sched.log" &&
	ok "--lat-log: the op behind the 0.3 s stall has a response time >= 250 ms" ||
	bad "--lat-log: no response time >= 250 ms after the stall"
if python3 - "$work/sched.json" <<'CHECK'
import json, sys
j = json.load(open(sys.argv[1]))
g = j["groups"][0]
r, s = g["response_latency"], g["op_latency"]
assert g["missed_starts"] >= 20, g["missed_starts"]
assert r["max_ms"] >= 250 and r["max_ms"] >= s["max_ms"], (r["max_ms"], s["max_ms"])
assert r["count"] == g["operations"] + g["missed_starts"], (r["count"], g["operations"])
assert r["p99_ms"] >= s["p99_ms"]
assert j["groups"][1]["response_latency"] is None and j["groups"][1]["missed_starts"] == 0
assert j["total"]["response_latency"]["count"] == r["count"]
print("missed %d, response max %.1f ms, service max %.3f ms" % (g["missed_starts"], r["max_ms"], s["max_ms"]))
CHECK
then
	ok "JSON: response_latency beside op_latency, missed starts counted (exit $rc)"
else
	bad "JSON response_latency (exit $rc)"
fi
grep -q "^Response time in millisecs" "$work/sched.out" && grep -Eq "^ +response +[0-9]+ " "$work/sched.out" &&
	grep -Eq "^ +service +[0-9]+ " "$work/sched.out" && grep -Eq "^ +missed +[0-9]+ scheduled starts" "$work/sched.out" &&
	ok "text: service and response time of the op_period group" || bad "text: no response time section"

# ---- item 9: FFSB's text where scripts read it ----------------------------------------------
loc=$(shmdir)
# A count-limited run (num_ops, no time) is not FFSB's "only creating the fileset".
"$bin" run "$src/profiles/synctest.ffsb" --location "$loc" --set filesystem0.min_filesize=100KB \
	--set filesystem0.max_filesize=100KB --set threadgroup0.num_ops=20 --set threadgroup0.write_stride=4KB \
	--format ffsb >"$work/sync.out" 2>"$work/sync.err"
rc=$?
[ $rc -eq 0 ] && ! grep -q "Only creating the fileset" "$work/sync.out" &&
	grep -q "^Results:" "$work/sync.out" && grep -q "^fs setup took [0-9]* secs$" "$work/sync.out" &&
	ok "num_ops run: no 'Only creating the fileset', results printed" ||
	{ bad "num_ops run (exit $rc)"; head -5 "$work/sync.out"; }
# time=0: FFSB's lines, in FFSB's order.
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 0 --set filesystem0.num_files=10 \
	--format ffsb >"$work/t0.out" 2>"$work/t0.err"
rc=$?
[ $rc -eq 0 ] && grep -q "^Only creating the fileset, not running benchmark\.$" "$work/t0.out" &&
	[ "$(tail -2 "$work/t0.out" | head -1)" = "fs setup took 0 secs" ] &&
	[ "$(tail -1 "$work/t0.out")" = "Setup complete, exiting" ] &&
	ok "time=0: 'fs setup took N secs', 'Setup complete, exiting'" ||
	{ bad "time=0 text (exit $rc)"; tail -3 "$work/t0.out"; }
# The config echo: fsync_file = 0 in every group, current utilization in every filesystem, and
# FFSB's 15 operations only (fsmix's extensions when weighted).
grep -q $'^\t fsync_file       = 0$' "$work/t0.out" &&
	grep -Eq $'^\t current utilization = [0-9]+\\.[0-9]{2}%$' "$work/t0.out" &&
	[ "$(grep -c ' = [0-9]* ([0-9.]*%)$' "$work/t0.out")" -eq 15 ] &&
	ok "config echo: fsync_file, current utilization, FFSB's 15 op weights" ||
	bad "config echo: fsync_file / current utilization / op weights"
# write counts a whole file per write in FFSB's figures (--format ffsb), write_size in fsmix's.
cat >"$work/write.ffsb" <<'PROFILE'
time=1
[filesystem0]
	location=/tmp
	num_files=20
	num_dirs=1
	min_filesize=64KB
	max_filesize=64KB
[end0]
[threadgroup0]
	num_threads=1
	write_weight=1
	write_size=4KB
	write_blocksize=4KB
	op_period=5
[end0]
PROFILE
"$bin" run "$work/write.ffsb" --location "$loc" --format ffsb >"$work/wf.out" 2>/dev/null
"$bin" run "$work/write.ffsb" --location "$loc" >"$work/wt.out" 2>/dev/null
# MB/s per op = throughput / (trans/s): 64 KB (FFSB) against 4 KB (fsmix).
per_op() { awk '$1 == "write" && $2 == ":" { v = $NF; sub("/sec", "", v); u = v; gsub(/[0-9.e+]/, "", u); sub(u, "", v);
	m = u == "KB" ? 1024 : u == "MB" ? 1048576 : u == "GB" ? 1073741824 : 1; printf "%.0f", v * m / $4 }' "$1"; }
f_op=$(per_op "$work/wf.out") t_op=$(per_op "$work/wt.out")
awk -v f="$f_op" -v t="$t_op" 'BEGIN { exit !(f > 60000 && f < 70000 && t > 3800 && t < 4400) }' &&
	ok "write throughput: FFSB's figure (~64 KB a write) in --format ffsb, fsmix's (4 KB) in the text" ||
	bad "write throughput per op: ffsb '$f_op', text '$t_op'"

summary
