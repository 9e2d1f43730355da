#!/usr/bin/env bash
# --repeat until:PCT[:MAX] (docs/sweeps.md): a point is repeated until the 95 % confidence
# interval of its mean trans/s is within +-PCT % of the mean (at least 3 runs), or MAX runs are
# done. The targets are chosen so that the outcome does not depend on the machine: +-1000 % is
# met by any 3 runs of a real workload, +-0.0001 % by none (4 timed runs would have to agree to
# a millionth). Also the table's and the JSON's CI of every figure, bad arguments, and MPI.
set -u
. "$(dirname "$0")/lib.bash"

loc=$(shmdir)
# Timed runs of default.ffsb are paced (lib.bash): at full speed they fill /dev/shm.
tiny=(--set filesystem0.num_files=50 --set filesystem0.num_dirs=5 --time 1 "${paced[@]}")
prof="$src/profiles/default.ffsb"

# A loose target: reached at the third run of each point of a sweep.
"$bin" run "$prof" --location "$loc" "${tiny[@]}" --threads 1,2 --repeat until:1000%:5 \
	--json "$work/loose.json" >"$work/loose.out" 2>"$work/loose.err"
rc=$?
runs=$(grep -c "trans/s; tree" "$work/loose.err")
[ $rc -eq 0 ] && [ "$runs" -eq 6 ] && ok "until:1000%:5 on 2 points: exit 0, 3 runs each" ||
	{ bad "loose target: exit $rc, $runs runs"; tail -3 "$work/loose.err"; }
[ "$(grep -c "after 3 runs: target ±1000% reached" "$work/loose.err")" -eq 2 ] &&
	ok "the log says the target was reached after 3 runs, per point" || bad "loose target: log"
grep -q "^95% CI of the mean .*target$" "$work/loose.out" &&
	[ "$(grep -cE "^threads=[12] +3 .* reached$" "$work/loose.out")" -eq 2 ] &&
	ok "the table gives the CI of every figure and 'reached' per point" ||
	{ bad "loose target: table"; cat "$work/loose.out"; }
python3 - "$work/loose.json" <<'PY' && ok "JSON: repeat_until, per point until and the CI of every figure" || bad "loose target: JSON"
import json, math, sys
d = json.load(open(sys.argv[1]))
u = d["repeat_until"]
assert u == {"target_pct": 1000.0, "min_runs": 3, "max_runs": 5, "metric": "trans_per_s"}, u
assert d["repeat"] == 5 and len(d["points"]) == 2
for p in d["points"]:
    assert p["until"]["reached"] is True and p["until"]["outcome"] == "reached", p["until"]
    assert p["until"]["runs"] == 3 and len(p["runs"]) == 3
    t = p["summary"]["trans_per_s"]
    vals = [r["total"]["trans_per_s"] for r in p["runs"]]
    mean = sum(vals) / 3
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / 2)
    # df = 2 has a closed form: t_p = (2p - 1) * sqrt(2 / (1 - (2p - 1)^2)); 4.3027 for p = 0.975
    q = 0.95 * math.sqrt(2 / (1 - 0.95 ** 2))
    half = q * sd / math.sqrt(3)
    assert t["n"] == 3 and abs(t["mean"] - mean) < 1e-6 * mean, t
    assert abs(t["ci95_half"] - half) < 1e-6 * half, (t, half)
    assert abs(t["ci95_low"] - (mean - half)) < 1e-6 * mean and abs(t["ci95_high"] - (mean + half)) < 1e-6 * mean
    assert abs(t["ci95_pct"] - 100 * half / mean) < 1e-6 * t["ci95_pct"]
    assert abs(p["until"]["trans_per_s_ci95_pct"] - t["ci95_pct"]) < 1e-9
    assert t["ci95_pct"] <= 1000
    for k, v in p["summary"].items():
        assert v is None or {"n", "mean", "stddev", "ci95_half", "ci95_low", "ci95_high", "ci95_pct"} <= set(v), k
PY

# An impossible target: MAX runs, "not reached".
"$bin" run "$prof" --location "$loc" "${tiny[@]}" --repeat until:0.0001%:4 \
	--json "$work/tight.json" >"$work/tight.out" 2>"$work/tight.err"
