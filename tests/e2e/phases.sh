#!/usr/bin/env bash
# Phases and stonewalls (issue 28, item 2; docs/profile.md, "Phases"): a profile's thread groups
# run phase by phase (phase=N), each phase's threads started together once every thread of the
# phase before has ended (the barrier, checked on the --lat-log times), on the tree the phases
# before left (the stat phase finds every file the create phase made, the delete phase removes
# them all); stonewall=1 ends a counted phase when its first thread is done (mdtest -W), with
# the operations actually done reported; phase_time ends a phase by its time; each phase's
# figures in the text, JSON and CSV, the whole run's too; bad values fail at their line with
# exit 2, --strict-ffsb refuses the keys. Nothing here depends on the machine's speed: counts,
# not times, except the phase_time run (its length is the time set).
set -u
. "$(dirname "$0")/lib.bash"

# ---- create, stat, delete: order, barrier, the tree kept, per-phase results ------------------
cat >"$work/three.ffsb" <<'PROFILE'
[filesystem0]
	location=/unused
	num_files=0
	num_dirs=0
	min_filesize=0
	max_filesize=0
[end0]
[threadgroup0]
	phase=0
	num_threads=3
	num_ops=40
	create_weight=1
	write_blocksize=4KB
[end0]
[threadgroup1]
	phase=1
	num_threads=2
	num_ops=60
	stat_weight=1
[end1]
[threadgroup2]
	phase=2
	num_threads=4
	num_ops=30
	delete_weight=1
[end2]
PROFILE
loc=$(shmdir)
"$bin" run "$work/three.ffsb" --location "$loc" --json "$work/three.json" --csv "$work/three.csv" \
	--lat-log "$work/three.lat" >"$work/three.out" 2>"$work/three.err"
rc=$?
rc3=$rc
[ "$rc" = 0 ] && ok "a run of three phases exits 0" || { bad "three phases: exit $rc"; cat "$work/three.err"; }
if python3 - "$work/three.json" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
ph = d["phases"]
assert [p["phase"] for p in ph] == [0, 1, 2], ph
assert [p["groups"] for p in ph] == [["threadgroup0"], ["threadgroup1"], ["threadgroup2"]]
ops = [{o["name"]: o["count"] for o in p["ops"]} for p in ph]
# the stat phase stats as many files as the create phase made, the delete phase removes them
# all: none of them found an empty tree
assert ops == [{"create": 120}, {"stat": 120}, {"delete": 120}], ops
assert all(p["skipped"] == 0 and p["errors"] == 0 for p in ph), ph
assert [p["stop_reason"] for p in ph] == ["count"] * 3, [p["stop_reason"] for p in ph]
assert [p["counted_ops"] for p in ph] == [120, 120, 120]
assert not any(p["stonewall"] for p in ph)
# phases follow each other: each starts after the one before ended
for a, b in zip(ph, ph[1:]):
    assert b["start_s"] >= a["start_s"] + a["runtime_s"] - 1e-6, (a, b)
# rates over each phase's own time; the whole run's total over its whole time
for p in ph:
    assert abs(p["ops_per_s"] - p["operations"] / p["runtime_s"]) < 1e-6 * p["ops_per_s"], p
t = d["total"]
assert t["operations"] == 360 and d["stop_reason"] == "count", (t["operations"], d["stop_reason"])
assert d["runtime_s"] >= sum(p["runtime_s"] for p in ph) - 1e-6
assert [g["phase"] for g in d["groups"]] == [0, 1, 2]
for g, p in zip(d["groups"], ph):
    assert abs(g["ops_per_s"] - p["ops_per_s"]) < 1e-6 * p["ops_per_s"], (g, p)
PY
	ok "per phase in the JSON: 120 creates, then 120 stats of them, then 120 deletes, each phase's rate over its own time"
else
	bad "per-phase JSON"
fi
# the tree the phases shared is empty again: the delete phase removed every created file
left=$(find "$loc/fsmix.fs0/data" -type f -name 'f*' 2>/dev/null | wc -l)
[ "$rc3" = 0 ] && [ "$left" = 0 ] && ok "the delete phase found and removed every file of the create phase" ||
	bad "$left files left after the delete phase"
# the barrier: no operation of a phase starts before the last one of the phase before ended
if python3 - "$work/three.lat" <<'PY'; then
import sys
start, end = {}, {}
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    t, g, th, op, lat = line.split()[:5]
    g, t0 = int(g), float(t) * 1e9
    start[g] = min(start.get(g, t0), t0)
    end[g] = max(end.get(g, 0), t0 + int(lat))
