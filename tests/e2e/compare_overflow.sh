#!/usr/bin/env bash
# fsmix compare of valid documents whose figures overflow a double (issue 30): a run's ops/s of
# 1e308 is valid JSON and a valid report, but the change (and a sum or square over repeats) is
# inf. Such figures are reported as such -- "n/a (overflow)", mark "?", null in the JSON, an empty
# CSV field -- and the other rows as usual (it printed "inf inf inf%" and its --json failed with
# "Cannot allocate memory", exit 1).
set -u
. "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || { skipped "python3 is not installed"; summary; }

loc=$(shmdir)
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --set filesystem0.num_files=20 \
	--set filesystem0.num_dirs=2 --threads 1 --time 1 "${paced[@]}" --json "$work/base.json" \
	>/dev/null 2>"$work/run.err" || { bad "the base run failed: $(tail -2 "$work/run.err")"; summary; }
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
d = json.load(open(f"{w}/base.json"))
d["total"]["ops_per_s"] = 1e308
json.dump(d, open(f"{w}/big.json", "w"))
PY
"$bin" compare "$work/base.json" "$work/big.json" --json "$work/c.json" --csv "$work/c.csv" \
	>"$work/c.out" 2>"$work/c.err"
rc=$?
if [ $rc -eq 0 ] && ! grep -q "inf" "$work/c.out" &&
	grep -q "^run  *ops/s .* n/a  (?)  *n/a  n/a (overflow)$" "$work/c.out" &&
	grep -q "^run  *trans/s .*%  ([-+0])" "$work/c.out" && python3 - "$work" <<'PY'; then
import csv, json, sys
w = sys.argv[1]
rows = {r["metric"]: r for r in json.load(open(f"{w}/c.json"))["rows"]}
o = rows["ops_per_s"]
assert o["new"]["avg"] == 1e308 and o["change_pct"] is None and o["mark"] == "?", o
assert o["p_value"] is None and o["welch"] is None, o
assert rows["trans_per_s"]["change_pct"] == 0.0, rows["trans_per_s"]
c = {r["metric"]: r for r in csv.DictReader(open(f"{w}/c.csv"))}
assert c["ops_per_s"]["change_pct"] == "" and c["ops_per_s"]["mark"] == "?", c["ops_per_s"]
assert c["trans_per_s"]["change_pct"] == "0.000", c["trans_per_s"]
PY
	ok "compare: an overflowed change is n/a (overflow), '?', null in the JSON, empty in the CSV"
else
	bad "compare of 1e308: exit $rc: $(cat "$work/c.err")"; sed -n 3,5p "$work/c.out"
fi

summary
