#!/usr/bin/env bash
# Busy is not empty (issue 28, item 6): a pick that found files, but every one held by another
# thread, is counted as "busy", apart from "skipped (no file)" (an empty file set), in the
# JSON, the CSV and the text, with its own warning; --format ffsb keeps FFSB's text and sends
# the warning to stderr. The contended case is made deterministic by tests/tools/fsfault (a
# FUSE passthrough): the run's first open of a data file is held (rule open:0:PAUSE) while the
# other threads pick, so both files stay held whatever the machine's speed. Needs root,
# /dev/fuse, fusermount3 and fsfault for that part (skipped otherwise); the empty case runs
# everywhere.
set -u
. "$(dirname "$0")/lib.bash"

# ---- an empty file set: no-file picks, no busy ones -------------------------------------
cat >"$work/empty.ffsb" <<'PROFILE'
time=1
[filesystem0]
	location=/tmp
	num_files=0
	num_dirs=1
	min_filesize=4KB
	max_filesize=4KB
[end0]
[threadgroup0]
	num_threads=2
	read_weight=1
	read_size=4KB
	read_blocksize=4KB
[end0]
PROFILE
loc=$(shmdir)
"$bin" run "$work/empty.ffsb" --location "$loc" --json "$work/empty.json" >"$work/empty.out" 2>"$work/empty.err"
rc=$?
if python3 - "$work/empty.json" <<'PY'; then
import json, sys
t = json.load(open(sys.argv[1]))["total"]
assert t["skipped"] > 0 and t["busy"] == 0, (t["skipped"], t.get("busy"))
assert t["busy_percent"] == 0 and t["skipped_percent"] > 90, (t["busy_percent"], t["skipped_percent"])
op = [o for o in t["ops"] if o["name"] == "read"][0]
assert op["skipped"] == t["skipped"] and op["busy"] == 0, op
PY
	ok "an empty file set: no-file picks, busy 0 in the JSON (exit $rc)"
else
	bad "an empty file set: JSON skipped/busy wrong (exit $rc)"
fi
grep -q '^fsmix: warning: .*found no file' "$work/empty.out" && ! grep -q 'busy' "$work/empty.out" &&
	ok "an empty file set: the no-file warning, no busy figure in the text" ||
	{ bad "an empty file set: text report"; tail -4 "$work/empty.out"; }

# ---- every file held by another thread: busy picks, no no-file ones ------------------------
if ! fsfault_ready; then
	skip_env fuse "busy picks: $fsfault_why"
	summary
fi
# The build creates (FUSE create), the run's writes open existing files (FUSE open): the
# first open below a tree's data/ is its run's first operation. Held until SIGUSR2; fsfault
# serves one call at a time, so the next thread to take the other file waits in its open too,
# and every other pick finds both files held. A rule holds one call: one rule per run, each
# run in a directory of its own.
mnt=$work/held-mnt # (no "busy" in the path: FFSB's text prints it)
fsfault_mount "$mnt" "$(shmdir)" -f "open:0:PAUSE:/one/fsmix.fs0/data/" \
	-f "open:0:PAUSE:/two/fsmix.fs0/data/" || { bad "fsfault did not mount"; summary; }

cat >"$work/busy.ffsb" <<'PROFILE'
time=1
[filesystem0]
	location=/tmp
	num_files=2
	num_dirs=1
	min_filesize=4KB
	max_filesize=4KB
[end0]
[threadgroup0]
	num_threads=8
	write_weight=1
	write_size=4KB
	write_blocksize=4KB
[end0]
PROFILE
# run_held DIR OUT ARGS...: the run in $mnt/DIR in the background, its first open held for
# 2 s (past the run's 1 s: the other threads pick until the deadline meanwhile), released.
run_held() {
	local dir=$1 out=$2 pid
	shift 2
	mkdir -p "$mnt/$dir"
	timeout 300 "$bin" run "$work/busy.ffsb" --location "$mnt/$dir" "$@" >"$out.out" 2>"$out.err" &
	pid=$!
	fsfault_held "$dir" $pid 2
	wait $pid
}
run_held one "$work/busy" --json "$work/busy.json" --csv "$work/busy.csv"
rc=$?
if python3 - "$work/busy.json" "$work/busy.csv" <<'PY'; then
import csv, json, sys
t = json.load(open(sys.argv[1]))["total"]
assert t["busy"] > 0 and t["skipped"] == 0, (t.get("busy"), t["skipped"])
assert t["busy_percent"] > 0 and t["skipped_percent"] == 0, (t["busy_percent"], t["skipped_percent"])
op = [o for o in t["ops"] if o["name"] == "write"][0]
assert op["busy"] == t["busy"] and op["skipped"] == 0, op
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["kind"] == "op" and r["group"] == "total"]
assert rows and rows[0]["busy"] == str(t["busy"]) and rows[0]["skipped"] == "0", rows
print("busy %d (%.1f %% of picks), no file 0" % (t["busy"], t["busy_percent"]))
PY
	ok "every file held: busy picks, no-file 0 in the JSON and the CSV (exit $rc)"
else
	bad "every file held: JSON/CSV busy wrong (exit $rc)"
fi
grep -Eq '^fsmix: [0-9]+ operations .*, 0 skipped \(no file; 0\.00% of picks\), [0-9]+ busy \(every file in use; [0-9.]+% of picks\)' "$work/busy.out" &&
	grep -q '^fsmix: warning: .*% of the operations picked found every file they could work on busy' "$work/busy.out" &&
	grep -Eq '^ +write +0 failed +0 skipped \(no file\) +[1-9][0-9]* busy' "$work/busy.out" &&
	ok "every file held: the text gives busy apart from no file, with its own warning" ||
	{ bad "every file held: text report"; tail -12 "$work/busy.out"; }

run_held two "$work/busy-ffsb" --format ffsb
rc=$?
! grep -q "busy\|skipped" "$work/busy-ffsb.out" && grep -q "warning: .*busy (held by another thread)" "$work/busy-ffsb.err" &&
	ok "--format ffsb: FFSB's text unchanged, the busy warning on stderr (exit $rc)" ||
	{ bad "--format ffsb: busy warning (exit $rc)"; cat "$work/busy-ffsb.err"; }
summary
