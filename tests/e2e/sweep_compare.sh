#!/usr/bin/env bash
# Thread sweeps with repeats, compare with +/-/0 marks, plots, and SIGINT during a sweep.
set -u
. "$(dirname "$0")/lib.bash"

loc=$(shmdir)
# Timed runs of writing profiles are paced (lib.bash): at full speed they fill /dev/shm.
scaled=(--set filesystem0.num_files=300 --set filesystem0.num_dirs=10 --set directio=0 --time 1 "${paced[@]}")
"$bin" run "$src/profiles/ext4-barrier-2010.ffsb" --location "$loc" "${scaled[@]}" --threads 1,2,4 \
	--repeat 2 --json "$work/a.json" --csv "$work/a.csv" >"$work/a.out" 2>"$work/a.err"
rc=$?
runs=$(grep -c "trans/s; tree" "$work/a.err")
# (the rows of the first table: the second one, of the confidence intervals, has them too)
rows=$(sed '/^95% CI of the mean/q' "$work/a.out" | grep -c "^threads=[124] ")
cis=$(sed -n '/^95% CI of the mean/,$p' "$work/a.out" | grep -c "^threads=[124]  *2  *±")
[ $rc -eq 0 ] && [ "$runs" -eq 6 ] && [ "$rows" -eq 3 ] && [ "$cis" -eq 3 ] &&
	ok "--threads 1,2,4 --repeat 2: 6 runs, a 3-row table and the 3 points' CIs" ||
	bad "sweep: exit $rc, $runs runs, $rows rows, $cis CI rows"
python3 - "$work/a.json" "$work/a.csv" <<'PY' && ok "sweep JSON and CSV are complete and valid" || bad "sweep JSON/CSV"
import csv, json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "fsmix-sweep" and d["repeat"] == 2 and not d["interrupted"]
assert [p["label"] for p in d["points"]] == ["threads=1", "threads=2", "threads=4"]
for p in d["points"]:
    assert len(p["runs"]) == 2 and p["summary"]["trans_per_s"]["n"] == 2
    assert p["runs"][0]["groups"][0]["threads"] == int(p["params"]["threads"])
rows = list(csv.DictReader(open(sys.argv[2])))
assert sum(1 for r in rows if r["repeat"] in ("1", "2")) == 6
assert sum(1 for r in rows if r["repeat"] == "mean") == 3
PY
# Between points the tree is rebuilt (the workload changes it), and the time it took is said.
between=$(grep -cE "tree built, [0-9.]+ s between runs" "$work/a.err")
[ "$between" -eq 6 ] && ok "every point says how long its tree took to build" || bad "$between 'between runs' lines"
# A read-only workload reuses the tree between points.
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 1 --threads 1-2 \
	--set threadgroup0.create_weight=0 --set threadgroup0.create_fsync_weight=0 \
	--set threadgroup0.delete_weight=0 --set threadgroup0.append_weight=0 \
	--set threadgroup0.append_fsync_weight=0 --set threadgroup0.writeall_weight=0 \
	--set threadgroup0.writeall_fsync_weight=0 >"$work/ro.out" 2>"$work/ro.err"
grep -q "2/2: .* tree reused" "$work/ro.err" && ok "read-only sweep: the second point reuses the tree" ||
	bad "read-only sweep did not reuse"

# compare: identical inputs give 0 everywhere; an injected 30% rise gives +, a fall gives -.
python3 - "$work/a.json" "$work/base.json" "$work/up.json" "$work/down.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
# Deterministic documents: every run of a point carries the point's mean (no noise), so the
# marks depend on the injected change alone.
for p in d["points"]:
    r0 = p["runs"][0]
    for r in p["runs"]:
        r["total"] = copy.deepcopy(r0["total"])
json.dump(d, open(sys.argv[2], "w"))
for path, f in ((sys.argv[3], 1.3), (sys.argv[4], 0.7)):
    e = copy.deepcopy(d)
    for p in e["points"]:
        for r in p["runs"]:
            r["total"]["trans_per_s"] *= f
    json.dump(e, open(path, "w"))
PY
"$bin" compare "$work/base.json" "$work/base.json" >"$work/same.out" 2>&1
[ $? -eq 0 ] && ! grep -q "([+-])" "$work/same.out" && grep -q "(0)" "$work/same.out" &&
	ok "compare: identical inputs are all (0)" || bad "compare identical"
