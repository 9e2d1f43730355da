#!/usr/bin/env bash
# Reports: device flushes on a loop-mounted ext4 with and without barriers, n/a on tmpfs,
# --format ffsb, --interval rows, the live progress line on a terminal.
set -u
. "$(dirname "$0")/lib.bash"

flushes() { sed -n 's/^  flush requests \([0-9]*\) .*/\1/p' "$1" | head -1; }
fsyncs() { awk '$1 == "fsync" && $2 ~ /^[0-9]+$/ { print $2; exit }' "$1"; }

if mount_ext4 "$work/barrier" 256 && mount_ext4 "$work/nobarrier" 256 "barrier=0"; then
	# Counted: 2 threads x 100 appends, 200 fsyncs however fast the device is.
	for m in barrier nobarrier; do
		"$bin" run "$src/examples/fsync-append.ffsb" --location "$work/$m" --time 0 \
			--set threadgroup0.num_ops=100 >"$work/$m.out" 2>"$work/$m.err" ||
			bad "$m run failed: $(tail -1 "$work/$m.err")"
	done
	fb=$(flushes "$work/barrier.out") fn=$(flushes "$work/nobarrier.out")
	sb=$(fsyncs "$work/barrier.out") sn=$(fsyncs "$work/nobarrier.out")
	echo "     barrier: $fb flushes for $sb fsyncs; barrier=0: $fn flushes for $sn fsyncs"
	[ -n "$fb" ] && [ -n "$sb" ] && [ "$sb" -eq 200 ] && [ "$fb" -ge "$sb" ] &&
		ok "ext4 with barriers: at least one flush per fsync reported" || bad "ext4 barrier flushes"
	[ -n "$fn" ] && [ -n "$sn" ] && [ "$sn" -eq 200 ] && [ "$fn" -le $((sn / 100 + 2)) ] &&
		ok "ext4 with barrier=0: (almost) no flushes" || bad "ext4 nobarrier flushes"
	grep -q "flush requests .*/sec, .* per sync call" "$work/barrier.out" &&
		ok "flushes per second and per sync call are printed" || bad "flush rates"
else
	skip_env loop "device flushes: no loop-mounted ext4 here (needs root and loop devices)"
fi

loc=$(shmdir)
# Timed runs of default.ffsb are paced (lib.bash): at full speed they fill /dev/shm.
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 2 "${paced[@]}" --interval 0.5 >"$work/shm.out" 2>"$work/shm.err"
grep -q "^  n/a: tmpfs has no block device" "$work/shm.out" && ! grep -q "flush requests [0-9]" "$work/shm.out" &&
	ok "tmpfs: device counters are n/a with the reason" || bad "tmpfs n/a"
# At least 4 rows (the run lasts at least 2 s); every row but the last ends on a multiple of
# 0.5 s, the last one at the end of the run, at most 0.5 s after the row before it. How long
# after 2 s the run ends is up to the machine.
rows=$(awk '/^Intervals/ { f = 1; next } f && NF == 0 { f = 0 } f && $1 ~ /^[0-9.]+$/ { n++ } END { print n + 0 }' "$work/shm.out")
awk '/^Intervals/ { f = 1; next } f && NF == 0 { f = 0 } f && $1 ~ /^[0-9.]+$/ { t[++n] = $1 }
	END { if (n < 4) exit 1
		for (i = 1; i < n; i++) if (t[i] != sprintf("%.2f", 0.5 * i)) exit 1
		exit !(t[n] >= 0.5 * (n - 1) && t[n] <= 0.5 * n) }' "$work/shm.out" &&
	ok "--interval 0.5 over 2 s: $rows rows of 0.5 s, the last one to the end of the run" ||
	{ bad "--interval rows: $rows"; sed -n '/^Intervals/,/^$/p' "$work/shm.out" | sed 's/^/     /'; }
for s in "Operation latency" "Sync latency" "System call latency" "CPU: user"; do
	grep -q "^$s" "$work/shm.out" || bad "text report lacks '$s'"
done
ok "text report has its latency, sync and CPU sections"

"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 1 "${paced[@]}" --format ffsb >"$work/ffsb.out" 2>/dev/null
grep -q "^Total Results" "$work/ffsb.out" && grep -q "Transactions per Second" "$work/ffsb.out" &&
	grep -q "^System Call Latency statistics in millisecs" "$work/ffsb.out" &&
	! grep -q "^Operation latency\|^fsmix:\|^Device counters" "$work/ffsb.out" &&
	ok "--format ffsb prints only the FFSB-compatible part" || bad "--format ffsb"

# JSON and CSV: valid, and equal to what an FFSB-style parser reads from the text report.
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 2 "${paced[@]}" --interval 1 --json "$work/r.json" \
	--csv "$work/r.csv" >"$work/r.txt" 2>"$work/r.err"
