#!/usr/bin/env bash
# A single run's own noise (--interval, docs/output.md "Interval noise"): the CV of the interval
# trans/s, and the warning of a run whose last third of intervals differs from its middle third
# by more than the noise within them. A group that starts two thirds into the run (start_delay)
# at a fixed pace (op_period) makes a run that has certainly not settled, whatever the machine's
# speed; a real run's figures are checked against the documented formulas, recomputed here from
# its JSON rows.
set -u
. "$(dirname "$0")/lib.bash"

loc=$(shmdir)
cat >"$work/step.ffsb" <<'P'
time=3
[filesystem0]
	location=/tmp
	num_files=20
	num_dirs=2
	size_weight 1KB 1
[end0]
[threadgroup0]
	num_threads=1
	stat_weight=1
	op_period=10
[end0]
[threadgroup1]
	num_threads=2
	stat_weight=1
	op_period=10
	start_delay=2000
[end1]
P
"$bin" run "$work/step.ffsb" --location "$loc" --interval 0.1 --json "$work/step.json" \
	>"$work/step.out" 2>"$work/step.err"
rc=$?
[ $rc -eq 0 ] && grep -q "^Interval noise: trans/sec CV .* over .* intervals .*: not settled$" "$work/step.out" &&
	grep -q "^fsmix: warning: the run has not settled: its last third of intervals averages" "$work/step.out" &&
	ok "a rate that triples in the last third: the CV line says not settled, and a warning" ||
	{ bad "step: exit $rc"; sed -n '/^Intervals/,$p' "$work/step.out" | grep -v "^ "; }
python3 - "$work/step.json" <<'PY' && ok "JSON interval_noise: settled false, the last third about 3x the middle" || bad "step: JSON"
import json, sys
n = json.load(open(sys.argv[1]))["interval_noise"]
assert n["settled"] is False and n["metric"] == "trans_per_s", n
assert n["last_third_mean"] > 2 * n["middle_third_mean"] and n["change_pct"] > 100, n
PY
"$bin" run "$work/step.ffsb" --location "$loc" --interval 0.1 --format ffsb >"$work/ffsb.out" 2>"$work/ffsb.err"
! grep -q "not settled" "$work/ffsb.out" && grep -q "warning: the run has not settled" "$work/ffsb.err" &&
	ok "--format ffsb: FFSB's text unchanged, the warning on stderr" ||
	{ bad "--format ffsb: warning"; grep -i "settled\|noise" "$work/ffsb.out" "$work/ffsb.err"; }

# A real run: every figure as docs/output.md defines it, from the rows themselves (paced: timed,
# it would write as fast as the machine can into /dev/shm).
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --set filesystem0.num_files=50 \
	--set filesystem0.num_dirs=5 --time 2 "${paced[@]}" --interval 0.1 --json "$work/real.json" \
	>"$work/real.out" 2>/dev/null
python3 - "$work/real.json" "$work/real.out" <<'PY' && ok "a real run: CV, thirds, noise and verdict follow the documented formulas" || bad "real run: figures"
import json, math, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
rows = d["intervals"]
import statistics
counted = [r for r in rows if not r.get("ramp") and r["length_s"] > 0]
typical = statistics.median(r["length_s"] for r in counted)  # the median counted row's length
x = [r["transactions"] / r["length_s"] for r in counted if r["length_s"] >= typical / 2]
def ms(v):
    m = sum(v) / len(v)
    return m, math.sqrt(sum((a - m) ** 2 for a in v) / (len(v) - 1))
m, s = ms(x)
n = d["interval_noise"]
assert n["intervals"] == len(x) and len(x) >= 9, (n, len(x))
assert abs(n["mean"] - m) <= 1e-9 * m and abs(n["cv_pct"] - 100 * s / m) <= 1e-6, (n, m, s)
k = len(x) // 3
mm, sm = ms(x[len(x) - 2 * k:len(x) - k])
ml, sl = ms(x[len(x) - k:])
w = math.sqrt((sm * sm + sl * sl) / 2)
assert n["third_intervals"] == k
assert abs(n["middle_third_mean"] - mm) <= 1e-9 * mm and abs(n["last_third_mean"] - ml) <= 1e-9 * mm
assert abs(n["noise_stddev"] - w) <= 1e-9 * mm + 1e-9, (n, w)
settled = abs(ml - mm) <= w + 1e-9 * mm
assert n["settled"] == settled, (n, settled)
warned = "warning: the run has not settled" in text
assert warned == (not settled), warned
line = [l for l in text.splitlines() if l.startswith("Interval noise: ")]
assert len(line) == 1 and ("CV %.1f%%" % n["cv_pct"]) in line[0], line
PY
# Without --interval: nothing.
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --set filesystem0.num_files=50 \
	--time 1 "${paced[@]}" --json "$work/none.json" >"$work/none.out" 2>/dev/null
! grep -q "Interval noise" "$work/none.out" &&
	python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["interval_noise"] is None' "$work/none.json" &&
	ok "without --interval: no noise line, interval_noise null" || bad "without --interval"
summary