"$bin" compare "$work/base.json" "$work/up.json" --csv "$work/up.csv" >"$work/up.out" 2>&1
[ "$(grep -c "trans/s .*30.0%  (+)" "$work/up.out")" -eq 3 ] && grep -q "ops/s .*(0)" "$work/up.out" &&
	ok "compare: +30% trans/s marked (+) at every point, other metrics (0)" || { bad "compare +30%"; head -5 "$work/up.out"; }
"$bin" compare "$work/base.json" "$work/down.json" >"$work/down.out" 2>&1
[ "$(grep -c "trans/s .*-30.0%  (-)" "$work/down.out")" -eq 3 ] && ok "compare: -30% marked (-)" || bad "compare -30%"
grep -q "^threads=1,trans_per_s,.*,+$" "$work/up.csv" && ok "compare --csv" || bad "compare csv"
# The 2*STDDEV rule of the sync(2) series: xfs 1 disk, test 2 of seeds/002 is (+), ext4 1 disk (0).
python3 - "$work/base.json" "$work/s1.json" "$work/s2.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
def doc(vals):
    e = copy.deepcopy(d)
    e["points"] = [e["points"][0]]
    p = e["points"][0]
    p["runs"] = [copy.deepcopy(p["runs"][0]) for _ in vals]
    for r, v in zip(p["runs"], vals):
        r["total"]["trans_per_s"] = v
    return e
# two runs each: mean 0.436 sd 0.012 -> values 0.436 +- 0.012/sqrt(2)*... use exact pairs
import math
def pair(mean, sd):
    h = sd / math.sqrt(2)
    return [mean - h, mean + h]
json.dump(doc(pair(0.436, 0.012)), open(sys.argv[2], "w"))
json.dump(doc(pair(0.506, 0.014283)), open(sys.argv[3], "w"))
PY
"$bin" compare "$work/s1.json" "$work/s2.json" 2>&1 | grep -q "trans/s .*(+)" && ok "2*STDDEV rule reproduces the seed's (+)" || bad "2*STDDEV (+)"
# Welch's t-test next to the marks, on synthetic documents with a published answer: R's example
# t.test(extra ~ group, data = sleep) gives p-value = 0.07939 and the 95 % CI of
# mean(group 1) - mean(group 2) -3.3654832 to 0.2054832; BASE is group 2 (mean 2.33).
python3 - "$work/base.json" "$work/g2.json" "$work/g1.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
def doc(vals):
    e = copy.deepcopy(d)
    e["points"] = [e["points"][0]]
    p = e["points"][0]
    p["runs"] = [copy.deepcopy(p["runs"][0]) for _ in vals]
    for r, v in zip(p["runs"], vals):
        r["total"]["trans_per_s"] = v
    return e
json.dump(doc([1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]), open(sys.argv[2], "w"))
json.dump(doc([0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]), open(sys.argv[3], "w"))
PY
"$bin" compare "$work/g2.json" "$work/g1.json" --json "$work/welch.json" >"$work/welch.out" 2>&1
grep -q "trans/s .*(0)      0.079  \[-144.4%, +8.8%\]" "$work/welch.out" && python3 - "$work/welch.json" <<'PY' &&
import json, sys
rows = {r["metric"]: r for r in json.load(open(sys.argv[1]))["rows"]}
t = rows["trans_per_s"]
assert abs(t["p_value"] - 0.07939) < 5e-6, t
assert abs(t["welch"]["diff_low"] + 3.3654832) < 5e-8 and abs(t["welch"]["diff_high"] - 0.2054832) < 5e-8, t
lo, hi = t["ci95_change_pct"]
assert abs(lo + 100 * 3.3654832 / 2.33) < 1e-5 and abs(hi - 100 * 0.2054832 / 2.33) < 1e-5, t
# every run of the other metrics is the same: no spread, no test
assert rows["ops_per_s"]["p_value"] is None and rows["ops_per_s"]["ci95_change_pct"] is None
PY
	ok "compare: Welch's p-value and the CI of the change match R's t.test example" ||
	{ bad "compare: Welch's test"; grep "trans/s" "$work/welch.out"; }
# Different profiles are refused unless --force.
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 1 "${paced[@]}" --json "$work/other.json" >/dev/null 2>&1
"$bin" compare "$work/a.json" "$work/other.json" >"$work/diff.out" 2>&1
[ $? -eq 2 ] && grep -q "different profiles" "$work/diff.out" && ok "compare refuses different profiles (exit 2)" ||
	bad "compare different profiles"
"$bin" compare "$work/a.json" "$work/missing.json" >/dev/null 2>"$work/miss.err"
[ $? -eq 2 ] && grep -q "missing.json" "$work/miss.err" && ok "compare: unreadable file, exit 2" || bad "compare missing file"