rc=$?
runs=$(grep -c "trans/s; tree" "$work/tight.err")
[ $rc -eq 0 ] && [ "$runs" -eq 4 ] && grep -q "after 4 runs: target ±0.0001% not reached" "$work/tight.err" &&
	grep -qE "^run +4 .* not reached$" "$work/tight.out" &&
	ok "until:0.0001%:4: 4 runs, 'not reached' (log and table)" ||
	{ bad "tight target: exit $rc, $runs runs"; tail -3 "$work/tight.err"; }
python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
assert p["until"]["reached"] is False and p["until"]["outcome"] == "not reached" and p["until"]["runs"] == 4, p["until"]
assert p["summary"]["trans_per_s"]["n"] == 4' "$work/tight.json" && ok "JSON: reached false after MAX runs" ||
	bad "tight target: JSON"

# A fixed --repeat 2 also gets the CI (n = 2: t_{0.975,1} = 12.706).
"$bin" run "$prof" --location "$loc" "${tiny[@]}" --repeat 2 --json "$work/two.json" >"$work/two.out" 2>/dev/null
python3 -c '
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["repeat_until"] is None and "until" not in d["points"][0]
t = d["points"][0]["summary"]["trans_per_s"]
half = math.tan(math.pi * (0.975 - 0.5)) * t["stddev"] / math.sqrt(2)  # df = 1: Cauchy
assert abs(t["ci95_half"] - half) < 1e-6 * half, (t, half)' "$work/two.json" &&
	grep -q "^95% CI of the mean" "$work/two.out" && ! grep -q "target" "$work/two.out" &&
	ok "--repeat 2: the CI of every figure, no target" || bad "--repeat 2: CI"

# Bad arguments: exit 2 and a message, nothing run.
for a in until until: until:0 until:-1% until:2%:2 until:2%:1001 until:x until:2%x until:2%:; do
	"$bin" run "$prof" --location "$loc" --repeat "$a" >/dev/null 2>"$work/bad.err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "until:PCT\[:MAX\]" "$work/bad.err" && ! grep -q "trans/s; tree" "$work/bad.err" ||
		bad "--repeat $a: exit $rc: $(cat "$work/bad.err")"
done
ok "bad until arguments: exit 2 with the syntax"
"$bin" run "$prof" --location "$loc" --repeat until:5% --interval 1 >/dev/null 2>"$work/ival.err"
[ $? -eq 2 ] && grep -q "not available in sweeps" "$work/ival.err" && ok "until with --interval: refused like any sweep" ||
	bad "until with --interval"

# MPI: rank 0's merged results decide, every rank follows (a disagreement would hang: timeout).
if [ -n "${FSMIX_SANITIZERS:-}" ]; then
	skipped "MPI: tested in the default build only (sanitizers: $FSMIX_SANITIZERS)"
elif ! command -v mpirun >/dev/null; then
	skip_env mpi "MPI: no mpirun"
elif ! ldd "$bin" 2>/dev/null | grep -q libmpi; then
	skip_env mpi "MPI: this fsmix was built without MPI support"
else
	mloc=$(shmdir)
	for t in "1000%:4 3 true" "0.0001%:3 3 false"; do
		read -r target n reached <<<"$t"
		timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$bin" run "$prof" \
			--location "$mloc" "${tiny[@]}" --threads 1 --repeat "until:$target" \
			--json "$work/mpi.json" >"$work/mpi.out" 2>"$work/mpi.err"
		rc=$?
		python3 - "$work/mpi.json" "$n" "$reached" <<'PY' && [ $rc -eq 0 ] &&
import json, sys
d = json.load(open(sys.argv[1]))
p = d["points"][0]
assert len(p["runs"]) == int(sys.argv[2]) and p["until"]["reached"] == (sys.argv[3] == "true"), p["until"]
assert all(r["mpi"]["ranks"] == 2 for r in p["runs"])
PY
			ok "MPI, 2 ranks, until:$target: $n merged runs, reached $reached" ||
			{ bad "MPI until:$target: exit $rc"; tail -3 "$work/mpi.err"; }
	done
fi
summary