assert sorted(start) == [0, 1, 2], start
for a, b in ((0, 1), (1, 2)):
    # the log's times have microseconds: 1 us of rounding
    assert start[b] >= end[a] - 1000, (a, b, end[a], start[b])
print("barrier gaps (us):", [round((start[b] - end[a]) / 1e3, 1) for a, b in ((0, 1), (1, 2))])
PY
	ok "barrier: every op of phase 1 started after the last op of phase 0 ended, and 2 after 1 (--lat-log)"
else
	bad "barrier: an op started before the phase before was over"
fi
# the text: the phases' table, one row per phase and per operation
if grep -q '^Phases (rates over each phase' "$work/three.out" &&
	grep -Eq '^ +0 +3 +[0-9.]+ +[0-9.]+ count +120 ' "$work/three.out" &&
	grep -Eq '^ +1 +2 +[0-9.]+ +[0-9.]+ count +120 ' "$work/three.out" &&
	grep -Eq '^ +stat +120 ops' "$work/three.out" &&
	grep -q 'fsmix: phase 2 ended after' "$work/three.err"; then
	ok "per phase in the text: the Phases table, a row per phase and per op"
else
	bad "per-phase text"
	sed -n '/^Phases/,/^$/p' "$work/three.out"
fi
# the CSV: a "phase" row per phase (its stop reason, count, start and length), a "phase_op"
# row per operation; the whole run's total rows are still there
if python3 - "$work/three.csv" <<'PY'; then
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ph = [r for r in rows if r["kind"] == "phase"]
assert [(r["group"], r["name"], r["count"]) for r in ph] == \
    [("phase0", "count", "120"), ("phase1", "count", "120"), ("phase2", "count", "120")], ph
assert all(float(r["length_s"]) > 0 and r["t_s"] != "" for r in ph), ph
po = [(r["group"], r["name"], r["count"]) for r in rows if r["kind"] == "phase_op"]
assert po == [("phase0", "create", "120"), ("phase1", "stat", "120"), ("phase2", "delete", "120")], po
tot = [r for r in rows if r["kind"] == "op" and r["group"] == "total"]
assert sorted(r["name"] for r in tot) == ["create", "delete", "stat"], tot
PY
	ok "per phase in the CSV: phase and phase_op rows beside the whole run's"
else
	bad "per-phase CSV"
fi
# compare reads two runs in phases: the whole run's figures, and each phase's as a point
"$bin" run "$work/three.ffsb" --location "$loc" --json "$work/three2.json" >/dev/null 2>&1
"$bin" compare "$work/three.json" "$work/three2.json" --csv "$work/cmp.csv" >"$work/cmp.out" 2>&1 &&
	grep -q '^run  *ops/s' "$work/cmp.out" && grep -q '^phase0  *ops/s' "$work/cmp.out" &&
	grep -q '^phase2  *ops/s' "$work/cmp.out" && python3 -c '
import csv, json, sys
a, b = (json.load(open(f))["phases"] for f in sys.argv[1:3])
rows = {(r["point"], r["metric"]): r for r in csv.DictReader(open(sys.argv[3]))}
for k in range(3):
    r = rows[("phase%d" % k, "ops_per_s")]
    assert abs(float(r["base_avg"]) - a[k]["ops_per_s"]) <= 1e-5 * a[k]["ops_per_s"], (r, a[k])  # 6 digits
    assert abs(float(r["new_avg"]) - b[k]["ops_per_s"]) <= 1e-5 * b[k]["ops_per_s"], (r, b[k])
' "$work/three.json" "$work/three2.json" "$work/cmp.csv" &&
	ok "fsmix compare reads runs in phases: the whole run, and each phase as a point of its own" ||
	{ bad "compare of phase runs"; cat "$work/cmp.out"; }

# ---- stonewall: the first thread done ends the phase for every thread -----------------------
# Phase 0: one thread of a stonewall group stats 30 times at full speed, while two threads of
# another group would take 30 x 1 s each (op_delay=1000): the stonewall ends the phase when the
# fast thread is done, waking the sleepers. Phase 1 runs afterwards as usual.
cat >"$work/wall.ffsb" <<'PROFILE'
[filesystem0]
	location=/unused
	num_files=20
	num_dirs=0
	min_filesize=0
	max_filesize=0