# compare and plot check their JSON against the documented schema: nonsense is bad input (exit
# 2) naming the JSON path of the first bad field (issue 19 item 11).
python3 - "$work/a.json" "$work" <<'PY'
import copy, json, sys
sweep = json.load(open(sys.argv[1]))
run = sweep["points"][0]["runs"][0]
cases = {
    "version": (run, lambda d: d.update(schema_version=999), "$.schema_version: 999 is not a version"),
    "runtime": (run, lambda d: d.update(runtime_s="abc"), "$.runtime_s: must be a number (is a string)"),
    "groups": (run, lambda d: d.update(groups={}), "$.groups: must be an array (is an object)"),
    "total": (run, lambda d: d.pop("total"), "$.total: missing"),
    "latency": (run, lambda d: d["total"].update(op_latency="fast"), "$.total.op_latency: must be an object or null"),
    "sweep-version": (sweep, lambda d: d.update(schema_version=999), "$.schema_version: 999"),
    "sweep-run": (sweep, lambda d: d["points"][1]["runs"][0].update(runtime_s="abc"), "$.points[1].runs[0].runtime_s: must be a number"),
    "sweep-points": (sweep, lambda d: d.update(points={}), "$.points: must be an array (is an object)"),
}
with open(f"{sys.argv[2]}/bad-cases", "w") as f:
    for name, (doc, change, want) in cases.items():
        d = copy.deepcopy(doc)
        change(d)
        json.dump(d, open(f"{sys.argv[2]}/bad-{name}.json", "w"))
        f.write(f"{name}\t{want}\n")
json.dump(run, open(f"{sys.argv[2]}/good-run.json", "w"))
PY
while IFS=$'\t' read -r name want; do
	"$bin" compare "$work/a.json" "$work/bad-$name.json" >/dev/null 2>"$work/bad-$name.err"
	rc_c=$?
	"$bin" plot "$work/bad-$name.json" -o "$work/bad-$name.svg" 2>"$work/bad-$name.perr"
	rc_p=$?
	[ $rc_c -eq 2 ] && [ $rc_p -eq 2 ] && grep -qF "bad-$name.json: not a valid fsmix result: $want" "$work/bad-$name.err" &&
		grep -qF "$want" "$work/bad-$name.perr" && [ ! -e "$work/bad-$name.svg" ] &&
		ok "compare and plot refuse $name (exit 2, names $(echo "$want" | cut -d: -f1))" ||
		{ bad "nonsense $name: compare exit $rc_c, plot exit $rc_p"; tail -1 "$work/bad-$name.err" | sed 's/^/     /'; }
done <"$work/bad-cases"
"$bin" compare "$work/good-run.json" "$work/good-run.json" --force >/dev/null 2>&1 &&
	ok "a run's own JSON passes the check" || bad "a valid run JSON was refused"