rc=$?
if [ $rc -eq 0 ] && python3 - "$work/r.json" "$work/r.txt" "$work/r.csv" <<'PY'
import csv, json, re, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
# FFSB-style parsing, as mmtests did: the op lines of the "Total Results" block and the totals.
block = text[text.index("Total Results"):]
block = block[:block.index("Transactions per Second")]
ops = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\s*(\w+) :\s+(\d+)\t", block, re.M)}
tps = float(re.search(r"^([\d.]+) Transactions per Second", text, re.M).group(1))
total = d["total"]
jops = {o["name"]: o["transactions"] for o in total["ops"] if o["transactions"]}
assert ops == jops, (ops, jops)
assert abs(total["trans_per_s"] - tps) <= 0.01 * tps + 0.01, (total["trans_per_s"], tps)
assert d["schema_version"] >= 1 and d["interrupted"] is False and d["exit_status"] == 0
assert len(d["intervals"]) >= 2
for g in d["groups"]:
    for sc in g["syscalls"]:
        r = sc.get("msec_ranges")
        if r:
            assert sum(x["count"] for x in r) + sc["outside"] == sc["latency"]["count"], sc
rows = list(csv.DictReader(open(sys.argv[3])))
csv_ops = {r["name"]: int(r["transactions"]) for r in rows if r["kind"] == "op" and r["group"] == "total" and int(r["transactions"])}
assert csv_ops == jops, (csv_ops, jops)
assert sum(1 for r in rows if r["kind"] == "interval") == len(d["intervals"])
PY
then ok "JSON and CSV agree with the FFSB-style text report (transactions, trans/s, ranges)"
else bad "JSON/CSV vs text (exit $rc)"; tail -3 "$work/r.err"; fi
ls "$work"/r.json.tmp* >/dev/null 2>&1 && bad "a temp file was left next to the JSON" || ok "no temp file left"

# SIGINT mid-run: the JSON file is still complete and valid, marked interrupted; exit 130.
# (Read-only: a run that does not stop cannot fill the tmpfs.)
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 60 --json "$work/int.json" \
	--set threadgroup0.create_weight=0 --set threadgroup0.create_fsync_weight=0 \
	--set threadgroup0.delete_weight=0 --set threadgroup0.append_weight=0 \
	--set threadgroup0.append_fsync_weight=0 --set threadgroup0.writeall_weight=0 \
	--set threadgroup0.writeall_fsync_weight=0 >/dev/null 2>"$work/int.err" &
pid=$!
wait_for "$work/int.err" "running" 60 || bad "SIGINT JSON: the run did not start in 60 s"
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['interrupted'] is True and d['exit_status'] == 130 and d['signal'] == 'SIGINT'" "$work/int.json" &&
	ok "SIGINT: valid JSON marked interrupted, exit 130" || bad "SIGINT JSON (exit $rc)"
"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 1 --json "$work/nodir/x.json" >/dev/null 2>"$work/nodir.err"
[ $? -eq 2 ] && grep -q "nodir/x.json" "$work/nodir.err" && ! grep -q "running" "$work/nodir.err" &&
	ok "unwritable --json path: exit 2 naming it, before the run" || bad "unwritable json"

if command -v script >/dev/null; then
	# Until the status line shows a finished interval's rate (however long that takes), then
	# SIGINT: no number of operations in a time is assumed.
	# Read-only: a run that does not stop cannot fill the tmpfs.
	script -qfc "exec $bin run $src/profiles/default.ffsb --location $loc --time 600 --set threadgroup0.create_weight=0 --set threadgroup0.create_fsync_weight=0 --set threadgroup0.delete_weight=0 --set threadgroup0.append_weight=0 --set threadgroup0.append_fsync_weight=0 --set threadgroup0.writeall_weight=0 --set threadgroup0.writeall_fsync_weight=0 >/dev/null" /dev/null \
		>"$work/tty.out" 2>&1 &
	spid=$!
	wait_for "$work/tty.out" "elapsed, .* left\] .* ops/s" 120 && ok "progress line on a terminal" || bad "progress line"
	fpid=$(ps -o pid= --ppid $spid | tr -d ' ')
	[ -n "$fpid" ] && kill -INT "$fpid"
	for ((i = 0; i < 600; i++)); do kill -0 $spid 2>/dev/null || break; sleep 0.1; done
	kill -KILL $spid 2>/dev/null && bad "progress line: the run did not stop on SIGINT"
	wait $spid
	"$bin" run "$src/profiles/default.ffsb" --location "$loc" --time 2 "${paced[@]}" 2>"$work/notty.err" >/dev/null
	! grep -q "elapsed" "$work/notty.err" && ok "no progress line when stderr is not a terminal" || bad "progress without a tty"
else
	skip_env tool "progress line: no script(1) here"
fi
summary
