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

summary