# Plots: PNG and SVG of a sweep, a run's msec_range histogram, a comparison; valid files.
if command -v gnuplot >/dev/null; then
	"$bin" plot "$work/a.json" -o "$work/sweep.png" 2>/dev/null &&
		[ "$(head -c 8 "$work/sweep.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
		ok "plot: sweep PNG" || bad "plot sweep png"
	"$bin" plot "$work/a.json" -o "$work/sweep.svg" 2>/dev/null &&
		python3 -c "import sys, xml.dom.minidom as m; assert m.parse(sys.argv[1]).documentElement.tagName == 'svg'" "$work/sweep.svg" &&
		ok "plot: sweep SVG" || bad "plot sweep svg"
	"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 1 "${paced[@]}" --json "$work/one.json" >/dev/null 2>&1
	"$bin" plot "$work/one.json" -o "$work/hist.png" 2>/dev/null && [ -s "$work/hist.png" ] &&
		ok "plot: msec_range histogram of a run" || bad "plot histogram"
	"$bin" compare "$work/base.json" "$work/up.json" --plot "$work/cmp.svg" >/dev/null 2>&1 &&
		grep -q "<svg" "$work/cmp.svg" && ok "compare --plot: base vs new" || bad "compare plot"
	"$bin" plot "$work/a.json" -o "$work/x.gif" >/dev/null 2>&1
	[ $? -eq 2 ] && ok "plot: unknown extension, exit 2" || bad "plot extension"
	PATH=/nonexistent "$bin" plot "$work/a.json" -o "$work/y.png" 2>"$work/nognu.err"
	[ $? -eq 3 ] && grep -q "gnuplot" "$work/nognu.err" && ok "plot without gnuplot: exit 3 with a message" ||
		bad "missing gnuplot"
	# A sweep without latency timing (enable_stats=0): the latency panel has no data; it is
	# left out, and fsmix says so (gnuplot once failed: "x range is invalid").
	"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 1 "${paced[@]}" --set filesystem0.num_files=20 \
		--set filesystem0.num_dirs=2 --set threadgroup0.enable_stats=0 --threads 1,2 \
		--plot "$work/nostats.svg" --json "$work/nostats.json" >/dev/null 2>"$work/nostats.err"
	rc=$?
	series=$(grep -cE 'id="gnuplot_plot_[0-9]+[a-z]?"' "$work/nostats.svg" 2>/dev/null)
	[ $rc -eq 0 ] && [ "$series" = 2 ] && grep -q "no latency figures in the sweep.*left out" "$work/nostats.err" &&
		ok "sweep plot without latency timing: the latency panel left out and said so" ||
		{ bad "sweep plot with enable_stats=0: exit $rc, $series series"; tail -2 "$work/nostats.err" | sed 's/^/     /'; }
	"$bin" compare "$work/nostats.json" "$work/nostats.json" --force --plot "$work/nostats-cmp.svg" \
		>/dev/null 2>"$work/nostats-cmp.err" && grep -q "no op p99 in either document.*left out" "$work/nostats-cmp.err" &&
		ok "compare plot without latency timing: the p99 panel left out and said so" ||
		bad "compare plot with enable_stats=0: $(tail -1 "$work/nostats-cmp.err")"
else
	skip_env gnuplot "plots: gnuplot is not installed"
fi

# SIGINT during a sweep: it stops, and what finished is written. The third point would take ten
# minutes: the signal, sent once it has begun, lands in it whatever the machine's speed.
# (Read-only, so that a point that is not stopped cannot fill the tmpfs.)
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --sweep time=1,2,600 \
	--set threadgroup0.create_weight=0 --set threadgroup0.create_fsync_weight=0 \
	--set threadgroup0.delete_weight=0 --set threadgroup0.append_weight=0 \
	--set threadgroup0.append_fsync_weight=0 --set threadgroup0.writeall_weight=0 \
	--set threadgroup0.writeall_fsync_weight=0 --json "$work/int.json" >"$work/int.out" 2>"$work/int.err" &
pid=$!
wait_for "$work/int.err" "sweep 3/3: time=600" 120 || bad "sweep SIGINT: the third point did not start"
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
labels = [p['label'] for p in d['points']]
assert d['interrupted'] is True and labels[:2] == ['time=1', 'time=2'] and len(labels) <= 3, labels" "$work/int.json" &&
	ok "SIGINT during a sweep: exit 130, finished points written" || { bad "sweep SIGINT (exit $rc)"; tail -3 "$work/int.err"; }
grep -q "sweep interrupted; writing the 2 finished runs" "$work/int.err" &&
	ok "SIGINT during a sweep: the message counts the 2 finished runs" ||
	{ bad "sweep SIGINT: finished-run count"; grep "sweep interrupted" "$work/int.err"; }

# Bad sweep arguments: exit 2, nothing run.
for a in "--threads 1,,2" "--threads 8-1" "--threads 1-64:x1" "--sweep nokey" "--repeat 0"; do
	# shellcheck disable=SC2086
	"$bin" run "$src/profiles/default.ffsb" --location "$loc" $a >/dev/null 2>"$work/badarg.err"
	[ $? -eq 2 ] || bad "'$a' was accepted"
done
ok "bad lists, ranges and repeat counts: exit 2"
# An empty value is one wherever it is: first, between two commas, or after the last comma.
for a in "1,,2" ",1" "1,2,"; do
	"$bin" run "$src/profiles/default.ffsb" --location "$loc" "${scaled[@]}" --threads "$a" >/dev/null 2>"$work/badarg.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "'$a': empty value in the list" "$work/badarg.err" &&
		ok "--threads $a: exit 2, an empty value in the list" ||
		bad "--threads $a: exit $rc: $(head -2 "$work/badarg.err")"
done
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 1 --sweep filesystem0.num_files=10,abc >/dev/null 2>"$work/badval.err"
[ $? -eq 2 ] && grep -q "abc" "$work/badval.err" && ! grep -q "trans/s; tree" "$work/badval.err" &&
	ok "a bad value in a later point is found before anything runs" || bad "late bad value"
summary