[end0]
[threadgroup0]
	phase=0
	num_threads=1
	num_ops=30
	stonewall=1
	stat_weight=1
[end0]
[threadgroup1]
	phase=0
	num_threads=2
	num_ops=30
	op_delay=1000
	stat_weight=1
[end1]
[threadgroup2]
	phase=1
	num_threads=2
	num_ops=10
	stat_weight=1
[end2]
PROFILE
loc=$(shmdir)
timeout 120 "$bin" run "$work/wall.ffsb" --location "$loc" --json "$work/wall.json" --csv "$work/wall.csv" \
	>"$work/wall.out" 2>"$work/wall.err"
rc=$?
if [ "$rc" = 0 ] && python3 - "$work/wall.json" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
p0, p1 = d["phases"]
assert p0["stop_reason"] == "stonewall" and p0["stonewall"] is True, p0
assert p0["counted_ops"] == 90, p0
# the fast thread's 30, and the slow ones' few: fewer than threads x num_ops
g0, g1 = d["groups"][0], d["groups"][1]
assert g0["operations"] == 30, g0["operations"]
assert g1["operations"] < 60, g1["operations"]
assert p0["operations"] == g0["operations"] + g1["operations"] < 90, p0
# prompt: the slow threads, asleep in op_delay, were woken (30 of their ops would take 30 s)
assert p0["runtime_s"] < 25, p0["runtime_s"]
assert p1["stop_reason"] == "count" and p1["operations"] == 20, p1
assert d["stop_reason"] == "count"
print("stonewall phase: %d of 90 ops in %.3f s" % (p0["operations"], p0["runtime_s"]))
PY
	ok "stonewall: phase 0 ended when its first thread had done num_ops (fewer than threads x num_ops), phase 1 ran after"
else
	bad "stonewall run (exit $rc)"
	cat "$work/wall.err"
fi
grep -Eq '^ +0 +3 .* stonewall +[0-9]+ ' "$work/wall.out" &&
	grep -q 'stonewall: the first thread to finish its num_ops ended the phase: [0-9]* operations of the 90 counted' "$work/wall.out" &&
	grep -q '^phase,phase0,stonewall,' "$work/wall.csv" &&
	ok "stonewall: the text and the CSV say so, with the operations done of those counted" ||
	{ bad "stonewall: the reports do not say so"; sed -n '/^Phases/,/^$/p' "$work/wall.out"; }
# the same stonewall with the fast thread at iodepth 4 (io_uring): its count done ends the phase
# too (the loop at depth > 1 tells the worker how many of its num_ops it did not start)
loc=$(shmdir)
timeout 120 "$bin" run "$work/wall.ffsb" --location "$loc" --json "$work/wall4.json" \
	--set threadgroup0.engine=io_uring --set threadgroup0.iodepth=4 >"$work/wall4.out" 2>&1
rc=$?
if [ "$rc" = 3 ]; then
	skipped "stonewall at iodepth 4: engine=io_uring cannot run here"
elif [ "$rc" = 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p0 = d["phases"][0]
assert p0["stop_reason"] == "stonewall", p0["stop_reason"]
assert d["groups"][0]["operations"] == 30 and p0["runtime_s"] < 25, p0
' "$work/wall4.json"; then
	ok "stonewall: a thread at iodepth 4 that finishes its count ends the phase"
else
	bad "stonewall at iodepth 4 (exit $rc)"
	tail -3 "$work/wall4.out"
fi
# without phases, a stonewall ends the run
loc=$(shmdir)
timeout 120 "$bin" run "$work/wall.ffsb" --location "$loc" --json "$work/wall1.json" \
	--set threadgroup0.phase=0 --set threadgroup1.phase=0 --set threadgroup2.phase=0 \
	>"$work/wall1.out" 2>&1
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["stop_reason"] == "stonewall" and len(d["phases"]) == 1, d["stop_reason"]
assert d["total"]["operations"] < 110, d["total"]["operations"]
' "$work/wall1.json" && ok "stonewall: one phase of every group ends at the first thread done" ||
	bad "stonewall in one phase"

# ---- phase_time: a phase of no count lasts its time -------------------------------------------
cat >"$work/timed.ffsb" <<'PROFILE'
[filesystem0]
	location=/unused
	num_files=10
	num_dirs=0
	min_filesize=0
	max_filesize=0
[end0]
[threadgroup0]
	phase=0
	num_threads=1
	num_ops=5
	stat_weight=1
[end0]
[threadgroup1]
	phase=1
	phase_time=1
	num_threads=2
	op_delay=10
	stat_weight=1
[end1]
PROFILE
loc=$(shmdir)
timeout 120 "$bin" run "$work/timed.ffsb" --location "$loc" --json "$work/timed.json" >/dev/null 2>&1
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["phases"]
assert p[0]["stop_reason"] == "count" and p[1]["stop_reason"] == "time", p
assert p[1]["time_s"] == 1 and 0.9 <= p[1]["runtime_s"] <= 1.1, p[1]["runtime_s"]
' "$work/timed.json" && ok "phase_time=1: the phase of no count ran for 1 s after the counted one" ||
	bad "phase_time"

# ---- a profile without phases keeps its report's shape ----------------------------------------
loc=$(shmdir)
sed '/phase=/d' "$work/three.ffsb" >"$work/flat.ffsb"
"$bin" run "$work/flat.ffsb" --location "$loc" --json "$work/flat.json" --csv "$work/flat.csv" \
	>"$work/flat.out" 2>&1
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert "phases" not in d and all("phase" not in g for g in d["groups"] + [d["total"]]), "phase keys"
' "$work/flat.json" && ! grep -q '^phase' "$work/flat.csv" && ! grep -q '^Phases' "$work/flat.out" &&
	ok "without phase=: no phases in the JSON, CSV or text" || bad "a run without phases reports phases"

# ---- bad values: exit 2 at their line; --strict-ffsb refuses the keys --------------------------
bad_case() { # NAME EXPECTED-LINE-REGEX PROFILE-TEXT
	printf '%s' "$3" >"$work/bad-$1.ffsb"
	"$bin" check "$work/bad-$1.ffsb" >"$work/bad-$1.out" 2>&1
	local rc=$?
	if [ "$rc" = 2 ] && grep -Eq "^$work/bad-$1.ffsb:$2" "$work/bad-$1.out"; then
		ok "bad: $1 (exit 2 at its line)"
	else
		bad "bad: $1 (exit $rc)"
		cat "$work/bad-$1.out"
	fi
}
head='[filesystem0]
location=/tmp
num_files=10
[end0]
'
bad_case gap '12: error: \[threadgroup1\] phase: phase 1 has no thread group' "$head[threadgroup0]
num_threads=1
num_ops=1
stat_weight=1
[end0]
[threadgroup1]
num_threads=1
phase=2
num_ops=1
stat_weight=1
[end1]
"
bad_case negative '7: error: \[threadgroup0\] phase:' "$head[threadgroup0]
num_threads=1
phase=-1
num_ops=1
stat_weight=1
[end0]
"
bad_case too_large '7: error: \[threadgroup0\] phase:' "$head[threadgroup0]
num_threads=1
phase=64
num_ops=1
stat_weight=1
[end0]
"
bad_case never_ends '7: error: \[threadgroup0\] phase: phase 0 would never end' "$head[threadgroup0]
num_threads=1
phase=0
stat_weight=1
[end0]
"
bad_case stonewall_uncounted '8: error: \[threadgroup0\] stonewall: needs num_ops' "time=3
$head[threadgroup0]
num_threads=1
stonewall=1
stat_weight=1
[end0]
"
bad_case phase_time_alone '7: error: \[threadgroup0\] phase_time: needs phases' "$head[threadgroup0]
num_threads=1
phase_time=5
stat_weight=1
[end0]
"
bad_case phase_time_differs '14: error: \[threadgroup1\] phase_time:' "$head[threadgroup0]
num_threads=1
phase=0
phase_time=3
stat_weight=1
[end0]
[threadgroup1]
num_threads=1
phase=0
phase_time=4
stat_weight=1
[end1]
"
"$bin" check --strict-ffsb "$work/three.ffsb" >"$work/strict.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q 'three.ffsb:9: error: \[threadgroup0\] phase:' "$work/strict.out" &&
	ok "--strict-ffsb refuses phase= (exit 2 at its line)" || { bad "--strict-ffsb: exit $rc"; cat "$work/strict.out"; }
# a bad --set value is refused like the file's
"$bin" run "$work/three.ffsb" --location "$(shmdir)" --set threadgroup1.phase=5 >"$work/set.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q 'phase 3 has no thread group' "$work/set.out" &&
	ok "--set threadgroup1.phase=5 leaves a gap: exit 2" || { bad "--set gap: exit $rc"; cat "$work/set.out"; }

summary
